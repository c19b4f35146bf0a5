/**
 * The fault engine (#12): the armed faults of a fault lab or a recording proxy, which of them a
 * request meets (scope: JSON-RPC method, HTTP method, `after`, `times`, `rate`), and their counts.
 * Transport-independent: `http.ts` applies a plan to an HTTP exchange, `stdio.ts` to JSON-RPC lines.
 *
 * Rules (the lab's, generalized):
 *   - latency, storm and drop-notifications are additive: they combine with anything;
 *   - of the other faults the first matching one (in list order) is the request's `action`;
 *   - a fault counts a request as `seen` when its scope matches and it could act on it; the first
 *     `after` seen go through untouched; then, with `rate`, a draw from the engine's random source
 *     decides (a request not drawn stays `seen`, not a hit); `times` caps the hits (then exhausted);
 *   - drop-notifications is decided per notification, not per request: a plan carries the ones whose
 *     scope the request met, and `dropNotification` draws `rate`, counts a hit per dropped
 *     notification and applies `times` to those hits;
 *   - session-expiry has no per-request scope: it is held as an armed fault whose hits the caller
 *     counts (`noteHit`) when it expires a session.
 */
import * as z from 'zod';
import { FAULTS_BY_TRANSPORT, FAULT_TYPES, FaultSchema, type ArmedFault, type Fault, type FaultType } from '../../../contract/faults';

export { FAULTS_BY_TRANSPORT, FAULT_TYPES } from '../../../contract/faults';
export type { ArmedFault, Fault, FaultSpec, FaultType } from '../../../contract/faults';

/** A fault with a per-request scope (every type but session-expiry). */
export type ScopedFault = Exclude<Fault, { type: 'session-expiry' }>;
export type FaultOf<T extends FaultType> = Extract<Fault, { type: T }>;

/** At most this many faults in force at once (docs/limits.md). */
export const MAX_FAULTS = 100;

export class FaultSpecError extends Error {
  override name = 'FaultSpecError';
}

// ---------------------------------------------------------------------------
// Specs
// ---------------------------------------------------------------------------

