/**
 * A list read from main that depends on which servers are connected (prompts, resources):
 * reloaded when a server connects, reconnects or leaves, and on demand. A stale answer (from
 * before the last change) is dropped.
 */
import { useEffect, useState } from 'react';
import type { ServerStatus } from '../../../contract';

export function useConnectedList<T>(load: () => Promise<T>, servers: ServerStatus[], deps: unknown[] = []): { data: T | null; error: string | null; reload: () => void } {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [reloads, setReloads] = useState(0);
  const connectedKey = servers
    .filter((s) => s.state === 'connected')
    .map((s) => `${s.id}:${s.since}`)
    .join(',');

  useEffect(() => {
    let live = true;
    load().then(
      (result) => {
        if (!live) return;
        setData(result);
        setError(null);
      },
      (e: Error) => live && setError(e.message),
    );
    return () => {
      live = false;
    };
    // Deliberately only these dependencies.
  }, [connectedKey, reloads, ...deps]);

  return { data, error, reload: () => setReloads((n) => n + 1) };
}
