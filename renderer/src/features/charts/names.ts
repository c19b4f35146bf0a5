/** Server names for the charts and the timeline. */
import type { ServerStatus } from '../../../../contract';
import { importedServers } from '../traffic';

/** The configured servers' names, and for an imported trace the names its file recorded. */
export function serverNames(servers: readonly ServerStatus[], source: string): Map<string, string> {
  const names = new Map(servers.map((s) => [s.id, s.name]));
  for (const s of importedServers.get(source) ?? []) if (!names.has(s.id)) names.set(s.id, s.name);
  return names;
}
