/**
 * Proxied sessions (#12), per API: loaded once (and again when the sidebar remounts after a
 * reconnect), then replaced whole by every `proxySessionsChanged` push. Every view that names
 * servers reads their names here (a proxied session's server id is `px-<recording id>`).
 */
import type { ProxySession } from '../../../contract';
import { perApi } from './per-api';
import { Store } from './store';

export interface ProxySessionsStore {
  sessions: Store<readonly ProxySession[]>;
  /** Fetches the list again (one fetch at a time; a push during it wins). */
  refresh(): void;
}

export const getProxySessions = perApi<ProxySessionsStore>((api) => {
  const sessions = new Store<readonly ProxySession[]>([]);
  let pushed = 0;
  api.on('proxySessionsChanged', ({ sessions: next }) => {
    pushed++;
    sessions.set(next);
  });
  let loading = false;
  const refresh = () => {
    if (loading) return;
    loading = true;
    const before = pushed;
    api
      .proxySessions()
      .then(
        (list) => {
          if (pushed === before) sessions.set(list);
        },
        () => undefined,
      )
      .finally(() => {
        loading = false;
      });
  };
  refresh();
  return { sessions, refresh };
});

/** How a proxied session is named in the views: its `--name`. */
export function proxyNames(sessions: readonly ProxySession[]): Map<string, string> {
  return new Map(sessions.map((s) => [s.id, s.info.name]));
}

/** "Claude Desktop 1.2", or undefined before the client said who it is. */
export function clientLabel(session: ProxySession): string | undefined {
  const client = session.info.client;
  return client ? `${client.name}${client.version ? ` ${client.version}` : ''}` : undefined;
}
