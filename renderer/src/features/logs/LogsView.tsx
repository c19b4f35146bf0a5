/**
 * Everything servers and Switchboard say: servers' log notifications (`server`), the stderr of
 * stdio servers (`stderr`), what went wrong with a server (`protocol`: its error answers, failed
 * lists, lost connections — attributed to that server), Switchboard's own errors (`app`). A virtualized list that follows
 * the tail (rows of one height: a line's text on one line; clicking it shows it whole below the list),
 * with filters (minimum level, source, server, text), copy and save, and the per-server
 * `logging/setLevel` control.
 */
import { Alert, Button, Chip, Group, NativeSelect, Select, Stack, Switch, Text, Tooltip } from '@mantine/core';
import { memo, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import type { LogLine, ServerStatus } from '../../../../contract';
import type { SwitchboardApi } from '../../../../contract/client';
import { useApi } from '../../api/context';
import { removedServerLabel, removedServerNames } from '../../app/useServers';
import { copyText, downloadText } from '../../components/download';
import { formatTime } from '../../components/format';
import { useFixedRows } from '../../components/fixed-rows';
import { useFollowScroll } from '../../components/follow-scroll';
import { slotCount } from '../../components/row-range';
import { ListHeader } from '../../components/ListHeader';
import { navigation, useNavigation } from '../../state/navigation';
import { findSeq, indexOfSeq } from '../../state/seq-search';
import { NewBelow } from '../../components/NewBelow';
import { getProxySessions } from '../../state/proxy-sessions';
import { useStore, useVersion } from '../../state/useStore';
import { importedServers } from '../traffic';
import { DEFAULT_SOURCES, FilteredLines, KEEP, LEVELS, LOG_SOURCES, SOURCE_LABEL, getLogStore, lineCount, oneLine, type LogFilter, type LogStore, type StoredLine } from './log-store';
import { LogLevelControl } from './LogLevelControl';
import { RecordedLogStore } from './recorded-lines';
import classes from './logs.module.css';

/** Every row's height (logs.module.css: an 18 px line, 2 + 2 px padding, a 1 px border). */
const ROW_HEIGHT = 23;
/** The selected line's pane shows at most this much; Copy takes all of it. */
const DETAIL_CHARS = 200_000;
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
  // The line shown whole, by seq in its store (another source's seqs are other lines).
  const [selection, setSelection] = useState<{ store: object; seq: number }>();
  const selected = selection?.store === store ? selection.seq : undefined;
  const setSelected = (seq: number | undefined) => setSelection(seq === undefined ? undefined : { store, seq });
  const filtered = useMemo(() => new FilteredLines(), [store]);

  const filter = useMemo<LogFilter>(
    () => ({ minLevel, sources: [...sources].sort(), server: server === ALL ? undefined : server === APP ? '' : server, text }),
    [minLevel, sources, server, text],
  );
  const lines = filtered.update(store, filter);
  // The line shown whole, while it is among those shown. A filter, a trim or another source that
  // takes it away ends the selection: it does not come back (and scroll there) by itself later.
  const selectedLine = useMemo(() => (selected === undefined ? undefined : findSeq(lines, selected)), [lines, selected]);
  useEffect(() => {
    if (selection && !selectedLine) setSelection(undefined);
  }, [selection, selectedLine]);

  const proxies = useStore(getProxySessions(api).sessions);
  const names = useMemo(
    () =>
      new Map([
        ...[...removedServerNames.keys()].map((id) => [id, removedServerLabel(id)] as const),
        ...[...(importedServers.get(sourceId) ?? []), ...servers, ...proxies.map((p) => ({ id: p.id, name: p.info.name }))].map((s) => [s.id, s.name] as const),
      ]),
    [servers, sourceId, proxies],
  );
  const nameOf = (id?: string) => (id ? (names.get(id) ?? id) : 'Switchboard');
  // Servers removed since whose lines are still here keep a filter entry. Looking for them reads
  // every line: done when the list opens (and for the server chosen), not on every tick of a flood.
  const [optionsOpen, setOptionsOpen] = useState(false);
  const serverOptions = useMemo(() => {
    const ids = new Set([...servers.map((s) => s.id), ...proxies.map((p) => p.id)]);
    const gone = new Set<string>();
    if (server !== ALL && server !== APP && !ids.has(server)) gone.add(server);
    if (optionsOpen) for (const l of store.lines) if (l.serverId && !ids.has(l.serverId)) gone.add(l.serverId);
    return [
      { value: ALL, label: 'All servers' },
      { value: APP, label: 'Switchboard itself' },
      ...servers.map((s) => ({ value: s.id, label: s.name })),
      ...proxies.map((p) => ({ value: p.id, label: `${p.info.name} (proxied)` })),
      ...[...gone].map((id) => ({ value: id, label: removedServerLabel(id) })),
    ];
  }, [servers, proxies, server, optionsOpen, store]);

  // The filters re-render when a filter changes, not on every tick of the list (Mantine's Select,
  // chips and tooltips are most of a render).
  const filterBar = useMemo(
    () => (
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
        <Select
          size="xs"
          w={190}
          data={serverOptions}
          value={server}
          onChange={(v) => setServer(v ?? ALL)}
          onDropdownOpen={() => setOptionsOpen(true)}
          onDropdownClose={() => setOptionsOpen(false)}
          allowDeselect={false}
          aria-label="Server"
          data-testid="log-filter-server"
        />
      </ListHeader>
    ),
    [text, minLevel, sources, serverOptions, server],
  );

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
      {filterBar}
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
      <LogList lines={lines} nameOf={nameOf} follow={follow} onFollow={setFollow} live={!recorded} loaded={store.loaded} total={store.lines.length} selected={selectedLine?.seq} onSelect={setSelected} />
      {selectedLine && <LogDetail line={selectedLine} name={nameOf(selectedLine.serverId)} onClose={() => setSelected(undefined)} />}
    </Stack>
  );
}

