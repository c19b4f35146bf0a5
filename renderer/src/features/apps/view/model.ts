/**
 * The Apps view's pure parts (no React, unit-tested from Node): which app tools may be run
 * from a form, the list grouped by server, the servers that do not
 * declare the extension, the search, and what the AppHost is fed from the tool's call session.
 */
import type { ServerStatus, ToolEntry } from '../../../../../contract';
import { safeStringify } from '../../../../../contract/bounded-json';
import { VISIBILITY_HINT, isAppTool, visibilityOf, type AppTool } from '../../../components/app-tool';

export { isAppTool, type AppTool };

/** Why the Run button is off for this tool, or null when it may be run. */
export function runBlockedReason(tool: Pick<ToolEntry, 'ui' | 'taskSupport'>): string | null {
  if (tool.taskSupport === 'required') return 'Not run from here: this tool runs only as a task (execution.taskSupport: required); run it as a task from the Tools view.';
  const visibility = visibilityOf(tool);
  if (visibility === 'app-only') return `Not run from here: this tool is ${VISIBILITY_HINT['app-only']} Its app still opens below.`;
  return null;
}

export interface AppGroup {
  id: string;
  title: string;
  items: AppTool[];
}

/** A tool matches when every search term is in its name, title, resource uri or server name. */
export function matchesQuery(tool: AppTool, query: string): boolean {
  const terms = query.trim().toLowerCase().split(/\s+/).filter(Boolean);
  if (!terms.length) return true;
  const hay = `${tool.name}\n${tool.title ?? ''}\n${tool.ui.resourceUri}\n${tool.serverName}`.slice(0, 5_000).toLowerCase();
  return terms.every((term) => hay.includes(term));
}

/**
 * The app tools the view offers: tools with a UI, but none of a server whose MCP Apps setting is
 * off (we did not declare the extension to it, whatever its tools say).
 */
export function offeredApps(tools: readonly ToolEntry[], servers: readonly Pick<ServerStatus, 'id' | 'config'>[]): AppTool[] {
  const off = new Set(servers.filter((s) => s.config.apps === false).map((s) => s.id));
  return tools.filter((t): t is AppTool => isAppTool(t) && !off.has(t.serverId));
}

/**
 * The offered app tools grouped by server: servers in the sidebar's order (unknown ones last, by
 * name), tools by their own name within a server.
 */
export function appToolGroups(tools: readonly ToolEntry[], servers: readonly Pick<ServerStatus, 'id' | 'config'>[], query = '', scope?: string): AppGroup[] {
  const order = new Map(servers.map((s, i) => [s.id, i]));
  const byServer = new Map<string, AppGroup>();
  for (const tool of offeredApps(tools, servers)) {
    if ((scope && tool.serverId !== scope) || !matchesQuery(tool, query)) continue;
    let group = byServer.get(tool.serverId);
    if (!group) {
      group = { id: tool.serverId, title: tool.serverName, items: [] };
      byServer.set(tool.serverId, group);
    }
    group.items.push(tool);
  }
  const groups = [...byServer.values()];
  for (const group of groups) group.items.sort((a, b) => a.originalName.localeCompare(b.originalName));
  const rank = (g: AppGroup) => order.get(g.id) ?? Number.MAX_SAFE_INTEGER;
  return groups.sort((a, b) => rank(a) - rank(b) || a.title.localeCompare(b.title));
}

/** The servers whose setting keeps the extension undeclared (`apps: false`): they cannot offer apps. */
export function serversWithoutApps(servers: readonly Pick<ServerStatus, 'id' | 'name' | 'config'>[]): { id: string; name: string }[] {
  return servers.filter((s) => s.config.apps === false).map((s) => ({ id: s.id, name: s.name }));
}

export const EMPTY_TEXT = 'No connected server offers an app. Servers declare one with _meta.ui.resourceUri on a tool (MCP Apps).';

// --- what the AppHost is fed ---------------------------------------------------------------

/** The parts of a tool's call session (features/tools calls-store) the feed reads. */
export interface SessionLike {
  args: Record<string, unknown>;
  running?: { args: Record<string, unknown> };
  outcome?: { kind: 'result'; args: Record<string, unknown>; value: { result: Record<string, unknown> } } | { kind: 'error'; args: Record<string, unknown> };
}

/** AppHostProps without the tool: `input` (+ `inputPartial`), `result`, `cancelled`. */
export interface HostFeed {
  input?: Record<string, unknown>;
  inputPartial?: boolean;
  result?: Record<string, unknown>;
  cancelled?: boolean;
}

/**
 * What the app hears of the call, from the session: while it runs, its arguments as the tool
 * input; once done, those and the result (a failed or cancelled call: `cancelled`, since the
 * spec has the host send tool-cancelled whenever execution did not complete); while the person
 * edits arguments that were not run yet, the arguments as partial input. Values are the
 * session's own objects, so an unchanged session feeds the same references.
 */
export function hostFeed(session: SessionLike | undefined): HostFeed {
  if (!session) return {};
  if (session.running) return { input: session.running.args, inputPartial: false };
  const outcome = session.outcome;
  if (outcome && sameArgs(outcome.args, session.args)) {
    return outcome.kind === 'result' ? { input: outcome.args, inputPartial: false, result: outcome.value.result } : { input: outcome.args, inputPartial: false, cancelled: true };
  }
  return { input: session.args, inputPartial: true };
}

/** The arguments of the last run are the ones in the form (the same object, or the same JSON). */
function sameArgs(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  return a === b || safeStringify(a) === safeStringify(b);
}
