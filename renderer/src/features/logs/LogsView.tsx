/**
 * Everything servers and Switchboard say: servers' log notifications (`server`), the stderr of
 * stdio servers (`stderr`), what went wrong with a server (`protocol`: its error answers, failed
 * lists, lost connections — attributed to that server), Switchboard's own errors (`app`). A virtualized list that follows
 * the tail, with filters (minimum level, source, server, text), copy and save, and the
 * per-server `logging/setLevel` control.
 */
import { Alert, Button, Chip, Group, NativeSelect, Select, Stack, Switch, Text, Tooltip } from '@mantine/core';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { LogLine, ServerStatus } from '../../../../contract';
import type { SwitchboardApi } from '../../../../contract/client';
import { useApi } from '../../api/context';
import { copyText, downloadText } from '../../components/download';
import { formatTime } from '../../components/format';
import { ListHeader } from '../../components/ListHeader';
import { navigation, useNavigation } from '../../state/navigation';
import { getProxySessions } from '../../state/proxy-sessions';
import { useStore, useVersion } from '../../state/useStore';
import { importedServers } from '../traffic';
import { DEFAULT_SOURCES, FilteredLines, KEEP, LEVELS, LOG_SOURCES, SOURCE_LABEL, getLogStore, type LogFilter, type LogStore, type StoredLine } from './log-store';
import { LogLevelControl } from './LogLevelControl';
import { RecordedLogStore } from './recorded-lines';
import classes from './logs.module.css';

/** A line shows at most this much until expanded: long lines must not push the others away. */
const CLIP_CHARS = 600;
const CLIP_LINES = 8;

function clip(text: string): string {
  let end = Math.min(text.length, CLIP_CHARS);
  let breaks = 0;
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 10 && ++breaks === CLIP_LINES) {
      end = i;
      break;
    }
  }
  return end < text.length ? text.slice(0, end) : text;
}
const ALL = '*';
const APP = '-';

/** The window's live log store; the component re-renders on its tick. */
function useLogStore(api: SwitchboardApi): LogStore {
  const store = getLogStore(api);
  useVersion(store);
  return store;
}

