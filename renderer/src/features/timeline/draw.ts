/**
 * Layout, drawing and hit-testing of the timeline canvas. Only what is visible is touched:
 * lanes outside the scrolled viewport are skipped, spans and ticks are found by binary search,
 * and at most one span per row and one tick per pixel column is drawn, so 100k events cost
 * about as much as 1k.
 */
import { MAX_ROWS, lowerBound, spanStart, type Lane, type Span, type Tick, type TickStyle, type TimelineModel } from './model';
import { laneOrder } from './model';
import type { TimelinePalette } from './palette';
import { tickLabel, ticks as axisTicks, tickStep } from './scale';

export const LABEL_W = 220;
export const AXIS_H = 26;
export const SERVER_H = 24;
const TICK_LANE_H = 22;
const PAD = 4;
const ROW_H = 12;
const ROW_GAP = 2;

export type LayoutRow = { type: 'server'; server: string; y: number; h: number; lanes: number; collapsed: boolean } | { type: 'lane'; lane: Lane; y: number; h: number };

export interface Layout {
  rows: LayoutRow[];
  height: number;
}

function laneHeight(lane: Lane): number {
  if (lane.spans.length === 0 && lane.open.size === 0) return TICK_LANE_H;
  return Math.max(TICK_LANE_H, PAD * 2 + lane.rows * ROW_H + (lane.rows - 1) * ROW_GAP);
}

export function computeLayout(model: TimelineModel, serverOrder: readonly string[], collapsed: ReadonlySet<string>): Layout {
  const byServer = new Map<string, Lane[]>();
  for (const lane of model.lanes.values()) {
    const list = byServer.get(lane.server);
    if (list) list.push(lane);
    else byServer.set(lane.server, [lane]);
  }
  const known = serverOrder.filter((s) => byServer.has(s));
  const servers = [...known, ...model.servers.filter((s) => !known.includes(s))];
  const rows: LayoutRow[] = [];
  let y = 0;
  for (const server of servers) {
    const lanes = byServer.get(server)!.sort((a, b) => laneOrder(a) - laneOrder(b));
    const isCollapsed = collapsed.has(server);
    rows.push({ type: 'server', server, y, h: SERVER_H, lanes: lanes.length, collapsed: isCollapsed });
    y += SERVER_H;
    if (isCollapsed) continue;
    for (const lane of lanes) {
      const h = laneHeight(lane);
      rows.push({ type: 'lane', lane, y, h });
      y += h;
    }
  }
  return { rows, height: y };
}

export interface Viewport {
  start: number;
  end: number;
  width: number;
  height: number;
  scrollTop: number;
  /** Where open spans end (the data's end, or now when live). */
  openEnd: number;
}

export interface Selection {
  from: number;
  to: number;
}

export type Hit = { kind: 'span'; span: Span; lane: Lane } | { kind: 'tick'; tick: Tick; lane: Lane };

function spanBand(row: { y: number; h: number }, lane: Lane, spanRow: number, scrollTop: number): [number, number] {
  const top = row.y - scrollTop;
  if (lane.rows === 1) return [top + PAD, row.h - PAD * 2];
  return [top + PAD + spanRow * (ROW_H + ROW_GAP), ROW_H];
}

function spanColor(span: Span, p: TimelinePalette): { fill: string; stroke?: string; text: string } {
  switch (span.status) {
    case 'error':
      return span.type === 'rpc' ? { fill: p.error, text: p.textOnFill } : { fill: p.streamFill, stroke: p.error, text: p.text };
    case 'tool-error':
      return { fill: p.toolError, text: p.textOnFill };
    case 'abandoned':
    case 'cancelled':
      return { fill: p.abandoned, text: p.textOnFill };
    default:
      break;
  }
  if (span.type === 'process') return { fill: p.processFill, stroke: p.process, text: p.text };
  if (span.type === 'exchange') return span.stream ? { fill: p.streamFill, stroke: p.stream, text: p.text } : { fill: p.exchange, text: p.textOnFill };
  if (span.open) return { fill: p.pending, text: p.textOnPending };
  return { fill: span.lane.kind === 'rpc-in' ? p.rpcIn : p.rpcOut, text: p.textOnFill };
}

function tickColor(style: TickStyle, p: TimelinePalette): string {
  switch (style) {
    case 'out':
      return p.tickOut;
    case 'in':
      return p.tickIn;
    case 'error':
      return p.error;
    case 'life':
      return p.tickLife;
    default:
      return p.tickMuted;
  }
}

const BIDI = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/g;

function label(ctx: CanvasRenderingContext2D, text: string, x: number, y: number, w: number, h: number, color: string): void {
  if (w < 28 || h < 9) return;
  const clean = text.replace(BIDI, '').slice(0, 120);
  ctx.save();
  ctx.beginPath();
  ctx.rect(x, y, w, h);
  ctx.clip();
  ctx.fillStyle = color;
  ctx.fillText(clean, Math.max(x, 0) + 3, y + h / 2 + 0.5);
  ctx.restore();
}

