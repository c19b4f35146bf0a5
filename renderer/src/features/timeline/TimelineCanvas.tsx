/**
 * The interactive timeline: lane labels (DOM) beside a canvas that draws only what is visible.
 * Wheel zooms around the cursor (shift+wheel pans), drag pans, shift+drag selects a time range
 * ("Show in Traffic"), a click on a span or tick opens it in Traffic, hover explains it.
 */
import { ActionIcon, Badge, Button, Group, Paper, Text, Tooltip, UnstyledButton } from '@mantine/core';
import { useElementSize, useMergedRef } from '@mantine/hooks';
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent, type PointerEvent } from 'react';
import type { ServerStatus } from '../../../../contract';
import { sizeCanvas } from '../../components/canvas';
import { navigation } from '../../state/navigation';
import { AXIS_H, LABEL_W, SERVER_H, computeLayout, drawAxis, drawTracks, hitTest, type Hit, type Layout, type Selection, type Viewport } from './draw';
import type { TimelineModel } from './model';
import { useTimelinePalette, type TimelinePalette } from './palette';
import { clockLabel, formatDuration } from './scale';
import { describeHit } from './describe';
import { useServerNames } from '../charts';

interface View {
  start: number;
  end: number;
}

/** Narrowest view: half a millisecond. */
const MIN_SPAN_MS = 0.5;
const ZOOM_STEP = 2;

/** The view survives a trip to Traffic and back (the tab unmounts). */
let remembered: { source: string; view: View | null; collapsed: string[] } | null = null;

function fitView(model: TimelineModel): View {
  if (model.count === 0) {
    const now = Date.now();
    return { start: now - 60_000, end: now };
  }
  const extent = model.maxTs - model.minTs;
  if (extent < 1) return { start: model.minTs - 50, end: model.maxTs + 50 };
  const pad = Math.max(extent * 0.02, 1);
  return { start: model.minTs - pad, end: model.maxTs + pad };
}

