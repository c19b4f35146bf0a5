/**
 * Per-server snapshots on the renderer side: full snapshots on start, then throttled pushes
 * whose recent time buckets are merged into the history the charts plot.
 */
import type { SwitchboardApi } from '../../../contract/client';
import type { ServerSnapshot, TimeBucket } from '../../../contract/trace';
import { Signal } from './store';

const KEEP_BUCKETS = 15 * 60;

export class SnapshotStore extends Signal {
  readonly snapshots = new Map<string, ServerSnapshot>();

  constructor(private readonly api: SwitchboardApi) {
    super();
  }

  async start(): Promise<() => void> {
    const off = this.api.on('snapshot', (snapshot) => this.merge(snapshot));
    await this.resync();
    return off;
  }

  /** Full snapshots again (at start, and after the link to main came back). */
  async resync(): Promise<void> {
    const fresh = await this.api.snapshots();
    this.snapshots.clear();
    for (const snapshot of fresh) this.snapshots.set(snapshot.server, snapshot);
    this.notify();
  }

  merge(update: ServerSnapshot): void {
    const previous = this.snapshots.get(update.server);
    const buckets: TimeBucket[] = previous ? previous.buckets.filter((b) => !update.buckets.some((u) => u.t === b.t)) : [];
    buckets.push(...update.buckets);
    buckets.sort((a, b) => a.t - b.t);
    if (buckets.length > KEEP_BUCKETS) buckets.splice(0, buckets.length - KEEP_BUCKETS);
    this.snapshots.set(update.server, { ...update, buckets });
    this.notify();
  }
}
