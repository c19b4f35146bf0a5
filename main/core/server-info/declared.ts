/**
 * "What this server declared vs what it actually did": pure rules over what it declared at
 * initialize (its capabilities, and ours) and what was seen on the wire since it connected.
 *
 * - `undeclared`: it sent a notification its capabilities do not cover (`list_changed` without
 *   `listChanged: true`, `resources/updated` without `subscribe`, log messages without `logging`);
 * - `unasked`: it asked us for something we did not declare (sampling, elicitation, roots);
 * - `refused`: it answered "Method not found" to a method of a capability it declared.
 */
import type { CapabilityMismatch, ObservedMethod } from '../../../contract';

/** Server → client notifications, and the server capability each needs. */
export const NOTIFICATION_NEEDS: Readonly<Record<string, string>> = {
  'notifications/tools/list_changed': 'tools.listChanged',
  'notifications/prompts/list_changed': 'prompts.listChanged',
  'notifications/resources/list_changed': 'resources.listChanged',
  'notifications/resources/updated': 'resources.subscribe',
  'notifications/message': 'logging',
};

/** Server → client requests, and the client capability each needs. */
export const REQUEST_NEEDS: Readonly<Record<string, string>> = {
  'sampling/createMessage': 'sampling',
  'elicitation/create': 'elicitation',
  'roots/list': 'roots',
};

/** Our requests, and the server capability that promises each. */
export function capabilityOfMethod(method: string): string | undefined {
  if (method === 'resources/subscribe' || method === 'resources/unsubscribe') return 'resources.subscribe';
  if (method === 'logging/setLevel') return 'logging';
  if (method === 'completion/complete') return 'completions';
  const family = method.split('/')[0];
  return family === 'tools' || family === 'prompts' || family === 'resources' || family === 'tasks' ? family : undefined;
}

/** Whether `caps` declares `path` (`logging`: present; `tools.listChanged`: true). */
export function declares(caps: Record<string, unknown> | undefined, path: string): boolean {
  let value: unknown = caps;
  for (const key of path.split('.')) {
    if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
    value = (value as Record<string, unknown>)[key];
  }
  if (path.includes('.')) return value === true;
  return value !== undefined && value !== null && value !== false;
}

export interface Observed {
  notifications: ObservedMethod[];
  requests: ObservedMethod[];
  refused: ObservedMethod[];
}

export function findMismatches(serverCaps: Record<string, unknown> | undefined, clientCaps: Record<string, unknown> | undefined, observed: Observed): CapabilityMismatch[] {
  const out: CapabilityMismatch[] = [];
  const add = (kind: CapabilityMismatch['kind'], capability: string, seen: ObservedMethod) =>
    out.push({ kind, capability, method: seen.method, count: seen.count, firstAt: seen.firstAt, ...(seen.firstSeq !== undefined ? { firstSeq: seen.firstSeq } : {}) });
  for (const seen of observed.notifications) {
    const needs = NOTIFICATION_NEEDS[seen.method];
    if (needs && !declares(serverCaps, needs)) add('undeclared', needs, seen);
  }
  for (const seen of observed.requests) {
    const needs = REQUEST_NEEDS[seen.method];
    if (needs && !declares(clientCaps, needs)) add('unasked', needs, seen);
  }
  for (const seen of observed.refused) {
    const promised = capabilityOfMethod(seen.method);
    if (promised && declares(serverCaps, promised)) add('refused', promised, seen);
  }
  return out;
}
