/**
 * The rows behind the Traffic table, kept outside React (a flood is thousands of events a
 * second; the table reads a model on the buffer's throttled tick and renders only what is on
 * screen). Three models:
 *
 * - `SeqModel`: everything, unfiltered. Main numbers events 1..total without gaps, so row i is
 *   event `clearedThrough + i + 1`. Rows in the live window come from the trace buffer; any
 *   other row (scrolled above the window, or an imported trace) is paged from main with
 *   `traceQuery` on demand, a page at a time, and cached (bounded). The count is exact.
 * - `WindowModel`: filtered (not grouped). Main filters on its index and answers rows by position
 *   among the matches (`traceWindow`); the page keeps only the rows around the screen.
 * - `ListModel`: grouped by exchange (filtered or not). The newest matching page is loaded from
 *   main (`order: 'desc'`), older pages as the user scrolls up (`cursor`), newer ones as the
 *   live trace grows (read from main too: the live pushes carry only the newest events).
 */
import type { SwitchboardApi } from '../../../../contract/client';
import type { TraceEvent } from '../../../../contract/trace';
import { afterSeq, findSeq, indexOfSeq } from '../../state/seq-search';
import { Signal } from '../../state/store';
import type { TraceBuffer } from '../../state/trace-buffer';

/** One HTTP exchange: its request, response, SSE events and end, as a collapsible row. */
export class ExchangeGroup {
  readonly events: TraceEvent[] = [];
  request?: TraceEvent;
  response?: TraceEvent;
  end?: TraceEvent;
  sseCount = 0;
  errors = 0;
  constructor(
    readonly exchange: string,
    readonly first: TraceEvent,
  ) {}

  get seq(): number {
    return this.first.seq;
  }

  add(event: TraceEvent, isError: boolean): void {
    this.events.push(event);
    if (event.kind === 'http-request') this.request = event;
    else if (event.kind === 'http-response') this.response = event;
    else if (event.kind === 'http-end') this.end = event;
    else if (event.kind === 'sse-event') this.sseCount++;
    if (isError) this.errors++;
  }

  contains(seq: number): boolean {
    return seq >= this.first.seq && this.events.some((e) => e.seq === seq);
  }
}

export type Row = TraceEvent | ExchangeGroup;

export interface ModelStatus {
  /** Rows the table has. */
  count: number;
  /** Events those rows hold (differs from count when grouped). */
  events: number;
  /** Events in the trace (the store's total). */
  total: number;
  /** True when `events` is every match (nothing older left to load). */
  exact: boolean;
  loading: boolean;
  loadingOlder: boolean;
  /** Older events are left unloaded: the list holds its most (`LIST_MAX_EVENTS`). */
  capped?: boolean;
  error?: string;
}

export interface RowModel {
  readonly kind: 'seq' | 'list' | 'window';
  readonly count: number;
  rowAt(index: number): Row | undefined;
  /** The seq a row stands for, even when it is not loaded yet. */
  seqAt(index: number): number | undefined;
  /** The rows on screen: the model loads what is missing. */
  visible(start: number, end: number): void;
  /** The row index showing this event (its group's when collapsed), -1 when not loaded/present. */
  indexOfSeq(seq: number): number;
  /** The live trace ticked. */
  tick(paused: boolean): void;
  status(): ModelStatus;
  subscribe(listener: () => void): () => void;
  getVersion(): number;
  dispose(): void;
}

/** Index of the first event with seq > `seq` in an ascending array (the renderer's one search, `state/seq-search.ts`). */
export const firstAfter: (events: readonly TraceEvent[], seq: number) => number = afterSeq;

/** The event with this seq in an ascending array, or undefined. */
export { findSeq };

const errorMessage = (error: unknown) => (error instanceof Error ? error.message : String(error));

// ---------------------------------------------------------------------------------------

const PAGE = 500;
const MAX_PAGES = 16;
const MAX_INFLIGHT = 3;

export class SeqModel extends Signal implements RowModel {
  readonly kind = 'seq' as const;
  private readonly pages = new Map<number, TraceEvent[]>();
  private readonly inflight = new Set<number>();
  private wanted: [number, number] = [1, 0];
  private importedTotal: number | undefined;
  private baseline = 0;
  private frozen: number | undefined;
  private error: string | undefined;

