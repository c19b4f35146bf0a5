/**
 * What the parts of one server connection share: the observer and dependencies a connection is
 * built with, the way each part writes to the trace, and the small rules more than one part
 * follows (closing a client quietly, telling a sign-in that interrupted a request from a refusal).
 */
import { InsufficientScopeError, SdkError, SdkErrorCode, StreamableHTTPClientTransport, UnauthorizedError, type Client, type Transport } from '@modelcontextprotocol/client';
import type { ServerStatus } from '../../../contract';
import type { TraceEventInput } from '../../../contract/trace';
import type { AuthService } from '../auth/auth-service';
import type { RequestBroker } from '../requests/broker';
import type { RecordEvent } from '../trace/rpc';
import { httpStatusOf } from './errors';
import type { TransportContext } from './transport-factory';

export interface ConnectionObserver {
  onStatus(status: ServerStatus): void;
  onStderrLine(serverId: string, line: string): void;
  onError(serverId: string, message: string): void;
  /** A server's lists changed (after connect, or on list_changed). */
  onListsChanged?(serverId: string): void;
  /** notifications/message from the server. */
  onServerLog?(serverId: string, level: string, logger: string | undefined, data: unknown): void;
  /** notifications/resources/updated for a subscribed resource. */
  onResourceUpdated?(serverId: string, uri: string): void;
  /** notifications/elicitation/complete for a URL-mode elicitation. */
  onElicitationComplete?(serverId: string, elicitationId: string): void;
  /** The person asked for this server to be connected (true) or disconnected (false): remembered for the next start. */
  onWantedChange?(serverId: string, wanted: boolean): void;
}

export interface ConnectionDeps {
  observer: ConnectionObserver;
  /** Where this connection's trace events go (the trace store's append). */
  record: RecordEvent;
  now?: () => number;
  baseFetch?: TransportContext['baseFetch'];
  /** For tests: the backoff schedule's base (default 1 s). */
  backoffBaseMs?: number;
  /** Where server-initiated requests wait for a person (policy `ask`). */
  broker?: RequestBroker;
  /** Values merged over the schema's defaults when elicitation is answered by policy (CLI --elicitation-answer). */
  elicitationAnswers?: Record<string, unknown>;
  /** Sign-in for HTTP servers that ask for OAuth. */
  auth?: AuthService;
}

/** How a part records one of this server's events (the server id is added; the trace never breaks a connection). */
export type TraceWriter = (event: Omit<TraceEventInput, 'server'>) => void;

export class SessionExpiredError extends Error {
  readonly code = 'SESSION_EXPIRED';
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Closes quietly; a half-open connection may fail to close, it is gone either way. */
export async function closeClient(client: Client, transport: Transport | undefined, endSession: boolean): Promise<void> {
  if (endSession && transport instanceof StreamableHTTPClientTransport && transport.sessionId) {
    await transport.terminateSession().catch(() => undefined);
  }
  await client.close().catch(() => undefined);
  await transport?.close().catch(() => undefined);
}

/**
 * The request was refused for a sign-in that then ran inside it (the SDK reports "redirect" as
 * UnauthorizedError), or it timed out while a person was signing in: the server did not run it.
 * Not a 401 after the SDK's own refresh-and-retry: that one is an error, not another round.
 */
export function interruptedBySignIn(error: unknown): boolean {
  return error instanceof UnauthorizedError || (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout);
}

/** The server refused for lack of (enough) authorization: 401, 403, or the SDK's UnauthorizedError. */
export function isAuthFailure(error: unknown): boolean {
  if (error instanceof UnauthorizedError || error instanceof InsufficientScopeError) return true;
  const status = httpStatusOf(error);
  return status === 401 || status === 403;
}

/** A transport's `onclose` that keeps the one it had. */
export function chain(first: (() => void) | undefined, second: () => void): () => void {
  return () => {
    first?.();
    second();
  };
}