function LogList({
  lines,
  nameOf,
  follow,
  onFollow,
  live,
  loaded,
  total,
  selected,
  onSelect,
}: {
  lines: StoredLine[];
  nameOf(id?: string): string;
  follow: boolean;
  onFollow(on: boolean): void;
  /** The live lines (a recording's do not grow: no "newer" mark). */
  live: boolean;
  loaded: boolean;
  total: number;
  /** The seq of the line shown whole below the list. */
  selected: number | undefined;
  onSelect(seq: number | undefined): void;
}) {
  const viewport = useRef<HTMLDivElement>(null);
  const count = lines.length;
  // Rows of one height: what is on screen follows from the scroll position alone, whatever the
  // count; following, the last screenful is rendered in the render that grew the list.
  const { first, last, total: height, height: viewHeight, below } = useFixedRows(viewport, count, ROW_HEIGHT, follow ? 2 : 12, follow);
  const slots = slotCount(last - first + 1);
  // One click handler for every row, whatever changed since (rows are memoized).
  const latest = useRef({ selected, onSelect, onFollow });
  latest.current = { selected, onSelect, onFollow };
  const select = useCallback((seq: number) => {
    const now = latest.current;
    now.onSelect(seq === now.selected ? undefined : seq);
    // A line being read stays where it is.
    now.onFollow(false);
  }, []);

  const { setScroll, onScroll } = useFollowScroll(viewport, { count, rowHeight: ROW_HEIGHT, viewHeight, following: follow, canFollow: true, setFollow: onFollow });

  // Where the selected line is among those shown (-1: none).
  const active = selected === undefined ? -1 : indexOfSeq(lines, selected);

  // A newly selected line is in view, in the list as high as it is with the pane open (the
  // class that shrinks it is applied by now: clientHeight reads the new height).
  useLayoutEffect(() => {
    const el = viewport.current;
    if (!el || active < 0) return;
    if (active * ROW_HEIGHT < el.scrollTop) setScroll(active * ROW_HEIGHT);
    else if ((active + 1) * ROW_HEIGHT > el.scrollTop + el.clientHeight) setScroll((active + 1) * ROW_HEIGHT - el.clientHeight);
  }, [selected]);

  // The keyboard moves the selection (from the first or last line in view when there is none); Escape closes the line's pane.
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const el = viewport.current;
    const step = event.key === 'ArrowDown' ? 1 : event.key === 'ArrowUp' ? -1 : 0;
    if (event.key === 'Escape' && selected !== undefined) onSelect(undefined);
    else if (step && count && el) {
      const inView = step > 0 ? Math.ceil(el.scrollTop / ROW_HEIGHT) : Math.floor((el.scrollTop + el.clientHeight) / ROW_HEIGHT) - 1;
      const index = Math.max(0, Math.min(count - 1, active < 0 ? inView : active + step));
      onSelect(lines[index]!.seq);
      onFollow(false);
    } else return;
    event.preventDefault();
  };

  // (The scroll element is there with or without lines: the rows' range measures it once.)
  const rows = [];
  for (let index = first; index <= last; index++) {
    const line = lines[index]!;
    rows.push(
      <LogRow
        key={index % slots}
        line={line}
        index={index}
        name={nameOf(line.serverId)}
        selected={line.seq === selected}
        onSelect={select}
      />,
    );
  }
  return (
    <div className={classes.listFrame}>
      <div
        ref={viewport}
        className={`${classes.viewport} ${selected !== undefined ? classes.withDetail : ''}`}
        onScroll={onScroll}
        onKeyDown={onKeyDown}
        tabIndex={0}
        role={count ? 'grid' : undefined}
        aria-label="Log lines"
        aria-rowcount={count || undefined}
        aria-activedescendant={active >= first && active <= last ? rowId(lines[active]!.seq) : undefined}
        data-testid="log-lines"
        data-row-height={ROW_HEIGHT}
      >
        {count ? (
          <div style={{ height, position: 'relative' }} role="rowgroup">
            {rows}
          </div>
        ) : (
          <Text c="dimmed" size="sm" p="sm">
            {!loaded ? 'Loading…' : total ? 'No lines match the filters.' : 'No log lines yet. Server log notifications, stderr of stdio servers and Switchboard’s own errors appear here.'}
          </Text>
        )}
      </div>
      <NewBelow count={live && !follow ? below : 0} noun={['line', 'lines']} onFollow={() => onFollow(true)} testId="log-new-below" />
    </div>
  );
}

