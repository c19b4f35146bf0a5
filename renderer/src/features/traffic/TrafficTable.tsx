/**
 * The virtualized event table: fixed-height rows, only what is on screen is rendered, so it
 * stays smooth at hundreds of thousands of rows and during a live flood. Reads a `RowModel`
 * (models.ts); follows the newest row while "Follow" is on; reveals a requested event.
 */
import { notifications } from '@mantine/notifications';
import { useEffect, useLayoutEffect, useRef, type CSSProperties, type KeyboardEvent } from 'react';
import { isProxyServerId } from '../../../../contract/proxy';
import type { Channel, TraceEvent } from '../../../../contract/trace';
import { formatBytes, formatCount, formatMs, formatTime } from '../../components/format';
import { useFixedRows } from '../../components/fixed-rows';
import { useFollowScroll } from '../../components/follow-scroll';
import { NewBelow } from '../../components/NewBelow';
import { slotCount } from '../../components/row-range';
import { useTraceBuffer } from '../../state/live';
import { useVersion } from '../../state/useStore';
import {
  appLabel,
  clip,
  DIR_ARROW,
  durationOf,
  isDisabledEvent,
  isErrorEvent,
  isNegotiationEvent,
  isNotification,
  isSeparator,
  methodStatus,
  shortSession,
} from './format';
import { ExchangeGroup, LIST_MAX_EVENTS, ListModel, WindowModel, type RowModel } from './models';
import classes from './TrafficView.module.css';
import { traffic, useTrafficState } from './traffic-store';

export const ROW_H = 24;
/** Rows rendered beyond the screen on each side when not following (following: 2). */
const OVERSCAN = 12;
/** A list loads its next older page when the rows rendered start within this many of its top. */
const OLDER_WITHIN = 40;

/** Live events carry the channel known when they were recorded; a POST becomes post-sse only once answered. */
const exchangeChannels = new Map<string, Channel>();
let channelsScannedTo = 0;

function noteChannels(events: readonly TraceEvent[]): void {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!;
    if (event.seq <= channelsScannedTo) break;
    if (event.kind === 'http-response' && event.exchange) exchangeChannels.set(event.exchange, event.channel);
  }
  if (events.length) channelsScannedTo = Math.max(channelsScannedTo, events[events.length - 1]!.seq);
  if (exchangeChannels.size > 50_000) for (const key of [...exchangeChannels.keys()].slice(0, 10_000)) exchangeChannels.delete(key);
}

/** The channel to show: main resolves it for events it returns; live ones are resolved here. */
function channelOf(event: TraceEvent, live: boolean): Channel {
  return (live && event.exchange && exchangeChannels.get(event.exchange)) || event.channel;
}

const cx = (...names: (string | false | undefined)[]) => names.filter(Boolean).join(' ');

export interface TrafficTableProps {
  model: RowModel | undefined;
  names: ReadonlyMap<string, string>;
  live: boolean;
  paused: boolean;
  filtered: boolean;
}

