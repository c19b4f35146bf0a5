/**
 * One catalog over every connected server: tools, prompts, resources and resource templates,
 * each tool and prompt under its namespaced name. Resolution never guesses: an exact name,
 * else a known server's prefix, else a bare name that exactly one server offers; an ambiguous
 * bare name is an error that lists the candidates.
 */
import type { Prompt, Resource, ResourceTemplateType, Tool } from '@modelcontextprotocol/client';
import type { ToolEntry } from '../../../contract';
import { toolUiOf } from '../apps/tool-ui';
import { CoreError } from '../errors';
import type { ServerLists } from './catalog-state';
import { SEPARATOR, namespacedName, uniqueSlugs } from './names';

export interface CatalogServer {
  id: string;
  name: string;
  lists: ServerLists;
}

export interface CatalogTool {
  name: string;
  serverId: string;
  serverName: string;
  originalName: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
  icons?: unknown[];
  /** Other namespaced names with the same bare name (on other servers). */
  collidesWith?: string[];
  /** MCP tasks: `execution.taskSupport` from tools/list. */
  taskSupport?: 'forbidden' | 'optional' | 'required';
  /** MCP Apps: the `ui://` resource the tool renders and who may call it (`_meta.ui`, validated). */
  ui?: ToolEntry['ui'];
}

export interface CatalogPrompt {
  name: string;
  serverId: string;
  serverName: string;
  originalName: string;
  title?: string;
  description?: string;
  arguments?: Prompt['arguments'];
}

export type CatalogResource = Resource & { serverId: string; serverName: string; [key: string]: unknown };
export type CatalogTemplate = ResourceTemplateType & { serverId: string; serverName: string; [key: string]: unknown };

export interface Catalog {
  tools: CatalogTool[];
  prompts: CatalogPrompt[];
  resources: CatalogResource[];
  resourceTemplates: CatalogTemplate[];
  /** Bare tool names offered by more than one server → their namespaced names. */
  collisions: Record<string, string[]>;
  slugs: Map<string, string>;
}

/** One server's entries, namespaced; reused for as long as its lists, name and slug stay the same. */
export interface ServerEntries {
  name: string;
  slug: string;
  lists: ServerLists;
  tools: CatalogTool[];
  prompts: CatalogPrompt[];
  resources: CatalogResource[];
  resourceTemplates: CatalogTemplate[];
}

export function serverEntries(server: CatalogServer, slug: string): ServerEntries {
  const base = { serverId: server.id, serverName: server.name };
  return {
    name: server.name,
    slug,
    lists: server.lists,
    tools: server.lists.tools.map((tool) => toolEntry(tool, slug, base)),
    prompts: server.lists.prompts.map((prompt) => ({
      ...base,
      name: namespacedName(slug, prompt.name),
      originalName: prompt.name,
      title: prompt.title,
      description: prompt.description,
      arguments: prompt.arguments,
    })),
    resources: server.lists.resources.map((resource) => ({ ...resource, ...base })),
    resourceTemplates: server.lists.resourceTemplates.map((template) => ({ ...template, ...base })),
  };
}

/**
 * Builds the catalog in time linear in the number of entries: a server listing 10,000 tools
 * under one name costs 10,000 entries, not 10,000² (duplicates on one server are not a
 * collision; `collidesWith` names each other server's tool once).
 */
export function buildCatalog(servers: CatalogServer[]): Catalog {
  const slugs = uniqueSlugs(servers);
  return assemble(servers.map((server) => serverEntries(server, slugs.get(server.id)!)), slugs);
}

/** The merged catalog from each server's entries: collisions between servers, in the servers' order. */
export function assemble(perServer: ServerEntries[], slugs: Map<string, string>): Catalog {
  // bare name → server id → that server's namespaced name for it (one per server).
  const byBare = new Map<string, Map<string, string>>();
  for (const entries of perServer) {
    for (const tool of entries.tools) {
      let holders = byBare.get(tool.originalName);
      if (!holders) byBare.set(tool.originalName, (holders = new Map()));
      if (!holders.has(tool.serverId)) holders.set(tool.serverId, tool.name);
    }
  }
  const collisions: Record<string, string[]> = {};
  for (const [bare, holders] of byBare) if (holders.size > 1) collisions[bare] = [...holders.values()];
  const tools: CatalogTool[] = [];
  const prompts: CatalogPrompt[] = [];
  const resources: CatalogResource[] = [];
  const resourceTemplates: CatalogTemplate[] = [];
  const others = new Map<string, string[]>(); // `${serverId}\n${bare}` → the other servers' names, shared by duplicates
  for (const entries of perServer) {
    for (const tool of entries.tools) {
      const holders = byBare.get(tool.originalName)!;
      if (holders.size < 2) {
        tools.push(tool);
        continue;
      }
      const key = `${tool.serverId}\n${tool.originalName}`;
      let collidesWith = others.get(key);
      if (!collidesWith) others.set(key, (collidesWith = [...holders].filter(([id]) => id !== tool.serverId).map(([, name]) => name)));
      tools.push({ ...tool, collidesWith });
    }
    prompts.push(...entries.prompts);
    resources.push(...entries.resources);
    resourceTemplates.push(...entries.resourceTemplates);
  }
  return { tools, prompts, resources, resourceTemplates, collisions, slugs };
}