export function parseFault(value: unknown, where = 'fault'): Fault {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new FaultSpecError(`${where}: expected an object like {"type":"latency","ms":500}`);
  }
  const type = (value as { type?: unknown }).type;
  if (typeof type !== 'string' || !(FAULT_TYPES as readonly string[]).includes(type)) {
    throw new FaultSpecError(`${where}: unknown fault type ${JSON.stringify(type)}; one of ${FAULT_TYPES.join(', ')}`);
  }
  const parsed = FaultSchema.safeParse(value);
  if (!parsed.success) throw new FaultSpecError(`${where} (${type}): ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

function parseList(list: unknown[]): Fault[] {
  if (list.length > MAX_FAULTS) throw new FaultSpecError(`at most ${MAX_FAULTS} faults at once (got ${list.length})`);
  return list.map((f, i) => parseFault(f, `faults[${i}]`));
}

/** A control body: one fault, an array of faults, or `{ faults: [...], append?: boolean }`. */
export function parseFaultsBody(body: unknown): { faults: Fault[]; append: boolean } {
  if (Array.isArray(body)) return { faults: parseList(body), append: false };
  if (body !== null && typeof body === 'object' && 'faults' in body) {
    const { faults, append, ...rest } = body as { faults: unknown; append?: unknown };
    if (Object.keys(rest).length > 0) throw new FaultSpecError(`unexpected key(s) ${Object.keys(rest).join(', ')} next to "faults"`);
    if (!Array.isArray(faults)) throw new FaultSpecError('"faults" must be an array');
    if (append !== undefined && typeof append !== 'boolean') throw new FaultSpecError('"append" must be a boolean');
    return { faults: parseList(faults), append: append ?? false };
  }
  return { faults: [parseFault(body)], append: false };
}

export interface SupportOptions {
  /** Faults this caller can act on besides the transport's (the lab: `storm`). */
  also?: readonly FaultType[];
  /** Who, in the message ("an HTTP proxy", "the fault lab"). */
  who?: string;
}

/**
 * Why these faults cannot all be acted on by this transport (FAULTS_BY_TRANSPORT), naming every
 * one that cannot, and, on stdio, faults scoped by HTTP method (there is none); undefined when
 * they can. `storm` is the lab's alone: the lab passes `also: ['storm']`, `who: 'the fault lab'`.
 */
export function unsupportedReason(faults: readonly Fault[], transport: 'http' | 'stdio', options: SupportOptions = {}): string | undefined {
  const supported = [...FAULTS_BY_TRANSPORT[transport], ...(options.also ?? [])];
  const who = options.who ?? (transport === 'http' ? 'an HTTP proxy' : 'a stdio proxy');
  const problems: string[] = [];
  const unsupported = [...new Set(faults.map((f) => f.type).filter((t) => !supported.includes(t)))];
  if (unsupported.length > 0) {
    const why = unsupported.includes('storm') ? " (storm needs the server's own sessions: the fault lab only)" : '';
    problems.push(`${unsupported.join(', ')} cannot be injected by ${who}${why}; it takes ${supported.join(', ')}`);
  }
  if (transport === 'stdio') {
    const scoped = [...new Set(faults.filter((f) => 'http' in f && f.http !== undefined).map((f) => f.type))];
    if (scoped.length > 0) problems.push(`"http" (an HTTP method) cannot scope a stdio fault (${scoped.join(', ')})`);
  }
  return problems.length > 0 ? problems.join('; ') : undefined;
}

/** Throws a FaultSpecError with `unsupportedReason` when there is one. */
export function checkSupported(faults: readonly Fault[], transport: 'http' | 'stdio', options: SupportOptions = {}): void {
  const reason = unsupportedReason(faults, transport, options);
  if (reason !== undefined) throw new FaultSpecError(reason);
}

// ---------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------

/** What is known about a request before it is handled. */
export interface RequestInfo {
  /** HTTP method (`POST`, `GET`, `DELETE`), or `STDIO` for a line on a stdio pipe. */
  http: string;
  /** JSON-RPC methods in the body (requests and notifications; a batch may hold several). */
  methods: string[];
  /** The body holds at least one JSON-RPC request (method + id): an answer is expected. */
  hasRequest: boolean;
  /** JSON-RPC ids of the requests in the body. */
  ids: (string | number)[];
  sessionId: string | undefined;
  acceptsSse: boolean;
}

function messagesOf(body: unknown): { methods: string[]; ids: (string | number)[] } {
  const methods: string[] = [];
  const ids: (string | number)[] = [];
  const messages = Array.isArray(body) ? body : body === undefined ? [] : [body];
  for (const m of messages.slice(0, 1000)) {
    if (m === null || typeof m !== 'object') continue;
    const msg = m as { method?: unknown; id?: unknown };
    if (typeof msg.method === 'string') {
      methods.push(msg.method.slice(0, 200));
      if (typeof msg.id === 'string' || typeof msg.id === 'number') ids.push(msg.id);
    }
  }
  return { methods, ids };
}

/** Describe an HTTP request from its method, headers and (parsed) body. */
export function describeRequest(http: string, headers: { accept?: string; sessionId?: string }, body: unknown): RequestInfo {
  const { methods, ids } = messagesOf(body);
  return {
    http,
    methods,
    ids,
    hasRequest: ids.length > 0,
    sessionId: headers.sessionId,
    acceptsSse: (headers.accept ?? '').includes('text/event-stream'),
  };
}

/** Describe a JSON-RPC message read from a stdio pipe. */
export function describeMessage(message: unknown): RequestInfo {
  const { methods, ids } = messagesOf(message);
  return { http: 'STDIO', methods, ids, hasRequest: ids.length > 0, sessionId: undefined, acceptsSse: false };
}

// ---------------------------------------------------------------------------
// The engine
// ---------------------------------------------------------------------------

export interface FaultPlan {
  /** Sum of the latency faults met. */
  latencyMs: number;
  storms: FaultOf<'storm'>[];
  /** drop-notifications faults whose scope the request met: decide each notification with `dropNotification`. */
  dropNotifications: { id: number; fault: FaultOf<'drop-notifications'> }[];
  /** The one fault (if any) that shapes or replaces the answer. */
  action: ScopedFault | undefined;
  /** The types applied to this request (latency, storm, the action), in list order. */
  applied: FaultType[];
  /** The armed faults' ids, parallel to `applied`. */
  appliedIds: number[];
}

export interface FaultEngineOptions {
  /** Uniform in [0, 1): the `rate` draw. Default Math.random; tests pass a seeded one. */
  random?: () => number;
}

interface Armed {
  id: number;
  fault: Fault;
  seen: number;
  hits: number;
}

const ADDITIVE: ReadonlySet<FaultType> = new Set(['latency', 'storm', 'drop-notifications']);

function exhausted(a: Armed): boolean {
  return 'times' in a.fault && a.fault.times !== undefined && a.hits >= a.fault.times;
}

/** Can this fault act on this request at all? (Faults that cannot are not counted as "seen".) */
function eligible(fault: ScopedFault, info: RequestInfo): boolean {
  switch (fault.type) {
    case 'sse-cut':
      return info.acceptsSse && ((info.http === 'POST' && info.hasRequest) || info.http === 'GET');
    case 'flood':
      return info.acceptsSse && info.http === 'POST' && info.hasRequest;
    case 'stall':
    case 'jsonrpc-error':
      // stdio: only a request has an answer to withhold or replace.
      return info.http !== 'STDIO' || info.hasRequest;
    default:
      return true;
  }
}

function listed(wanted: string | string[] | undefined, names: readonly string[]): boolean {
  if (wanted === undefined) return true;
  const list = Array.isArray(wanted) ? wanted : [wanted];
  return names.some((m) => list.includes(m));
}

function scopeMatches(fault: ScopedFault, info: RequestInfo): boolean {
  if (fault.http !== undefined && fault.http !== info.http) return false;
  if (!listed(fault.method, info.methods)) return false;
  return eligible(fault, info);
}

export class FaultEngine {
  private armed: Armed[] = [];
  private nextId = 1;
  private readonly random: () => number;
  /** Called (synchronously) whenever the list or a count changes. Callers that write files should coalesce. */
  onChange?: () => void;

  constructor(faults: readonly Fault[] = [], options: FaultEngineOptions = {}) {
    this.random = options.random ?? Math.random;
    this.set(faults);
  }

  /** The faults in force, with their counts (a copy). */
  list(): ArmedFault[] {
    return this.armed.map((a) => ({ id: a.id, fault: a.fault, seen: a.seen, hits: a.hits, exhausted: exhausted(a) }));
  }

  get size(): number {
    return this.armed.length;
  }

  /**
   * Replaces the faults (their counts restart) or, with `append`, adds to them. Ids keep growing
   * over the engine's life. A session-expiry replaces an earlier one (one limit per engine).
   */
  set(faults: readonly Fault[], options: { append?: boolean } = {}): void {
    const next = options.append ? [...this.armed] : [];
    if (next.length + faults.length > MAX_FAULTS) throw new FaultSpecError(`at most ${MAX_FAULTS} faults at once`);
    for (const fault of faults) {
      const parsed = parseFault(fault);
      if (parsed.type === 'session-expiry') {
        const at = next.findIndex((a) => a.fault.type === 'session-expiry');
        if (at !== -1) next.splice(at, 1);
      }
      next.push({ id: this.nextId++, fault: parsed, seen: 0, hits: 0 });
    }
    this.armed = next;
    this.changed();
  }

  clear(): void {
    if (this.armed.length === 0) return;
    this.armed = [];
    this.changed();
  }

  /** The session-expiry in force, if any. */
  get sessionExpiry(): { id: number; afterRequests: number } | undefined {
    const a = this.armed.find((x) => x.fault.type === 'session-expiry');
    return a && a.fault.type === 'session-expiry' ? { id: a.id, afterRequests: a.fault.afterRequests } : undefined;
  }

  /** Counts one application of a fault the caller applied itself (session-expiry). */
  noteHit(id: number): void {
    const a = this.armed.find((x) => x.id === id);
    if (!a) return;
    a.seen += 1;
    a.hits += 1;
    this.changed();
  }

  /**
   * Decides which faults apply to a request, consuming `after` / `times` / `rate`. `only` limits the
   * plan to these types (a stdio proxy plans client requests without drop-notifications, and server
   * notifications with drop-notifications alone).
   */
  plan(info: RequestInfo, only?: readonly FaultType[]): FaultPlan {
    const plan: FaultPlan = { latencyMs: 0, storms: [], dropNotifications: [], action: undefined, applied: [], appliedIds: [] };
    let changed = false;
    for (const armed of this.armed) {
      const fault = armed.fault;
      if (fault.type === 'session-expiry') continue;
      if (only !== undefined && !only.includes(fault.type)) continue;
      if (!scopeMatches(fault, info)) continue;
      if (!ADDITIVE.has(fault.type) && plan.action !== undefined) continue; // another exclusive fault won
      if (exhausted(armed)) continue;
      armed.seen += 1;
      changed = true;
      if (armed.seen <= (fault.after ?? 0)) continue;
      if (fault.type === 'drop-notifications') {
        plan.dropNotifications.push({ id: armed.id, fault });
        continue;
      }
      if (fault.rate !== undefined && !(this.random() < fault.rate)) continue;
      armed.hits += 1;
      if (fault.type === 'latency') plan.latencyMs += fault.ms;
      else if (fault.type === 'storm') plan.storms.push(fault);
      else plan.action = fault;
      plan.applied.push(fault.type);
      plan.appliedIds.push(armed.id);
    }
    if (changed) this.changed();
    return plan;
  }

  /**
   * Should this server-to-client notification be dropped? Checks each drop-notifications fault of
   * the plan (still in force, not exhausted) against the notification's method, draws `rate`, and
   * counts a hit for the one that drops it. Returns its id, or undefined to forward it.
   */
  dropNotification(plan: FaultPlan, method: string): number | undefined {
    for (const { id } of plan.dropNotifications) {
      const armed = this.armed.find((a) => a.id === id);
      if (!armed || armed.fault.type !== 'drop-notifications' || exhausted(armed)) continue;
      if (!listed(armed.fault.notification, [method])) continue;
      if (armed.fault.rate !== undefined && !(this.random() < armed.fault.rate)) continue;
      armed.hits += 1;
      this.changed();
      return id;
    }
    return undefined;
  }

  private changed(): void {
    try {
      this.onChange?.();
    } catch {
      // a listener's failure is not the request's
    }
  }
}

export function createFaultEngine(faults: readonly Fault[] = [], options: FaultEngineOptions = {}): FaultEngine {
  return new FaultEngine(faults, options);
}

/** One fault applied to one message, as the proxy records it (`fault` trace event, meta.fault). */
export interface AppliedFault {
  type: FaultType;
  /** The armed fault's id, when known. */
  faultId?: number;
  /** The JSON-RPC id of the request it hit (or of the answer withheld). */
  rpcId?: string | number;
  /** The JSON-RPC method of the request, or of the notification dropped. */
  method?: string;
  /** The session it hit (HTTP). */
  sessionId?: string;
  /** A short human description ("dropped notifications/progress", "answered -32603", …). */
  detail: string;
}