export function TrafficTable({ model, names, live, paused, filtered }: TrafficTableProps) {
  const buffer = useTraceBuffer();
  const st = useTrafficState();
  const version = useVersion(model);
  const scrollRef = useRef<HTMLDivElement>(null);
  const anchor = useRef<{ seq: number; within: number; count: number } | null>(null);
  const reveal = useRef({ nonce: 0, tries: 0 });

  // Live ticks: let the model take in new events.
  useEffect(() => {
    if (!live) return;
    noteChannels(buffer.events);
    model?.tick(paused);
  }, [model, buffer.version, paused, live, buffer]);

  const count = model?.count ?? 0;
  const following = st.follow && live;
  // Following, nothing is above the newest screenful to scroll to smoothly: a row or two of margin is enough.
  const { first, last, total: totalHeight, height: viewHeight, below } = useFixedRows(scrollRef, count, ROW_H, following ? 2 : OVERSCAN, following);
  const slots = slotCount(last - first + 1);

  const { setScroll, onScroll } = useFollowScroll(scrollRef, { count, rowHeight: ROW_H, viewHeight, following, canFollow: live, setFollow: traffic.setFollow, revision: model });

  // What is on screen: load missing pages; near the top of a list, load older matches. (Near the top
  // as the list stands now, not only as `first` says: after older rows were prepended, the scroll
  // that keeps the rows on screen has moved the list, but its event, which moves `first`, comes a
  // frame later; read from `first` alone, the list was still at the top and loaded one more page.)
  useEffect(() => {
    if (!model) return;
    model.visible(first, last);
    if (model instanceof ListModel && first < OLDER_WITHIN && model.hasOlder && !model.isLoadingOlder && !anchor.current) {
      const el = scrollRef.current;
      const top = el?.scrollTop ?? 0;
      const index = Math.floor(top / ROW_H);
      if (index >= OLDER_WITHIN + OVERSCAN) return; // (the bound on `first`, overscan included)
      const seq = model.seqAt(index);
      const a = seq === undefined ? null : { seq, within: top - index * ROW_H, count: model.count };
      anchor.current = a;
      void model.loadOlder().then((loaded) => {
        // (only this load's anchor: another model's may stand there by now)
        if (!loaded && anchor.current === a) anchor.current = null;
      });
    }
  }, [model, first, last, version]);

  useEffect(() => {
    anchor.current = null;
  }, [model]);

  // After older rows were prepended, keep the same rows on screen, unless the table follows the newest
  // row. (Not the stored Follow switch: a recording never follows, yet that switch may be on.) An
  // older page that added no row (its events all joined a group already shown: one exchange of
  // thousands of SSE events) moves nothing, and the next page may load.
  useLayoutEffect(() => {
    const a = anchor.current;
    if (!a || !model || !(model instanceof ListModel) || model.isLoadingOlder) return;
    anchor.current = null;
    if (model.count === a.count) return;
    const index = model.indexOfSeq(a.seq);
    if (index >= 0 && !following) setScroll(index * ROW_H + a.within);
  });

  // Reveal a requested event (from another view, "show in table", "Go to #"). A layout effect: the
  // question to main leaves, and the scroll to its answer happens, before the frame is painted,
  // not one painted frame later.
  useLayoutEffect(() => {
    const r = st.reveal;
    if (!model || !r || r.nonce === reveal.current.nonce) return;
    const status = model.status();
    if (status.loading) return;
    const index = model.indexOfSeq(r.seq);
    if (index < 0) {
      reveal.current.tries++;
      if (model instanceof ListModel) {
        const firstSeq = model.events[0]?.seq ?? Infinity;
        if (model.hasOlder && firstSeq > r.seq) {
          if (!model.isLoadingOlder) void model.loadOlder();
          return;
        }
        if (status.capped && firstSeq > r.seq) {
          // Older than the grouped list may hold: the ungrouped table reaches every event.
          reveal.current.tries = 0;
          traffic.setGrouped(false);
          notifications.show({ title: 'Grouping turned off', message: `Event #${r.seq} is older than the ${formatCount(LIST_MAX_EVENTS)} events the grouped list holds, so grouping was turned off to show it.` });
          return;
        }
        if (filtered) {
          reveal.current.tries = 0;
          traffic.clearFilters();
          notifications.show({ title: 'Filters cleared', message: `Event #${r.seq} does not match the filters, so they were cleared to show it.` });
          return;
        }
      } else if (r.seq <= st.clearedThrough) {
        traffic.restoreView();
        return;
      } else if (model instanceof WindowModel) {
        // Main says where it is among the matches (asked once; the answer bumps the version).
        const where = model.locate(r.seq);
        if (where === 'pending') return;
        if (where === 'absent' && filtered && r.seq <= status.total) {
          reveal.current.tries = 0;
          traffic.clearFilters();
          notifications.show({ title: 'Filters cleared', message: `Event #${r.seq} does not match the filters, so they were cleared to show it.` });
          return;
        }
      }
      if (reveal.current.tries < 30) return; // not arrived yet: retried on the next tick
      reveal.current = { nonce: r.nonce, tries: 0 };
      notifications.show({ color: 'yellow', title: 'Event not found', message: `Event #${r.seq} is not in this trace.` });
      return;
    }
    reveal.current = { nonce: r.nonce, tries: 0 };
    const el = scrollRef.current;
    if (el) setScroll(index * ROW_H - el.clientHeight / 2 + ROW_H / 2);
  }, [st.reveal, st.clearedThrough, model, version, count, filtered]);

  const selectedIndex = model && st.selectedSeq !== undefined ? model.indexOfSeq(st.selectedSeq) : -1;

  const ensureVisible = (index: number) => {
    const el = scrollRef.current;
    if (!el) return;
    const top = index * ROW_H;
    if (top < el.scrollTop) setScroll(top);
    else if (top + ROW_H > el.scrollTop + el.clientHeight) setScroll(top + ROW_H - el.clientHeight);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (!model || count === 0) return;
    const move = (index: number) => {
      const clamped = Math.max(0, Math.min(count - 1, index));
      const seq = model.seqAt(clamped);
      if (seq === undefined) return;
      traffic.select(seq);
      traffic.setFollow(false);
      ensureVisible(clamped);
    };
    const row = selectedIndex >= 0 ? model.rowAt(selectedIndex) : undefined;
    const page = Math.max(1, Math.floor((scrollRef.current?.clientHeight ?? 240) / ROW_H) - 1);
    switch (event.key) {
      case 'ArrowDown':
        move(selectedIndex < 0 ? first : selectedIndex + 1);
        break;
      case 'ArrowUp':
        move(selectedIndex < 0 ? last : selectedIndex - 1);
        break;
      case 'PageDown':
        move((selectedIndex < 0 ? first : selectedIndex) + page);
        break;
      case 'PageUp':
        move((selectedIndex < 0 ? last : selectedIndex) - page);
        break;
      case 'Home':
        traffic.setFollow(false);
        setScroll(0);
        break;
      case 'End':
        setScroll(count * ROW_H);
        if (live) traffic.setFollow(true);
        break;
      case 'ArrowRight':
      case 'ArrowLeft':
      case 'Enter':
        if (row instanceof ExchangeGroup) {
          const open = st.expanded.has(row.exchange);
          if (event.key === 'Enter' || open !== (event.key === 'ArrowRight')) traffic.toggleExpanded(row.exchange);
        } else return;
        break;
      case 'Escape':
        traffic.select(undefined);
        break;
      default:
        return;
    }
    event.preventDefault();
  };

  const status = model?.status();
  const selectedExchange = (() => {
    if (st.selectedSeq === undefined || !model || selectedIndex < 0) return undefined;
    const row = model.rowAt(selectedIndex);
    return row instanceof ExchangeGroup ? row.exchange : undefined;
  })();

  return (
    <div className={classes.tablePane}>
      <div className={classes.header} role="row">
        <span className={classes.num}>#</span>
        <span>Time</span>
        <span>Server</span>
        <span>Channel</span>
        <span title="Direction: → sent, ← received">⇄</span>
        <span>Kind</span>
        <span>Method / status</span>
        <span>Session</span>
        <span className={classes.right}>Size</span>
        <span className={classes.right}>Duration</span>
      </div>
      <div
        ref={scrollRef}
        className={classes.scroller}
        onScroll={onScroll}
        onKeyDown={onKeyDown}
        tabIndex={0}
        role="grid"
        aria-rowcount={count}
        aria-label="Trace events"
        data-testid="traffic-table"
        data-filtered={filtered}
        data-grouped={st.grouped}
        data-follow={following}
        data-loading-older={model instanceof ListModel && model.isLoadingOlder}
        data-row-height={ROW_H}
      >
        <div style={{ height: totalHeight, position: 'relative', width: '100%' }}>
          {model &&
            Array.from({ length: last - first + 1 }, (_, i) => {
              const index = first + i;
              const row = model.rowAt(index);
              const seq = model.seqAt(index);
              const style = { transform: `translateY(${index * ROW_H}px)` };
              if (!row) {
                return (
                  <div key={`p${index % slots}`} className={cx(classes.row, classes.placeholder)} style={style} role="row" aria-rowindex={index + 1} data-testid="traffic-row-placeholder" data-seq={seq}>
                    <span className={classes.num}>{seq}</span>
                    <span>loading…</span>
                  </div>
                );
              }
              const group = model instanceof ListModel && !(row instanceof ExchangeGroup) ? model.groupOf(row) : undefined;
              const selected = row instanceof ExchangeGroup ? row.exchange === selectedExchange || row.seq === st.selectedSeq : row.seq === st.selectedSeq;
              return row instanceof ExchangeGroup ? (
                <GroupRow key={`g${index % slots}`} group={row} index={index} style={style} selected={selected} open={st.expanded.has(row.exchange)} names={names} live={live} />
              ) : (
                <EventRow key={index % slots} event={row} index={index} style={style} selected={selected} child={group !== undefined} names={names} live={live} />
              );
            })}
        </div>
        {status && count === 0 && (
          <div className={classes.empty} data-testid="traffic-empty">
            {status.loading ? 'Loading…' : status.error ? `Could not read the trace: ${status.error}` : filtered ? 'No events match the filters.' : st.clearedThrough > 0 ? 'View cleared. New events will appear here.' : 'No traffic yet. Connect a server and call a tool.'}
          </div>
        )}
      </div>
      <NewBelow count={live && !following ? below : 0} noun={st.grouped ? ['row', 'rows'] : ['event', 'events']} onFollow={() => traffic.setFollow(true)} testId="traffic-new-below" />
    </div>
  );
}

