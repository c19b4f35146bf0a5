/**
 * The trace, assembled: the store, the snapshot engine fed by it, and the throttled pushes to
 * the renderer (trace batches and snapshots a few times a second, never one message an event).
 */
import type { TraceEvent, TraceEventInput } from '../../../contract/trace';
import { Batcher, type EventHub } from '../events';
import { SnapshotEngine, type SnapshotOptions } from './snapshots';
import { TraceStore, type TraceStoreOptions } from './store';

export interface TraceHubOptions {
  store?: TraceStoreOptions;
  snapshots?: SnapshotOptions;
  /** How often batches and snapshots are pushed (default 250 ms). */
  pushIntervalMs?: number;
  /** Bodies larger than this are left out of pushed events (default 8 KiB). */
  pushBodyBytes?: number;
  /** A push carries at most this many events; a batch is pushed as soon as it holds them, before the interval is up (default 500: about 250 KB of JSON, a parse of a few ms on the page). */
  pushBatchEvents?: number;
}

const RECENT_BUCKETS = 3;

export class TraceHub {
  readonly store: TraceStore;
  readonly snapshots: SnapshotEngine;
  private readonly batcher: Batcher<TraceEvent> | undefined;
  private readonly timer: NodeJS.Timeout | undefined;

  constructor(events: EventHub | undefined, options: TraceHubOptions = {}) {
    this.store = new TraceStore(options.store);
    this.snapshots = new SnapshotEngine(options.snapshots);
    this.store.subscribe((event) => this.snapshots.apply(event));
    if (!events) return;
    const interval = options.pushIntervalMs ?? 250;
    const limit = options.pushBodyBytes ?? 8 * 1024;
    const most = options.pushBatchEvents ?? 500;
    // A batch is at most `most` events, so the page parses and applies each push in a short task,
    // even when main fell behind and a turn of its event loop recorded thousands at once.
    this.batcher = new Batcher(
      (batch) => {
        for (let at = 0; at < batch.length; at += most) events.emit('traceBatch', { events: batch.slice(at, at + most).map((e) => slim(e, limit)), total: this.store.size });
      },
      interval,
      most,
    );
    this.store.subscribe((event) => this.batcher!.push(event));
    this.timer = setInterval(() => {
      for (const server of this.snapshots.takeDirty()) {
        const snapshot = this.snapshots.snapshot(server, RECENT_BUCKETS);
        if (snapshot) events.emit('snapshot', snapshot);
      }
    }, interval);
    this.timer.unref();
  }

  record = (event: TraceEventInput): void => {
    this.store.append(event);
  };

  now = (): number => this.store.now();

  close(): void {
    this.batcher?.drain();
    if (this.timer) clearInterval(this.timer);
    this.store.close();
  }
}

/** A pushed copy of an event without a large body; the renderer fetches it by seq when shown. */
function slim(event: TraceEvent, limit: number): TraceEvent {
  if ((event.body === undefined && event.raw === undefined) || (event.bytes ?? 0) <= limit) return event;
  return { ...event, body: undefined, raw: undefined, truncated: true };
}
