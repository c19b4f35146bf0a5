/**
 * The trace, assembled: the store, the snapshot engine fed by it, and the throttled pushes to
 * the renderer (trace batches and snapshots a few times a second, never one message an event).
 *
 * Main is the one source of events; a window holds what it shows. So a push carries every event
 * only while a window asked for all of them (`traceFeed`: the Timeline, on a lease it renews);
 * otherwise it is the newest `TRACE_FEED_TAIL` (what a table following the newest rows shows)
 * plus the older events `keptInPartial` (auth-relevant ones, HTTP responses), marked `partial`,
 * with the total. Under a flood that is ~200 events a push instead of every one: main does not
 * serialize, the browser does not carry and the page does not parse tens of MB nobody looks at.
 */
import { TRACE_FEED_LEASE_MS, TRACE_FEED_TAIL, isAuthRelevant, type TraceEvent, type TraceEventInput } from '../../../contract/trace';
import { Batcher, type EventHub } from '../events';
import { Leases } from '../leases';
import { SnapshotEngine, type SnapshotOptions } from './snapshots';
import { TraceStore, type TraceStoreOptions } from './store';

export interface TraceHubOptions {
  store?: TraceStoreOptions;
  snapshots?: SnapshotOptions;
  /** How often batches and snapshots are pushed (default 250 ms). */
  pushIntervalMs?: number;
  /** A push carries at most this many events; a batch is pushed as soon as it holds them, before the interval is up (default 500: about 250 KB of JSON, a parse of a few ms on the page). */
  pushBatchEvents?: number;
  /** Without a full-feed lease, a push carries the newest this many events (default TRACE_FEED_TAIL). */
  pushTail?: number;
}

const RECENT_BUCKETS = 3;

export class TraceHub {
  readonly store: TraceStore;
  readonly snapshots: SnapshotEngine;
  private readonly batcher: Batcher<TraceEvent> | undefined;
  private readonly tail: TailPush | undefined;
  private readonly timer: NodeJS.Timeout | undefined;
  /** A window holds a full-feed lease (`traceFeed`). */
  private fullFeed = false;
  /** Full-feed leases by name (`traceFeed`). */
  private readonly leases = new Leases(TRACE_FEED_LEASE_MS, (whole) => {
    // What the other path holds goes out first: the order of events is kept across the switch.
    if (whole) this.tail?.drain();
    else this.batcher?.drain();
    this.fullFeed = whole;
  });

  constructor(events: EventHub | undefined, options: TraceHubOptions = {}) {
    this.store = new TraceStore(options.store);
    this.snapshots = new SnapshotEngine(options.snapshots);
    this.store.subscribe((event) => this.snapshots.apply(event));
    if (!events) return;
    const interval = options.pushIntervalMs ?? 250;
    const most = options.pushBatchEvents ?? 500;
    const emit = (batch: TraceEvent[], partial: boolean) =>
      events.emit('traceBatch', { events: batch.map(slim), total: this.store.size, ...(partial ? { partial } : {}) });
    // A batch is at most `most` events, so the page parses and applies each push in a short task,
    // even when main fell behind and a turn of its event loop recorded thousands at once.
    this.batcher = new Batcher(
      (batch) => {
        for (let at = 0; at < batch.length; at += most) emit(batch.slice(at, at + most), false);
      },
      interval,
      most,
    );
    this.tail = new TailPush((batch) => emit(batch, true), interval, options.pushTail ?? TRACE_FEED_TAIL);
    this.store.subscribe((event) => (this.fullFeed ? this.batcher!.push(event) : this.tail!.push(event)));
    this.timer = setInterval(() => {
      for (const server of this.snapshots.takeDirty()) {
        const snapshot = this.snapshots.snapshot(server, RECENT_BUCKETS);
        if (snapshot) events.emit('snapshot', snapshot);
      }
    }, interval);
    this.timer.unref();
  }

  /** `bodyText`: see TraceStore.append. */
  record = (event: TraceEventInput, bodyText?: string): void => {
    this.store.append(event, bodyText);
  };

  now = (): number => this.store.now();

