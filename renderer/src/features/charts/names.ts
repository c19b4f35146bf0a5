/** Server names for the charts and the timeline. */
import { useMemo } from 'react';
import type { ProxySession, ServerStatus } from '../../../../contract';
import { useApi } from '../../api/context';
import { getProxySessions, proxyNames } from '../../state/proxy-sessions';
import { useStore } from '../../state/useStore';
import { importedServers } from '../traffic';

/** The configured servers' names, the live trace's proxied sessions (#12), and for an imported trace the names its file recorded. */
export function serverNames(servers: readonly ServerStatus[], source: string, proxies: readonly ProxySession[] = []): Map<string, string> {
  const names = new Map(servers.map((s) => [s.id, s.name]));
  if (source === 'live') for (const [id, name] of proxyNames(proxies)) if (!names.has(id)) names.set(id, name);
  for (const s of importedServers.get(source) ?? []) if (!names.has(s.id)) names.set(s.id, s.name);
  return names;
}

/** `serverNames`, kept current as proxied sessions come and go. */
export function useServerNames(servers: readonly ServerStatus[], source: string): Map<string, string> {
  const proxies = useStore(getProxySessions(useApi()).sessions);
  return useMemo(() => serverNames(servers, source, proxies), [servers, source, proxies]);
}