/** Draws the lanes; `ctx` is scaled to CSS pixels. */
export function drawTracks(ctx: CanvasRenderingContext2D, layout: Layout, vp: Viewport, p: TimelinePalette, selection: Selection | null, hover: Hit | null): void {
  const { start, end, width, height, scrollTop } = vp;
  const span = end - start;
  const scale = width / span;
  const x = (t: number) => (t - start) * scale;
  ctx.clearRect(0, 0, width, height);
  ctx.font = '11px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace';
  ctx.textBaseline = 'middle';

  // grid
  const step = tickStep(span, width);
  ctx.fillStyle = p.grid;
  for (const t of axisTicks(start, end, step)) ctx.fillRect(Math.round(x(t)), 0, 1, height);

  let hoverRect: [number, number, number, number] | null = null;
  let laneIndex = 0;
  for (const row of layout.rows) {
    if (row.type === 'lane') laneIndex++;
    if (row.y + row.h < scrollTop || row.y > scrollTop + height) continue;
    const top = row.y - scrollTop;
    if (row.type === 'server') {
      ctx.fillStyle = p.serverBand;
      ctx.fillRect(0, top, width, row.h);
      continue;
    }
    const lane = row.lane;
    if (laneIndex % 2 === 0) {
      ctx.fillStyle = p.laneAlt;
      ctx.fillRect(0, top, width, row.h);
    }
    ctx.fillStyle = p.separator;
    ctx.fillRect(0, top + row.h - 1, width, 1);

    // spans: one per row per pixel at most
    const spans = lane.spans;
    if (spans.length || lane.open.size) {
      const lastPx = new Float64Array(MAX_ROWS).fill(-Infinity);
      const lo = lowerBound(spans, start - lane.maxDur, spanStart);
      const hi = lowerBound(spans, end, spanStart);
      const drawSpan = (s: Span, sEnd: number) => {
        const px1 = Math.floor(x(s.start));
        const px2 = Math.max(px1 + 1, Math.ceil(x(sEnd)));
        if (px2 <= lastPx[s.row]! && !s.open) return;
        lastPx[s.row] = px2;
        const [y0, h] = spanBand(row, lane, s.row, scrollTop);
        const cx1 = Math.max(-2, px1);
        const cx2 = Math.min(width + 2, px2);
        const color = spanColor(s, p);
        ctx.fillStyle = color.fill;
        ctx.fillRect(cx1, y0, cx2 - cx1, h);
        if (color.stroke && cx2 - cx1 > 2) {
          ctx.strokeStyle = color.stroke;
          ctx.lineWidth = 1;
          ctx.strokeRect(cx1 + 0.5, y0 + 0.5, cx2 - cx1 - 1, h - 1);
        }
        if (s.open && s.type === 'rpc') {
          // an open request fades out at its right edge: no answer yet
          ctx.fillStyle = p.bg;
          ctx.fillRect(Math.max(cx1, cx2 - 2), y0, 2, h);
        }
        if (cx2 - cx1 > 30 && !(lane.ticks.length && s.stream)) label(ctx, s.label, cx1, y0, cx2 - cx1, h, color.text);
        if (hover?.kind === 'span' && hover.span === s) hoverRect = [cx1, y0, cx2 - cx1, h];
      };
      for (let i = lo; i < hi; i++) {
        const s = spans[i]!;
        if (s.open || s.end < start) continue;
        drawSpan(s, s.end);
      }
      for (const s of lane.open) if (s.start < end) drawSpan(s, Math.max(s.start, vp.openEnd));
    }

    // ticks: at most one per pixel column
    const ticks = lane.ticks;
    if (ticks.length) {
      const tickOnly = spans.length === 0 && lane.open.size === 0;
      const marker = lane.kind === 'errors' || lane.kind === 'lifecycle';
      const th = tickOnly ? row.h - 8 : Math.max(6, row.h - 12);
      const ty = top + (row.h - th) / 2;
      const times = ticks.ts;
      let i = ticks.from(start - 4 / scale);
      while (i < times.length) {
        const ts = times[i]!;
        if (ts > end + 4 / scale) break;
        const px = Math.floor(x(ts));
        ctx.fillStyle = tickColor(ticks.styles[i]!, p);
        if (marker) {
          // a diamond, easy to spot
          const cy = top + row.h / 2;
          ctx.beginPath();
          ctx.moveTo(px + 0.5, cy - 5);
          ctx.lineTo(px + 4.5, cy);
          ctx.lineTo(px + 0.5, cy + 5);
          ctx.lineTo(px - 3.5, cy);
          ctx.closePath();
          ctx.fill();
        } else {
          ctx.fillRect(px, ty, scale > 0.2 ? 2 : 1, th);
        }
        if (hover?.kind === 'tick' && hover.lane === lane && hover.tick.event === ticks.events[i] && hover.tick.rpc === ticks.rpcs[i]) hoverRect = [px - 3, top + 2, 7, row.h - 4];
        // skip everything else in this pixel column
        const next = ticks.from(start + (px + 1) / scale);
        i = Math.max(i + 1, next);
      }
    }
  }

  if (selection) {
    const a = x(Math.min(selection.from, selection.to));
    const b = x(Math.max(selection.from, selection.to));
    ctx.fillStyle = p.selection;
    ctx.fillRect(a, 0, Math.max(1, b - a), height);
    ctx.fillStyle = p.selectionEdge;
    ctx.fillRect(Math.round(a), 0, 1, height);
    ctx.fillRect(Math.round(b), 0, 1, height);
  }
  if (hoverRect) {
    const [hx, hy, hw, hh] = hoverRect;
    ctx.strokeStyle = p.hover;
    ctx.lineWidth = 1.5;
    ctx.strokeRect(hx - 1, hy - 1, hw + 2, hh + 2);
  }
}

