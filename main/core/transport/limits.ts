/**
 * The size limit on one message from a server (docs/limits.md): a JSON response body, one SSE
 * event, one stdout line. Past it the transport stops reading that message, fails the request it
 * answers at once (no waiting for the request timeout), and keeps what arrived in the trace.
 */
export const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

const fmt = (n: number) => n.toLocaleString('en-US');

/** What a person reads when a message is over the limit: which limit, and how much had arrived. */
export function overLimitMessage(what: string, received: number, limit: number): string {
  return `the server's ${what} is larger than Switchboard's limit of ${fmt(limit)} bytes (${limit === MAX_MESSAGE_BYTES ? '64 MiB' : `${fmt(limit)} bytes`}) for one message: ${fmt(received)} bytes had arrived when Switchboard stopped reading it (what arrived is kept in Traffic)`;
}

/** The error a transport raises for an over-size message; `limit` and `received` for whoever reports it. */
export class MessageTooLargeError extends Error {
  constructor(
    what: string,
    readonly received: number,
    readonly limit: number,
  ) {
    super(overLimitMessage(what, received, limit));
    this.name = 'MessageTooLargeError';
  }
}

/**
 * The id of the JSON-RPC message a text begins, when its `id` comes before the result (most
 * servers write `{"jsonrpc":"2.0","id":…`); only the first few hundred characters are looked at.
 */
export function rpcIdFromHead(text: string): string | number | undefined {
  const head = text.slice(0, 512);
  const match = /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*("(?:[^"\\]|\\.){0,200}"|-?\d{1,16})\s*[,}]/.exec(head);
  if (!match) return undefined;
  try {
    return JSON.parse(match[1]!) as string | number;
  } catch {
    return undefined;
  }
}

/** A JSON-RPC error response a transport hands the SDK in place of an answer it could not read. */
export function syntheticErrorResponse(id: string | number, message: string): { jsonrpc: '2.0'; id: string | number; error: { code: number; message: string } } {
  return { jsonrpc: '2.0', id, error: { code: -32603, message } };
}
