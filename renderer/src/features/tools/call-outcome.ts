/** What a finished tool call is, as the Tools view shows it: pure (no React), unit-tested from Node. */
import type { ErrorDetail, Result } from '../../../../contract';
import { errorDetailOf } from '../../../../contract/client';

export type CallOutcome =
  | { kind: 'result'; value: Result<'callTool'>; args: Record<string, unknown>; at: number }
  | {
      kind: 'error';
      message: string;
      /** What main knew about the failure (kind, JSON-RPC code and data, HTTP status, trace seqs, links to open). */
      detail?: ErrorDetail;
      /** The JSON-RPC error code the server answered with. */
      rpcCode?: number;
      cancelled: boolean;
      timedOut: boolean;
      /** The server answered, but the MCP client library refused the result (output schema checks). */
      clientRejected: boolean;
      args: Record<string, unknown>;
      at: number;
      durationMs: number;
      /** The trace events of this call's request and response. */
      traceSeq?: number;
      responseSeq?: number;
    };

/** JSON-RPC `-32001`: the server's own request timeout. */
const RPC_REQUEST_TIMEOUT = -32001;

/** A failed call as the view shows it, from the error's detail (never from its message). */
export function errorOutcome(error: unknown): Pick<Extract<CallOutcome, { kind: 'error' }>, 'message' | 'detail' | 'rpcCode' | 'cancelled' | 'timedOut' | 'clientRejected' | 'traceSeq' | 'responseSeq'> {
  const message = error instanceof Error ? error.message : String(error);
  const detail = errorDetailOf(error);
  return {
    message,
    detail,
    rpcCode: detail?.rpcCode,
    cancelled: detail?.kind === 'cancelled',
    timedOut: detail?.kind === 'timeout' || detail?.rpcCode === RPC_REQUEST_TIMEOUT,
    clientRejected: detail?.kind === 'client-rejected',
    traceSeq: detail?.requestSeq,
    responseSeq: detail?.responseSeq,
  };
}