/** The id of a line's row (the grid's active descendant). */
const rowId = (seq: number) => `log-row-${seq}`;


/**
 * One line of the log, one row high: its text on one line (line breaks shown as ⏎, cut at
 * ROW_CHARS, the rest ellipsized). A longer or multi-line text says so; clicking the row shows it
 * whole below the list.
 */
const LogRow = memo(function LogRow({ line, index, name, selected, onSelect }: { line: StoredLine; index: number; name: string; selected: boolean; onSelect(seq: number): void }) {
  const lines = lineCount(line.text);
  const shown = oneLine(line.text);
  return (
    <div
      className={`${classes.row} ${classes[`row-${line.level}`] ?? ''} ${selected ? classes.selected : ''}`}
      style={{ transform: `translateY(${index * ROW_HEIGHT}px)` }}
      onClick={() => onSelect(line.seq)}
      id={rowId(line.seq)}
      role="row"
      aria-rowindex={index + 1}
      aria-selected={selected}
      data-testid="log-line"
      data-seq={line.seq}
      data-level={line.level}
      data-source={line.source}
      data-server-id={line.serverId ?? ''}
    >
      <span className={classes.time} title={new Date(line.ts).toISOString()} role="gridcell">
        {formatTime(line.ts)}
      </span>
      <span className={`${classes.tag} ${classes[`level-${line.level}`] ?? ''}`} data-testid="log-level-tag" role="gridcell">
        {line.level}
      </span>
      <span className={`${classes.tag} ${classes[`src-${line.source}`] ?? ''}`} role="gridcell">
        {SOURCE_LABEL[line.source] ?? line.source}
      </span>
      <span className={classes.server} title={name} role="gridcell">
        {name}
      </span>
      <span className={classes.text} data-testid="log-text" role="gridcell">
        {shown.text}
      </span>
      <span className={classes.more} data-testid={lines > 1 || shown.cut ? 'log-more' : undefined} title={lines > 1 || shown.cut ? 'Click the line to read it whole' : undefined}>
        {lines > 1 ? `${lines.toLocaleString()} lines` : shown.cut ? `${line.text.length.toLocaleString()} chars` : ''}
      </span>
      <button
        type="button"
        className={classes.rowCopy}
        onClick={(e) => {
          e.stopPropagation();
          void copyText(line.text);
        }}
        aria-label="Copy line"
      >
        Copy
      </button>
    </div>
  );
});


/** The selected line whole, below the list: its time, level, source and server, and its text (the first DETAIL_CHARS shown; Copy takes all). */
function LogDetail({ line, name, onClose }: { line: StoredLine; name: string; onClose(): void }) {
  const [copied, setCopied] = useState(false);
  const cut = line.text.length > DETAIL_CHARS;
  const lines = lineCount(line.text);
  return (
    <div className={classes.detail} data-testid="log-detail" data-seq={line.seq}>
      <Group gap="xs" wrap="nowrap" justify="space-between" className={classes.detailHead}>
        <Group gap="xs" wrap="nowrap" style={{ minWidth: 0 }}>
          <span className={classes.time}>{new Date(line.ts).toISOString()}</span>
          <span className={`${classes.tag} ${classes[`level-${line.level}`] ?? ''}`}>{line.level}</span>
          <span className={`${classes.tag} ${classes[`src-${line.source}`] ?? ''}`}>{SOURCE_LABEL[line.source] ?? line.source}</span>
          <span className={classes.server} title={name}>
            {name}
          </span>
          <Text size="xs" c="dimmed">
            {lines.toLocaleString()} {lines === 1 ? 'line' : 'lines'} · {line.text.length.toLocaleString()} characters
          </Text>
        </Group>
        <Group gap={4} wrap="nowrap">
          <Button
            size="compact-xs"
            variant="default"
            onClick={() =>
              void copyText(line.text).then(() => {
                setCopied(true);
                setTimeout(() => setCopied(false), 1200);
              })
            }
            data-testid="log-detail-copy"
          >
            {copied ? 'Copied' : 'Copy'}
          </Button>
          <Button size="compact-xs" variant="subtle" onClick={onClose} aria-label="Close the line" data-testid="log-detail-close">
            Close
          </Button>
        </Group>
      </Group>
      <pre className={classes.detailText} data-testid="log-detail-text">
        {cut ? line.text.slice(0, DETAIL_CHARS) : line.text}
        {cut && <span className={classes.dimmed}>{`\n… ${(line.text.length - DETAIL_CHARS).toLocaleString()} more characters (Copy takes them all)`}</span>}
      </pre>
    </div>
  );
}
