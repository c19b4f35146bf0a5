/**
 * Resource subscriptions and their "updated" marks, kept outside React for the app's life:
 * the Resources view unmounts when another tab shows, but subscriptions live on the server and
 * `resourceUpdated` events keep arriving. One store per API (window).
 */
import type { SwitchboardApi } from '../../../../contract/client';
import { perApi } from '../../state/per-api';
import { Signal } from '../../state/store';
import { useVersion } from '../../state/useStore';

export const resourceKey = (serverId: string, uri: string): string => `${serverId}\n${uri}`;

export class ResourceWatch extends Signal {
  /** Keys subscribed in this window. */
  readonly subscribed = new Set<string>();
  /** Keys with an update not yet re-read → time of the latest update. */
  readonly updated = new Map<string, number>();
  /** Update count per key since subscribing (to show activity). */
  readonly updateCount = new Map<string, number>();

  constructor(api: SwitchboardApi) {
    super();
    api.on('resourceUpdated', ({ serverId, uri, ts }) => {
      const key = resourceKey(serverId, uri);
      this.updated.set(key, ts);
      this.updateCount.set(key, (this.updateCount.get(key) ?? 0) + 1);
      this.notify();
    });
    // A subscription does not survive its session: forget it when the server goes down.
    api.on('serverState', (status) => {
      if (status.state === 'connected') return;
      let dropped = false;
      for (const key of this.subscribed) {
        if (key.startsWith(`${status.id}\n`)) {
          this.subscribed.delete(key);
          dropped = true;
        }
      }
      if (dropped) this.notify();
    });
  }

  setSubscribed(key: string, on: boolean): void {
    if (on) this.subscribed.add(key);
    else this.subscribed.delete(key);
    this.notify();
  }

  /** The user read the resource again: the mark goes. */
  seen(key: string): void {
    if (this.updated.delete(key)) this.notify();
  }
}

const watchFor = perApi((api) => new ResourceWatch(api));

export function useResourceWatch(api: SwitchboardApi): ResourceWatch {
  const watch = watchFor(api);
  useVersion(watch);
  return watch;
}
