/** Summaries of JSON-RPC messages for the trace index: id, method, kind, error. */
import { LIMITS, boundDepth, depthOf } from '../../../contract/bounded-json';
import type { RpcSummary, TraceEventInput } from '../../../contract/trace';
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

/** Each message a body summary holds (a batch's, or the lone one), with no array made for a lone one: this runs on every message's path. */
export function forEachRpc(summary: { rpc?: RpcSummary; batch?: RpcSummary[] }, fn: (rpc: RpcSummary) => void): void {
  if (summary.batch) for (const rpc of summary.batch) fn(rpc);
  else if (summary.rpc) fn(summary.rpc);
}

/** Takes the requests a summary answers (its results and errors, by id) out of a transport's `outstanding`. */
export function dropAnswered(outstanding: Set<string | number>, summary: { rpc?: RpcSummary; batch?: RpcSummary[] }): void {
  forEachRpc(summary, (rpc) => {
    if ((rpc.kind === 'result' || rpc.kind === 'error') && rpc.id !== undefined) outstanding.delete(rpc.id);
  });
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

/**
 * The UTF-8 bytes a large kept text was decoded from (a JSON answer read whole, handed to
 * `traceBody`): the blob file takes them as they came instead of encoding the text again (a 2 MiB
 * answer: ~5 ms). Kept only beside a kept text, and only when the decoding replaced nothing (no
 * U+FFFD in the text, which a server may also have sent as itself: then the text is encoded as before).
 */
const wireBytes = new WeakMap<object, Uint8Array>();

function keepWireText(body: unknown, text: string, bytes: Uint8Array | undefined): void {
  if (body === null || typeof body !== 'object') return;
  wireTexts.set(body, text);
  if (bytes && text.length >= WIRE_TEXT_MIN && !text.includes('\uFFFD')) wireBytes.set(body, bytes);
}

/** The text `body` was parsed from, when the trace keeps that text for it (see above). */
export function wireTextOf(body: unknown): string | undefined {
  return body !== null && typeof body === 'object' ? wireTexts.get(body) : undefined;
}

/** The bytes kept for `body` beside its text (see `wireBytes`), if any. */
export function wireBytesOf(body: unknown): Uint8Array | undefined {
  return body !== null && typeof body === 'object' ? wireBytes.get(body) : undefined;
}

/**
 * When `traceBody` keeps a body's text, for a body that is exactly its text: `large` as its wire
 * text (`wireTextOf`) when WIRE_TEXT_MIN long or more; `shared` as its wire text whatever its
 * length, the body being the SDK's object too (which gets a parse of its own when its text cannot
 * be kept); `own` as `large`, and whatever its length handed back as `wire`, for the recorder to
 * pass to the store with the event (`RecordEvent`): an SSE event's data, which the spill file then
 * writes as it came (store.ts, `spillLine`). A weak map entry for every small body would cost
 * more than it saves (~0.5 µs each, most of it in the GC).
 */
export type KeepText = 'large' | 'own' | 'shared';

/** How a transport hands an event to the trace; `bodyText`: a `wire` text from `traceBody` for the event's body, whose summary (if any) is `summarizeBody`'s (TraceStore.append). */
export type RecordEvent = (event: TraceEventInput, bodyText?: string) => void;

/**
 * A parsed body as the trace keeps it: redacted and within LIMITS.carriedDepth. A body nested
 * deeper is cut (markers in place of what lies below the limit) and its original text kept
 * beside it as `raw`, so nothing that serializes or walks the event can overflow the stack and
 * the bytes still export unchanged. The text is kept too when parsing changed a number (see
 * `lossyNumber`): the parsed body would show 1e400 as null. Credential bodies (OAuth) keep no
 * raw text: their fields are redacted by name, which only the parsed form allows.
 */
export function traceBody(value: unknown, text: string, redactor: Redactor, credential: boolean, keep: KeepText = 'large', bytes?: Uint8Array): { body: unknown; raw?: string; wire?: string } {
  // One scan of the text's characters, no walk of the value: its bracket nesting is the parsed value's depth.
  const scan = scanJsonText(text, LIMITS.carriedDepth);
  if (scan.withinDepth || depthOf(value, LIMITS.carriedDepth) <= LIMITS.carriedDepth) {
    // With secrets configured, text that holds none of them leaves the value as it is: no copy, and its text can stand for it.
    const body = !credential && scan.withinDepth && scan.canonical && redactor.leavesJson(text) ? value : redactor.json(value, credential);
    // (a text too deep for the scan to finish, but a value that is not: the rest of the text was not looked at)
    const lossy = scan.withinDepth ? scan.lossy : lossyNumber(text);
    if (!credential && lossy !== undefined) return { body, raw: redactor.text(text) };
    // Nothing redacted, nothing cut: the text is this body, written as it came.
    if (body === value) {
      const kept = scan.withinDepth && scan.canonical;
      if (kept && (keep === 'shared' || text.length >= WIRE_TEXT_MIN)) keepWireText(body, text, bytes);
      // A shared body the trace cannot write as its text gets a parse of its own, written as the body always was.
      else if (keep === 'shared') return { body: JSON.parse(text) as unknown };
      if (kept && keep === 'own') return { body, wire: text };
    }
    return { body };
  }
  const body = redactor.json(boundDepth(value), credential);
  return credential ? { body } : { body, raw: redactor.text(text) };
}

/** What one scan of (parsed) JSON text tells about it, for `traceBody`. */
export interface JsonTextScan {
  /**
   * The text nests no deeper than the limit (containers: `{` and `[` outside strings), the depth
   * `depthOf` gives its parsed value. False: the scan stopped there, and `lossy` and `canonical`
   * speak only of the text before that point.
   */
  withinDepth: boolean;
  /**
   * The first number token JSON.parse cannot keep: out of a double's range (1e400 → Infinity,
   * 1e-400 → 0), a negative zero (-0, -0.0: written back as 0), or an integer a double rounds
   * (123456789012345678901234567890). Strings are skipped.
   */
  lossy?: string;
  /**
   * No string in the text has a `\/` or `\u` escape: the text writes nothing as JSON.stringify
   * would not. The scrubbers of recordings and exports find a secret by its literal text in the
   * line; written as `ab\/cd` or `\u0061b`, a secret would slip past them, so such text is never
   * kept to be written in a body's place.
   */
  canonical: boolean;
}

/**
 * Depth, lossy numbers and escapes of JSON text in one linear scan of character codes (it runs
 * on every body the trace keeps; a 2 MiB answer was three scans). Text that is not JSON may
 * answer either way: the caller parsed it first.
 */
export function scanJsonText(text: string, depthLimit: number): JsonTextScan {
  let depth = 0;
  let canonical = true;
  let lossy: string | undefined;
  const n = text.length;
  // A string's end and its escapes are found by indexOf (native, far faster than a loop here on
  // text that is mostly strings). The next quote and the next backslash are each looked up again
  // only once passed: a 10 MB string with 100,000 escapes is one pass, not one search per escape.
  let quote = -1;
  let backslash = -1;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      for (;;) {
        if (quote <= i) {
          quote = text.indexOf('"', i + 1);
          if (quote < 0) quote = n;
        }
        if (backslash <= i) {
          backslash = text.indexOf('\\', i + 1);
          if (backslash < 0) backslash = n;
        }
        if (backslash >= quote) {
          i = quote;
          break;
        }
        // an escape: the character after the backslash goes with it (an escaped quote ends nothing)
        const escaped = text.charCodeAt(backslash + 1);
        if (escaped === 117 /* u */ || escaped === 47 /* / */) canonical = false;
        i = backslash + 1;
      }
    } else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (++depth > depthLimit) return { withinDepth: false, lossy, canonical };
    } else if (c === 125 /* } */ || c === 93 /* ] */) depth--;
    else if (c === 45 /* - */ || (c >= 48 && c <= 57)) {
      const end = numberEnd(text, i);
      if (lossy === undefined && mayLose(text, i, end)) {
        const token = text.slice(i, end);
        if (loses(token)) lossy = token;
      }
      i = end - 1;
    }
  }
  return { withinDepth: true, lossy, canonical };
}