export function TimelineCanvas(props: {
  model: TimelineModel;
  version: number;
  layoutVersion: number;
  servers: ServerStatus[];
  live: boolean;
  source: string;
  olderNotLoaded: number;
  loadingEarlier: boolean;
  onLoadEarlier(): void;
}) {
  const { model, servers, live, source } = props;
  const palette = useTimelinePalette();
  const restored = remembered?.source === source ? remembered : null;
  const [view, setView] = useState<View | null>(restored?.view ?? null);
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(() => new Set(restored?.collapsed ?? []));
  const [selection, setSelection] = useState<Selection | null>(null);
  const [hover, setHover] = useState<{ hit: Hit; clientX: number; clientY: number } | null>(null);
  const [dragging, setDragging] = useState<'pan' | 'brush' | null>(null);
  useEffect(() => {
    remembered = { source, view, collapsed: [...collapsed] };
  }, [source, view, collapsed]);

  const { ref: sizeRef, width: bodyWidth, height: bodyHeight } = useElementSize<HTMLDivElement>();
  const scrollRef = useRef<HTMLDivElement>(null);
  const bodyRef = useMergedRef(sizeRef, scrollRef);
  const trackRef = useRef<HTMLCanvasElement>(null);
  const axisRef = useRef<HTMLCanvasElement>(null);
  const scrollTop = useRef(0);

  const names = useServerNames(servers, source);
  const order = useMemo(() => servers.map((s) => s.id), [servers]);
  const layout: Layout = useMemo(
    () => computeLayout(model, order, collapsed),
    // the model is mutated in place; layoutVersion says when its lanes changed
    [model, props.layoutVersion, order, collapsed],
  );

  const fit = fitView(model);
  const vis = view ?? fit;
  const trackWidth = Math.max(50, bodyWidth - LABEL_W);
  const openEnd = live ? Math.max(model.maxTs, Date.now()) : model.maxTs;

  // Everything the frame callback needs, fresh on every render.
  const current = useRef({ layout, vis, fit, trackWidth, bodyHeight, palette, selection, hover: hover?.hit ?? null, openEnd });
  current.current = { layout, vis, fit, trackWidth, bodyHeight, palette, selection, hover: hover?.hit ?? null, openEnd };

  const viewport = useCallback((): Viewport => {
    const c = current.current;
    return { start: c.vis.start, end: c.vis.end, width: c.trackWidth, height: c.bodyHeight, scrollTop: scrollTop.current, openEnd: c.openEnd };
  }, []);

  const frame = useRef(0);
  const rootRef = useRef<HTMLDivElement>(null);
  const draw = useCallback(() => {
    frame.current = 0;
    const began = performance.now();
    const c = current.current;
    const dpr = window.devicePixelRatio || 1;
    const track = trackRef.current;
    const axis = axisRef.current;
    if (track && c.bodyHeight > 0) {
      sizeCanvas(track, c.trackWidth, c.bodyHeight, dpr);
      const ctx = track.getContext('2d');
      if (ctx) {
        ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
        drawTracks(ctx, c.layout, viewport(), c.palette, c.selection, c.hover);
      }
    }
    if (axis) {
      sizeCanvas(axis, c.trackWidth, AXIS_H, dpr);
      const ctx = axis.getContext('2d');
      if (ctx) {
        ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
        drawAxis(ctx, { start: c.vis.start, end: c.vis.end, width: c.trackWidth }, AXIS_H, c.palette, c.selection);
      }
    }
    // how long the last frame took, for the performance checks
    rootRef.current?.setAttribute('data-draw-ms', (performance.now() - began).toFixed(2));
  }, [viewport]);
  const requestDraw = useCallback(() => {
    if (!frame.current) frame.current = requestAnimationFrame(draw);
  }, [draw]);
  useLayoutEffect(() => requestDraw());
  useEffect(() => () => cancelAnimationFrame(frame.current), []);

  // ------------------------------------------------------------------ view changes

  const setClamped = useCallback((next: View) => {
    const { fit } = current.current;
    let span = next.end - next.start;
    const maxSpan = Math.max(2000, (fit.end - fit.start) * 4);
    if (span > maxSpan) {
      const mid = (next.start + next.end) / 2;
      next = { start: mid - maxSpan / 2, end: mid + maxSpan / 2 };
      span = maxSpan;
    }
    // keep some data on screen
    if (next.end < fit.start + span * 0.05) next = { start: fit.start + span * 0.05 - span, end: fit.start + span * 0.05 };
    if (next.start > fit.end - span * 0.05) next = { start: fit.end - span * 0.05, end: fit.end - span * 0.05 + span };
    setView(next);
    // what was under the pointer has moved
    setHover(null);
  }, []);

  const zoomAt = useCallback(
    (factor: number, frac: number) => {
      const { vis } = current.current;
      const span = vis.end - vis.start;
      const next = Math.max(MIN_SPAN_MS, span * factor);
      const anchor = vis.start + frac * span;
      setClamped({ start: anchor - frac * next, end: anchor - frac * next + next });
    },
    [setClamped],
  );
  const panBy = useCallback(
    (px: number) => {
      const { vis, trackWidth } = current.current;
      const dt = (px / trackWidth) * (vis.end - vis.start);
      setClamped({ start: vis.start + dt, end: vis.end + dt });
    },
    [setClamped],
  );
  const fitAll = useCallback(() => {
    setView(null);
    setHover(null);
  }, []);

  // Wheel: a native listener, because React's is passive and cannot stop the page scrolling.
  useEffect(() => {
    const canvas = trackRef.current;
    if (!canvas) return;
    const onWheel = (e: WheelEvent) => {
      e.preventDefault();
      const unit = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? 400 : 1;
      const dx = e.deltaX * unit;
      const dy = e.deltaY * unit;
      if (e.shiftKey || Math.abs(dx) > Math.abs(dy)) {
        panBy(Math.abs(dx) > Math.abs(dy) ? dx : dy);
        return;
      }
      const rect = canvas.getBoundingClientRect();
      const frac = Math.min(1, Math.max(0, (e.clientX - rect.left) / rect.width));
      zoomAt(Math.exp(Math.max(-300, Math.min(300, dy)) * 0.002), frac);
    };
    canvas.addEventListener('wheel', onWheel, { passive: false });
    return () => canvas.removeEventListener('wheel', onWheel);
  }, [zoomAt, panBy]);

  // ------------------------------------------------------------------ pointer

  const drag = useRef<{ mode: 'pan' | 'brush'; x0: number; y0: number; t0: number; view0: View; scroll0: number; moved: boolean; id: number; pressed: Hit | null } | null>(null);

  const local = (e: { clientX: number; clientY: number }) => {
    const rect = trackRef.current!.getBoundingClientRect();
    return { x: e.clientX - rect.left, y: e.clientY - rect.top };
  };
  const timeAt = (x: number) => {
    const { vis, trackWidth } = current.current;
    return vis.start + (x / trackWidth) * (vis.end - vis.start);
  };

  const onPointerDown = (e: PointerEvent<HTMLCanvasElement>) => {
    if (e.button !== 0) return;
    e.currentTarget.setPointerCapture(e.pointerId);
    const { x, y } = local(e);
    const mode = e.shiftKey ? 'brush' : 'pan';
    drag.current = { mode, x0: x, y0: y, t0: timeAt(x), view0: current.current.vis, scroll0: scrollRef.current?.scrollTop ?? 0, moved: false, id: e.pointerId, pressed: current.current.hover };
    if (mode === 'brush') setSelection({ from: timeAt(x), to: timeAt(x) });
    setHover(null);
  };

  const onPointerMove = (e: PointerEvent<HTMLCanvasElement>) => {
    const { x, y } = local(e);
    const d = drag.current;
    if (d) {
      if (!d.moved && Math.abs(x - d.x0) < 3 && Math.abs(y - d.y0) < 3) return;
      if (!d.moved) setDragging(d.mode);
      d.moved = true;
      if (d.mode === 'brush') {
        setSelection({ from: d.t0, to: timeAt(x) });
      } else {
        const span = d.view0.end - d.view0.start;
        const dt = ((x - d.x0) / current.current.trackWidth) * span;
        setClamped({ start: d.view0.start - dt, end: d.view0.end - dt });
        if (scrollRef.current) scrollRef.current.scrollTop = d.scroll0 - (y - d.y0);
      }
      return;
    }
    const hit = hitTest(current.current.layout, viewport(), x, y);
    if (hit || hover) setHover(hit ? { hit, clientX: e.clientX, clientY: e.clientY } : null);
  };

  const onPointerUp = (e: PointerEvent<HTMLCanvasElement>) => {
    const d = drag.current;
    drag.current = null;
    setDragging(null);
    if (!d) return;
    if (e.currentTarget.hasPointerCapture(d.id)) e.currentTarget.releasePointerCapture(d.id);
    if (d.mode === 'brush') {
      const { x } = local(e);
      if (Math.abs(x - d.x0) < 3) setSelection(null);
      return;
    }
    if (!d.moved) {
      const { x, y } = local(e);
      // A live view moves under a still pointer: what the tooltip named at the press is what the click opens.
      const hit = d.pressed ?? hitTest(current.current.layout, viewport(), x, y);
      if (hit) navigation.showTraffic({ kind: 'seq', seq: hit.kind === 'span' ? hit.span.seq : hit.tick.event.seq });
      else setSelection(null);
    }
  };

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const handled = () => {
      e.preventDefault();
      e.stopPropagation();
    };
    if (e.key === '+' || e.key === '=') {
      zoomAt(1 / ZOOM_STEP, 0.5);
      handled();
    } else if (e.key === '-' || e.key === '_') {
      zoomAt(ZOOM_STEP, 0.5);
      handled();
    } else if (e.key === '0') {
      fitAll();
      handled();
    } else if (e.key === 'ArrowLeft') {
      panBy(-current.current.trackWidth / 8);
      handled();
    } else if (e.key === 'ArrowRight') {
      panBy(current.current.trackWidth / 8);
      handled();
    } else if (e.key === 'Escape' && selection) {
      setSelection(null);
      handled();
    }
  };

  const selFrom = selection ? Math.min(selection.from, selection.to) : 0;
  const selTo = selection ? Math.max(selection.from, selection.to) : 0;
  const hasSelection = selection !== null && selTo - selFrom > 0 && dragging !== 'brush';
  const visibleMs = vis.end - vis.start;
  const laneCount = layout.rows.filter((r) => r.type === 'lane').length;
  const innerHeight = Math.max(layout.height, bodyHeight);

  return (
    <div
      ref={rootRef}
      data-testid="timeline"
      data-visible-ms={Math.round(visibleMs * 1000) / 1000}
      data-start={vis.start}
      data-end={vis.end}
      data-follow={view === null ? 'true' : 'false'}
      data-lanes={laneCount}
      data-events={model.count}
      data-last-seq={model.lastSeq}
      tabIndex={0}
      onKeyDown={onKeyDown}
      style={{ outline: 'none' }}
      aria-label="Timeline. Plus and minus zoom, 0 fits all, arrow keys pan."
    >
      <Group justify="space-between" mb={6} wrap="nowrap" gap="xs">
        <Group gap={6} wrap="nowrap">
          <Button size="compact-sm" variant={view === null ? 'light' : 'default'} onClick={fitAll} data-testid="timeline-fit">
            Fit all
          </Button>
          <Tooltip label="Zoom out (−)">
            <ActionIcon variant="default" size="md" onClick={() => zoomAt(ZOOM_STEP, 0.5)} aria-label="Zoom out" data-testid="timeline-zoom-out">
              −
            </ActionIcon>
          </Tooltip>
          <Tooltip label="Zoom in (+)">
            <ActionIcon variant="default" size="md" onClick={() => zoomAt(1 / ZOOM_STEP, 0.5)} aria-label="Zoom in" data-testid="timeline-zoom-in">
              +
            </ActionIcon>
          </Tooltip>
          <Text size="xs" className="mono" data-testid="timeline-range" style={{ whiteSpace: 'nowrap' }}>
            {clockLabel(vis.start, true)} – {clockLabel(vis.end, true)} · {formatDuration(visibleMs)}
          </Text>
          {view === null && live && model.count > 0 && (
            <Badge size="xs" variant="light" color="green">
              following live
            </Badge>
          )}
        </Group>
        <Group gap={6} wrap="nowrap">
          {props.olderNotLoaded > 0 && (
            <Tooltip label="The live view starts with the most recent events; this reads the ones before them.">
              <Button size="compact-xs" variant="default" loading={props.loadingEarlier} onClick={props.onLoadEarlier} data-testid="timeline-load-earlier">
                Load {Math.min(props.olderNotLoaded, 100_000).toLocaleString('en-US')} earlier
              </Button>
            </Tooltip>
          )}
          <Text size="xs" c="dimmed" style={{ whiteSpace: 'nowrap' }}>
            {model.count.toLocaleString('en-US')} events · wheel zooms, drag pans, shift+drag selects
          </Text>
        </Group>
      </Group>

      <Legend palette={palette} />

      <Paper withBorder radius="md" style={{ overflow: 'hidden', position: 'relative' }}>
        <div style={{ display: 'flex', height: AXIS_H, borderBottom: '1px solid var(--mantine-color-default-border)' }}>
          <div style={{ width: LABEL_W, flex: 'none', display: 'flex', alignItems: 'center', paddingLeft: 8, borderRight: '1px solid var(--mantine-color-default-border)' }}>
            <Text size="xs" c="dimmed" className="mono" data-testid="timeline-base" truncate>
              {clockLabel(vis.start, true)}
            </Text>
          </div>
          <canvas ref={axisRef} style={{ display: 'block' }} data-testid="timeline-axis" />
        </div>
        <div
          ref={bodyRef}
          style={{ height: 'calc(100vh - 236px)', minHeight: 200, overflowY: 'auto', overflowX: 'hidden', position: 'relative' }}
          onScroll={(e) => {
            scrollTop.current = e.currentTarget.scrollTop;
            if (hover) setHover(null);
            requestDraw();
          }}
          data-testid="timeline-body"
        >
          <div style={{ display: 'flex', height: innerHeight }}>
            <div style={{ width: LABEL_W, flex: 'none', position: 'relative', borderRight: '1px solid var(--mantine-color-default-border)' }} data-testid="timeline-labels">
              {layout.rows.map((row) =>
                row.type === 'server' ? (
                  <UnstyledButton
                    key={`s:${row.server}`}
                    onClick={() => {
                      const next = new Set(collapsed);
                      if (next.has(row.server)) next.delete(row.server);
                      else next.add(row.server);
                      setCollapsed(next);
                    }}
                    data-testid="timeline-server"
                    data-server-id={row.server}
                    data-server-name={names.get(row.server) ?? row.server}
                    aria-expanded={!row.collapsed}
                    style={{ position: 'absolute', top: row.y, height: SERVER_H, left: 0, right: 0, paddingLeft: 6, display: 'flex', alignItems: 'center', gap: 6, background: palette.serverBand }}
                  >
                    <Text size="xs" c="dimmed" w={10}>
                      {row.collapsed ? '▸' : '▾'}
                    </Text>
                    <Text size="xs" fw={700} truncate style={{ unicodeBidi: 'plaintext' }}>
                      {names.get(row.server) ?? row.server}
                    </Text>
                    {row.collapsed && (
                      <Text size="xs" c="dimmed">
                        {row.lanes} lanes
                      </Text>
                    )}
                  </UnstyledButton>
                ) : (
                  <div
                    key={row.lane.id}
                    data-testid="timeline-lane"
                    data-server-id={row.lane.server}
                    data-server-name={names.get(row.lane.server) ?? row.lane.server}
                    data-lane-kind={row.lane.kind}
                    data-channel={row.lane.channel ?? ''}
                    data-items={row.lane.spans.length + row.lane.ticks.length}
                    data-y={row.y}
                    data-h={row.h}
                    style={{ position: 'absolute', top: row.y, height: row.h, left: 0, right: 0, paddingLeft: 22, paddingRight: 6, display: 'flex', alignItems: 'center', justifyContent: 'space-between', gap: 4, borderBottom: `1px solid ${palette.separator}` }}
                  >
                    <Text size="xs" truncate c={row.lane.kind === 'errors' ? 'red' : undefined}>
                      {row.lane.label}
                    </Text>
                    <Text size="xs" c="dimmed" className="mono">
                      {(row.lane.spans.length || row.lane.ticks.length).toLocaleString('en-US')}
                    </Text>
                  </div>
                ),
              )}
            </div>
            <div style={{ flex: 1, minWidth: 0, position: 'relative' }}>
              <canvas
                ref={trackRef}
                data-testid="timeline-canvas"
                style={{ position: 'sticky', top: 0, display: 'block', cursor: dragging === 'pan' ? 'grabbing' : dragging === 'brush' ? 'col-resize' : hover ? 'pointer' : 'grab', touchAction: 'none' }}
                onPointerDown={onPointerDown}
                onPointerMove={onPointerMove}
                onPointerUp={onPointerUp}
                onPointerCancel={() => {
                  drag.current = null;
                  setDragging(null);
                }}
                onPointerLeave={() => hover && setHover(null)}
              />
            </div>
          </div>
        </div>
        {model.count === 0 && (
          <Text size="sm" c="dimmed" data-testid="timeline-empty" style={{ position: 'absolute', top: AXIS_H + 24, left: LABEL_W + 24 }}>
            No traffic yet. Connect a server and call a tool: requests, streams and notifications appear here as lanes.
          </Text>
        )}
        {hasSelection && (
          <Paper
            shadow="md"
            withBorder
            p={6}
            radius="md"
            data-testid="timeline-selection"
            data-from={selFrom}
            data-to={selTo}
            style={{ position: 'absolute', top: AXIS_H + 8, right: 12, zIndex: 5 }}
          >
            <Group gap={6} wrap="nowrap">
              <Text size="xs" className="mono">
                {clockLabel(selFrom, true)} + {formatDuration(selTo - selFrom)}
              </Text>
              <Button size="compact-xs" onClick={() => navigation.showTraffic({ kind: 'time', fromTs: Math.floor(selFrom), toTs: Math.ceil(selTo) })} data-testid="timeline-show-traffic">
                Show in Traffic
              </Button>
              <Button size="compact-xs" variant="default" onClick={() => setClamped({ start: selFrom, end: Math.max(selTo, selFrom + MIN_SPAN_MS) })} data-testid="timeline-zoom-selection">
                Zoom to selection
              </Button>
              <ActionIcon size="sm" variant="subtle" onClick={() => setSelection(null)} aria-label="Clear selection">
                ×
              </ActionIcon>
            </Group>
          </Paper>
        )}
      </Paper>
      {hover && !dragging && <HoverCard hover={hover} names={names} openEnd={openEnd} />}
    </div>
  );
}