function toolEntry(tool: Tool, slug: string, base: { serverId: string; serverName: string }): CatalogTool {
  return {
    ...base,
    name: namespacedName(slug, tool.name),
    originalName: tool.name,
    title: tool.title ?? tool.annotations?.title,
    description: tool.description,
    inputSchema: tool.inputSchema as Record<string, unknown>,
    outputSchema: tool.outputSchema as Record<string, unknown> | undefined,
    annotations: tool.annotations as Record<string, unknown> | undefined,
    icons: (tool as { icons?: unknown[] }).icons,
    ...taskSupportOf(tool),
    ...uiOf(tool),
  };
}

function taskSupportOf(tool: Tool): Pick<CatalogTool, 'taskSupport'> {
  const value = (tool as { execution?: { taskSupport?: unknown } }).execution?.taskSupport;
  return value === 'forbidden' || value === 'optional' || value === 'required' ? { taskSupport: value } : {};
}

/** A bad `_meta.ui` is left out (negotiation logs it once per tools/list), never a throw. */
function uiOf(tool: Tool): Pick<CatalogTool, 'ui'> {
  const { ui } = toolUiOf(tool);
  return ui ? { ui } : {};
}

type Named = { name: string; originalName: string; serverId: string };

/** Every entry under its namespaced name and under its bare name, in the list's order. */
interface NameIndex<T> {
  byName: Map<string, T[]>;
  byBare: Map<string, T[]>;
  /** The list's length when indexed: a list that grew since (a caller's own array) is indexed again. */
  size: number;
}

/**
 * The index of a list, built on its first lookup. A catalog's lists are never changed once
 * assembled (a change builds new lists), so each is indexed once and every call after that
 * resolves its name by two map lookups instead of walking (or copying) the list.
 */
const indexes = new WeakMap<readonly Named[], NameIndex<Named>>();

function indexOf<T extends Named>(entries: readonly T[]): NameIndex<T> {
  let index = indexes.get(entries) as NameIndex<T> | undefined;
  if (index && index.size === entries.length) return index;
  index = { byName: new Map(), byBare: new Map(), size: entries.length };
  for (const entry of entries) {
    push(index.byName, entry.name, entry);
    push(index.byBare, entry.originalName, entry);
  }
  indexes.set(entries, index as NameIndex<Named>);
  return index;
}

function push<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/**
 * Finds a tool or prompt by name: the exact namespaced name; else `<known server>__<bare>`
 * (also for names longer than the cap); else a bare name held by exactly one server.
 * `serverId` narrows every step to one server.
 */
export function resolveName<T extends Named>(entries: T[], slugs: Map<string, string>, name: string, what: string, serverId?: string): T {
  const index = indexOf(entries);
  const mine = (list: T[] | undefined): T[] => (!list ? [] : serverId ? list.filter((e) => e.serverId === serverId) : list);
  const exact = mine(index.byName.get(name))[0];
  if (exact) return exact;
  const separator = name.indexOf(SEPARATOR);
  if (separator > 0) {
    const prefix = name.slice(0, separator);
    const bare = name.slice(separator + SEPARATOR.length);
    let server: string | undefined;
    for (const [id, slug] of slugs) {
      if (slug === prefix && (!serverId || id === serverId)) {
        server = id;
        break;
      }
    }
    if (server !== undefined) {
      const match = index.byBare.get(bare)?.find((e) => e.serverId === server);
      if (match) return match;
      throw new CoreError('not-found', `Server "${prefix}" has no ${what} named "${bare}".`);
    }
  }
  const bare = mine(index.byBare.get(name));
  if (bare.length === 1) return bare[0]!;
  if (bare.length > 1) {
    throw new CoreError('conflict', `${capitalize(what)} "${name}" exists on several servers: ${bare.map((e) => e.name).join(', ')}. Use a namespaced name.`);
  }
  throw new CoreError('not-found', `No connected server offers a ${what} named "${name}".`);
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