export function LogsView({ servers }: { servers: ServerStatus[] }) {
  const api = useApi();
  const nav = useNavigation();
  const liveStore = useLogStore(api);
  // While the view is open, main pushes every line (and the lines it holds are read now).
  useEffect(() => liveStore.acquire(), [liveStore]);
  // A recording or an imported file is the source: its own log-like events, read-only.
  const sourceId = nav.source.id;
  const recorded = useMemo(() => (sourceId === 'live' ? undefined : new RecordedLogStore(api, sourceId)), [api, sourceId]);
  useEffect(() => () => recorded?.close(), [recorded]);
  useVersion(recorded ?? liveStore);
  const store = recorded ?? liveStore;
  const [minLevel, setMinLevel] = useState<LogLine['level']>('debug');
  const [sources, setSources] = useState<LogLine['source'][]>(DEFAULT_SOURCES);
  const [server, setServer] = useState<string>(() => nav.serverId ?? ALL);
  const [text, setText] = useState('');
  const [follow, setFollow] = useState(true);
  const [copied, setCopied] = useState(false);
  const filtered = useMemo(() => new FilteredLines(), [store]);

  const filter = useMemo<LogFilter>(
    () => ({ minLevel, sources: [...sources].sort(), server: server === ALL ? undefined : server === APP ? '' : server, text }),
    [minLevel, sources, server, text],
  );
  const lines = filtered.update(store, filter);

  const proxies = useStore(getProxySessions(api).sessions);
  const names = useMemo(() => new Map([...(importedServers.get(sourceId) ?? []), ...servers, ...proxies.map((p) => ({ id: p.id, name: p.info.name }))].map((s) => [s.id, s.name])), [servers, sourceId, proxies]);
  const nameOf = (id?: string) => (id ? (names.get(id) ?? id) : 'Switchboard');
  const serverOptions = useMemo(() => {
    const ids = new Set([...servers.map((s) => s.id), ...proxies.map((p) => p.id)]);
    // Lines of servers removed since still deserve a filter entry.
    const gone = new Set<string>();
    for (const l of store.lines) if (l.serverId && !ids.has(l.serverId)) gone.add(l.serverId);
    return [
      { value: ALL, label: 'All servers' },
      { value: APP, label: 'Switchboard itself' },
      ...servers.map((s) => ({ value: s.id, label: s.name })),
      ...proxies.map((p) => ({ value: p.id, label: `${p.info.name} (proxied)` })),
      ...[...gone].map((id) => ({ value: id, label: `${id} (removed)` })),
    ];
    // store.lines changes identity rarely; the version tick re-renders anyway.
  }, [servers, proxies, store.lines.length]);

  const asText = () => lines.map((l) => `${new Date(l.ts).toISOString()}  ${l.level.toUpperCase().padEnd(7)}  ${l.source.padEnd(6)}  ${nameOf(l.serverId)}  ${l.text}`).join('\n');

  return (
    <Stack gap="xs" data-testid="logs-view" data-source={sourceId}>
      {recorded && (
        <Alert color="orange" variant="light" p="xs" data-testid="logs-read-only">
          <Group gap="xs" justify="space-between" wrap="nowrap">
            <Text size="xs">
              Read-only: the log lines of <b>{nav.source.name}</b> (stderr, servers&apos; log notifications and errors, from its trace).
              {recorded.error ? ` Could not read them: ${recorded.error}` : ''}
              {recorded.cut ? ` Its first ${KEEP.toLocaleString()} lines are shown; Traffic has every event.` : ''}
            </Text>
            <Button size="compact-xs" variant="subtle" onClick={() => navigation.useSource({ id: 'live', name: 'Live' })} data-testid="logs-back-to-live">
              Back to live
            </Button>
          </Group>
        </Alert>
      )}
      <ListHeader query={text} onQuery={setText} placeholder="Filter text" label="Filter log text" testId="log-filter-text" minWidth={160}>
        <Tooltip label="Minimum level: this level and the more severe ones (MCP's eight syslog levels)">
          <NativeSelect
            size="xs"
            w={150}
            value={minLevel}
            onChange={(e) => setMinLevel(e.currentTarget.value as LogLine['level'])}
            data={LEVELS.map((l) => ({ value: l, label: l === 'debug' ? 'all levels' : `${l} and above` }))}
            aria-label="Minimum level"
            data-testid="log-filter-level"
          />
        </Tooltip>
        <Chip.Group multiple value={sources} onChange={(v) => setSources(v as LogLine['source'][])}>
          <Group gap={4} wrap="nowrap" data-testid="log-filter-sources">
            {LOG_SOURCES.map((s) => (
              <Tooltip key={s.value} label={s.hint}>
                <Chip size="xs" value={s.value} variant="outline" data-testid={`log-source-${s.value}`}>
                  {s.label}
                </Chip>
              </Tooltip>
            ))}
          </Group>
        </Chip.Group>
        <Select size="xs" w={190} data={serverOptions} value={server} onChange={(v) => setServer(v ?? ALL)} allowDeselect={false} aria-label="Server" data-testid="log-filter-server" />
      </ListHeader>
      <Group gap="xs" wrap="nowrap" align="center" justify="space-between">
        <Text size="xs" c="dimmed" data-testid="log-count" data-last-id={lines.at(-1)?.id ?? 0}>
          {lines.length.toLocaleString()} of {store.lines.length.toLocaleString()} lines shown
          {store.dropped ? ` · ${store.dropped.toLocaleString()} older lines dropped or cleared (this window keeps ${KEEP.toLocaleString()})` : ''}
        </Text>
        <Group gap="xs" wrap="nowrap">
          <Tooltip label="Keep the newest line in view; scrolling up pauses it, scrolling to the bottom resumes it">
            <Switch size="xs" label="Follow" checked={follow} onChange={(e) => setFollow(e.currentTarget.checked)} data-testid="log-follow" />
          </Tooltip>
          <Button
            size="compact-sm"
            variant="default"
            disabled={!lines.length}
            onClick={() =>
              void copyText(asText()).then(() => {
                setCopied(true);
                setTimeout(() => setCopied(false), 1200);
              })
            }
            data-testid="log-copy"
          >
            {copied ? 'Copied' : `Copy ${lines.length.toLocaleString()}`}
          </Button>
          <Button
            size="compact-sm"
            variant="default"
            disabled={!lines.length}
            onClick={() => downloadText(`switchboard-logs-${new Date().toISOString().replace(/[:.]/g, '-')}.log`, asText())}
          >
            Save
          </Button>
          {!recorded && (
            <>
              <Tooltip label="Clears this view (main keeps its recent lines)">
                <Button size="compact-sm" variant="default" onClick={() => liveStore.clear()} data-testid="log-clear">
                  Clear
                </Button>
              </Tooltip>
              <LogLevelControl servers={servers} store={liveStore} />
            </>
          )}
        </Group>
      </Group>
      <LogList lines={lines} nameOf={nameOf} follow={follow} onFollow={setFollow} loaded={store.loaded} total={store.lines.length} />
    </Stack>
  );
}