  constructor(
    private readonly api: SwitchboardApi,
    private readonly source: string,
    private readonly buffer: TraceBuffer | null,
  ) {
    super();
    if (!buffer) {
      api.traceQuery({ source, limit: 1 }).then(
        (page) => {
          this.importedTotal = page.total;
          this.notify();
        },
        (error) => {
          this.error = errorMessage(error);
          this.importedTotal = 0;
          this.notify();
        },
      );
    }
  }

  /** Hides events up to this seq ("Clear view") and freezes the end while paused. */
  configure(baseline: number, frozen: number | undefined): void {
    if (baseline === this.baseline && frozen === this.frozen) return;
    this.baseline = baseline;
    this.frozen = frozen;
    this.notify();
  }

  get total(): number {
    if (!this.buffer) return this.importedTotal ?? 0;
    return this.frozen ?? this.buffer.total;
  }

  get count(): number {
    return Math.max(0, this.total - this.baseline);
  }

  seqAt(index: number): number {
    return this.baseline + index + 1;
  }

  rowAt(index: number): TraceEvent | undefined {
    return this.get(this.seqAt(index));
  }

  get(seq: number): TraceEvent | undefined {
    const window = this.buffer?.events;
    if (window && window.length && seq >= window[0]!.seq && seq <= window[window.length - 1]!.seq) {
      const found = findSeq(window, seq);
      if (found) return found;
    }
    const page = this.pages.get(Math.floor((seq - 1) / PAGE));
    if (!page) return undefined;
    const guess = page[(seq - 1) % PAGE];
    return guess?.seq === seq ? guess : findSeq(page, seq);
  }

  visible(start: number, end: number): void {
    const from = this.seqAt(Math.max(0, start));
    const to = Math.min(this.seqAt(end), this.total);
    if (from === this.wanted[0] && to === this.wanted[1]) return;
    this.wanted = [from, to];
    this.pump();
  }

  indexOfSeq(seq: number): number {
    return seq > this.baseline && seq <= this.total ? seq - this.baseline - 1 : -1;
  }

  tick(): void {
    // The count reads the buffer's total; pages stay valid (events never change).
    this.pump();
  }

  status(): ModelStatus {
    return { count: this.count, events: this.count, total: this.total, exact: true, loading: !this.buffer && this.importedTotal === undefined, loadingOlder: this.inflight.size > 0, error: this.error };
  }

  private pump(): void {
    if (this.disposed) return;
    const [from, to] = this.wanted;
    for (let seq = from; seq <= to; ) {
      const page = Math.floor((seq - 1) / PAGE);
      if (this.get(seq) === undefined && !this.pages.has(page) && !this.inflight.has(page)) {
        if (this.inflight.size >= MAX_INFLIGHT) return;
        this.load(page);
        seq = (page + 1) * PAGE + 1;
      } else seq++;
    }
  }

  private load(page: number): void {
    this.inflight.add(page);
    this.api.traceQuery({ source: this.source, order: 'asc', cursor: page * PAGE, limit: PAGE }).then(
      (result) => {
        this.inflight.delete(page);
        this.pages.set(page, result.events);
        if (!this.buffer) this.importedTotal = Math.max(this.importedTotal ?? 0, result.total);
        this.evict();
        this.notify();
        this.pump();
      },
      (error) => {
        this.inflight.delete(page);
        this.error = errorMessage(error);
        this.notify();
      },
    );
  }

  private evict(): void {
    if (this.pages.size <= MAX_PAGES) return;
    const center = Math.floor((this.wanted[0] + this.wanted[1]) / 2 / PAGE);
    const byDistance = [...this.pages.keys()].sort((a, b) => Math.abs(b - center) - Math.abs(a - center));
    for (const page of byDistance.slice(0, this.pages.size - MAX_PAGES)) this.pages.delete(page);
  }
}

// ---------------------------------------------------------------------------------------

const LIST_PAGE = 1000;
/**
 * The most events a ListModel loads from the trace's past (its first page and the older ones; what
 * it tails live is not counted): its rows are built here, in the page, from the events it holds.
 * Beyond it the table says older events are not loaded, and a filter narrows the list. (Without it, one exchange of a million SSE events, grouped, would load them all: its
 * older pages add no row, so the table keeps asking for the next one.)
 */
export const LIST_MAX_EVENTS = 100_000;
const TAIL_PAGE = 5000;

export class ListModel extends Signal implements RowModel {
  readonly kind = 'list' as const;
  /** Matching events, oldest first. */
  events: TraceEvent[] = [];
  private olderCursor: number | undefined;
  /** Events loaded from the trace's past (the first page and older ones), not tailed live: what LIST_MAX_EVENTS bounds. */
  private fromPast = 0;
  private loading = true;
  private loadingOlder = false;
  private tailing = false;
  /** Filtered live mode: events up to this seq have been scanned by main. */
  private scannedTo = 0;
  private error: string | undefined;
  private total = 0;

