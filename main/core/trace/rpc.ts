/** Summaries of JSON-RPC messages for the trace index: id, method, kind, error. */
import type { RpcSummary } from '../../../contract/trace';

export function summarizeRpc(message: unknown): RpcSummary | undefined {
  if (!message || typeof message !== 'object' || Array.isArray(message)) return undefined;
  const m = message as Record<string, unknown>;
  if (m.jsonrpc !== '2.0') return undefined;
  const id = typeof m.id === 'string' || typeof m.id === 'number' ? m.id : undefined;
  if (typeof m.method === 'string') {
    const params = m.params as Record<string, unknown> | undefined;
    const progressToken =
      m.method === 'notifications/progress'
        ? (params?.progressToken as string | number | undefined)
        : ((params?._meta as Record<string, unknown> | undefined)?.progressToken as string | number | undefined);
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
