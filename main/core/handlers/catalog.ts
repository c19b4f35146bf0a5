/**
 * Handlers for the namespaced catalog (tools, prompts, resources, collisions) and the requests
 * that go through it (prompts/get, resources/read, completion, subscriptions, the log level).
 * Tool calls are in calls.ts, tasks in tasks.ts.
 */
import { resolveName, type Catalog } from '../catalog/catalog';
import type { Handlers } from '../dispatcher';
import { CoreError } from '../errors';
import type { RequestSeqs } from '../trace/request-seqs';
import { findConnection, requestServer, type CoreContext } from './context';

type CatalogHandlers = Pick<Handlers, 'listTools' | 'listPrompts' | 'listResources' | 'toolCollisions' | 'getPrompt' | 'readResource' | 'complete' | 'subscribeResource' | 'setLogLevel'>;

/**
 * The catalog of the connected (or idle) servers: the same object until some server's
 * CatalogState changes (connect, disconnect, list_changed), so reading it costs a call nothing.
 */
export function currentCatalog(ctx: CoreContext): Catalog {
  return ctx.connections.catalog.current();
}

/** resources/read through the server's live client, traced (MCP Apps read their UI resource this way too; `seen` learns its seqs). */
export async function readServerResource(ctx: CoreContext, serverId: string, uri: string, seen?: (seqs: RequestSeqs) => void) {
  const started = performance.now();
  const result = await requestServer(ctx, findConnection(ctx, serverId), 'resources/read', (client, timeout) => client.readResource({ uri }, { timeout, cacheMode: 'bypass' }), seen);
  return { serverId, uri, result: result as Record<string, unknown>, durationMs: performance.now() - started };
}

export function catalogHandlers(ctx: CoreContext): CatalogHandlers {
  const only = <T extends { serverId: string }>(items: T[], serverId?: string) => (serverId ? items.filter((i) => i.serverId === serverId) : items);
  return {
    listTools: async ({ serverId }) => only(currentCatalog(ctx).tools, serverId),
    listPrompts: async ({ serverId }) => only(currentCatalog(ctx).prompts, serverId),
    listResources: async ({ serverId }) => {
      const catalog = currentCatalog(ctx);
      return { resources: only(catalog.resources, serverId), templates: only(catalog.resourceTemplates, serverId) };
    },
    toolCollisions: async () => currentCatalog(ctx).collisions,
    getPrompt: async ({ name, serverId, args }) => {
      const catalog = currentCatalog(ctx);
      const entry = resolveName(catalog.prompts, catalog.slugs, name, 'prompt', serverId);
      const started = performance.now();
      const result = await requestServer(ctx, findConnection(ctx, entry.serverId), 'prompts/get', (client, timeout) => client.getPrompt({ name: entry.originalName, arguments: args }, { timeout }));
      return { serverId: entry.serverId, name: entry.name, result: result as Record<string, unknown>, durationMs: performance.now() - started };
    },
    readResource: ({ serverId, uri }) => readServerResource(ctx, serverId, uri),
    complete: async ({ serverId, ref, argument, context }) => {
      const result = await requestServer(ctx, findConnection(ctx, serverId), 'completion/complete', (client, timeout) => client.complete({ ref, argument, ...(context ? { context } : {}) }, { timeout }));
      return { values: result.completion.values, total: result.completion.total, hasMore: result.completion.hasMore };
    },
    subscribeResource: async ({ serverId, uri, subscribe }) => {
      await requestServer(ctx, findConnection(ctx, serverId), subscribe ? 'resources/subscribe' : 'resources/unsubscribe', (client, timeout) =>
        subscribe ? client.subscribeResource({ uri }, { timeout }) : client.unsubscribeResource({ uri }, { timeout }),
      );
      return { subscribed: subscribe };
    },
    setLogLevel: async ({ serverId, level }) => {
      const connection = findConnection(ctx, serverId);
      if (connection.status().era === 'modern') throw new CoreError('conflict', 'logging/setLevel does not exist in the modern (2026-07-28) era: the level travels with each request.');
      if (connection.serverCapabilities() && !connection.serverCapabilities()?.logging) throw new CoreError('conflict', `"${connection.config.name}" did not declare the logging capability at initialize: it sends no log notifications, and logging/setLevel would be refused.`, { kind: 'unsupported' });
      await requestServer(ctx, connection, 'logging/setLevel', (client, timeout) => client.setLoggingLevel(level, { timeout }));
      return { level };
    },
  };
}
