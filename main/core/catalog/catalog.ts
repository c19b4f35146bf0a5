/**
 * One catalog over every connected server: tools, prompts, resources and resource templates,
 * each tool and prompt under its namespaced name. Resolution never guesses: an exact name,
 * else a known server's prefix, else a bare name that exactly one server offers; an ambiguous
 * bare name is an error that lists the candidates.
 */
import type { Prompt, Resource, ResourceTemplateType, Tool } from '@modelcontextprotocol/client';
import { CoreError } from '../errors';
import type { ServerLists } from '../connection/server-connection';
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

export function buildCatalog(servers: CatalogServer[]): Catalog {
  const slugs = uniqueSlugs(servers);
  const tools: CatalogTool[] = [];
  const prompts: CatalogPrompt[] = [];
  const resources: CatalogResource[] = [];
  const resourceTemplates: CatalogTemplate[] = [];
  for (const server of servers) {
    const slug = slugs.get(server.id)!;
    const base = { serverId: server.id, serverName: server.name };
    for (const tool of server.lists.tools) tools.push(toolEntry(tool, slug, base));
    for (const prompt of server.lists.prompts) {
      prompts.push({ ...base, name: namespacedName(slug, prompt.name), originalName: prompt.name, title: prompt.title, description: prompt.description, arguments: prompt.arguments });
    }
    for (const resource of server.lists.resources) resources.push({ ...resource, ...base });
    for (const template of server.lists.resourceTemplates) resourceTemplates.push({ ...template, ...base });
  }
  const byBare = new Map<string, CatalogTool[]>();
  for (const tool of tools) byBare.set(tool.originalName, [...(byBare.get(tool.originalName) ?? []), tool]);
  const collisions: Record<string, string[]> = {};
  for (const [bare, holders] of byBare) {
    if (holders.length < 2) continue;
    collisions[bare] = holders.map((t) => t.name);
    for (const tool of holders) tool.collidesWith = holders.filter((t) => t !== tool).map((t) => t.name);
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
  };
}

function taskSupportOf(tool: Tool): Pick<CatalogTool, 'taskSupport'> {
  const value = (tool as { execution?: { taskSupport?: unknown } }).execution?.taskSupport;
  return value === 'forbidden' || value === 'optional' || value === 'required' ? { taskSupport: value } : {};
}

type Named = { name: string; originalName: string; serverId: string };

/**
 * Finds a tool or prompt by name: the exact namespaced name; else `<known server>__<bare>`
 * (also for names longer than the cap); else a bare name held by exactly one server.
 * `serverId` narrows every step to one server.
 */
export function resolveName<T extends Named>(entries: T[], slugs: Map<string, string>, name: string, what: string, serverId?: string): T {
  const pool = serverId ? entries.filter((e) => e.serverId === serverId) : entries;
  const exact = pool.find((e) => e.name === name);
  if (exact) return exact;
  const separator = name.indexOf(SEPARATOR);
  if (separator > 0) {
    const prefix = name.slice(0, separator);
    const bare = name.slice(separator + SEPARATOR.length);
    const server = [...slugs.entries()].find(([id, slug]) => slug === prefix && (!serverId || id === serverId));
    if (server) {
      const match = pool.find((e) => e.serverId === server[0] && e.originalName === bare);
      if (match) return match;
      throw new CoreError('not-found', `Server "${prefix}" has no ${what} named "${bare}".`);
    }
  }
  const bare = pool.filter((e) => e.originalName === name);
  if (bare.length === 1) return bare[0]!;
  if (bare.length > 1) {
    throw new CoreError('conflict', `${capitalize(what)} "${name}" exists on several servers: ${bare.map((e) => e.name).join(', ')}. Use a namespaced name.`);
  }
  throw new CoreError('not-found', `No connected server offers a ${what} named "${name}".`);
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
