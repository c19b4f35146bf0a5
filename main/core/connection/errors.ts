/**
 * Turns what the SDK and Node throw into sentences a user can act on, and into the typed facts
 * the contract carries (`ErrorDetail`). Everything here reads the error objects themselves —
 * the SDK's classes (ProtocolError: JSON-RPC `code` and `data`; SdkError: its `code` and `data`;
 * SdkHttpError: `status`), Node's errno codes along the `cause` chain — never their text. The one
 * exception is marked where it is: the legacy SSE transport's connect error, whose cause the
 * `eventsource` library flattens into a string before the SDK sees it.
 */
import { InsufficientScopeError, ProtocolError, SdkError, SdkErrorCode, SseError, UnauthorizedError } from '@modelcontextprotocol/client';
import { boundDepth } from '../../../contract/bounded-json';
import type { ErrorDetail, ErrorKind, RequiredElicitation, ServerTarget } from '../../../contract';

/** The code of `-32042` (URL elicitation required, 2025 era). */
export const URL_ELICITATION_REQUIRED = -32042;

/**
 * The SDK refuses OAuth metadata whose URLs use a script scheme (its schema check); say what
 * that means instead of showing a schema dump. (A zod issue list is all the SDK gives here: the
 * field is read from the issue's `path`, the scheme verdict from its message — there is no code.)
 */
export function metadataRefusal(error: unknown): string | undefined {
  const raw = error instanceof Error ? error.message : String(error);
  const match = /cannot use javascript:, data:, or vbscript: scheme/i.test(raw);
  if (!match) return undefined;
  const field = /"path":\s*\[\s*"([a-z_]+)"/.exec(raw)?.[1] ?? 'a URL';
  return `Refused the authorization server's metadata: ${field} uses a javascript:, data: or vbscript: URL. Only http: and https: URLs are ever opened; this server's OAuth metadata is wrong or hostile.`;
}

// ---------------------------------------------------------------------------------------
// Walking an error

/** The error and its causes (`cause`, and the first of an AggregateError's `errors`), outermost first. */
function* chain(error: unknown): Generator<object> {
  let e: unknown = error;
  for (let depth = 0; e && typeof e === 'object' && depth < 8; depth++) {
    yield e;
    const next: unknown = (e as { cause?: unknown }).cause;
    e = next ?? (e instanceof AggregateError ? e.errors[0] : undefined);
  }
}

/** Node's TLS verification codes (they do not start with E…). */
const TLS_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'CERT_REVOKED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'ERR_SSL_WRONG_VERSION_NUMBER',
  'ERR_SSL_PACKET_LENGTH_TOO_LONG',
  'EPROTO',
]);

const isErrno = (code: string) => /^(E[A-Z]+|UND_ERR_\w+|ERR_\w+)$/.test(code) || TLS_CODES.has(code);

/** The errno-style code (ECONNREFUSED, ENOENT, UND_ERR_…, a TLS code) of an error or of any error in its `cause` chain; else the SDK's code. */
export function errorCode(error: unknown): string | undefined {
  let fallback: string | undefined;
  for (const e of chain(error)) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') {
      if (isErrno(code)) return code;
      fallback ??= code;
    }
  }
  return fallback ?? sseCauseCode(error);
}

/** The SDK's own code (SdkErrorCode) of the first SdkError in the chain. */
export function sdkCodeOf(error: unknown): SdkErrorCode | undefined {
  for (const e of chain(error)) if (e instanceof SdkError) return e.code;
  return undefined;
}

/** The JSON-RPC error the server answered with (the SDK's ProtocolError), if that is what this is. */
export function rpcErrorOf(error: unknown): { code: number; data: unknown } | undefined {
  for (const e of chain(error)) if (e instanceof ProtocolError) return { code: e.code, data: e.data };
  return undefined;
}

/**
 * The legacy SSE transport: the `eventsource` library catches the fetch error and hands the SDK
 * only its flattened text (`SseError` carries `code`, the HTTP status, and that text — no cause).
 * This is the one place a message is read, and only for an SseError without a status.
 */
