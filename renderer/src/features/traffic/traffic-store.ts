/**
 * The Traffic view's own state, kept at module level so it survives switching views: filters,
 * grouping, follow/pause, the selection, the detail pane's width, and the "clear view" mark.
 * Read with `useTrafficState()`; change with `traffic.*`. One per window (the view's, not any API's).
 */
import type { Channel, EventKind } from '../../../../contract/trace';
import { Store } from '../../state/store';
import { useStore } from '../../state/useStore';

export interface TrafficFilters {
  servers: string[];
  channels: Channel[];
  kinds: EventKind[];
  methods: string[];
  /** HTTP status classes: 2, 3, 4, 5. */
  statusClass: number[];
  errorsOnly: boolean;
  /** Free text (already debounced when it lands here). */
  text: string;
  /** A time range, from the Charts/Timeline views ("show this second in Traffic"). */
  time?: { fromTs: number; toTs: number };
  /** One HTTP exchange ("show all of this exchange's events"). */
  exchange?: string;
}

export interface TrafficState {
  filters: TrafficFilters;
  /** One row per HTTP exchange (collapsible), instead of one row per event. */
  grouped: boolean;
  /** Auto-scroll to the newest event (live only). */
  follow: boolean;
  /** The total the table showed when the user paused (the buffer holds the rest). */
  pausedAt?: number;
  /** The selected event (with its exchange, if any, in the detail pane). */
  selectedSeq?: number;
  /** Which trace the selection and the "clear" mark belong to. */
  sourceId: string;
  /** Expanded exchange groups. */
  expanded: ReadonlySet<string>;
  /** Live only: events with seq ≤ this are hidden ("Clear view"; the trace in main is untouched). */
  clearedThrough: number;
  /** Width of the detail pane in px. */
  detailWidth: number;
  /** A request to scroll a seq into view; `nonce` makes repeats distinct. */
  reveal?: { seq: number; nonce: number };
}

export const EMPTY_FILTERS: TrafficFilters = { servers: [], channels: [], kinds: [], methods: [], statusClass: [], errorsOnly: false, text: '' };

const store = new Store<TrafficState>({
  filters: EMPTY_FILTERS,
  grouped: false,
  follow: true,
  sourceId: 'live',
  expanded: new Set(),
  clearedThrough: 0,
  detailWidth: 500,
});
let revealNonce = 0;

export function hasFilters(f: TrafficFilters): boolean {
  return (
    f.servers.length > 0 ||
    f.channels.length > 0 ||
    f.kinds.length > 0 ||
    f.methods.length > 0 ||
    f.statusClass.length > 0 ||
    f.errorsOnly ||
    f.text.trim() !== '' ||
    f.time !== undefined ||
    f.exchange !== undefined
  );
}

/** The filters as `traceQuery` arguments (empty ones left out). */
export function filterQuery(f: TrafficFilters): Record<string, unknown> {
  const q: Record<string, unknown> = {};
  if (f.servers.length) q.servers = f.servers;
  if (f.channels.length) q.channels = f.channels;
  if (f.kinds.length) q.kinds = f.kinds;
  if (f.methods.length) q.methods = f.methods;
  if (f.statusClass.length) q.statusClass = f.statusClass;
  if (f.errorsOnly) q.errorsOnly = true;
  if (f.text.trim()) q.text = f.text.trim().slice(0, 1000);
  if (f.time) {
    q.fromTs = f.time.fromTs;
    q.toTs = f.time.toTs;
  }
  if (f.exchange) q.exchange = f.exchange;
  return q;
}

export const traffic = {
  get: store.get,
  subscribe: store.subscribe,
  setFilters(patch: Partial<TrafficFilters>): void {
    store.patch({ filters: { ...store.get().filters, ...patch } });
  },
  clearFilters(): void {
    store.patch({ filters: EMPTY_FILTERS });
  },
  setGrouped(grouped: boolean): void {
    store.patch({ grouped });
  },
  setFollow(follow: boolean): void {
    if (follow !== store.get().follow) store.patch({ follow });
  },
  setPausedAt(pausedAt: number | undefined): void {
    store.patch({ pausedAt });
  },
  select(seq: number | undefined): void {
    if (seq !== store.get().selectedSeq) store.patch({ selectedSeq: seq });
  },
  /** Selects an event and asks the table to scroll to it. */
  reveal(seq: number): void {
    store.patch({ selectedSeq: seq, follow: false, reveal: { seq, nonce: ++revealNonce } });
  },
  toggleExpanded(exchange: string): void {
    const expanded = new Set(store.get().expanded);
    if (!expanded.delete(exchange)) expanded.add(exchange);
    store.patch({ expanded });
  },
  expand(exchange: string): void {
    if (store.get().expanded.has(exchange)) return;
    store.patch({ expanded: new Set([...store.get().expanded, exchange]) });
  },
  clearView(throughSeq: number): void {
    store.patch({ clearedThrough: throughSeq, selectedSeq: undefined });
  },
  restoreView(): void {
    store.patch({ clearedThrough: 0 });
  },
  setDetailWidth(detailWidth: number): void {
    store.patch({ detailWidth });
  },
  /** A different trace: the selection, expansions and the clear mark do not carry over. */
  useSource(sourceId: string): void {
    if (sourceId === store.get().sourceId) return;
    store.patch({ sourceId, selectedSeq: undefined, expanded: new Set(), clearedThrough: 0, pausedAt: undefined, reveal: undefined, filters: { ...store.get().filters, exchange: undefined } });
  },
};

export function useTrafficState(): TrafficState {
  return useStore(store);
}

/** Server names of imported traces (what the import reported), by source id. */
export const importedServers = new Map<string, { id: string; name: string }[]>();

/** Intents from other views (`navigation.showTraffic`) already handled, by nonce. */
export const handledIntents = { nonce: 0 };