  private readonly groups = new Map<string, ExchangeGroup>();
  private items: Row[] = [];
  private rows: Row[] = [];
  private rowsDirty = true;

  constructor(
    private readonly api: SwitchboardApi,
    private readonly source: string,
    /** The live buffer: only its total is read (rows come from main). */
    private readonly buffer: TraceBuffer | null,
    /** Filters as traceQuery args; `null` = every event. */
    private readonly query: Record<string, unknown> | null,
    private readonly live: boolean,
    private readonly grouped: boolean,
    private expanded: ReadonlySet<string>,
    private readonly baseline: number,
    private readonly isError: (event: TraceEvent) => boolean,
  ) {
    super();
    void this.init();
  }

  private async init(): Promise<void> {
    try {
      const page = await this.api.traceQuery({ ...this.query, source: this.source, order: 'desc', limit: LIST_PAGE });
      if (this.disposed) return;
      const events = page.events.reverse();
      this.events = events.slice(afterSeq(events, this.baseline));
      this.fromPast = this.events.length;
      this.olderCursor = this.events.length < events.length ? undefined : page.nextCursor;
      this.scannedTo = page.total;
      this.total = page.total;
      this.rebuild();
    } catch (error) {
      this.error = errorMessage(error);
    }
    this.loading = false;
    this.notify();
  }

  get hasOlder(): boolean {
    return this.olderCursor !== undefined && this.fromPast < LIST_MAX_EVENTS;
  }

  get isLoadingOlder(): boolean {
    return this.loadingOlder;
  }

  /** Loads the next older page; resolves true when events were added (grouped, they may have joined rows already shown). */
  async loadOlder(): Promise<boolean> {
    if (!this.hasOlder || this.loadingOlder || this.loading) return false;
    this.loadingOlder = true;
    this.notify();
    try {
      const page = await this.api.traceQuery({ ...(this.query ?? {}), source: this.source, order: 'desc', cursor: this.olderCursor, limit: LIST_PAGE });
      if (this.disposed) return false;
      const events = page.events.reverse();
      const older = events.slice(afterSeq(events, this.baseline));
      this.olderCursor = older.length < events.length ? undefined : page.nextCursor;
      this.events = older.concat(this.events);
      this.fromPast += older.length;
      this.total = Math.max(this.total, page.total);
      this.rebuild();
      return older.length > 0;
    } catch (error) {
      this.error = errorMessage(error);
      this.olderCursor = undefined;
      return false;
    } finally {
      this.loadingOlder = false;
      this.notify();
    }
  }

  setExpanded(expanded: ReadonlySet<string>): void {
    if (expanded === this.expanded) return;
    this.expanded = expanded;
    this.rowsDirty = true;
    this.notify();
  }

  get count(): number {
    return this.grouped ? this.flat().length : this.events.length;
  }

  rowAt(index: number): Row | undefined {
    return this.grouped ? this.flat()[index] : this.events[index];
  }

  seqAt(index: number): number | undefined {
    return this.rowAt(index)?.seq;
  }

  visible(): void {
    // Everything loaded is in memory; older pages load when the table asks (loadOlder).
  }