/** Where a number token that starts at `start` ends (JSON's number characters). */
function numberEnd(text: string, start: number): number {
  let i = start + 1;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || c === 46 /* . */ || c === 101 /* e */ || c === 69 /* E */ || c === 43 /* + */ || c === 45 /* - */)) break;
  }
  return i;
}

/**
 * Whether a number token is worth a closer look (`loses`): 16 digits in a row (an integer a double
 * may round, or a mantissa long enough to leave its range), an exponent of 3 digits or more, or a
 * minus sign on a mantissa of zeros. Every token `loses` would flag is one of these.
 */
function mayLose(text: string, start: number, end: number): boolean {
  let run = 0;
  let exponentDigits = -1;
  let nonZero = false;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      if (exponentDigits >= 0) {
        if (++exponentDigits >= 3) return true;
      } else {
        if (++run >= 16) return true;
        if (c !== 48) nonZero = true;
      }
    } else if (c === 101 || c === 69) exponentDigits = 0;
    else run = 0;
  }
  return text.charCodeAt(start) === 45 && !nonZero;
}

/** Whether JSON.parse changes this number token (see `JsonTextScan.lossy`). */
function loses(token: string): boolean {
  const n = Number(token);
  if (!Number.isFinite(n) || Object.is(n, -0)) return true;
  if (n === 0 && /[1-9]/.test(token.replace(/[eE].*$/, ''))) return true;
  return !Number.isSafeInteger(n) && /^-?\d+$/.test(token) && BigInt(token) !== BigInt(n);
}

/** The first number token in JSON text that JSON.parse cannot keep (see `JsonTextScan.lossy`), or undefined. */
export function lossyNumber(text: string): string | undefined {
  return scanJsonText(text, Infinity).lossy;
}