function serverName(names: ReadonlyMap<string, string>, id: string): string {
  return names.get(id) ?? id;
}

/** The server column: a proxied session's name carries its "px" tag. */
function ServerCell({ id, name }: { id: string; name: string }) {
  if (!isProxyServerId(id)) return <span>{name}</span>;
  return (
    <span title={`${name}: a session seen through switchboard proxy`}>
      <span className={classes.proxyTag} data-testid="traffic-proxy-tag">
        px
      </span>
      {name}
    </span>
  );
}

/** Clicking a row inspects it: the table stops following so the row stays put. */
function onRowClick(seq: number) {
  traffic.select(seq);
  traffic.setFollow(false);
}

const attr = (value: string | undefined, max = 200) => (value === undefined ? undefined : value.length > max ? value.slice(0, max) : value);

/** What every table row carries, separator or event: its click, its selection and the data the tests and the keyboard read. */
function rowProps(event: TraceEvent, index: number, selected: boolean, name: string, channel: string) {
  return {
    onClick: () => onRowClick(event.seq),
    role: 'row',
    'aria-rowindex': index + 1,
    'aria-selected': selected,
    'data-testid': 'traffic-row',
    'data-seq': event.seq,
    'data-server': event.server,
    'data-server-name': name,
    'data-kind': event.kind,
    'data-channel': channel,
  };
}

