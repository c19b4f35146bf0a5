/** Handlers for the namespaced catalog and tool calls (with the call audit). */
import type { AuditRecord } from '../../../contract';
import { buildCatalog, resolveName, type Catalog } from '../catalog/catalog';
import { classifyError } from '../connection/errors';
import type { Handlers } from '../dispatcher';
import { findConnection, type CoreContext } from './context';

type CatalogHandlers = Pick<Handlers, 'listTools' | 'listPrompts' | 'listResources' | 'toolCollisions' | 'callTool'>;

export function currentCatalog(ctx: CoreContext): Catalog {
  return buildCatalog(
    ctx.connections
      .all()
      .filter((c) => c.snapshot().state === 'connected')
      .map((c) => ({ id: c.id, name: c.config.name, lists: c.serverLists() })),
  );
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
    callTool: async ({ tool, serverId, args, timeoutMs }) => {
      const catalog = currentCatalog(ctx);
      const entry = resolveName(catalog.tools, catalog.slugs, tool, 'tool', serverId);
      const connection = findConnection(ctx, entry.serverId);
      const started = performance.now();
      const audit = (outcome: AuditRecord['outcome'], error?: unknown) => {
        const settings = ctx.settings.read();
        ctx.audit.append({
          ts: Date.now(),
          serverId: entry.serverId,
          serverName: entry.serverName,
          tool: entry.originalName,
          argumentKeys: Object.keys(args),
          ...(settings.auditArgumentValues ? { arguments: connection.redactor.json(args, true) as Record<string, unknown> } : {}),
          durationMs: performance.now() - started,
          outcome,
          ...(error ? { errorClass: classifyError(error), error: connection.redactor.text(error instanceof Error ? error.message : String(error)) } : {}),
        });
      };
      try {
        const result = await connection.callTool(entry.originalName, args, { timeoutMs });
        audit(result.isError === true ? 'tool-error' : 'ok');
        return { serverId: entry.serverId, tool: entry.name, durationMs: performance.now() - started, result };
      } catch (error) {
        const kind = classifyError(error);
        const isRpc = typeof (error as { code?: unknown }).code === 'number';
        audit(kind === 'timeout' ? 'timeout' : isRpc ? 'rpc-error' : 'transport-error', error);
        throw error;
      }
    },
  };
}