export function drawAxis(ctx: CanvasRenderingContext2D, vp: Pick<Viewport, 'start' | 'end' | 'width'>, height: number, p: TimelinePalette, selection: Selection | null): void {
  const { start, end, width } = vp;
  const scale = width / (end - start);
  ctx.clearRect(0, 0, width, height);
  ctx.font = '11px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace';
  ctx.textBaseline = 'middle';
  const step = tickStep(end - start, width);
  ctx.fillStyle = p.separator;
  ctx.fillRect(0, height - 1, width, 1);
  if (selection) {
    ctx.fillStyle = p.selection;
    const a = (Math.min(selection.from, selection.to) - start) * scale;
    const b = (Math.max(selection.from, selection.to) - start) * scale;
    ctx.fillRect(a, 0, Math.max(1, b - a), height);
  }
  for (const t of axisTicks(start, end, step)) {
    const px = Math.round((t - start) * scale);
    ctx.fillStyle = p.axisText;
    ctx.fillRect(px, height - 6, 1, 5);
    const text = tickLabel(t, step);
    const w = ctx.measureText(text).width;
    const tx = Math.min(Math.max(px - w / 2, 2), width - w - 2);
    ctx.fillText(text, tx, height / 2 - 2);
  }
}

/** What is under (x, y) of the track canvas: a tick within 4 px, or a span (nearest edge within 4 px). */
export function hitTest(layout: Layout, vp: Viewport, x: number, y: number): Hit | null {
  const absY = y + vp.scrollTop;
  const row = layout.rows.find((r) => absY >= r.y && absY < r.y + r.h);
  if (!row || row.type !== 'lane') return null;
  const lane = row.lane;
  const scale = vp.width / (vp.end - vp.start);
  const t = vp.start + x / scale;
  const tol = 4 / scale;

  const ticks = lane.ticks;
  if (ticks.length) {
    const i = ticks.from(t);
    let best: Tick | undefined;
    let bestD = Infinity;
    for (const j of [i - 1, i]) {
      const tick = ticks.at(j);
      if (!tick) continue;
      const d = Math.abs(tick.ts - t);
      if (d < bestD) {
        best = tick;
        bestD = d;
      }
    }
    // within a stream bar, a tick must be close; elsewhere the usual tolerance
    const limit = lane.spans.length ? 2.5 / scale : tol;
    if (best && bestD <= limit) return { kind: 'tick', tick: best, lane };
  }

  const spans = lane.spans;
  if (!spans.length && !lane.open.size) return null;
  let best: Span | undefined;
  let bestScore = Infinity;
  const consider = (s: Span, sEnd: number) => {
    const [y0, h] = spanBand(row, lane, s.row, vp.scrollTop);
    if (y < y0 - 2 || y > y0 + h + 2) return;
    const d = t < s.start ? s.start - t : t > sEnd ? t - sEnd : 0;
    if (d > tol) return;
    // inside several: the shortest wins (the one you are pointing at)
    const score = d * 1e9 + (sEnd - s.start);
    if (score < bestScore) {
      best = s;
      bestScore = score;
    }
  };
  const lo = lowerBound(spans, t - tol - lane.maxDur, spanStart);
  const hi = lowerBound(spans, t + tol, spanStart);
  for (let i = lo; i < hi; i++) {
    const s = spans[i]!;
    if (!s.open) consider(s, s.end);
  }
  for (const s of lane.open) consider(s, Math.max(s.start, vp.openEnd));
  return best ? { kind: 'span', span: best, lane } : null;
}
