import { useCallback, useEffect, useState } from 'react';
import type { ServerStatus } from '../../../contract';
import { useApi } from '../api/context';

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
    return api.on('serverState', (status) =>
      setServers((list) => (list.some((s) => s.id === status.id) ? list.map((s) => (s.id === status.id ? status : s)) : [...list, status])),
    );
  }, [api, refresh]);
  return { servers, loaded, refresh };
}
