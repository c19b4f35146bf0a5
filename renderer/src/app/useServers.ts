import { useCallback, useEffect, useState } from 'react';
import type { ServerStatus } from '../../../contract';
import { useApi } from '../api/context';

/**
 * The names of servers removed while this page was open, by id: a removed server's log lines and
 * events still name it (ids are never reused).
 */
export const removedServerNames = new Map<string, string>();
/** How views name a removed server: by the name this page knew it by, else by its id. */
export function removedServerLabel(id: string): string {
  return `${removedServerNames.get(id) ?? id} (removed)`;
}
/** Ids removed while this page was open: a state pushed late, or a list read in flight, does not bring one back. */
const removedIds = new Set<string>();
/** The last name this page heard for each server, for `removedServerNames`. */
const knownNames = new Map<string, string>();

/** Every configured server with its live state. */
export function useServers(): { servers: ServerStatus[]; loaded: boolean; refresh: () => void } {
  const api = useApi();
  const [servers, setServers] = useState<ServerStatus[]>([]);
  // Until the first list arrives, "no servers" would be a guess.
  const [loaded, setLoaded] = useState(false);
  const refresh = useCallback(() => {
    api.listServers().then(
      (list) => {
        for (const s of list) knownNames.set(s.id, s.name);
        setServers(list.filter((s) => !removedIds.has(s.id)));
        setLoaded(true);
      },
      () => undefined,
    );
  }, [api]);
  useEffect(() => {
    refresh();
    // Removed here or anywhere else (another window, a script on browser mode's socket).
    const offState = api.on('serverState', (status) => {
      if (removedIds.has(status.id)) return;
      knownNames.set(status.id, status.name);
      setServers((list) => (list.some((s) => s.id === status.id) ? list.map((s) => (s.id === status.id ? status : s)) : [...list, status]));
    });
    const offRemoved = api.on('serverRemoved', ({ id }) => {
      removedIds.add(id);
      const name = knownNames.get(id);
      if (name !== undefined) removedServerNames.set(id, name);
      setServers((list) => (list.some((s) => s.id === id) ? list.filter((s) => s.id !== id) : list));
    });
    return () => {
      offState();
      offRemoved();
    };
  }, [api, refresh]);
  return { servers, loaded, refresh };
}