function sseCauseCode(error: unknown): string | undefined {
  if (!(error instanceof SseError) || error.code !== undefined) return undefined;
  const code = /\b(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ECONNRESET|EHOSTUNREACH|ENETUNREACH|ETIMEDOUT|UND_ERR_CONNECT_TIMEOUT|UND_ERR_SOCKET|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|CERT_HAS_EXPIRED|ERR_TLS_CERT_ALTNAME_INVALID|ERR_SSL_WRONG_VERSION_NUMBER|EPROTO)\b/.exec(error.message);
  return code?.[1];
}

/** The HTTP status an SDK error carries, if any (typed fields only). */
export function httpStatusOf(error: unknown): number | undefined {
  for (const e of chain(error)) {
    // The SDK turns a 403 `insufficient_scope` challenge into this error, which carries no status.
    if (e instanceof InsufficientScopeError) return 403;
    // The legacy SSE transport's connect error: `code` is the status of the GET, when there was one.
    if (e instanceof SseError) return typeof e.code === 'number' && e.code >= 100 && e.code < 600 ? e.code : undefined;
    // SdkHttpError's `status`, and our own errors that carry one (NoOAuthMetadataError).
    const status = (e as { status?: unknown }).status;
    if (typeof status === 'number' && status >= 100 && status < 600) return status;
    if (e instanceof SdkError) {
      const data = e.data as { status?: unknown } | undefined;
      if (typeof data?.status === 'number') return data.status;
    }
  }
  return undefined;
}

/** The timeout (ms) an SDK timeout error names in its data. */
function timeoutMsOf(error: unknown): number | undefined {
  for (const e of chain(error)) {
    if (e instanceof SdkError && e.code === SdkErrorCode.RequestTimeout) {
      const ms = (e.data as { timeout?: unknown } | undefined)?.timeout;
      return typeof ms === 'number' ? ms : undefined;
    }
  }
  return undefined;
}