  /**
   * `traceFeed`: every event in the pushes while any window's lease runs (each lasts
   * TRACE_FEED_LEASE_MS from its last renewal), the newest only otherwise.
   */
  feed(lease: string, full: boolean): { full: boolean; leaseMs: number } {
    if (!this.batcher || !this.tail) return { full: false, leaseMs: 0 };
    return { full: this.leases.set(lease, full), leaseMs: full ? TRACE_FEED_LEASE_MS : 0 };
  }

  close(): void {
    this.leases.close();
    this.batcher?.drain();
    this.tail?.drain();
    if (this.timer) clearInterval(this.timer);
    this.store.close();
  }
}

/**
 * The push without a full-feed lease: on a timer, the newest `size` events since the last push
 * (a ring, so a flood costs one array write an event) and, among the older, those
 * `keptInPartial` (at most one per exchange), in seq order.
 */
class TailPush {
  private ring: (TraceEvent | undefined)[];
  private next = 0;
  private held = 0;
  private kept: TraceEvent[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly flush: (events: TraceEvent[]) => void,
    private readonly intervalMs: number,
    private readonly size: number,
  ) {
    this.ring = new Array<TraceEvent | undefined>(size);
  }

  push(event: TraceEvent): void {
    const out = this.ring[this.next];
    if (out && this.held === this.size && keptInPartial(out)) this.kept.push(out);
    this.ring[this.next] = event;
    this.next = (this.next + 1) % this.size;
    if (this.held < this.size) this.held++;
    this.timer ??= setTimeout(() => this.drain(), this.intervalMs);
  }

  drain(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.held === 0) return;
    const events = this.kept;
    for (let i = this.held; i > 0; i--) events.push(this.ring[(this.next - i + this.size) % this.size]!);
    this.ring.fill(undefined);
    this.kept = [];
    this.held = 0;
    this.flush(events);
  }
}

/**
 * Older events a partial push carries too: the auth-relevant ones (the OAuth views follow them
 * live), and every HTTP response (one an exchange: it settles the exchange's channel, which the
 * table shows on the request's row, pushed or not).
 */
function keptInPartial(event: TraceEvent): boolean {
  return event.kind === 'http-response' || isAuthRelevant(event);
}

/**
 * An event as a push carries it. What the views draw from pushed events is the index's part:
 * kind, channel, the JSON-RPC summary (which names a cancelled request and a tool's error too),
 * HTTP status, text. The body (and its raw text) and the HTTP headers stay in main: marked
 * `truncated`, an event is fetched by seq when they are shown (the Traffic detail and the OAuth
 * views read main's events anyway; a push only tells them to). Under a flood that is a third less
 * JSON to write, carry and parse, and far fewer objects for the page to keep and collect.
 */
export function slim(event: TraceEvent): TraceEvent {
  const hasBody = event.body !== undefined || event.raw !== undefined;
  const headers = event.http?.headers !== undefined;
  if (!hasBody && !headers) return event;
  const lean = hasBody ? without(event, 'body', 'raw') : without(event);
  if (hasBody) lean.truncated = true;
  if (headers) lean.http = without(event.http!, 'headers');
  return lean;
}

/**
 * A copy of an object's own enumerable properties but the ones named, key by key in their order:
 * the JSON of `{ ...source, body: undefined }`, built far faster. A spread of a whole event
 * followed by keys it did not hold takes V8 a slow path (each copy got a hidden class of its own:
 * `%HaveSameMap` false for two of them, true for two key-by-key copies): on a flood's events, 5.3–5.9
 * µs an event against 0.24–0.26 µs for this, and slimming plus the push's JSON.stringify 5.6–6.0 µs
 * against 1.1 (node 20 micro-benchmark, not committed). Under a 100,000-notification flood with the
 * Timeline open, every event is slimmed once.
 */
function without<T extends object>(source: T, drop?: string, drop2?: string): T {
  const copy: Record<string, unknown> = {};
  for (const key in source) {
    if (key === drop || key === drop2 || !Object.hasOwn(source, key)) continue;
    copy[key] = (source as Record<string, unknown>)[key];
  }
  return copy as T;
}
