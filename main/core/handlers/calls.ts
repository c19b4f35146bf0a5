/**
 * Tool calls: resolution through the catalog, progress and cancellation by call id, the
 * history of this run, the call audit, remembered inputs and saved calls (in the call memory,
 * written behind: a call touches no file itself).
 */
import { randomUUID } from 'node:crypto';
import { SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import type { AuditRecord, ErrorDetail, HistoryEntry } from '../../../contract';
import { resolveName } from '../catalog/catalog';
import { classifyError, httpStatusOf, sdkCodeOf } from '../connection/errors';
import { SEPARATOR } from '../catalog/names';
import { trackRequest, type RequestSeqs } from '../trace/request-seqs';
import type { Handlers } from '../dispatcher';
import { CoreError } from '../errors';
import { appIdentity } from '../apps/instances';
import { visibleToApps } from '../apps/tool-ui';
import type { CatalogTool } from '../catalog/catalog';
import { currentCatalog } from './catalog';
import { findConnection, requestErrorDetail, type CoreContext } from './context';

const HISTORY_KEEP = 500;
const MESSAGE_CLIP = 400;

/**
 * A failed call in words a user can act on: which server, what happened (timeout, HTTP status,
 * connection lost, a body that was not MCP), and where to look. The SDK's own text is kept,
 * clipped (a schema-validation dump can run to kilobytes).
 */
export function describeCallError(serverName: string, requestTimeoutSec: number, timeoutMs: number | undefined, error: unknown, redact: (text: string) => string, exit?: ProcessExit): string {
  // The stdio server's process ended while the call ran: that is what happened, said once.
  if (exit) return `${serverName}: ${exitSentence(exit)} while tools/call was running. Switchboard reconnects by itself; the call was not repeated.`;
  const raw = redact(error instanceof Error ? error.message : String(error));
  const detail = raw.length > MESSAGE_CLIP ? `${raw.slice(0, MESSAGE_CLIP)}… (${raw.length} characters; the whole answer is in Traffic)` : raw;
  const status = httpStatusOf(error);
  const kind = classifyError(error);
  if (kind === 'timeout') {
    const seconds = timeoutMs ? timeoutMs / 1000 : requestTimeoutSec;
    return `${serverName}: tools/call timed out after ${seconds} s with no answer. The server may be slow (raise the request timeout in the server's settings) or its answer was lost (see Traffic). ${detail}`;
  }
  if (status) return `${serverName}: tools/call failed with HTTP ${status}. ${detail}`;
  const sdk = sdkCodeOf(error);
  if (kind === 'unreachable' || sdk === SdkErrorCode.ConnectionClosed || sdk === SdkErrorCode.SendFailed || (error instanceof TypeError && !(error instanceof SdkError))) {
    return `${serverName}: the connection failed during tools/call (${detail}). Switchboard reconnects by itself; the call was not repeated.`;
  }
  // A body that is not JSON (SyntaxError), JSON that is not JSON-RPC (the SDK's schema check: a ZodError), the wrong content type.
  const name = (error as { name?: unknown } | undefined)?.name;
  if (error instanceof SyntaxError || name === 'ZodError' || sdk === SdkErrorCode.InvalidResult || sdk === SdkErrorCode.ClientHttpUnexpectedContent || sdk === SdkErrorCode.UnsupportedResultType) return `${serverName}: the server's answer to tools/call was not valid MCP: ${detail}`;
  return `${serverName}: tools/call failed: ${detail}`;
}

/** How a stdio server's process ended, from its trace (the `exit` event). */
export interface ProcessExit {
  code: number | null;
  signal: string | null;
}

export function exitSentence(exit: ProcessExit): string {
  return exit.signal ? `the server process ended on signal ${exit.signal}` : `the server process exited with code ${exit.code ?? 'unknown'}`;
}

/** The exit of this server's process recorded after `sinceSeq` (the call's request), if the call failed because the connection closed. */
function exitDuringCall(ctx: CoreContext, serverId: string, sinceSeq: number | undefined, error: unknown): ProcessExit | undefined {
  if (sdkCodeOf(error) !== SdkErrorCode.ConnectionClosed) return undefined;
  const [event] = ctx.trace.store.query({ servers: [serverId], channels: ['stdio'], kinds: ['exit'], order: 'desc', limit: 1 }).events;
  if (!event || event.seq <= (sinceSeq ?? 0)) return undefined;
  const meta = (event.meta ?? {}) as { code?: unknown; signal?: unknown };
  return { code: typeof meta.code === 'number' ? meta.code : null, signal: typeof meta.signal === 'string' ? meta.signal : null };
}

/** What the audit and the history call a failure. */
function outcomeOf(detail: ErrorDetail): AuditRecord['outcome'] {
  if (detail.kind === 'cancelled') return 'cancelled';
  if (detail.kind === 'timeout') return 'timeout';
  if (detail.kind === 'rpc' || detail.kind === 'client-rejected') return 'rpc-error';
  return 'transport-error';
}

/** A call addressed to a server that is configured but not connected says so, with the server's own error. */
function assertServerUp(ctx: CoreContext, tool: string, serverId?: string): void {
  const target = serverId ? ctx.connections.get(serverId) : prefixedServer(ctx, tool);
  if (!target) return;
  const status = target.status();
  if (status.state === 'connected' || status.state === 'disconnected') return; // disconnected after idle reconnects on use
  throw new CoreError('not-found', `Server "${target.config.name}" is ${status.state}${status.error ? `: ${status.error}` : ''}.`);
}

/** The configured server a `server__tool` name's prefix names (the slugs are cached until a name or the set of servers changes). */
function prefixedServer(ctx: CoreContext, tool: string) {
  const separator = tool.indexOf(SEPARATOR);
  if (separator < 0) return undefined;
  const prefix = tool.slice(0, separator);
  for (const [id, slug] of ctx.connections.catalog.slugsOfAll()) if (slug === prefix) return ctx.connections.get(id);
  return undefined;
}

/**
 * MCP Apps: a call an app makes through the bridge goes only to its own server, and only to a
 * tool visible to apps (`_meta.ui.visibility` absent or naming `app`). A refusal is an `app`
 * channel error event and a CoreError; nothing reaches the server.
 */
function assertAppMayCall(ctx: CoreContext, instanceId: string, entry: CatalogTool): void {
  const app = ctx.apps.get(instanceId);
  if (!app) throw new CoreError('not-found', `No open app instance "${instanceId}": an app's call needs the app to be open.`);
  // The catalog keeps a tool's validated visibility even when it has no UI of its own (tool-ui.ts).
  const visibility = entry.ui?.visibility;
  let reason: string | undefined;
  if (entry.serverId !== app.serverId) reason = `An app may not call tool "${entry.name}": it belongs to another server than the app's ("${app.serverName}").`;
  else if (!visibleToApps(visibility)) {
    const who = visibility?.includes('model') ? 'it is visible only to the model' : 'it is visible to neither apps nor the model';
    reason = `An app may not call tool "${entry.originalName}": ${who} (_meta.ui.visibility ${JSON.stringify(visibility)}).`;
  }
  if (!reason) return;
  ctx.trace.record({ server: app.serverId, channel: 'app', kind: 'error', dir: 'in', text: reason, meta: { ...appIdentity(app), refusedTool: entry.name } });
  throw new CoreError('conflict', reason);
}

/** The settings as they are now, copied only when the store cannot lend them. */
function readSettings(ctx: CoreContext) {
  return ctx.settings.peek?.() ?? ctx.settings.read();
}

/** Two JSON values (parsed arguments) are the same, compared without serializing either. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((value, i) => sameJson(value, other[i]));
  }
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  // Same keys in the same order: a reordered object is a change (the form shows fields in order).
  return keysA.every((key, i) => key === keysB[i] && sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}

type CallHandlers = Pick<Handlers, 'callTool' | 'cancelCall' | 'listHistory' | 'listSavedCalls' | 'saveCall' | 'deleteSavedCall' | 'lastToolInput'>;

export function callHandlers(ctx: CoreContext): CallHandlers {
  const active = new Map<string, AbortController>();
  const history: HistoryEntry[] = [];

  /**
   * Argument values are kept (to pre-fill the form next time) only when the user lets the
   * audit keep them (`auditArgumentValues`), and then with the server's configured secrets and
   * credential fields redacted, as in the audit (`kept`). The same input again changes nothing
   * (the call memory is not marked for writing).
   */
  const rememberInput = (tool: string, kept: Record<string, unknown> | undefined) => {
    if (!kept) ctx.callMemory.forgetInput(tool);
    else if (!sameJson(ctx.callMemory.lastInput(tool), kept)) ctx.callMemory.rememberInput(tool, kept);
  };

  return {
    callTool: async ({ tool, serverId, args, timeoutMs, resetTimeoutOnProgress, callId, fromApp }) => {
      const catalog = currentCatalog(ctx);
      assertServerUp(ctx, tool, serverId);
      const entry = resolveName(catalog.tools, catalog.slugs, tool, 'tool', serverId);
      const connection = findConnection(ctx, entry.serverId);
      if (fromApp) assertAppMayCall(ctx, fromApp.instanceId, entry);
      if (callId && active.has(callId)) throw new CoreError('conflict', `A call with id "${callId}" is already running.`);
      // Only a call with an id can be cancelled (cancelCall names it): the others need no controller.
      const controller = callId ? new AbortController() : undefined;
      if (callId) active.set(callId, controller!);
      const started = performance.now();
      // One read of the settings a call needs, without copying the document.
      const keepValues = readSettings(ctx).auditArgumentValues;
      // The argument values as the audit and the remembered input keep them, redacted once for both.
      const keptArgs = keepValues ? (connection.redactor.json(args, true) as Record<string, unknown>) : undefined;
      rememberInput(entry.name, keptArgs);
      // The seqs of this call's own request and response, filled as the transport records them.
      let seqs: RequestSeqs = {};

      const finish = (outcome: AuditRecord['outcome'], error?: unknown, said?: string) => {
        const durationMs = performance.now() - started;
        const message = error === undefined ? undefined : connection.redactor.text(error instanceof Error ? error.message : String(error));
        history.unshift({ id: randomUUID(), ts: Date.now(), serverId: entry.serverId, serverName: entry.serverName, tool: entry.name, args, durationMs, outcome, error: said ?? message, traceSeq: seqs.requestSeq, responseSeq: seqs.responseSeq });
        if (history.length > HISTORY_KEEP) history.length = HISTORY_KEEP;
        ctx.audit.append({
          ts: Date.now(),
          serverId: entry.serverId,
          serverName: entry.serverName,
          tool: entry.originalName,
          argumentKeys: Object.keys(args),
          // The setting as it is when the call ends (turned off meanwhile, no values are kept).
          ...(readSettings(ctx).auditArgumentValues ? { arguments: keptArgs ?? (connection.redactor.json(args, true) as Record<string, unknown>) } : {}),
          durationMs,
          outcome,
          ...(error !== undefined ? { errorClass: classifyError(error), error: message } : {}),
        });
        return { durationMs };
      };

      try {
        const result = await trackRequest(ctx.trace, entry.serverId, 'tools/call', (tracked) => {
          seqs = tracked;
          return connection.callTool(entry.originalName, args, {
            timeoutMs,
            signal: controller?.signal,
            resetTimeoutOnProgress,
            callId,
            onprogress: callId ? (p) => ctx.events.emit('callProgress', { callId, progress: p.progress, total: p.total, message: p.message }) : undefined,
          });
        });
        const { durationMs } = finish(result.isError === true ? 'tool-error' : 'ok');
        return { serverId: entry.serverId, tool: entry.name, durationMs, traceSeq: seqs.requestSeq, responseSeq: seqs.responseSeq, result };
      } catch (error) {
        const detail = requestErrorDetail(error, seqs, 0, controller?.signal.aborted ?? false);
        const exit = detail.kind === 'cancelled' ? undefined : exitDuringCall(ctx, entry.serverId, seqs.requestSeq, error);
        // The history says what happened in the same words as the call's error.
        const { durationMs } = finish(outcomeOf(detail), error, exit ? `${exitSentence(exit)} while the call was running` : undefined);
        detail.durationMs = durationMs;
        if (detail.kind === 'cancelled') throw new CoreError('failed', `Cancelled: ${entry.name} was cancelled and the server was told (notifications/cancelled).`, detail);
        if (detail.kind === 'session-expired') throw new CoreError('failed', (error as Error).message, detail);
        // The server's own words; the code, data and seqs travel in the detail.
        if (detail.kind === 'rpc' || detail.kind === 'client-rejected') throw new CoreError('failed', connection.redactor.text(error instanceof Error ? error.message : String(error)), detail);
        throw new CoreError('failed', describeCallError(entry.serverName, connection.config.requestTimeoutSec, timeoutMs, error, connection.redactor.text.bind(connection.redactor), exit), detail);
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
    listSavedCalls: async ({ serverName }) => ctx.callMemory.savedCalls(serverName),
    saveCall: async (call) => {
      const saved = { ...call, id: randomUUID(), savedAt: Date.now() };
      ctx.callMemory.addSavedCall(saved);
      return saved;
    },
    deleteSavedCall: async ({ id }) => ({ deleted: ctx.callMemory.deleteSavedCall(id) }),
    lastToolInput: async ({ tool }) => ({ args: ctx.callMemory.lastInput(tool) }),
  };
}
