/**
 * Traffic: the Network panel of MCP. Every trace event in a virtualized table (live, or an
 * imported trace read-only), filters that query main, exchanges grouped with their SSE events,
 * a detail pane with headers, bodies and streams, follow/pause, export and import.
 */
import { Badge, Button, Group, Menu, Switch, Text, TextInput, Tooltip } from '@mantine/core';
import { useContext, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { isProxyServerId, type ServerStatus } from '../../../../contract';
import { useApi } from '../../api/context';
import { removedServerLabel, removedServerNames } from '../../app/useServers';
import { LiveContext, useTraceBuffer } from '../../state/live';
import { useNavigation } from '../../state/navigation';
import { getProxySessions } from '../../state/proxy-sessions';
import { useStore, useVersion } from '../../state/useStore';
import { formatCount } from '../../components/format';
import { isErrorEvent } from './format';
import { LIST_MAX_EVENTS, ListModel, SeqModel, WindowModel, type RowModel } from './models';
import { TrafficDetail } from './TrafficDetail';
import { TrafficFilters } from './TrafficFilters';
import { TrafficTable } from './TrafficTable';
import classes from './TrafficView.module.css';
import { exportTraceFile, filesPickedInPage, importTraceFile, TRACE_FILE_ACCEPT } from './trace-files';
import { otlpSendDialog } from '../otlp';
import { filterQuery, handledIntents, hasFilters, importedServers, traffic, useTrafficState } from './traffic-store';

export function TrafficView({ servers }: { servers: ServerStatus[] }) {
  const api = useApi();
  const nav = useNavigation();
  const liveStores = useContext(LiveContext);
  const st = useTrafficState();
  const sourceId = nav.source.id;
  const isLive = sourceId === 'live';
  const buffer = liveStores?.trace ?? null;
  const proxies = useStore(getProxySessions(api).sessions);

  useLayoutEffect(() => traffic.useSource(sourceId), [sourceId]);

  // Requests from other views: an event, a time range, a server.
  useEffect(() => {
    const intent = nav.traffic;
    if (!intent || intent.nonce <= handledIntents.nonce) return;
    handledIntents.nonce = intent.nonce;
    if (intent.kind === 'seq') traffic.reveal(intent.seq);
    else if (intent.kind === 'time') {
      traffic.setFilters({ time: { fromTs: intent.fromTs, toTs: intent.toTs }, ...(intent.servers?.length ? { servers: intent.servers } : {}) });
      traffic.setFollow(false);
    } else if (intent.kind === 'server') traffic.setFilters({ servers: [intent.serverId] });
  }, [nav.traffic]);

  // The buffer may have been paused elsewhere (or before a reload of this view).
  useEffect(() => {
    if (buffer?.paused && traffic.get().pausedAt === undefined) traffic.setPausedAt(buffer.events[buffer.events.length - 1]?.seq ?? buffer.total);
  }, [buffer]);

  const names = useMemo(() => {
    const map = new Map<string, string>();
    if (isLive) {
      // Servers removed since still have events here: they keep their names.
      for (const id of removedServerNames.keys()) map.set(id, removedServerLabel(id));
      for (const s of [...servers, ...proxies.map((p) => ({ id: p.id, name: p.info.name }))]) map.set(s.id, s.name);
    }
    else for (const s of importedServers.get(sourceId) ?? []) map.set(s.id, s.name);
    return map;
  }, [servers, isLive, sourceId, proxies]);
  const serverOptions = useMemo(() => [...names].map(([value, label]) => ({ value, label: isProxyServerId(value) ? `${label} (proxied)` : label })), [names]);

  // The row model: unfiltered → every event by seq; filtered → windows of matches from main's
  // store (main filters); grouped → a list of exchanges from main.
  const filtered = hasFilters(st.filters);
  const queryKey = filtered ? JSON.stringify(filterQuery(st.filters)) : '';
  const kind = st.grouped ? 'list' : filtered ? 'window' : 'seq';
  const listBaseline = kind === 'list' && isLive ? st.clearedThrough : 0;
  const [model, setModel] = useState<RowModel>();
  useEffect(() => {
    const liveBuffer = isLive ? buffer : null;
    const created: RowModel =
      kind === 'seq'
        ? new SeqModel(api, sourceId, liveBuffer)
        : kind === 'window'
          ? new WindowModel(api, sourceId, JSON.parse(queryKey) as Record<string, unknown>, isLive)
          : new ListModel(api, sourceId, liveBuffer, queryKey ? (JSON.parse(queryKey) as Record<string, unknown>) : null, isLive, st.grouped, traffic.get().expanded, listBaseline, isErrorEvent);
    if (created instanceof SeqModel || created instanceof WindowModel) created.configure(isLive ? traffic.get().clearedThrough : 0, isLive ? traffic.get().pausedAt : undefined);
    setModel(created);
    return () => created.dispose();
  }, [api, buffer, sourceId, isLive, kind, queryKey, st.grouped, listBaseline]);
  useLayoutEffect(() => {
    if (model instanceof SeqModel || model instanceof WindowModel) model.configure(isLive ? st.clearedThrough : 0, isLive ? st.pausedAt : undefined);
  }, [model, isLive, st.clearedThrough, st.pausedAt]);
  useEffect(() => {
    if (model instanceof ListModel) model.setExpanded(st.expanded);
  }, [model, st.expanded]);

  const paused = isLive && st.pausedAt !== undefined;
  const actions = <TrafficActions sourceId={sourceId} sourceName={nav.source.name} isLive={isLive} paused={paused} grouped={st.grouped} follow={st.follow} />;

  const table = <TrafficTable model={model} names={names} live={isLive} paused={paused} filtered={filtered} />;
  return (
    <div className={classes.view} data-testid="traffic-view" data-source={sourceId}>
      <TrafficFilters filters={st.filters} serverOptions={serverOptions} actions={actions} />
      <div className={classes.split}>
        <div className={classes.tableSlot}>{table}</div>
        {st.selectedSeq !== undefined && (
          <>
            <ResizeHandle width={st.detailWidth} />
            <div className={classes.detailSlot} style={{ width: st.detailWidth }}>
              <TrafficDetail key={`${sourceId}:${st.selectedSeq}`} seq={st.selectedSeq} source={sourceId} live={isLive} names={names} />
            </div>
          </>
        )}
      </div>
      <StatusBar model={model} isLive={isLive} paused={paused} filtered={filtered} grouped={st.grouped} clearedThrough={isLive ? st.clearedThrough : 0} sourceName={nav.source.name} />
    </div>
  );
}

const MIN_DETAIL = 320;
const MIN_TABLE = 360;

/** The split between the table and the detail pane: drag it, or focus it and use ←/→. */
function ResizeHandle({ width }: { width: number }) {
  const ref = useRef<HTMLDivElement>(null);
  const clamp = (w: number) => {
    const total = ref.current?.parentElement?.clientWidth ?? 1200;
    return Math.round(Math.max(MIN_DETAIL, Math.min(w, total - MIN_TABLE)));
  };
  return (
    <div
      ref={ref}
      className={classes.handle}
      role="separator"
      aria-orientation="vertical"
      aria-label="Resize the detail pane"
      aria-valuenow={width}
      tabIndex={0}
      data-testid="traffic-split-handle"
      onPointerDown={(event) => {
        event.preventDefault();
        const startX = event.clientX;
        const startWidth = width;
        const target = event.currentTarget;
        target.setPointerCapture(event.pointerId);
        const move = (e: PointerEvent) => traffic.setDetailWidth(clamp(startWidth + startX - e.clientX));
        const up = () => {
          target.removeEventListener('pointermove', move);
          target.removeEventListener('pointerup', up);
          target.removeEventListener('pointercancel', up);
        };
        target.addEventListener('pointermove', move);
        target.addEventListener('pointerup', up);
        target.addEventListener('pointercancel', up);
      }}
      onDoubleClick={() => traffic.setDetailWidth(clamp(500))}
      onKeyDown={(event) => {
        const step = event.shiftKey ? 80 : 20;
        if (event.key === 'ArrowLeft') traffic.setDetailWidth(clamp(width + step));
        else if (event.key === 'ArrowRight') traffic.setDetailWidth(clamp(width - step));
        else return;
        event.preventDefault();
      }}
    />
  );
}

function TrafficActions({ sourceId, sourceName, isLive, paused, grouped, follow }: { sourceId: string; sourceName: string; isLive: boolean; paused: boolean; grouped: boolean; follow: boolean }) {
  const api = useApi();
  const liveStores = useContext(LiveContext);
  const fileRef = useRef<HTMLInputElement>(null);
  const [busy, setBusy] = useState<string | null>(null);

  const exportTrace = async (format: 'jsonl' | 'har' | 'otlp') => {
    setBusy(format);
    await exportTraceFile(api, format, sourceId);
    setBusy(null);
  };

  const importTrace = async (file?: File) => {
    setBusy('import');
    await importTraceFile(api, file);
    setBusy(null);
    if (fileRef.current) fileRef.current.value = '';
  };

  const togglePause = () => {
    const buffer = liveStores?.trace;
    if (!buffer) return;
    if (paused) {
      traffic.setPausedAt(undefined);
      buffer.setPaused(false);
    } else {
      traffic.setPausedAt(buffer.events[buffer.events.length - 1]?.seq ?? buffer.total);
      buffer.setPaused(true);
    }
  };

  return (
    <Group gap={8} wrap="nowrap" style={{ flexShrink: 0, marginLeft: 'auto' }} data-testid="traffic-actions">
      {!isLive && (
        <Tooltip label={`An imported trace (${sourceName}): nothing is recorded into it. Use "Back to live" in the header to return.`}>
          <Badge color="orange" variant="light" data-testid="traffic-readonly">
            read-only
          </Badge>
        </Tooltip>
      )}
      <Tooltip label="Jump to an event by its number (#): the table scrolls to it and selects it">
        <TextInput
          size="xs"
          w={92}
          placeholder="Go to #"
          aria-label="Go to event number"
          inputMode="numeric"
          onKeyDown={(e) => {
            if (e.key !== 'Enter') return;
            const seq = Number(e.currentTarget.value.replace(/[#,\s]/g, ''));
            if (Number.isInteger(seq) && seq >= 1) traffic.reveal(seq);
          }}
          data-testid="traffic-goto"
        />
      </Tooltip>
      <Switch size="xs" label="Group by exchange" checked={grouped} onChange={(e) => traffic.setGrouped(e.currentTarget.checked)} data-testid="traffic-group-toggle" />
      {isLive && (
        <>
          <Switch size="xs" label="Follow" checked={follow} onChange={(e) => traffic.setFollow(e.currentTarget.checked)} data-testid="traffic-follow" />
          <Tooltip label={paused ? 'Resume: the held events are added, nothing was lost' : 'Hold the view still; new events are kept and added on resume'}>
            <Button size="compact-xs" variant={paused ? 'filled' : 'default'} color={paused ? 'orange' : undefined} onClick={togglePause} data-testid="traffic-pause" data-paused={paused}>
              {paused ? 'Resume' : 'Pause'}
            </Button>
          </Tooltip>
        </>
      )}
      <Menu position="bottom-end" withinPortal>
        <Menu.Target>
          <Button size="compact-xs" variant="default" loading={busy === 'jsonl' || busy === 'har' || busy === 'otlp'} data-testid="traffic-export">
            Export ▾
          </Button>
        </Menu.Target>
        <Menu.Dropdown>
          <Menu.Label>The whole trace{isLive ? '' : ` (${sourceName})`}, secrets redacted</Menu.Label>
          <Menu.Item onClick={() => void exportTrace('jsonl')} data-testid="traffic-export-jsonl">
            JSONL (everything, re-importable)
          </Menu.Item>
          <Menu.Item onClick={() => void exportTrace('har')} data-testid="traffic-export-har">
            HAR (HTTP exchanges, SSE messages)
          </Menu.Item>
          <Menu.Item onClick={() => void exportTrace('otlp')} data-testid="traffic-export-otlp">
            OTLP JSON (OpenTelemetry traces)
          </Menu.Item>
          <Menu.Item onClick={() => otlpSendDialog.open({ sourceId, name: isLive ? 'Live' : sourceName })} data-testid="traffic-send-otlp">
            Send to an OpenTelemetry collector…
          </Menu.Item>
        </Menu.Dropdown>
      </Menu>
      <Tooltip label="Open a JSONL trace (exported here or by the CLI) read-only">
        <Button size="compact-xs" variant="default" loading={busy === 'import'} onClick={() => (filesPickedInPage() ? fileRef.current?.click() : void importTrace())} data-testid="traffic-import">
          Import…
        </Button>
      </Tooltip>
      <input
        ref={fileRef}
        type="file"
        accept={TRACE_FILE_ACCEPT}
        style={{ display: 'none' }}
        onChange={(e) => {
          const file = e.currentTarget.files?.[0];
          if (file) void importTrace(file);
        }}
        data-testid="traffic-import-input"
      />
      {isLive && (
        <Tooltip label="Hide the events so far from this table (the trace itself is kept; exports still contain everything)">
          <Button size="compact-xs" variant="default" onClick={() => traffic.clearView(liveStores?.trace.total ?? 0)} data-testid="traffic-clear-view">
            Clear view
          </Button>
        </Tooltip>
      )}
    </Group>
  );
}

function StatusBar({
  model,
  isLive,
  paused,
  filtered,
  grouped,
  clearedThrough,
  sourceName,
}: {
  model: RowModel | undefined;
  isLive: boolean;
  paused: boolean;
  filtered: boolean;
  grouped: boolean;
  clearedThrough: number;
  sourceName: string;
}) {
  const buffer = useTraceBuffer();
  useVersion(model);
  // A paused buffer does not tick: poll the held count.
  const [, setNow] = useState(0);
  useEffect(() => {
    if (!paused) return;
    const timer = setInterval(() => setNow(Date.now()), 500);
    return () => clearInterval(timer);
  }, [paused]);
  const status = model?.status();
  if (!status) return <div className={classes.statusBar} />;
  const count = status.count;
  let label: string;
  if (model?.kind === 'seq') label = `${formatCount(count)} events`;
  else if (model?.kind === 'window') label = `${formatCount(count)} matching · ${formatCount(status.total)} events in the trace`;
  else if (filtered) label = `${formatCount(status.events)}${status.exact ? '' : '+'} matching${grouped ? ` in ${formatCount(count)} rows` : ''} · ${formatCount(status.total)} events in the trace`;
  else label = `${formatCount(count)} rows · ${formatCount(status.events)}${status.exact ? '' : '+'} events`;
  const held = isLive && paused ? buffer.pendingCount : 0;
  return (
    <div className={classes.statusBar} data-testid="traffic-status">
      <Text size="xs" fw={600} data-testid="traffic-count" data-count={count} data-events={status.events} data-total={status.total} data-exact={status.exact}>
        {label}
      </Text>
      {!status.exact && (
        <Text size="xs" c="dimmed" data-testid="traffic-older" data-capped={status.capped}>
          {status.capped ? `older events not loaded: this list loads at most ${formatCount(LIST_MAX_EVENTS)} from the trace; filter to narrow it` : status.loadingOlder ? 'loading older…' : 'scroll up for older'}
        </Text>
      )}
      {model?.kind === 'seq' && status.loadingOlder && (
        <Text size="xs" c="dimmed">
          loading…
        </Text>
      )}
      {clearedThrough > 0 && (
        <Group gap={4} wrap="nowrap">
          <Text size="xs" c="dimmed">
            {formatCount(clearedThrough)} cleared
          </Text>
          <Button size="compact-xs" variant="subtle" onClick={() => traffic.restoreView()} data-testid="traffic-restore-view">
            show
          </Button>
        </Group>
      )}
      {paused && (
        <Text size="xs" c="orange" fw={600} data-testid="traffic-held" data-held={held}>
          Paused · {formatCount(held)} new {held === 1 ? 'event' : 'events'} held
        </Text>
      )}
      {status.error && (
        <Text size="xs" c="red" truncate>
          {status.error}
        </Text>
      )}
      <div style={{ flex: 1 }} />
      <Text size="xs" c="dimmed" truncate>
        {isLive ? 'live' : `read-only: ${sourceName}`}
      </Text>
    </div>
  );
}