function LogList({
  lines,
  nameOf,
  follow,
  onFollow,
  loaded,
  total,
}: {
  lines: StoredLine[];
  nameOf(id?: string): string;
  follow: boolean;
  onFollow(on: boolean): void;
  loaded: boolean;
  total: number;
}) {
  const viewport = useRef<HTMLDivElement>(null);
  const programmaticAt = useRef(0);
  const programmaticTop = useRef(0);
  const [expanded, setExpanded] = useState<Set<number>>(new Set());
  const virtualizer = useVirtualizer({
    count: lines.length,
    getScrollElement: () => viewport.current,
    estimateSize: () => 23,
    overscan: 20,
    getItemKey: (i) => lines[i]!.seq,
  });

  // The user moved the list up, away from the tail, since our last scroll to the bottom. (A
  // shrinking list clamps scrollTop, and measuring rows nudges it; neither leaves the bottom.)
  const leftTail = (el: HTMLElement) => el.scrollTop < programmaticTop.current - 5 && el.scrollHeight - el.scrollTop - el.clientHeight >= 30;

  const toBottom = () => {
    const el = viewport.current;
    if (!el) return;
    // A scroll up whose event has not been dispatched yet must not be undone by following.
    if (leftTail(el)) {
      onFollow(false);
      return;
    }
    programmaticAt.current = Date.now();
    el.scrollTop = el.scrollHeight;
    programmaticTop.current = el.scrollTop;
  };

  // Follow the tail: after each change, and again once rows are measured. Turning Follow on
  // (the switch, or scrolling back down) moves to the tail from wherever the list is.
  const wasFollowing = useRef(follow);
  useLayoutEffect(() => {
    const turnedOn = follow && !wasFollowing.current;
    wasFollowing.current = follow;
    if (!follow || !lines.length) return;
    if (turnedOn) programmaticTop.current = 0;
    toBottom();
    const frame = requestAnimationFrame(toBottom);
    return () => cancelAnimationFrame(frame);
  }, [follow, lines, virtualizer.getTotalSize()]);

  const onScroll = () => {
    const el = viewport.current;
    if (!el) return;
    // Ignore the echo of our own scroll to the bottom, but never a move up by the user.
    if (!leftTail(el) && Date.now() - programmaticAt.current < 120) return;
    const atBottom = el.scrollHeight - el.scrollTop - el.clientHeight < 30;
    if (atBottom !== follow) onFollow(atBottom);
  };

  if (!lines.length) {
    return (
      <div className={classes.viewport} data-testid="log-lines" style={{ contain: 'none' }}>
        <Text c="dimmed" size="sm" p="sm">
          {!loaded ? 'Loading…' : total ? 'No lines match the filters.' : 'No log lines yet. Server log notifications, stderr of stdio servers and Switchboard’s own errors appear here.'}
        </Text>
      </div>
    );
  }

  return (
    <div ref={viewport} className={classes.viewport} onScroll={onScroll} data-testid="log-lines">
      <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
        {virtualizer.getVirtualItems().map((v) => {
          const line = lines[v.index]!;
          const shown = expanded.has(line.seq) ? line.text : clip(line.text);
          const clipped = shown.length < line.text.length;
          return (
            <div
              key={v.key}
              data-index={v.index}
              ref={virtualizer.measureElement}
              className={`${classes.row} ${classes[`row-${line.level}`] ?? ''}`}
              style={{ position: 'absolute', top: 0, left: 0, right: 0, transform: `translateY(${v.start}px)` }}
              data-testid="log-line"
              data-level={line.level}
              data-source={line.source}
              data-server-id={line.serverId ?? ''}
            >
              <span className={classes.time} title={new Date(line.ts).toISOString()}>
                {formatTime(line.ts)}
              </span>
              <span className={`${classes.tag} ${classes[`level-${line.level}`] ?? ''}`} data-testid="log-level-tag">
                {line.level}
              </span>
              <span className={`${classes.tag} ${classes[`src-${line.source}`] ?? ''}`}>{SOURCE_LABEL[line.source] ?? line.source}</span>
              <span className={classes.server} title={nameOf(line.serverId)}>
                {nameOf(line.serverId)}
              </span>
              <span className={classes.text} data-testid="log-text">
                {shown}
                {clipped && (
                  <button type="button" className={classes.more} onClick={() => setExpanded((old) => new Set(old).add(line.seq))} data-testid="log-more">
                    … {(line.text.length - shown.length).toLocaleString()} more characters
                  </button>
                )}
                <Button size="compact-xs" variant="default" className={classes.rowCopy} onClick={() => void copyText(line.text)} aria-label="Copy line">
                  Copy
                </Button>
              </span>
            </div>
          );
        })}
      </div>
    </div>
  );
}
