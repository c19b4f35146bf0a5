/** Summaries of JSON-RPC messages for the trace index: id, method, kind, error. */
import { LIMITS, boundDepth, depthOf } from '../../../contract/bounded-json';
import type { RpcSummary } from '../../../contract/trace';
import type { Redactor } from './redact';

export function summarizeRpc(message: unknown): RpcSummary | undefined {
  if (!message || typeof message !== 'object' || Array.isArray(message)) return undefined;
  const m = message as Record<string, unknown>;
  if (m.jsonrpc !== '2.0') return undefined;
  const id = typeof m.id === 'string' || typeof m.id === 'number' ? m.id : undefined;
  if (typeof m.method === 'string') {
    const params = m.params as Record<string, unknown> | undefined;
    const token =
      m.method === 'notifications/progress' ? params?.progressToken : (params?._meta as Record<string, unknown> | undefined)?.progressToken;
    // Only a token's legal forms are indexed: an object here would be a value the index has to walk.
    const progressToken = typeof token === 'string' || typeof token === 'number' ? token : undefined;
    const requestId = m.method === 'notifications/cancelled' ? params?.requestId : undefined;
    const cancels = typeof requestId === 'string' || typeof requestId === 'number' ? requestId : undefined;
    return {
      id,
      method: m.method,
      kind: id === undefined ? 'notification' : 'request',
      ...(progressToken !== undefined ? { progressToken } : {}),
      ...(cancels !== undefined ? { cancels } : {}),
    };
  }
  if ('error' in m && m.error && typeof m.error === 'object') {
    const error = m.error as { code?: unknown; message?: unknown };
    return {
      id,
      kind: 'error',
      errorCode: typeof error.code === 'number' ? error.code : undefined,
      errorMessage: typeof error.message === 'string' ? error.message : undefined,
    };
  }
  if ('result' in m) {
    const result = m.result as { isError?: unknown } | null | undefined;
    return typeof result === 'object' && result !== null && result.isError === true ? { id, kind: 'result', isError: true } : { id, kind: 'result' };
  }
  return undefined;
}

/** A body's JSON-RPC shape: one message, a batch, or neither. */
export function summarizeBody(body: unknown): { rpc?: RpcSummary; batch?: RpcSummary[] } {
  if (Array.isArray(body)) {
    const batch = body.map(summarizeRpc).filter((s): s is RpcSummary => s !== undefined);
    return batch.length ? { batch } : {};
  }
  const rpc = summarizeRpc(body);
  return rpc ? { rpc } : {};
}

export function parseJsonLoose(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/**
 * The JSON text a body was parsed from, when it is that body exactly (nothing redacted, nothing
 * cut, every number kept): the trace writes it as it came instead of serializing the body again.
 * Kept for a body the SDK receives too (`shared`: a JSON answer is parsed once, for both), so
 * whatever the SDK's side does to that object later never reaches the trace's copy on disk; and
 * for a large one, whose payload goes to the blob file as this text. Keyed by the body object:
 * the text lives as long as that object does (the event's, or the SDK's while it holds it).
 */
const wireTexts = new WeakMap<object, string>();
/** Texts this long or longer are kept even for a body nobody else holds (the blob file takes them whole). */
export const WIRE_TEXT_MIN = 64 * 1024;

function keepWireText(body: unknown, text: string): void {
  if (body !== null && typeof body === 'object') wireTexts.set(body, text);
}

/**
 * Whether JSON text escapes nothing that JSON.stringify writes as itself: no `\/` and no `\u`.
 * The scrubbers of recordings and exports find a secret by its literal text in the line; written
 * as `ab\/cd` or `\u0061b`, a secret would slip past them. Such text is not kept.
 */
function canonicalEscapes(text: string): boolean {
  return !text.includes('\\/') && !text.includes('\\u');
}

/** The text `body` was parsed from, when the trace keeps that text for it (see above). */
export function wireTextOf(body: unknown): string | undefined {
  return body !== null && typeof body === 'object' ? wireTexts.get(body) : undefined;
}

/**
 * A parsed body as the trace keeps it: redacted and within LIMITS.carriedDepth. A body nested
 * deeper is cut (markers in place of what lies below the limit) and its original text kept
 * beside it as `raw`, so nothing that serializes or walks the event can overflow the stack and
 * the bytes still export unchanged. The text is kept too when parsing changed a number (see
 * `lossyNumber`): the parsed body would show 1e400 as null. Credential bodies (OAuth) keep no
 * raw text: their fields are redacted by name, which only the parsed form allows.
 */
export function traceBody(value: unknown, text: string, redactor: Redactor, credential: boolean, shared = false): { body: unknown; raw?: string } {
  // The text's bracket nesting is the parsed value's depth: one scan of characters, no walk of the value.
  if (jsonTextDepthAtMost(text, LIMITS.carriedDepth) || depthOf(value, LIMITS.carriedDepth) <= LIMITS.carriedDepth) {
    const body = redactor.json(value, credential);
    if (!credential && lossyNumber(text) !== undefined) return { body, raw: redactor.text(text) };
    // Nothing redacted, nothing cut: the text is this body, written as it came.
    if (body === value && (shared || text.length >= WIRE_TEXT_MIN)) {
      if (canonicalEscapes(text)) keepWireText(body, text);
      // A shared body the trace cannot write as its text gets a parse of its own, written as the body always was.
      else if (shared) return { body: JSON.parse(text) as unknown };
    }
    return { body };
  }
  const body = redactor.json(boundDepth(value), credential);
  return credential ? { body } : { body, raw: redactor.text(text) };
}

/**
 * Whether JSON text nests no deeper than `limit` (containers: `{` and `[` outside strings), the
 * depth `depthOf` gives its parsed value. A scan of character codes, stopping early past the
 * limit; text that is not JSON may answer either way (the caller parsed it first).
 */
export function jsonTextDepthAtMost(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \\ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (++depth > limit) return false;
    } else if (c === 125 /* } */ || c === 93 /* ] */) depth--;
  }
  return true;
}

/** Digits a double may not keep, an exponent past its range, or a minus zero: worth a closer look. */
const MAYBE_LOSSY = /\d{16}|[eE][+-]?\d{3}|-0(?![.\d])/;

/**
 * The first number token in JSON text that JSON.parse cannot keep — out of a double's range
 * (1e400 → Infinity, 1e-400 → 0), a negative zero (written back as 0), or an integer a double
 * rounds (123456789012345678901234567890) — or undefined. Strings are skipped. Linear, and a
 * single regular-expression test for the usual text that has none.
 */
export function lossyNumber(text: string): string | undefined {
  if (!MAYBE_LOSSY.test(text)) return undefined;
  const tokens = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;
  for (let m = tokens.exec(text); m; m = tokens.exec(text)) {
    const token = m[0];
    if (token.charCodeAt(0) === 34 /* " */) continue;
    const n = Number(token);
    if (!Number.isFinite(n) || Object.is(n, -0)) return token;
    if (n === 0 && /[1-9]/.test(token.replace(/[eE].*$/, ''))) return token;
    if (!Number.isSafeInteger(n) && /^-?\d+$/.test(token) && BigInt(token) !== BigInt(n)) return token;
  }
  return undefined;
}
