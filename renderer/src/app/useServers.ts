import { useCallback, useEffect, useState } from 'react';
import type { ServerStatus } from '../../../contract';
import { useApi } from '../api/context';

/**
 * The names of servers removed while this page was open, by id: a removed server's log lines and
 * events still name it (ids are never reused).
 */
export const removedServerNames = new Map<string, string>();

/** Every configured server with its live state. */
export function useServers(): { servers: ServerStatus[]; loaded: boolean; refresh: () => void } {
  const api = useApi();
  const [servers, setServers] = useState<ServerStatus[]>([]);
  // Until the first list arrives, "no servers" would be a guess.
  const [loaded, setLoaded] = useState(false);
  const refresh = useCallback(() => {
    api.listServers().then(
      (list) => {
        setServers(list);
        setLoaded(true);
      },
      () => undefined,
    );
  }, [api]);
  useEffect(() => {
    refresh();
    // Removed here or anywhere else (another window, a script on browser mode's socket). A state
    // pushed late for a removed server (its process ending) does not bring it back: ids are not reused.
    const removed = new Set<string>();
    const offState = api.on('serverState', (status) => {
      if (removed.has(status.id)) return;
      setServers((list) => (list.some((s) => s.id === status.id) ? list.map((s) => (s.id === status.id ? status : s)) : [...list, status]));
    });
    const offRemoved = api.on('serverRemoved', ({ id }) => {
      removed.add(id);
      setServers((list) => {
        const gone = list.find((s) => s.id === id);
        if (!gone) return list;
        removedServerNames.set(id, gone.name);
        return list.filter((s) => s.id !== id);
      });
    });
    return () => {
      offState();
      offRemoved();
    };
  }, [api, refresh]);
  return { servers, loaded, refresh };
}
