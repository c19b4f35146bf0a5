/**
 * Charts: per server or for all servers, from the snapshots' one-second buckets. Summary tiles
 * on top (whole session), then messages/s per channel, latency per method, errors by class,
 * requests in flight and ping RTT over a 1, 5 or 15 minute window. A click on a point filters
 * the Traffic view to that second.
 */
import { Alert, Badge, Button, Group, Paper, SegmentedControl, Select, SimpleGrid, Stack, Text, Tooltip } from '@mantine/core';
import { useElementSize } from '@mantine/hooks';
import { memo, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import type { ServerStatus } from '../../../../contract';
import type { ServerSnapshot } from '../../../../contract/trace';
import { useApi } from '../../api/context';
import { LiveContext } from '../../state/live';
import type { SnapshotStore } from '../../state/snapshot-store';
import { navigation, useNavigation } from '../../state/navigation';
import { useServerNames } from './names';
import { ErrorsChart, InFlightChart, LatencyChart, MessagesChart, PingChart } from './ChartPanels';
import { useChartColors } from './colors';
import { formatBytes, formatCount, formatMs, formatTime } from '../../components/format';
import { buildSeries, buildSummary, safeLabel, stabilize, type Series, type Summary } from './series';

const WINDOWS = [
  { value: '60', label: '1 min' },
  { value: '300', label: '5 min' },
  { value: '900', label: '15 min' },
];
const ALL = '__all__';

/**
 * The charts' clock: once a second (while `active`), the current second and the store's version
 * at that moment. Charts recompute on this tick only, so a flood of snapshot pushes is one
 * render a second, not one per push.
 */
function useTick(active: boolean, store: SnapshotStore): { second: number; version: number } {
  const read = () => ({ second: Math.floor(Date.now() / 1000) * 1000, version: store.version });
  const [tick, setTick] = useState(read);
  useEffect(() => {
    if (!active) return;
    setTick(read());
    // a hidden window draws nothing: skip the work
    const timer = setInterval(() => document.visibilityState !== 'hidden' && setTick(read()), 1000);
    return () => clearInterval(timer);
  }, [active, store]);
  return tick;
}

function useSnapshotStoreOnTick(): SnapshotStore {
  const live = useContext(LiveContext);
  if (!live) throw new Error('ChartsView outside LiveContext');
  return live.snapshots;
}

/** Snapshots of an imported trace (read once; an imported trace does not change). */
function useImportedSnapshots(source: string): { snapshots: ServerSnapshot[]; error?: string; loading: boolean } {
  const api = useApi();
  const [state, setState] = useState<{ source: string; snapshots: ServerSnapshot[]; error?: string }>({ source: 'live', snapshots: [] });
  useEffect(() => {
    if (source === 'live') return;
    let cancelled = false;
    api.snapshots({ source }).then(
      (snapshots) => !cancelled && setState({ source, snapshots }),
      (e: Error) => !cancelled && setState({ source, snapshots: [], error: e.message }),
    );
    return () => {
      cancelled = true;
    };
  }, [api, source]);
  return { snapshots: state.source === source ? state.snapshots : [], error: state.source === source ? state.error : undefined, loading: source !== 'live' && state.source !== source };
}

export function ChartsView({ servers }: { servers: ServerStatus[] }) {
  const nav = useNavigation();
  // Not subscribed to every snapshot push (a few a second): the tick reads the store's version once a second.
  const store = useSnapshotStoreOnTick();
  const live = nav.source.id === 'live';
  const imported = useImportedSnapshots(nav.source.id);
  const colors = useChartColors();
  const { ref: gridRef, width: gridWidth } = useElementSize();

  const [scope, setScope] = useState<string>(nav.serverId ?? ALL);
  useEffect(() => setScope(nav.serverId ?? ALL), [nav.serverId]);
  const [windowSec, setWindowSec] = useState('300');
  const [frozen, setFrozen] = useState<{ version: number; now: number } | null>(null);

  const tick = useTick(live && !frozen, store);
  const second = tick.second;
  const version = frozen?.version ?? tick.version;

  const all = useMemo<ServerSnapshot[]>(
    () => (live ? [...store.snapshots.values()] : imported.snapshots),
    // the store's map is mutated in place; `version` is its change counter
    [live, version, imported.snapshots],
  );
  const names = useServerNames(servers, nav.source.id);
  const scopeOptions = useMemo(() => {
    const ids = new Set([...servers.map((s) => s.id), ...all.map((s) => s.server)]);
    return [{ value: ALL, label: 'All servers' }, ...[...ids].map((id) => ({ value: id, label: safeLabel(names.get(id) ?? id, 60) }))];
  }, [servers, all, names]);
  const selected = useMemo(() => (scope === ALL ? all : all.filter((s) => s.server === scope)), [all, scope]);

  const end = useMemo(() => {
    if (live) return frozen?.now ?? second;
    return Math.max(0, ...selected.map((s) => s.lastEventTs ?? s.buckets.at(-1)?.t ?? 0));
  }, [live, frozen, second, selected]);

  // One point per ~3 px of the half-width charts, at most 150: downsampled to what can be seen
  // (more points than pixels draw nothing more, and each is work on every tick).
  const chartWidth = gridWidth > 0 ? Math.floor((gridWidth - 12) / 2) - 20 : 480;
  const maxPoints = Math.max(60, Math.min(150, Math.floor(chartWidth / 3)));
  // parts that did not change keep their identity: their charts are not drawn again
  const previous = useRef<Series | undefined>(undefined);
  const series = useMemo(() => stabilize(previous.current, buildSeries(selected, end, Number(windowSec), maxPoints)), [selected, end, windowSec, maxPoints]);
  previous.current = series;
  const summary = useMemo(() => buildSummary(selected), [selected]);

  const scopeServers = scope === ALL ? undefined : [scope];
  const stepMs = series.stepSec * 1000;
  const onPick = useCallback(
    (t: number) => navigation.showTraffic({ kind: 'time', fromTs: t, toTs: t + stepMs - 1, ...(scopeServers ? { servers: scopeServers } : {}) }),
    [stepMs, scope],
  );

  const fullWidth = Math.max(200, gridWidth - 20);
  const halfWidth = Math.max(200, chartWidth);

  const secondRef = useRef(second);
  secondRef.current = second;
  const onPause = useCallback(() => setFrozen((f) => (f ? null : { version: store.version, now: secondRef.current })), [store]);
  const onScope = useCallback((v: string | null) => setScope(v ?? ALL), []);

  return (
    <Stack gap="sm" data-testid="charts" data-scope={scope === ALL ? 'all' : scope} data-window-sec={windowSec} data-source={nav.source.id}>
      <Group justify="space-between" wrap="nowrap">
        <Controls scopeOptions={scopeOptions} scope={scope} onScope={onScope} windowSec={windowSec} onWindow={setWindowSec} live={live} frozen={frozen !== null} onPause={onPause} />
        <Text size="xs" c="dimmed" data-testid="charts-range">
          {formatTime(series.from, false)} – {formatTime(series.to - 1, false)}
          {frozen ? ' · paused' : live ? ' · live' : ''} · click a point to open that {series.stepSec > 1 ? `${series.stepSec}-second span` : 'second'} in Traffic
        </Text>
      </Group>

      {imported.error && (
        <Alert color="red" title="Could not read the imported trace's snapshots">
          {imported.error}
        </Alert>
      )}
      {all.length === 0 && !imported.loading && (
        <Text size="sm" c="dimmed" data-testid="charts-empty">
          No activity yet. Connect a server and call a tool: its traffic is charted here as it happens.
        </Text>
      )}

      <Tiles summary={summary} names={names} now={summary.inFlight.length === 0 ? 0 : live ? second : end} />

      <div ref={gridRef}>
        <Stack gap="sm">
          <MessagesChart series={series} colors={colors} width={fullWidth} onPick={onPick} />
          <SimpleGrid cols={2} spacing="sm">
            <LatencyChart series={series} colors={colors} width={halfWidth} onPick={onPick} />
            <ErrorsChart series={series} colors={colors} width={halfWidth} onPick={onPick} />
            <InFlightChart series={series} colors={colors} width={halfWidth} onPick={onPick} />
            <PingChart series={series} colors={colors} width={halfWidth} onPick={onPick} />
          </SimpleGrid>
        </Stack>
      </div>
    </Stack>
  );
}

const Controls = memo(function Controls(props: {
  scopeOptions: { value: string; label: string }[];
  scope: string;
  onScope(value: string | null): void;
  windowSec: string;
  onWindow(value: string): void;
  live: boolean;
  frozen: boolean;
  onPause(): void;
}) {
  return (
    <Group gap="xs" wrap="nowrap">
      <Select
        size="xs"
        w={220}
        data={props.scopeOptions}
        value={props.scope}
        onChange={props.onScope}
        allowDeselect={false}
        aria-label="Server"
        data-testid="charts-scope"
        comboboxProps={{ withinPortal: true }}
      />
      <SegmentedControl size="xs" data={WINDOWS} value={props.windowSec} onChange={props.onWindow} data-testid="charts-window" aria-label="Time window" />
      {props.live ? (
        <Button size="compact-sm" variant={props.frozen ? 'filled' : 'default'} color={props.frozen ? 'yellow' : undefined} onClick={props.onPause} data-testid="charts-pause">
          {props.frozen ? 'Resume' : 'Pause'}
        </Button>
      ) : (
        <Badge color="orange" variant="light">
          imported trace
        </Badge>
      )}
    </Group>
  );
});

function Tile(props: { label: string; value: string; testId: string; children?: ReactNode; tooltip?: string; attrs?: Record<string, string | number> }) {
  const body = (
    <Paper withBorder px="xs" py={6} radius="md" data-testid={props.testId} {...props.attrs} style={{ minWidth: 0 }}>
      <Text size="xs" c="dimmed" tt="uppercase" fw={600} truncate>
        {props.label}
      </Text>
      <Text size="md" fw={700} className="mono" truncate>
        {props.value}
      </Text>
      <div style={{ minHeight: 32 }}>{props.children}</div>
    </Paper>
  );
  return props.tooltip ? (
    <Tooltip label={props.tooltip} multiline maw={320} withinPortal>
      {body}
    </Tooltip>
  ) : (
    body
  );
}

function Line2({ left, right }: { left: string; right: string }) {
  return (
    <Group justify="space-between" gap={6} wrap="nowrap">
      <Text size="xs" c="dimmed" truncate className="mono" style={{ unicodeBidi: 'plaintext', minWidth: 0, flex: 1 }}>
        {left}
      </Text>
      <Text size="xs" className="mono" style={{ whiteSpace: 'nowrap' }}>
        {right}
      </Text>
    </Group>
  );
}

const Tiles = memo(function Tiles({ summary, names, now }: { summary: Summary; names: Map<string, string>; now: number }) {
  const errors = summary.perChannel.reduce((sum, c) => sum + c.errors, 0);
  const oldest = summary.inFlight[0];
  return (
    <div data-testid="charts-tiles" style={{ display: 'grid', gridTemplateColumns: '1fr 1.7fr 1fr 1fr 1fr 0.9fr', gap: 'var(--mantine-spacing-sm)' }}>
      <Tile label="Messages" value={formatCount(summary.totalMessages)} testId="tile-messages" attrs={{ 'data-total': summary.totalMessages }}>
        {summary.perChannel.slice(0, 2).map((c) => (
          <Line2 key={c.channel} left={c.channel} right={formatCount(c.messages)} />
        ))}
        {summary.perChannel.length > 2 && (
          <Text size="xs" c="dimmed" truncate>
            +{summary.perChannel.length - 2} more{errors ? ` · ${errors} errors` : ''}
          </Text>
        )}
      </Tile>
      <Tile
        label="Latency p50 / p95"
        value={summary.latency[0] ? `${formatMs(summary.latency[0].p50)} / ${formatMs(summary.latency[0].p95)}` : '—'}
        testId="tile-latency"
        tooltip={summary.latencySource === 'samples' ? 'Across servers: percentiles of the sampled latencies of the last 15 minutes.' : 'This server, whole session.'}
      >
        {summary.latency[0] && <Line2 left={safeLabel(summary.latency[0].method, 60)} right={`${formatCount(summary.latency[0].count)} calls`} />}
        {summary.latency.slice(1, 2).map((l) => (
          <Line2 key={l.method} left={safeLabel(l.method, 40)} right={`${formatMs(l.p50)} / ${formatMs(l.p95)}`} />
        ))}
      </Tile>
      <Tile label="In flight" value={String(summary.inFlight.length)} testId="tile-inflight" attrs={{ 'data-count': summary.inFlight.length }}>
        {oldest ? (
          <Line2 left={safeLabel(oldest.method, 40)} right={`for ${formatMs(Math.max(0, now - oldest.since))}`} />
        ) : (
          <Text size="xs" c="dimmed">
            nothing waiting
          </Text>
        )}
        {oldest && (
          <Text size="xs" c="dimmed" truncate>
            {safeLabel(names.get(oldest.server) ?? oldest.server, 40)}
          </Text>
        )}
      </Tile>
      <Tile label="Sessions" value={`${summary.sessions.active} active`} testId="tile-sessions" attrs={{ 'data-active': summary.sessions.active, 'data-total': summary.sessions.total }}>
        <Text size="xs" c="dimmed">
          {summary.sessions.total} issued
        </Text>
        {summary.sessions.current && (
          <Text size="xs" className="mono" truncate title={summary.sessions.current}>
            {safeLabel(summary.sessions.current, 40)}
          </Text>
        )}
      </Tile>
      <Tile label="Bytes in / out" value={formatBytes(summary.bytesIn + summary.bytesOut)} testId="tile-bytes">
        <Line2 left="in ↓" right={formatBytes(summary.bytesIn)} />
        <Line2 left="out ↑" right={formatBytes(summary.bytesOut)} />
      </Tile>
      <Tile label="Ping RTT" value={summary.ping ? formatMs(summary.ping.last) : '—'} testId="tile-ping">
        {summary.ping ? (
          <Line2 left="average" right={formatMs(summary.ping.avg)} />
        ) : (
          <Text size="xs" c="dimmed">
            no pings yet
          </Text>
        )}
      </Tile>
    </div>
  );
});
