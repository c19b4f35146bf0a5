/**
 * "The tool catalog as it was": the tools a recording's servers listed (raw MCP objects from
 * `interfaceSnapshot` of the recording) as ToolEntry rows the explorer and detail show, read-only.
 * Everything is the recording's (hostile) bytes: only well-typed fields are kept, names bounded.
 */
import type { ToolEntry } from '../../../../contract';

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const text = (v: unknown, max: number): string | undefined => (typeof v === 'string' ? v.slice(0, max) : undefined);

/** The recording's id of a `rec-ID` source; undefined for live or an imported file. */
export const recordingIdOf = (source: string): string | undefined => (source.startsWith('rec-') ? source.slice(4) : undefined);

/**
 * One entry per tool with a string name, per server, in the order given; `name` is
 * `server__tool` (unique: a repeated one gets `~2`, `~3`), `collidesWith` names the same bare
 * name on other servers, as the live catalog does.
 */
export function recordedToolEntries(servers: { serverId: string; serverName: string; tools: Record<string, unknown>[] }[]): ToolEntry[] {
  const entries: ToolEntry[] = [];
  const taken = new Set<string>();
  for (const server of servers) {
    for (const raw of server.tools) {
      const original = text(raw.name, 500);
      if (!original) continue;
      let name = `${server.serverName.slice(0, 200)}__${original}`;
      for (let n = 2; taken.has(name); n++) name = `${server.serverName.slice(0, 200)}__${original}~${n}`;
      taken.add(name);
      entries.push({
        name,
        serverId: server.serverId,
        serverName: server.serverName,
        originalName: original,
        title: text(raw.title, 500),
        description: text(raw.description, 200_000),
        inputSchema: isObject(raw.inputSchema) ? raw.inputSchema : {},
        outputSchema: isObject(raw.outputSchema) ? raw.outputSchema : undefined,
        annotations: isObject(raw.annotations) ? raw.annotations : undefined,
        icons: Array.isArray(raw.icons) ? raw.icons.slice(0, 16) : undefined,
      });
    }
  }
  const byBare = new Map<string, string[]>();
  for (const e of entries) {
    const names = byBare.get(e.originalName);
    if (names) names.push(e.name);
    else byBare.set(e.originalName, [e.name]);
  }
  return entries.map((e) => {
    const names = byBare.get(e.originalName)!;
    if (names.length === 1) return e;
    const others = names.filter((n) => n !== e.name);
    return others.length ? { ...e, collidesWith: others } : e;
  });
}
