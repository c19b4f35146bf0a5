/** Turns what the SDK and Node throw into sentences a user can act on. */
import { InsufficientScopeError } from '@modelcontextprotocol/client';
import type { ErrorKind, ServerTarget } from '../../../contract';

/**
 * The SDK refuses OAuth metadata whose URLs use a script scheme (its schema check); say what
 * that means instead of showing a schema dump.
 */
export function metadataRefusal(error: unknown): string | undefined {
  const raw = error instanceof Error ? error.message : String(error);
  const match = /cannot use javascript:, data:, or vbscript: scheme/i.test(raw);
  if (!match) return undefined;
  const field = /"path":\s*\[\s*"([a-z_]+)"/.exec(raw)?.[1] ?? 'a URL';
  return `Refused the authorization server's metadata: ${field} uses a javascript:, data: or vbscript: URL. Only http: and https: URLs are ever opened; this server's OAuth metadata is wrong or hostile.`;
}

export function describeConnectError(target: ServerTarget, error: unknown): string {
  const raw = metadataRefusal(error) ?? (error instanceof Error ? error.message : String(error));
  const code = errorCode(error);
  if (target.type === 'stdio') {
    if (code === 'ENOENT') return `Command not found: "${target.command}". Check the command name and that it is on PATH.`;
    if (code === 'EACCES') return `Permission denied running "${target.command}".`;
    // A connection that was up and then dropped did complete the handshake: say what happened instead.
    if (code === 'CONNECTION_LOST') return `${raw.charAt(0).toUpperCase()}${raw.slice(1)} ("${target.command}"). Its stderr is in Logs.`;
    if (/closed|exit/i.test(raw)) return `The process "${target.command}" exited before completing the MCP handshake (${raw}). Its stderr is in Logs.`;
    return `stdio "${target.command}": ${raw}`;
  }
  if (code === 'ECONNREFUSED') return `Connection refused at ${target.url}: nothing is listening there.`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `Host not found for ${target.url} (DNS lookup failed).`;
  // A 401/403 from a server without OAuth metadata already says all of it.
  if (code === 'OAUTH_NO_METADATA') return `${target.url}: ${raw}`;
  // The status the error carries first: a body such as "Service Unavailable" does not repeat the number.
  const status = httpStatusOf(error) ?? /HTTP (\d{3})/.exec(raw)?.[1] ?? raw.match(/\b(4\d\d|5\d\d)\b/)?.[1];
  if (status) return `${target.url} answered HTTP ${status}: ${raw}`;
  return `${target.url}: ${raw}`;
}

/** The errno-style code (ECONNREFUSED, ENOENT, UND_ERR_…) of an error or of any error in its `cause` chain; else the SDK's code. */
export function errorCode(error: unknown): string | undefined {
  let fallback: string | undefined;
  for (let e: unknown = error, depth = 0; e && depth < 8; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') {
      if (/^(E[A-Z]+|UND_ERR_\w+|ERR_\w+)$/.test(code)) return code;
      fallback ??= code;
    }
    e = (e as { cause?: unknown }).cause;
  }
  return fallback;
}

/** Sorts a connect or call failure into the kind the UI, the retry policy and the CLI act on. */
export function classifyError(error: unknown): ErrorKind {
  const code = errorCode(error);
  if (code === 'ENOENT' || code === 'EACCES' || code === 'ERR_INVALID_URL') return 'config';
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'ECONNRESET' || code === 'EHOSTUNREACH' || code === 'UND_ERR_SOCKET') return 'unreachable';
  if (code === 'REQUEST_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT') return 'timeout';
  if (code === 'OAUTH_STEP_FAILED' || code === 'OAUTH_URL_REFUSED' || code === 'OAUTH_CONSENT_REQUIRED' || metadataRefusal(error)) return 'auth';
  const status = httpStatusOf(error);
  const message = error instanceof Error ? error.message : String(error);
  if (status === 401 || status === 403 || /\b(401|403)\b|unauthori[sz]ed/i.test(message)) return 'auth';
  if (/timed? ?out/i.test(message)) return 'timeout';
  if (/fetch failed|ECONNREFUSED|ENOTFOUND/i.test(message)) return 'unreachable';
  return 'protocol';
}

/** The HTTP status an SDK error carries, if any. */
export function httpStatusOf(error: unknown): number | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 8; depth++) {
    // The SDK turns a 403 `insufficient_scope` challenge into this error, which carries no status.
    if (e instanceof InsufficientScopeError) return 403;
    const status = (e as { status?: unknown }).status;
    if (typeof status === 'number' && status >= 100 && status < 600) return status;
    const data = (e as { data?: { status?: unknown } }).data;
    if (typeof data?.status === 'number') return data.status;
    e = (e as { cause?: unknown }).cause;
  }
  const match = /\bHTTP (\d{3})\b|status(?: code)?:? (\d{3})\b/i.exec(error instanceof Error ? error.message : String(error));
  return match ? Number(match[1] ?? match[2]) : undefined;
}

export interface RetryDecision {
  retry: boolean;
  kind: ErrorKind;
  status?: number;
  /** Why not, when not: shown to the user. */
  why?: string;
}

/**
 * Whether a failed connect is worth another attempt. Configuration errors are not: a missing
 * command, a malformed URL, a host name that does not resolve, a 4xx other than 404/408/429.
 * 401/403 need a sign-in, not a retry.
 */
export function retryDecision(error: unknown): RetryDecision {
  const kind = classifyError(error);
  const status = httpStatusOf(error);
  const code = errorCode(error);
  if (kind === 'config') return { retry: false, kind, status, why: 'a configuration error' };
  if (code === 'ENOTFOUND') return { retry: false, kind: 'config', status, why: 'the host name does not resolve' };
  if (status === 401 || status === 403) return { retry: false, kind: 'auth', status, why: `HTTP ${status}: sign-in required` };
  if (kind === 'auth') return { retry: false, kind, status, why: 'signing in again is needed, not a retry' };
  if (status !== undefined && status >= 400 && status < 500 && ![404, 408, 429].includes(status)) {
    return { retry: false, kind: 'config', status, why: `HTTP ${status} is a client error, not a transient failure` };
  }
  return { retry: true, kind, status };
}
