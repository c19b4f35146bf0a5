/**
 * What an error carries across the contract besides its sentence: the facts main knew when it
 * failed (the JSON-RPC code and data, the HTTP status, the trace events of the request and its
 * response…), so that no reader ever parses them back out of the message. Plain types, no
 * schema library: the preload restates the envelope and may import only zod-free files.
 */

/** Connection failure kinds: decide retries, CLI exit codes and hints (`ServerStatus.errorKind`). */
export const CONNECT_ERROR_KINDS = ['config', 'auth', 'unreachable', 'timeout', 'protocol'] as const;
export type ConnectErrorKind = (typeof CONNECT_ERROR_KINDS)[number];

/**
 * What kind of failure an error detail describes: a connection kind, or
 * - `rpc`: the server answered with a JSON-RPC error (`rpcCode`, `rpcData`);
 * - `client-rejected`: the server answered with a result that the MCP client library refused
 *   (output schema checks): the response at `responseSeq` is a result, not an error;
 * - `cancelled`: the person cancelled it (the server was told);
 * - `session-expired`: the server ended the session (HTTP 404) and the request was not repeated;
 * - `unsupported`: the server did not declare the capability, or the method does not exist in the
 *   negotiated protocol era (refused by the client library before anything was sent);
 * - `tool`: the tool ran and reported failure (a task that ended `failed`).
 */
export type ErrorDetailKind = ConnectErrorKind | 'rpc' | 'client-rejected' | 'cancelled' | 'session-expired' | 'unsupported' | 'tool';

/** One link of a `-32042` (URL elicitation required) error, as the server sent it (hostile text). */
export interface RequiredElicitation {
  url: string;
  elicitationId?: string;
  message?: string;
}

export interface ErrorDetail {
  kind?: ErrorDetailKind;
  /** The JSON-RPC error code the server answered with. */
  rpcCode?: number;
  /** The JSON-RPC error's `data`, cut to the carried depth (contract/bounded-json.ts). */
  rpcData?: unknown;
  /** The HTTP status that refused the request. */
  httpStatus?: number;
  /** Trace seq of the request this error belongs to (its `http-request` or `jsonrpc-out` event). */
  requestSeq?: number;
  /** Trace seq of the event carrying its JSON-RPC response, paired by id. */
  responseSeq?: number;
  durationMs?: number;
  /** `-32042`: the links the server wants opened before the call can succeed. */
  elicitations?: RequiredElicitation[];
  /** Trying the same thing again may succeed (a timeout, a 5xx, a lost session, a link opened…). */
  retryable?: boolean;
}
