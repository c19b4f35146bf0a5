/**
 * Tool calls: resolution through the catalog, progress and cancellation by call id, the
 * history of this run, the call audit, remembered inputs, saved calls.
 */
import { randomUUID } from 'node:crypto';
import type { AuditRecord, HistoryEntry } from '../../../contract';
import { resolveName } from '../catalog/catalog';
import { classifyError } from '../connection/errors';
import { CoreError, type Handlers } from '../dispatcher';
import { currentCatalog } from './catalog';
import { findConnection, type CoreContext } from './context';

const HISTORY_KEEP = 500;
const TOOL_INPUTS_KEEP = 500;

type CallHandlers = Pick<Handlers, 'callTool' | 'cancelCall' | 'listHistory' | 'listSavedCalls' | 'saveCall' | 'deleteSavedCall' | 'lastToolInput'>;

export function callHandlers(ctx: CoreContext): CallHandlers {
  const active = new Map<string, AbortController>();
  const history: HistoryEntry[] = [];

  const rememberInput = (tool: string, args: Record<string, unknown>) => {
    const settings = ctx.settings.read();
    const toolInputs = { ...settings.toolInputs };
    delete toolInputs[tool];
    toolInputs[tool] = args;
    const names = Object.keys(toolInputs);
    for (const stale of names.slice(0, Math.max(0, names.length - TOOL_INPUTS_KEEP))) delete toolInputs[stale];
    ctx.settings.write({ ...settings, toolInputs });
  };

  return {
    callTool: async ({ tool, serverId, args, timeoutMs, resetTimeoutOnProgress, callId }) => {
      const catalog = currentCatalog(ctx);
      const entry = resolveName(catalog.tools, catalog.slugs, tool, 'tool', serverId);
      const connection = findConnection(ctx, entry.serverId);
      if (callId && active.has(callId)) throw new CoreError('conflict', `A call with id "${callId}" is already running.`);
      const controller = new AbortController();
      if (callId) active.set(callId, controller);
      const firstSeq = ctx.trace.store.size;
      const started = performance.now();
      rememberInput(entry.name, args);

      const finish = (outcome: AuditRecord['outcome'], error?: unknown) => {
        const durationMs = performance.now() - started;
        const request = ctx.trace.store.query({ servers: [entry.serverId], methods: ['tools/call'], kinds: ['http-request', 'jsonrpc-out'], cursor: firstSeq, limit: 1 }).events[0];
        const message = error === undefined ? undefined : connection.redactor.text(error instanceof Error ? error.message : String(error));
        history.unshift({ id: randomUUID(), ts: Date.now(), serverId: entry.serverId, serverName: entry.serverName, tool: entry.name, args, durationMs, outcome, error: message, traceSeq: request?.seq });
        if (history.length > HISTORY_KEEP) history.length = HISTORY_KEEP;
        const settings = ctx.settings.read();
        ctx.audit.append({
          ts: Date.now(),
          serverId: entry.serverId,
          serverName: entry.serverName,
          tool: entry.originalName,
          argumentKeys: Object.keys(args),
          ...(settings.auditArgumentValues ? { arguments: connection.redactor.json(args, true) as Record<string, unknown> } : {}),
          durationMs,
          outcome,
          ...(error !== undefined ? { errorClass: classifyError(error), error: message } : {}),
        });
        return { durationMs, traceSeq: request?.seq };
      };

      try {
        const result = await connection.callTool(entry.originalName, args, {
          timeoutMs,
          signal: controller.signal,
          resetTimeoutOnProgress,
          callId,
          onprogress: callId ? (p) => ctx.events.emit('callProgress', { callId, progress: p.progress, total: p.total, message: p.message }) : undefined,
        });
        const { durationMs, traceSeq } = finish(result.isError === true ? 'tool-error' : 'ok');
        return { serverId: entry.serverId, tool: entry.name, durationMs, traceSeq, result };
      } catch (error) {
        const cancelled = controller.signal.aborted;
        const isRpc = typeof (error as { code?: unknown }).code === 'number';
        finish(cancelled ? 'cancelled' : classifyError(error) === 'timeout' ? 'timeout' : isRpc ? 'rpc-error' : 'transport-error', error);
        if (cancelled) throw new CoreError('failed', `Cancelled: ${entry.name} was cancelled and the server was told (notifications/cancelled).`);
        throw error;
      } finally {
        if (callId) active.delete(callId);
      }
    },
    cancelCall: async ({ callId }) => {
      const controller = active.get(callId);
      if (!controller) return { cancelled: false };
      controller.abort(new Error('Cancelled by the user'));
      return { cancelled: true };
    },
    listHistory: async ({ limit }) => history.slice(0, limit),
    listSavedCalls: async ({ serverName }) => ctx.settings.read().savedCalls.filter((c) => !serverName || c.serverName === serverName),
    saveCall: async (call) => {
      const settings = ctx.settings.read();
      const saved = { ...call, id: randomUUID(), savedAt: Date.now() };
      ctx.settings.write({ ...settings, savedCalls: [...settings.savedCalls, saved] });
      return saved;
    },
    deleteSavedCall: async ({ id }) => {
      const settings = ctx.settings.read();
      const savedCalls = settings.savedCalls.filter((c) => c.id !== id);
      ctx.settings.write({ ...settings, savedCalls });
      return { deleted: savedCalls.length !== settings.savedCalls.length };
    },
    lastToolInput: async ({ tool }) => ({ args: ctx.settings.read().toolInputs[tool] }),
  };
}
