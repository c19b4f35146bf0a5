/**
 * Resource subscriptions and their "updated" marks, kept outside React for the app's life:
 * the Resources view unmounts when another tab shows, but subscriptions live on the server and
 * `resourceUpdated` events keep arriving. One store per API (window).
 */
import { useSyncExternalStore } from 'react';
import type { SwitchboardApi } from '../../../../contract/client';
import { perApi } from '../../state/per-api';

export const resourceKey = (serverId: string, uri: string): string => `${serverId}\n${uri}`;

export class ResourceWatch {
  /** Keys subscribed in this window. */
  readonly subscribed = new Set<string>();
  /** Keys with an update not yet re-read → time of the latest update. */
  readonly updated = new Map<string, number>();
  /** Update count per key since subscribing (to show activity). */
  readonly updateCount = new Map<string, number>();
  private version = 0;
  private readonly listeners = new Set<() => void>();

  constructor(api: SwitchboardApi) {
    api.on('resourceUpdated', ({ serverId, uri, ts }) => {
      const key = resourceKey(serverId, uri);
      this.updated.set(key, ts);
      this.updateCount.set(key, (this.updateCount.get(key) ?? 0) + 1);
      this.changed();
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
      if (dropped) this.changed();
    });
  }

  setSubscribed(key: string, on: boolean): void {
    if (on) this.subscribed.add(key);
    else this.subscribed.delete(key);
    this.changed();
  }

  /** The user read the resource again: the mark goes. */
  seen(key: string): void {
    if (this.updated.delete(key)) this.changed();
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getVersion = (): number => this.version;

  private changed(): void {
    this.version++;
    for (const listener of this.listeners) listener();
  }
}

const watchFor = perApi((api) => new ResourceWatch(api));

export function useResourceWatch(api: SwitchboardApi): ResourceWatch {
  const watch = watchFor(api);
  useSyncExternalStore(watch.subscribe, watch.getVersion);
  return watch;
}
