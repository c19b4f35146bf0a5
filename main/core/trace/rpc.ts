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
    return { id, method: m.method, kind: id === undefined ? 'notification' : 'request', ...(progressToken !== undefined ? { progressToken } : {}) };
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
  if ('result' in m) return { id, kind: 'result' };
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
 * A parsed body as the trace keeps it: redacted and within LIMITS.carriedDepth. A body nested
 * deeper is cut (markers in place of what lies below the limit) and its original text kept
 * beside it as `raw`, so nothing that serializes or walks the event can overflow the stack and
 * the bytes still export unchanged. Credential bodies (OAuth) keep no raw text: their fields
 * are redacted by name, which only the parsed form allows.
 */
export function traceBody(value: unknown, text: string, redactor: Redactor, credential: boolean): { body: unknown; raw?: string } {
  if (depthOf(value, LIMITS.carriedDepth) <= LIMITS.carriedDepth) return { body: redactor.json(value, credential) };
  const body = redactor.json(boundDepth(value), credential);
  return credential ? { body } : { body, raw: redactor.text(text) };
}