function HoverCard({ hover, names, openEnd }: { hover: { hit: Hit; clientX: number; clientY: number }; names: Map<string, string>; openEnd: number }) {
  const info = describeHit(hover.hit, names, openEnd);
  const flip = hover.clientX > window.innerWidth - 380;
  const flipY = hover.clientY > window.innerHeight - 220;
  return (
    <Paper
      shadow="md"
      withBorder
      p="xs"
      radius="md"
      data-testid="timeline-tooltip"
      data-hit={hover.hit.kind}
      data-seq={hover.hit.kind === 'span' ? hover.hit.span.seq : hover.hit.tick.event.seq}
      style={{
        position: 'fixed',
        left: flip ? undefined : hover.clientX + 14,
        right: flip ? window.innerWidth - hover.clientX + 14 : undefined,
        top: flipY ? undefined : hover.clientY + 14,
        bottom: flipY ? window.innerHeight - hover.clientY + 14 : undefined,
        zIndex: 300,
        pointerEvents: 'none',
        maxWidth: 360,
      }}
    >
      <Text size="sm" fw={600} className="mono" style={{ unicodeBidi: 'plaintext', wordBreak: 'break-all' }}>
        {info.title}
      </Text>
      {info.lines.map(([k, v]) => (
        <Group key={k} gap={8} wrap="nowrap" align="flex-start">
          <Text size="xs" c="dimmed" w={70} style={{ flex: 'none' }}>
            {k}
          </Text>
          <Text size="xs" className="mono" c={k === 'status' && /error|abandoned|cancel/.test(v) ? 'red' : undefined} style={{ unicodeBidi: 'plaintext', wordBreak: 'break-word' }}>
            {v}
          </Text>
        </Group>
      ))}
      <Text size="xs" c="dimmed" mt={4}>
        Click to open in Traffic
      </Text>
    </Paper>
  );
}

