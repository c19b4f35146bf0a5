/**
 * Traffic's windows over the trace store (#15): main is the one source of the table's rows. The
 * page asks for `limit` rows at a position among the events that match its filters (or around a
 * seq, to jump to it) and gets them with the match count; it holds only what is on screen plus a
 * margin, whatever the trace's size, spilled part included.
 *
 * A filter is evaluated against the store's typed-array index (server, channel, kind, method,
 * status, flags, exchange, session, time); only a text filter reads the events themselves. The
 * positions of the matches (event indexes, ascending) are kept per filter in a Uint32Array and
 * extended incrementally as the trace grows, so a live table that re-asks on its tick scans only
 * the new events. A few filters are kept (the most recently used), per store.
 */
import type { TraceEvent } from '../../../contract/trace';
import { Column } from './columns';
import type { TraceQuery, TraceStore } from './store';

export type TraceFilter = Omit<TraceQuery, 'cursor' | 'order' | 'limit'>;

export interface TraceWindowQuery extends TraceFilter {
  /** Only events with a seq above this ("Clear view"). */
  afterSeq?: number;
  /** Only events with a seq up to this (a paused view holds its end still). */
  throughSeq?: number;
  /** The position of the first row among the matches; default: the last `limit` (the tail). */
  offset?: number;
  /** Instead of `offset`: the window centred on this event (or where it would be, when it does not match). */
  aroundSeq?: number;
  /** Rows wanted (default 200, at most MAX_WINDOW). */
  limit?: number;
}

export interface TraceWindow {
  /** The matching events from `offset` on, in seq order. */
  events: TraceEvent[];
  /** Position of `events[0]` among the matches. */
  offset: number;
  /** Events that match (within afterSeq/throughSeq). */
  matched: number;
  /** Events in the store. */
  total: number;
  /** With `aroundSeq`: its position among the matches, -1 when it does not match. */
  at?: number;
}

export const MAX_WINDOW = 2_000;
/** Filters whose match positions are kept, per store. */
const KEPT_FILTERS = 6;
/**
 * A channel filter reads an exchange's channel as its response decided it (a POST is post-json or
 * post-sse only once answered): the newest events are scanned again on every extension, so a
 * request whose answer came after the last scan is placed right.
 */
const CHANNEL_RESETTLE = 2_000;

interface Matches {
  positions: Column<Uint32Array>;
  /** Events up to this index have been scanned. */
  scanned: number;
  filter: TraceFilter;
}

const caches = new WeakMap<TraceStore, Map<string, Matches>>();

const FILTER_KEYS = ['servers', 'channels', 'kinds', 'methods', 'exchange', 'session', 'text', 'errorsOnly', 'statusClass', 'fromTs', 'toTs'] as const;

/** The filter part of a window query, empty ones left out; `undefined` when nothing filters. */
export function filterPart(q: TraceWindowQuery): TraceFilter | undefined {
  const f: Record<string, unknown> = {};
  for (const key of FILTER_KEYS) {
    const value = q[key];
    if (value === undefined || value === false || value === '' || (Array.isArray(value) && value.length === 0)) continue;
    f[key] = value;
  }
  return Object.keys(f).length ? (f as TraceFilter) : undefined;
}

/** The positions of every match so far (ascending event indexes), scanned up to the store's size. */
export function matchesOf(store: TraceStore, filter: TraceFilter): { positions: Column<Uint32Array> } {
  let cache = caches.get(store);
  if (!cache) caches.set(store, (cache = new Map()));
  const key = JSON.stringify(filter);
  let matches = cache.get(key);
  if (matches) cache.delete(key); // re-inserted below: the map's order is the use order
  else matches = { positions: new Column(Uint32Array), scanned: 0, filter };
  cache.set(key, matches);
  while (cache.size > KEPT_FILTERS) cache.delete(cache.keys().next().value!);
  extend(store, matches);
  return matches;
}

function extend(store: TraceStore, m: Matches): void {
  const size = store.size;
  let from = m.scanned;
  if (m.filter.channels && from > 0) {
    from = Math.max(0, from - CHANNEL_RESETTLE);
    m.positions.length = lowerBound(m.positions, 0, m.positions.length, from);
  }
  if (from >= size) return;
  const filter = store.filterOf(m.filter);
  const positions = m.positions;
  if (filter.text === undefined) {
    for (let i = from; i < size; i++) if (filter.index(i)) positions.push(i);
  } else {
    for (let i = from; i < size; i++) {
      if (!filter.index(i)) continue;
      const event = store.get(i + 1);
      if (event && filter.matchesText(event)) positions.push(i);
    }
  }
  m.scanned = size;
}

/** First k in [lo, hi) with column[k] >= value. */
function lowerBound(column: Column<Uint32Array>, lo: number, hi: number, value: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (column.get(mid) < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A window of rows: by position among the matches, or around a seq. */
export function traceWindow(store: TraceStore, q: TraceWindowQuery): TraceWindow {
  const limit = Math.min(Math.max(1, q.limit ?? 200), MAX_WINDOW);
  const total = store.size;
  const filter = filterPart(q);
  const after = Math.max(0, q.afterSeq ?? 0);
  const through = Math.min(total, q.throughSeq ?? total);

  // Positions among the matches → event indexes; unfiltered, the identity.
  let lo: number;
  let hi: number;
  let indexAt: (k: number) => number;
  let positionOf: (index: number) => number;
  if (!filter) {
    lo = Math.min(after, through);
    hi = Math.max(lo, through);
    indexAt = (k) => k;
    positionOf = (index) => Math.max(lo, Math.min(index, hi));
  } else {
    const { positions } = matchesOf(store, filter);
    lo = lowerBound(positions, 0, positions.length, after);
    hi = Math.max(lo, lowerBound(positions, lo, positions.length, through));
    indexAt = (k) => positions.get(k);
    positionOf = (index) => lowerBound(positions, lo, hi, index);
  }
  const matched = hi - lo;
  const last = Math.max(0, matched - limit);

  let offset: number;
  let at: number | undefined;
  if (q.aroundSeq !== undefined) {
    const index = q.aroundSeq - 1;
    const k = positionOf(index);
    at = k < hi && indexAt(k) === index && index >= after && index < through ? k - lo : -1;
    offset = Math.max(0, Math.min(last, k - lo - Math.floor(limit / 2)));
  } else offset = Math.max(0, Math.min(q.offset ?? last, matched));

  const events: TraceEvent[] = [];
  const end = Math.min(matched, offset + limit);
  for (let k = offset; k < end; k++) {
    const event = store.get(indexAt(lo + k) + 1);
    if (event) events.push(event);
  }
  return at === undefined ? { events, offset, matched, total } : { events, offset, matched, total, at };
}