function EventRow({ event, index, style, selected, child, names, live }: { event: TraceEvent; index: number; style: CSSProperties; selected: boolean; child: boolean; names: ReadonlyMap<string, string>; live: boolean }) {
  const channel = channelOf(event, live);
  if (isSeparator(event)) {
    const tone = event.kind === 'session' ? classes.sepSession : event.kind === 'reconnect' ? classes.sepReconnect : classes.sepState;
    const label = `${serverName(names, event.server)} · ${event.kind}${event.text ? `: ${event.text}` : ''}`;
    return (
      <div
        className={cx(classes.separator, tone, selected && classes.selected)}
        style={style}
        {...rowProps(event, index, selected, serverName(names, event.server), channel)}
        data-separator={event.kind}
      >
        <span className={classes.num}>{event.seq}</span>
        <span>{formatTime(event.ts)}</span>
        <span className={classes.separatorText} title={label}>
          <span>{label.length > 300 ? `${label.slice(0, 300)}…` : label}</span>
        </span>
      </div>
    );
  }
  const { http, rpc, extra } = methodStatus(event);
  const name = serverName(names, event.server);
  const error = isErrorEvent(event);
  const disabled = !error && isDisabledEvent(event);
  const negotiation = isNegotiationEvent(event) ? event.negotiation : undefined;
  const app = appLabel(event);
  return (
    <div
      className={cx(classes.row, error && classes.error, disabled && classes.disabled, negotiation && !error && classes.negotiation, isNotification(event) && classes.notification, child && classes.child, selected && classes.selected)}
      style={style}
      {...rowProps(event, index, selected, name, channel)}
      data-method={attr(event.rpc?.method) ?? ''}
      data-status={event.http?.status}
      data-error={error || undefined}
      data-disabled={disabled || undefined}
      data-negotiation={negotiation}
      data-exchange={attr(event.exchange, 64)}
      data-app={app}
    >
      <span className={classes.num}>{event.seq}</span>
      <span>{formatTime(event.ts)}</span>
      <ServerCell id={event.server} name={name} />
      <span>{channel}</span>
      <span>{DIR_ARROW[event.dir]}</span>
      <span>{event.kind}</span>
      <span className={classes.method}>
        {negotiation && <NegotiationBadge mark={negotiation} />}
        {http && <span className={classes.httpTag}>{http}</span>}
        {rpc}
        {extra && <span className={classes.dimmed}> {rpc ? '· ' : ''}{extra}</span>}
        {app && (
          <span className={classes.appTag} title={`MCP App: ${app}`} data-testid="traffic-app-tag">
            {app}
          </span>
        )}
      </span>
      <span className={classes.dimmed} title={attr(event.session)}>
        {shortSession(event.session)}
      </span>
      <span className={classes.right}>{formatBytes(event.bytes)}</span>
      <span className={classes.right}>{formatMs(durationOf(event))}</span>
    </div>
  );
}

