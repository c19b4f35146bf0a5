/**
 * Baselines and drift (#13): a server's interface pinned as its baseline, checked against it on
 * every connect and every list change (the connection's `onListsChanged`); each check is pushed
 * as `driftChanged` and shown in the sidebar. A server not connected keeps its last standing
 * (`unknown` until it has been checked once since it was pinned, or since this run started).
 */
import type { Baseline, DriftStatus, InterfaceSnapshot } from '../../../contract';
import { BaselineStore } from './baselines';
import { diffInterfaces } from './diff';

export interface DriftMonitorOptions {
  /** Where baselines are kept (a JSON file beside the settings); absent: in memory. */
  file?: string;
  onChange?: (status: DriftStatus) => void;
  /** The connected server's interface now, or undefined when it is not connected. */
  snapshot?: (serverId: string) => InterfaceSnapshot | undefined;
  /** Lines for the app log (a baselines file that could not be read, a check that failed). */
  log?: (level: 'info' | 'warning' | 'error', text: string, serverId?: string) => void;
  /** How long a server's lists must stay put before they are checked (default 300 ms): some servers add tools right after initialize. */
  settleMs?: number;
}

export class DriftMonitor {
  private readonly store: BaselineStore;
  private readonly checked = new Map<string, DriftStatus>();
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(readonly options: DriftMonitorOptions = {}) {
    this.store = new BaselineStore(options.file);
    for (const problem of this.store.problems) options.log?.('warning', problem);
  }

  baseline(serverId: string): Baseline | undefined {
    return this.store.get(serverId);
  }

  baselines(): Baseline[] {
    return this.store.all();
  }

  /** Pins a snapshot as the server's baseline (replacing the earlier one) and checks it at once. */
  pin(serverId: string, snapshot: InterfaceSnapshot): Baseline {
    const baseline: Baseline = { serverId, serverName: snapshot.serverName, pinnedAt: Date.now(), snapshot };
    this.store.set(baseline);
    this.settle(serverId, snapshot);
    return baseline;
  }

  clear(serverId: string): boolean {
    const cleared = this.store.delete(serverId);
    this.checked.delete(serverId);
    if (cleared) this.options.onChange?.({ serverId, state: 'none' });
    return cleared;
  }

  /**
   * A server's lists changed (it connected, or said list_changed): checked once they have stayed
   * put for `settleMs`, so a server that adds tools right after initialize is not flagged in between.
   */
  listsChanged(serverId: string): void {
    if (!this.store.get(serverId)) return;
    clearTimeout(this.timers.get(serverId));
    const timer = setTimeout(() => {
      this.timers.delete(serverId);
      this.check(serverId);
    }, this.options.settleMs ?? 300);
    timer.unref();
    this.timers.set(serverId, timer);
  }

  /** Compares the connected server with its baseline now (nothing to do without one, or when it is not connected). */
  check(serverId: string): DriftStatus | undefined {
    if (!this.store.get(serverId)) return undefined;
    let now: InterfaceSnapshot | undefined;
    try {
      now = this.options.snapshot?.(serverId);
    } catch (error) {
      this.options.log?.('warning', `Checking the interface against its baseline failed: ${error instanceof Error ? error.message : String(error)}`, serverId);
      return undefined;
    }
    if (!now) return undefined;
    return this.settle(serverId, now);
  }

  /** The standing of each server named (and of every server with a baseline). */
  status(serverIds: readonly string[] = []): DriftStatus[] {
    const ids = [...new Set([...serverIds, ...this.store.all().map((b) => b.serverId)])];
    return ids.map((id) => this.statusOf(id));
  }

  statusOf(serverId: string): DriftStatus {
    const baseline = this.store.get(serverId);
    if (!baseline) return { serverId, state: 'none' };
    return this.checked.get(serverId) ?? { serverId, state: 'unknown', pinnedAt: baseline.pinnedAt };
  }

  close(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.checked.clear();
  }

  private settle(serverId: string, now: InterfaceSnapshot): DriftStatus {
    const baseline = this.store.get(serverId)!;
    const diff = diffInterfaces(baseline.snapshot, now);
    const status: DriftStatus = { serverId, state: diff.same ? 'same' : 'changed', pinnedAt: baseline.pinnedAt, checkedAt: Date.now(), diff };
    this.checked.set(serverId, status);
    this.options.onChange?.(status);
    return status;
  }
}
