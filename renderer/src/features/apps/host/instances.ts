/**
 * App instances opened ahead of use: selecting an app tool starts `appOpen` (resources/read,
 * the policy, the sandbox page) while the view renders, and the AppHost that mounts claims it.
 * Keyed by server, resource and granted permissions; at most a few wait; a preload nobody
 * claims is closed when its server's catalog changes (any `serverState` of that server) or when
 * newer ones push it out. A claimed instance belongs to its AppHost, which closes it. The
 * person's answer to an app's permission question is kept here too (per server and resource, for
 * this page's life), so the question is not asked again each time the view is shown.
 */
import type { AppInstance, AppPermission } from '../../../../../contract';
import type { SwitchboardApi } from '../../../../../contract/client';
import { perApi } from '../../../state/per-api';

const MAX_WAITING = 6;

export interface AppTarget {
  serverId: string;
  uri: string;
  tool?: string;
}

function keyOf(target: AppTarget, grant: readonly AppPermission[]): string {
  return JSON.stringify([target.serverId, target.uri, target.tool ?? '', [...grant].sort()]);
}

class Preloads {
  readonly #waiting = new Map<string, { serverId: string; promise: Promise<AppInstance> }>();
  /** The person's answer to an app's permission question, per server and resource, until the page reloads. */
  readonly #consents = new Map<string, AppPermission[]>();

  /** The permissions granted to this app before (an empty list: denied), or undefined if never asked. */
  consent(target: AppTarget): AppPermission[] | undefined {
    return this.#consents.get(JSON.stringify([target.serverId, target.uri]));
  }

  remember(target: AppTarget, granted: AppPermission[]): void {
    this.#consents.set(JSON.stringify([target.serverId, target.uri]), [...granted]);
  }

  constructor(private readonly api: SwitchboardApi) {
    api.on('serverState', (status) => this.drop(status.id));
  }

  open(target: AppTarget, grant: readonly AppPermission[]): Promise<AppInstance> {
    return this.api.appOpen({ serverId: target.serverId, uri: target.uri, tool: target.tool, grant: [...grant] });
  }

  preload(target: AppTarget, grant: readonly AppPermission[] = []): void {
    const key = keyOf(target, grant);
    if (this.#waiting.has(key)) return;
    const promise = this.open(target, grant);
    this.#waiting.set(key, { serverId: target.serverId, promise });
    // A failed preload is forgotten (the AppHost that claims it shows the failure, then retries on the next mount).
    promise.catch(() => {
      if (this.#waiting.get(key)?.promise === promise) this.#waiting.delete(key);
    });
    while (this.#waiting.size > MAX_WAITING) {
      const [oldest] = this.#waiting.keys();
      this.#discard(oldest!);
    }
  }

  /** The preloaded instance if one waits (it is no longer the cache's), else a new one. */
  claim(target: AppTarget, grant: readonly AppPermission[]): Promise<AppInstance> {
    const key = keyOf(target, grant);
    const waiting = this.#waiting.get(key);
    if (waiting) {
      this.#waiting.delete(key);
      return waiting.promise;
    }
    return this.open(target, grant);
  }

  close(instanceId: string): void {
    this.api.appClose({ instanceId }).catch(() => undefined);
  }

  drop(serverId?: string): void {
    for (const [key, entry] of [...this.#waiting]) if (serverId === undefined || entry.serverId === serverId) this.#discard(key);
  }

  #discard(key: string): void {
    const entry = this.#waiting.get(key);
    if (!entry) return;
    this.#waiting.delete(key);
    entry.promise.then(
      (instance) => this.close(instance.instanceId),
      () => undefined,
    );
  }
}

export const appInstances = perApi((api) => new Preloads(api));