  indexOfSeq(seq: number): number {
    if (!this.grouped) {
      return indexOfSeq(this.events, seq);
    }
    const rows = this.flat();
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      if (row instanceof ExchangeGroup) {
        if (row.contains(seq) && !this.expanded.has(row.exchange)) return i;
      } else if (row.seq === seq) return i;
    }
    return -1;
  }

  /** The exchange group an event belongs to, when grouped. */
  groupOf(event: TraceEvent): ExchangeGroup | undefined {
    return this.grouped && event.exchange ? this.groups.get(event.exchange) : undefined;
  }

  tick(paused: boolean): void {
    if (!this.live || paused || this.loading || this.disposed) return;
    void this.tail();
  }

  private async tail(): Promise<void> {
    if (this.tailing) return;
    this.tailing = true;
    try {
      for (;;) {
        const page = await this.api.traceQuery({ ...this.query, source: this.source, order: 'asc', cursor: this.scannedTo, limit: TAIL_PAGE });
        if (this.disposed) return;
        const last = this.events.length ? this.events[this.events.length - 1]!.seq : 0;
        const fresh = page.events.slice(afterSeq(page.events, Math.max(last, this.baseline)));
        for (const event of fresh) this.events.push(event);
        this.append(fresh);
        this.total = Math.max(this.total, page.total);
        this.scannedTo = page.nextCursor ?? Math.max(this.scannedTo, page.total);
        if (fresh.length) this.notify();
        if (page.nextCursor === undefined) break;
      }
    } catch (error) {
      this.error = errorMessage(error);
      this.notify();
    } finally {
      this.tailing = false;
    }
  }

  status(): ModelStatus {
    return {
      count: this.count,
      events: this.events.length,
      total: this.buffer ? Math.max(this.buffer.total, this.total) : this.total,
      exact: this.olderCursor === undefined,
      loading: this.loading,
      loadingOlder: this.loadingOlder,
      capped: this.olderCursor !== undefined && !this.hasOlder,
      error: this.error,
    };
  }

  // -------------------------------------------------------------------------------------

  private rebuild(): void {
    this.groups.clear();
    this.items = [];
    this.append(this.events);
  }

  private append(events: readonly TraceEvent[]): void {
    if (!this.grouped) return;
    for (const event of events) {
      const exchange = event.exchange;
      if (exchange && event.channel !== 'lifecycle') {
        let group = this.groups.get(exchange);
        if (!group) {
          group = new ExchangeGroup(exchange, event);
          this.groups.set(exchange, group);
          this.items.push(group);
        }
        group.add(event, this.isError(event));
      } else this.items.push(event);
    }
    this.rowsDirty = true;
  }

  private flat(): Row[] {
    if (!this.rowsDirty) return this.rows;
    const rows: Row[] = [];
    for (const item of this.items) {
      rows.push(item);
      if (item instanceof ExchangeGroup && this.expanded.has(item.exchange)) for (const event of item.events) rows.push(event);
    }
    this.rows = rows;
    this.rowsDirty = false;
    return rows;
  }
}

// ---------------------------------------------------------------------------------------

/** Rows asked of main at a time, and how many the page keeps (on screen plus a margin). */
const WINDOW_PAGE = 200;
const WINDOW_MARGIN = 100;
const WINDOW_KEEP = 2_000;

/**
 * Filtered rows from main's store (#15, `traceWindow`): main evaluates the filters on its index
 * and answers rows by position among the matches, with the match count; this model keeps only
 * the rows around what is on screen. Live, it re-asks on the buffer's tick (one request at a
 * time), so the count follows the trace; paused, main counts only up to the paused seq. Jumping
 * to a seq asks main for its position (`locate`).
 */
export class WindowModel extends Signal implements RowModel {
  readonly kind = 'window' as const;
  /** Rows by position among the matches. */
  private readonly rows = new Map<number, TraceEvent>();
  private readonly positions = new Map<number, number>();
  private readonly located = new Map<number, number>();
  private readonly locating = new Set<number>();
  private inflight = 0;
  private refreshing = false;
  private matched = 0;
  private total = 0;
  private loaded = false;
  private configured = false;
  private wanted: [number, number] = [0, -1];
  private baseline = 0;
  private frozen: number | undefined;
  /** Bumped when the bounds change: answers to older requests are dropped. */
  private epoch = 0;
  private error: string | undefined;

  constructor(
    private readonly api: SwitchboardApi,
    private readonly source: string,
    /** Filters as traceQuery args. */
    private readonly query: Record<string, unknown>,
    private readonly live: boolean,
  ) {
    super();
  }

  /** Hides events up to this seq ("Clear view") and holds the end still while paused; then (re)loads. */
  configure(baseline: number, frozen: number | undefined): void {
    if (this.configured && baseline === this.baseline && frozen === this.frozen) return;
    this.configured = true;
    this.baseline = baseline;
    this.frozen = frozen;
    this.epoch++;
    this.rows.clear();
    this.positions.clear();
    this.located.clear();
    this.inflight = 0;
    this.refreshing = false;
    this.request({ limit: WINDOW_PAGE }, true);
  }

  get count(): number {
    return this.matched;
  }

  rowAt(index: number): TraceEvent | undefined {
    return this.rows.get(index);
  }

  seqAt(index: number): number | undefined {
    return this.rows.get(index)?.seq;
  }

  visible(start: number, end: number): void {
    this.wanted = [Math.max(0, start), end];
    this.pump();
  }

  indexOfSeq(seq: number): number {
    const known = this.positions.get(seq) ?? this.located.get(seq);
    if (known !== undefined) return known;
    this.locate(seq);
    return -1;
  }