function GroupRow({ group, index, style, selected, open, names, live }: { group: ExchangeGroup; index: number; style: CSSProperties; selected: boolean; open: boolean; names: ReadonlyMap<string, string>; live: boolean }) {
  const head = group.request ?? group.first;
  const channel = group.response?.channel ?? group.end?.channel ?? channelOf(head, live);
  const status = group.response?.http?.status;
  const negotiation = group.request?.negotiation !== undefined || group.response?.negotiation !== undefined;
  const error = group.errors > 0 || (group.response ? isErrorEvent(group.response) : false);
  const disabled = status === 405;
  const rpc = clip(head.rpc?.method ?? (head.batch ? `batch (${head.batch.length})` : ''), 200);
  const end = group.end?.http?.end;
  const events = group.events.length;
  // An exchange always starts with its request: without it, its start lies before the events this
  // list holds (older than the list loads, or cleared from the view).
  const partial = !group.request;
  return (
    <div
      className={cx(classes.row, classes.group, error && classes.error, disabled && classes.disabled, negotiation && !error && classes.negotiation, selected && classes.selected)}
      style={style}
      onClick={() => onRowClick(group.seq)}
      onDoubleClick={() => traffic.toggleExpanded(group.exchange)}
      role="row"
      aria-rowindex={index + 1}
      aria-selected={selected}
      aria-expanded={open}
      data-testid="traffic-group"
      data-exchange={attr(group.exchange, 64)}
      data-seq={group.seq}
      data-server={head.server}
      data-server-name={serverName(names, head.server)}
      data-channel={channel}
      data-events={events}
      data-method={attr(rpc)}
      data-negotiation={negotiation ? (error ? 'failed' : 'answer') : undefined}
      data-error={error || undefined}
      data-partial={partial || undefined}
    >
      <span className={classes.num}>{group.seq}</span>
      <span>{formatTime(group.first.ts)}</span>
      <ServerCell id={head.server} name={serverName(names, head.server)} />
      <span>{channel}</span>
      <span>⇄</span>
      <span>exchange</span>
      <span className={classes.method}>
        <span
          className={classes.caret}
          onClick={(e) => {
            e.stopPropagation();
            traffic.toggleExpanded(group.exchange);
          }}
          data-testid="traffic-group-expand"
          role="button"
          aria-label={open ? 'Collapse exchange' : 'Expand exchange'}
        >
          {open ? '▾' : '▸'}
        </span>
        {negotiation && <NegotiationBadge mark={error ? 'failed' : 'answer'} />}
        {partial ? (
          <span className={classes.httpTag} title="Its start (the request) is not in this list: older than the list loads, or cleared from the view" data-testid="traffic-group-partial">
            partial
          </span>
        ) : (
          <span className={classes.httpTag}>
            {head.http?.method ?? ''}
            {status !== undefined ? ` ${status}${disabled ? ' disabled' : ''}` : group.end ? '' : ' …'}
          </span>
        )}
        {rpc}
        <span className={classes.dimmed}>
          {' '}
          · {events} {events === 1 ? 'event' : 'events'}
          {group.sseCount ? ` (${group.sseCount} SSE)` : ''}
          {end ? ` · ${end}` : group.end ? '' : ' · open'}
        </span>
      </span>
      <span className={classes.dimmed} title={attr(head.session ?? group.response?.session)}>
        {shortSession(head.session ?? group.response?.session)}
      </span>
      <span className={classes.right}>{formatBytes(group.end?.bytes)}</span>
      <span className={classes.right}>{formatMs(group.end?.durationMs)}</span>
    </div>
  );
}

const NEGOTIATION_HINT: Record<NonNullable<TraceEvent['negotiation']>, string> = {
  probe: 'Version negotiation: the 2026-07-28 server/discover probe. A legacy server is expected to refuse it.',
  answer: 'Version negotiation: the answer a legacy server is expected to give the probe (not an error). The client then initializes in the 2025 era.',
  failed: 'Version negotiation: the probe met a real failure (authorization, a server error or a broken transport).',
};

function NegotiationBadge({ mark }: { mark: NonNullable<TraceEvent['negotiation']> }) {
  return (
    <span className={cx(classes.negotiationTag, mark === 'failed' && classes.negotiationFailed)} title={NEGOTIATION_HINT[mark]} data-testid="negotiation-badge">
      negotiation
    </span>
  );
}
