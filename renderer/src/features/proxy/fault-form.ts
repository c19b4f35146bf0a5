/**
 * The faults panel's rules (#12), without React: what each fault type does in one line, its
 * main parameters, turning the form's text fields into a fault the contract accepts (or the
 * reasons it is not one), and a fault as one line of text.
 */
import { FaultSchema, type Fault, type FaultSpec, type FaultType } from '../../../../contract/faults';

export const FAULT_DESCRIPTIONS: Record<FaultType, string> = {
  latency: 'Delay matching requests by this long before they go on.',
  'http-error': 'Answer with an HTTP error instead of the server (503 and 429 carry Retry-After).',
  reset: 'Let the server handle the request, then reset the connection mid-answer.',
  'sse-cut': 'End the SSE answer early, right before the event with the response.',
  'session-expiry': 'End the session after this many requests; every later one gets 404.',
  unauthorized: 'Answer 401 with WWW-Authenticate (an expired token).',
  forbidden: 'Answer 403 insufficient_scope.',
  malformed: 'Answer 200 with something that is not what the client asked for.',
  stall: 'Never answer the request (the client waits until it gives up).',
  flood: 'Send a burst of log notifications before the real answer.',
  storm: 'A burst of tools/list_changed notifications (fault lab only).',
  'drop-notifications': 'Do not deliver the server’s notifications (all, or one method).',
  'jsonrpc-error': 'Answer the request with a JSON-RPC error; the server never sees it.',
};

/** A parameter field of a fault type: its key in the fault, label, kind and default (as text). */
export interface ParamField {
  key: string;
  label: string;
  kind: 'int' | 'text' | 'select';
  default: string;
  options?: readonly string[];
  optional?: boolean;
  hint?: string;
}

export const FAULT_PARAMS: Partial<Record<FaultType, readonly ParamField[]>> = {
  latency: [{ key: 'ms', label: 'Delay (ms)', kind: 'int', default: '1000' }],
  'http-error': [
    { key: 'status', label: 'Status', kind: 'int', default: '503' },
    { key: 'retryAfter', label: 'Retry-After (s)', kind: 'int', default: '', optional: true, hint: 'default: 1 for 503 and 429' },
  ],
  'sse-cut': [{ key: 'retryMs', label: 'retry: (ms)', kind: 'int', default: '', optional: true, hint: 'sent before the cut, for resumption' }],
  'session-expiry': [{ key: 'afterRequests', label: 'After requests', kind: 'int', default: '3' }],
  reset: [{ key: 'phase', label: 'When', kind: 'select', default: 'mid-body', options: ['mid-body', 'before-headers'] }],
  malformed: [{ key: 'variant', label: 'Variant', kind: 'select', default: 'invalid-json', options: ['invalid-json', 'invalid-json-sse', 'not-jsonrpc', 'wrong-content-type'] }],
  forbidden: [{ key: 'scope', label: 'Scope', kind: 'text', default: 'mcp:write' }],
  flood: [{ key: 'count', label: 'Notifications', kind: 'int', default: '1000' }],
  'drop-notifications': [{ key: 'notification', label: 'Notification', kind: 'text', default: '', optional: true, hint: 'e.g. notifications/progress; empty: every one' }],
  'jsonrpc-error': [
    { key: 'code', label: 'Code', kind: 'int', default: '-32603' },
    { key: 'message', label: 'Message', kind: 'text', default: 'injected by the Switchboard proxy' },
  ],
};

/** Types without scope fields (no method, no rate). */
const UNSCOPED = new Set<FaultType>(['session-expiry']);

export interface FaultForm {
  type: FaultType;
  /** JSON-RPC method(s), comma-separated; empty: every request. */
  method: string;
  /** 0–100 %. */
  rate: string;
  params: Record<string, string>;
}

export const DEFAULT_METHOD = 'tools/call';

export function defaultForm(type: FaultType): FaultForm {
  const params: Record<string, string> = {};
  for (const field of FAULT_PARAMS[type] ?? []) params[field.key] = field.default;
  return { type, method: UNSCOPED.has(type) ? '' : DEFAULT_METHOD, rate: '100', params };
}

export const isScoped = (type: FaultType) => !UNSCOPED.has(type);

/** The form as a fault, or the problems by field (`method`, `rate`, a param key, or `fault`). */
export function buildFault(form: FaultForm): { fault: Fault; errors?: undefined } | { fault?: undefined; errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  const spec: Record<string, unknown> = { type: form.type };
  if (isScoped(form.type)) {
    const methods = form.method
      .split(',')
      .map((m) => m.trim())
      .filter(Boolean);
    if (methods.some((m) => m.length > 200)) errors.method = 'A method name is at most 200 characters.';
    else if (methods.length > 50) errors.method = 'At most 50 methods.';
    else if (methods.length === 1) spec.method = methods[0];
    else if (methods.length > 1) spec.method = methods;
    const rate = form.rate.trim() === '' ? 100 : Number(form.rate);
    if (!Number.isFinite(rate) || rate < 0 || rate > 100) errors.rate = 'A rate is a share from 0 to 100 %.';
    else if (rate < 100) spec.rate = Math.round(rate * 100) / 10_000;
  }
  for (const field of FAULT_PARAMS[form.type] ?? []) {
    const text = (form.params[field.key] ?? '').trim();
    if (text === '') {
      if (!field.optional) errors[field.key] = `${field.label} is needed.`;
      continue;
    }
    if (field.kind === 'int') {
      const n = Number(text);
      if (!Number.isInteger(n)) errors[field.key] = `${field.label}: a whole number.`;
      else spec[field.key] = n;
    } else spec[field.key] = text;
  }
  if (Object.keys(errors).length) return { errors };
  const parsed = FaultSchema.safeParse(spec as FaultSpec);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const key = typeof issue.path[0] === 'string' ? issue.path[0] : 'fault';
      errors[key] ??= issue.message;
    }
    return { errors };
  }
  return { fault: parsed.data };
}

/** One line: `latency 1000 ms · tools/call · 50 %`. */
export function describeFault(fault: Fault): string {
  const parts: string[] = [fault.type];
  const f = fault as Record<string, unknown>;
  for (const field of FAULT_PARAMS[fault.type] ?? []) {
    const value = f[field.key];
    if (value === undefined) continue;
    parts[0] += field.key === 'ms' ? ` ${String(value)} ms` : field.key === 'message' ? ` "${String(value)}"` : ` ${field.key === 'retryAfter' ? 'Retry-After ' : field.key === 'retryMs' ? 'retry ' : field.key === 'afterRequests' ? 'after ' : ''}${String(value)}`;
  }
  const method = f.method;
  if (method !== undefined) parts.push(Array.isArray(method) ? method.join(', ') : String(method));
  else if (isScoped(fault.type)) parts.push('every request');
  if (typeof f.rate === 'number') parts.push(`${Math.round(f.rate * 1000) / 10} %`);
  return parts.join(' · ');
}