function Legend({ palette }: { palette: TimelinePalette }) {
  const items: [string, string, 'bar' | 'tick' | 'outline'][] = [
    ['request →', palette.rpcOut, 'bar'],
    ['request ←', palette.rpcIn, 'bar'],
    ['waiting', palette.pending, 'bar'],
    ['error', palette.error, 'bar'],
    ['tool error', palette.toolError, 'bar'],
    ['HTTP exchange', palette.exchange, 'bar'],
    ['stream', palette.stream, 'outline'],
    ['message ↑', palette.tickOut, 'tick'],
    ['message ↓', palette.tickIn, 'tick'],
    ['lifecycle', palette.tickLife, 'tick'],
  ];
  return (
    <Group gap={12} mb={6} data-testid="timeline-legend">
      {items.map(([name, color, shape]) => (
        <Group key={name} gap={4} wrap="nowrap">
          <span
            style={{
              display: 'inline-block',
              width: shape === 'tick' ? 2 : 14,
              height: 10,
              background: shape === 'outline' ? palette.streamFill : color,
              border: shape === 'outline' ? `1px solid ${color}` : undefined,
              borderRadius: 2,
            }}
          />
          <Text size="xs" c="dimmed">
            {name}
          </Text>
        </Group>
      ))}
    </Group>
  );
}
