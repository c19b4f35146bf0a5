/** What every group of handlers works with. */
import type { Client } from '@modelcontextprotocol/client';
import type { ErrorDetail } from '../../../contract';
import type { AppInstances } from '../apps/instances';
import type { AuditLog } from '../audit/audit-log';
import { errorDetailOf, isTimeout, rpcErrorOf } from '../connection/errors';
import type { ConnectionManager } from '../connection/manager';
import { SessionExpiredError, type ServerConnection } from '../connection/server-connection';
import { CoreError } from '../errors';
import type { EventHub } from '../events';
import type { LogBus } from '../logs/log-bus';
import type { CallMemory } from '../store/call-memory';
import type { SettingsStore } from '../store/settings';
import type { DriftMonitor } from '../drift/monitor';
import type { ProxyMirror } from '../proxy/mirror';
import type { LiveRecording, RecordingLibrary } from '../recordings/library';
import type { TraceHub } from '../trace/hub';
import type { TraceSources } from '../trace/sources';
import { trackRequest, type RequestSeqs } from '../trace/request-seqs';

export interface CoreContext {
  settings: SettingsStore;
  /** Remembered inputs and saved calls (not in the settings). */
  callMemory: CallMemory;
  connections: ConnectionManager;
  events: EventHub;
  logs: LogBus;
  trace: TraceHub;
  audit: AuditLog;
  carrier: 'electron' | 'browser';
  version: string;
  /** MCP Apps: the app instances open now (a tool call from an app is checked against its instance). */
  apps: AppInstances;
  /** Trace sources open besides the live one (imports, recordings). */
  sources: TraceSources;
  /** The recordings library; absent when this run has no data directory (memory settings). */
  recordings?: RecordingLibrary;
  /** This process's own recording (the live trace, written as it happens). */
  liveRecording?: LiveRecording;
  /** Baselines and drift checks on connect. */
  drift: DriftMonitor;
  /** Electron: save/open dialogs in main (bulk files never cross the contract). Absent elsewhere. */
  fileDialogs?: FileDialogs;
  /** Proxied sessions found in the library and mirrored into the live trace (#12); absent without a library. */
  proxies?: ProxyMirror;
}

/** Main-side file dialogs (Electron). Each answers a path, or undefined when the person cancelled. */
export interface FileDialogs {
  save(options: { defaultName: string; filters: { name: string; extensions: string[] }[] }): Promise<string | undefined>;
  open(options: { filters: { name: string; extensions: string[] }[] }): Promise<string | undefined>;
}

export function findConnection(ctx: CoreContext, id: string): ServerConnection {
  const connection = ctx.connections.get(id);
  if (!connection) throw new CoreError('not-found', `No server with id "${id}".`);
  return connection;
}

/**
 * The detail of a failed request to a server, from the error object and the request's own trace
 * events: a JSON-RPC error when the server answered with one; `client-rejected` when it answered
 * with a result that the client library refused (the paired response is a result, not an error).
 */
export function requestErrorDetail(error: unknown, seqs: RequestSeqs, durationMs: number, cancelled = false): ErrorDetail {
  const known = { requestSeq: seqs.requestSeq, responseSeq: seqs.responseSeq, durationMs };
  if (cancelled) return errorDetailOf(error, { ...known, kind: 'cancelled', retryable: true });
  if (error instanceof SessionExpiredError) return errorDetailOf(error, { ...known, kind: 'session-expired' });
  if (isTimeout(error)) return errorDetailOf(error, { ...known, kind: 'timeout' });
  if (rpcErrorOf(error)) {
    const answeredWithResult = seqs.responseSeq !== undefined && seqs.responseIsError === false;
    return errorDetailOf(error, { ...known, kind: answeredWithResult ? 'client-rejected' : 'rpc' });
  }
  // The SDK reports some JSON-RPC errors as HTTP errors (a 4xx whose body is the JSON-RPC error):
  // the paired response event has the code.
  if (seqs.responseIsError && seqs.responseErrorCode !== undefined) return errorDetailOf(error, { ...known, kind: 'rpc', rpcCode: seqs.responseErrorCode });
  return errorDetailOf(error, known);
}

/**
 * Runs one request to a server (`run` sends `method`), learning the seqs of its own trace events;
 * a failure becomes a CoreError that says what happened, in words (`what failed: …`) and in its detail.
 */
export async function trackedRequest<T>(ctx: CoreContext, connection: ServerConnection, method: string, what: string, run: () => Promise<T>, seen?: (seqs: RequestSeqs) => void): Promise<T> {
  const started = performance.now();
  let seqs: RequestSeqs = {};
  try {
    return await trackRequest(ctx.trace, connection.id, method, (tracked) => {
      seqs = tracked;
      seen?.(tracked);
      return run();
    });
  } catch (error) {
    if (error instanceof CoreError) throw error;
    const message = connection.redactor.text(error instanceof Error ? error.message : String(error));
    throw new CoreError('failed', `${what} failed: ${message}`, requestErrorDetail(error, seqs, performance.now() - started));
  }
}

/**
 * A safe request (list, read, get: repeated once on a renewed session) through the server's live
 * client. `seen` gets the request's seqs object, filled as its events are recorded.
 */
export function requestServer<T>(ctx: CoreContext, connection: ServerConnection, method: string, op: (client: Client, timeoutMs: number) => Promise<T>, seen?: (seqs: RequestSeqs) => void): Promise<T> {
  return trackedRequest(ctx, connection, method, `${connection.config.name}: ${method}`, () => connection.withClient(method, true, op), seen);
}