  /** Where an event is among the matches: its position, 'absent' (it does not match), or 'pending' (asked). */
  locate(seq: number): number | 'absent' | 'pending' {
    const known = this.positions.get(seq) ?? this.located.get(seq);
    if (known !== undefined) return known < 0 ? 'absent' : known;
    if (!this.locating.has(seq) && this.loaded) {
      this.locating.add(seq);
      const epoch = this.epoch;
      this.api.traceWindow({ ...this.bounds(), aroundSeq: seq, limit: WINDOW_PAGE }).then(
        (win) => {
          this.locating.delete(seq);
          if (epoch !== this.epoch || this.disposed) return;
          this.take(win);
          this.located.set(seq, win.at ?? -1);
          this.notify();
        },
        (error) => {
          this.locating.delete(seq);
          this.error = errorMessage(error);
          this.located.set(seq, -1);
          this.notify();
        },
      );
    }
    return 'pending';
  }

  tick(paused: boolean): void {
    if (!this.live || paused || !this.loaded || this.refreshing || this.disposed) return;
    // One refresh at a time: the count, and the rows on screen (a channel filter may place a late-answered request).
    const [start, end] = this.wanted;
    const from = Math.max(0, start - WINDOW_MARGIN);
    this.refreshing = true;
    this.request({ offset: from, limit: Math.min(2000, Math.max(WINDOW_PAGE, end - from + 1 + WINDOW_MARGIN)) }, false, () => (this.refreshing = false));
  }

  status(): ModelStatus {
    return { count: this.matched, events: this.matched, total: this.total, exact: true, loading: !this.loaded, loadingOlder: this.inflight > 0, error: this.error };
  }

  private bounds(): Record<string, unknown> {
    return { ...this.query, source: this.source, ...(this.baseline ? { afterSeq: this.baseline } : {}), ...(this.frozen !== undefined ? { throughSeq: this.frozen } : {}) };
  }

  private request(range: { offset?: number; limit: number }, first: boolean, done?: () => void): void {
    const epoch = this.epoch;
    this.inflight++;
    this.api.traceWindow({ ...this.bounds(), ...range }).then(
      (win) => {
        if (epoch !== this.epoch || this.disposed) return;
        this.inflight--;
        done?.();
        if (first) this.loaded = true;
        this.take(win);
        this.notify();
        this.pump();
      },
      (error) => {
        if (epoch !== this.epoch) return;
        this.inflight--;
        done?.();
        this.loaded = true;
        this.error = errorMessage(error);
        this.notify();
      },
    );
  }

  private take(win: { events: TraceEvent[]; offset: number; matched: number; total: number }): void {
    if (win.matched < this.matched) {
      // Fewer matches than before (a channel filter re-placed late answers): positions moved.
      this.rows.clear();
      this.positions.clear();
      this.located.clear();
    }
    this.matched = win.matched;
    this.total = Math.max(this.total, win.total);
    win.events.forEach((event, k) => {
      const at = win.offset + k;
      const old = this.rows.get(at);
      if (old && old.seq !== event.seq) this.positions.delete(old.seq);
      this.rows.set(at, event);
      this.positions.set(event.seq, at);
    });
    this.evict();
  }

  /** Loads the first missing run of rows around what is on screen (two requests at most in flight). */
  private pump(): void {
    if (this.disposed || !this.loaded || this.inflight >= 2) return;
    const [start, end] = this.wanted;
    if (end < start) return; // nothing on screen yet
    const from = Math.max(0, start - WINDOW_MARGIN);
    const to = Math.min(this.matched - 1, end + WINDOW_MARGIN);
    let missing = -1;
    for (let i = from; i <= to; i++) {
      if (!this.rows.has(i)) {
        missing = i;
        break;
      }
    }
    if (missing < 0) return;
    // Only the rows on screen are urgent: load from the first missing one, a page at a time.
    this.request({ offset: missing, limit: Math.min(2000, Math.max(WINDOW_PAGE, to - missing + 1)) }, false);
  }

  private evict(): void {
    if (this.rows.size <= WINDOW_KEEP) return;
    const center = (this.wanted[0] + this.wanted[1]) / 2;
    const far = [...this.rows.keys()].sort((a, b) => Math.abs(b - center) - Math.abs(a - center));
    for (const at of far.slice(0, this.rows.size - WINDOW_KEEP)) {
      this.positions.delete(this.rows.get(at)!.seq);
      this.rows.delete(at);
    }
  }
}