const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'UND_ERR_SOCKET']);
const TIMEOUTS = new Set(['REQUEST_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

/** The request timed out (the SDK's RequestTimeout, undici's and Node's timeouts, an AbortSignal.timeout()). */
export function isTimeout(error: unknown): boolean {
  const code = errorCode(error);
  if (code && TIMEOUTS.has(code)) return true;
  for (const e of chain(error)) if ((e as { name?: unknown }).name === 'TimeoutError') return true;
  return false;
}

/** Sorts a connect or call failure into the kind the UI, the retry policy and the CLI act on. */
export function classifyError(error: unknown): ErrorKind {
  const code = errorCode(error);
  if (code === 'ENOENT' || code === 'EACCES' || code === 'ERR_INVALID_URL') return 'config';
  if (code && (UNREACHABLE.has(code) || TLS_CODES.has(code))) return 'unreachable';
  if (isTimeout(error)) return 'timeout';
  if (code === 'OAUTH_STEP_FAILED' || code === 'OAUTH_URL_REFUSED' || code === 'OAUTH_CONSENT_REQUIRED' || metadataRefusal(error)) return 'auth';
  const sdk = sdkCodeOf(error);
  if (sdk === SdkErrorCode.ClientHttpAuthentication || sdk === SdkErrorCode.ClientHttpForbidden) return 'auth';
  for (const e of chain(error)) if (e instanceof UnauthorizedError) return 'auth';
  const status = httpStatusOf(error);
  if (status === 401 || status === 403) return 'auth';
  return 'protocol';
}

// ---------------------------------------------------------------------------------------
// Sentences

/** Ends a sentence once: "x" → "x.", "x." stays. */
export function sentence(text: string): string {
  const trimmed = text.trim();
  return /[.!?)]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

function tlsReason(code: string): string {
  switch (code) {
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
      return 'its certificate is self-signed, and not trusted by this machine';
    case 'CERT_HAS_EXPIRED':
      return 'its certificate has expired';
    case 'CERT_NOT_YET_VALID':
      return 'its certificate is not valid yet (check the clock)';
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return 'its certificate is for another host name';
    case 'ERR_SSL_WRONG_VERSION_NUMBER':
    case 'ERR_SSL_PACKET_LENGTH_TOO_LONG':
    case 'EPROTO':
      return 'it does not speak TLS on this port (is the URL http:, not https:?)';
    default:
      return 'its certificate could not be verified';
  }
}

/**
 * The connection closed before the handshake completed: the SDK's ConnectionClosed; or its
 * version probe cut short by the close. For the latter the SDK gives only text (an
 * EraNegotiationFailed without data or cause, "…the connection closed during the server/discover
 * probe…"), so that one case reads the message.
 */
export function closedDuringHandshake(error: unknown): boolean {
  const sdk = sdkCodeOf(error);
  if (sdk === SdkErrorCode.ConnectionClosed) return true;
  return sdk === SdkErrorCode.EraNegotiationFailed && errorCode(error) === SdkErrorCode.EraNegotiationFailed && /connection closed/i.test(error instanceof Error ? error.message : '');
}

/**
 * A connect failure as a sentence. The SDK wraps network failures of its version probe
 * ("Version negotiation probe failed: fetch failed"): the cause is unwrapped to what happened —
 * refused, no such host, TLS, timeout — and said as such.
 */
export function describeConnectError(target: ServerTarget, error: unknown): string {
  const raw = metadataRefusal(error) ?? (error instanceof Error ? error.message : String(error));
  const code = errorCode(error);
  const timeoutMs = timeoutMsOf(error);
  if (target.type === 'stdio') {
    if (code === 'ENOENT') return `Command not found: "${target.command}". Check the command name and that it is on PATH.`;
    if (code === 'EACCES') return `Permission denied running "${target.command}".`;
    // A connection that was up and then dropped did complete the handshake: say what happened instead.
    if (code === 'CONNECTION_LOST') return sentence(`${raw.charAt(0).toUpperCase()}${raw.slice(1)} ("${target.command}"). Its stderr is in Logs`);
    if (closedDuringHandshake(error)) return `The process "${target.command}" exited before completing the MCP handshake (${raw}). Its stderr is in Logs.`;
    if (isTimeout(error)) return `The process "${target.command}" did not complete the MCP handshake${timeoutMs ? ` within ${timeoutMs / 1000} s` : ' in time'}. Its stderr is in Logs.`;
    return sentence(`stdio "${target.command}": ${raw}`);
  }
  const url = target.url;
  if (code === 'ECONNREFUSED') return `Connection refused at ${url}: nothing is listening there.`;
  if (code === 'ENOTFOUND') return `No such host: "${hostOf(url)}" does not resolve (DNS lookup failed for ${url}). Check the host name.`;
  if (code === 'EAI_AGAIN') return `The host name "${hostOf(url)}" could not be looked up for ${url}: the DNS server did not answer (EAI_AGAIN).`;
  if (code && TLS_CODES.has(code)) return `The TLS handshake with ${url} failed (${code}): ${tlsReason(code)}.`;
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE') return `The connection to ${url} was closed by the other side before it answered (${code}).`;
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return `No route to ${url}: the network or the host is unreachable (${code}).`;
  if (isTimeout(error)) return `${url} did not answer${timeoutMs ? ` within ${timeoutMs / 1000} s` : ' in time'} (connect timeout).`;
  // A 401/403 from a server without OAuth metadata already says all of it.
  if (code === 'OAUTH_NO_METADATA') return sentence(`${url}: ${raw}`);
  const status = httpStatusOf(error);
  if (status) return sentence(`${url} answered HTTP ${status}: ${raw}`);
  // fetch() itself failed ("fetch failed", wrapped by the SDK's probe): what failed is the innermost cause.
  const links = [...chain(error)];
  const innermost = links.at(-1);
  if (links.some((e) => e instanceof TypeError) && innermost instanceof Error && innermost !== error) return sentence(`Could not connect to ${url}: ${innermost.message}`);
  return sentence(`${url}: ${raw}`);
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return url;
  }
}

export interface RetryDecision {
  retry: boolean;
  kind: ErrorKind;
  status?: number;
  /** Why not, when not: shown to the user after "Switchboard did not retry, because". */
  why?: string;
}

const BACKOFF_BASE_MS = 1_000;
const BACKOFF_CAP_MS = 30_000;

/** Backoff before attempt n (1-based): 1 s, 2 s, 4 s … capped at 30 s. */
export function backoffDelay(attempt: number, base = BACKOFF_BASE_MS): number {
  return Math.min(base * 2 ** Math.max(0, attempt - 1), BACKOFF_CAP_MS);
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
  if (kind === 'config') return { retry: false, kind, status, why: 'it is a configuration error' };
  if (code === 'ENOTFOUND') return { retry: false, kind: 'config', status, why: 'the host name does not resolve' };
  if (status === 401 || status === 403) return { retry: false, kind: 'auth', status, why: `HTTP ${status} asks for a sign-in, not a retry` };
  if (kind === 'auth') return { retry: false, kind, status, why: 'signing in again is needed, not a retry' };
  if (status !== undefined && status >= 400 && status < 500 && ![404, 408, 429].includes(status)) {
    return { retry: false, kind: 'config', status, why: `HTTP ${status} is a client error, not a transient failure` };
  }
  return { retry: true, kind, status };
}

// ---------------------------------------------------------------------------------------
// The contract's error detail

/** The links of a `-32042` error's data, bounded (they are the server's words: hostile). */
export function elicitationsOf(data: unknown): RequiredElicitation[] | undefined {
  const list = (data as { elicitations?: unknown } | undefined)?.elicitations;
  if (!Array.isArray(list)) return undefined;
  const items = list
    .filter((x): x is Record<string, unknown> => typeof x === 'object' && x !== null && typeof (x as { url?: unknown }).url === 'string')
    .slice(0, 10)
    .map((x) => ({
      url: String(x.url).slice(0, 8192),
      ...(typeof x.elicitationId === 'string' ? { elicitationId: x.elicitationId.slice(0, 500) } : {}),
      ...(typeof x.message === 'string' ? { message: x.message.slice(0, 2000) } : {}),
    }));
  return items.length ? items : undefined;
}

/**
 * What an error object says about itself, as the contract carries it: a JSON-RPC code and data
 * (bounded), an HTTP status, a kind, whether trying again may help. `extra` adds what the caller
 * knows (trace seqs, duration) and may override the kind.
 */
export function errorDetailOf(error: unknown, extra: ErrorDetail = {}): ErrorDetail {
  const rpc = rpcErrorOf(error);
  const httpStatus = httpStatusOf(error);
  const elicitations = rpc?.code === URL_ELICITATION_REQUIRED ? elicitationsOf(rpc.data) : undefined;
  const sdk = sdkCodeOf(error);
  const unsupported = sdk === SdkErrorCode.CapabilityNotSupported || sdk === SdkErrorCode.MethodNotSupportedByProtocolVersion;
  const kind = extra.kind ?? (rpc ? 'rpc' : unsupported ? 'unsupported' : classifyError(error));
  const detail: ErrorDetail = {
    kind,
    ...(rpc ? { rpcCode: rpc.code } : {}),
    ...(rpc && rpc.data !== undefined ? { rpcData: boundDepth(rpc.data) } : {}),
    ...(httpStatus !== undefined ? { httpStatus } : {}),
    ...(elicitations ? { elicitations } : {}),
    ...extra,
  };
  detail.kind = kind;
  detail.retryable ??= isRetryable(detail);
  return detail;
}

/** Trying again may succeed: timeouts, unreachable servers, 5xx/408/429, a lost session, a link to open first. */
function isRetryable(detail: ErrorDetail): boolean {
  if (detail.kind === 'timeout' || detail.kind === 'unreachable' || detail.kind === 'session-expired') return true;
  if (detail.rpcCode === URL_ELICITATION_REQUIRED) return true;
  const status = detail.httpStatus;
  return status !== undefined && (status >= 500 || status === 408 || status === 429);
}
