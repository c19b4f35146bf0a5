/**
 * Every server's standing against its baseline, per API: loaded once (and again when a view
 * asks after a reconnect), then kept current by `driftChanged` pushes.
 */
import type { DriftStatus } from '../../../../contract';
import { perApi } from '../../state/per-api';
import { Store } from '../../state/store';

export interface DriftStore {
  statuses: Store<ReadonlyMap<string, DriftStatus>>;
  /** Fetches every status again (one fetch at a time). */
  refresh(): void;
}

export const getDriftStore = perApi<DriftStore>((api) => {
  const statuses = new Store<ReadonlyMap<string, DriftStatus>>(new Map());
  /** Pushes that arrived while a fetch was under way: newer than what it answers. */
  let during: Map<string, DriftStatus> | undefined;
  const put = (status: DriftStatus) => {
    during?.set(status.serverId, status);
    const next = new Map(statuses.get());
    next.set(status.serverId, status);
    statuses.set(next);
  };
  api.on('driftChanged', put);
  let loading: Promise<void> | undefined;
  const refresh = () => {
    if (loading) return;
    during = new Map();
    loading = api
      .driftStatus()
      .then(
        (list) => statuses.set(new Map([...list.map((s) => [s.serverId, s] as const), ...(during ?? new Map<string, DriftStatus>())])),
        () => undefined,
      )
      .finally(() => {
        loading = undefined;
        during = undefined;
      });
  };
  refresh();
  return { statuses, refresh };
});
