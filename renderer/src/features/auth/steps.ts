/**
 * The OAuth flow of one server as steps, built from its trace: the `auth` channel (every HTTP
 * exchange the flow made, and the `auth-step` events the core recorded between them) plus the
 * 401/403 answers on the server's MCP channels that started it. Plain functions, no React.
 */
import { safeStringify } from '../../../../contract/bounded-json';
import { isAuthRelevant, type TraceEvent } from '../../../../contract/trace';

export type StepKind =
  | 'challenge'
  | 'prm'
  | 'as-metadata'
  | 'register'
  | 'authorize'
  | 'callback'
  | 'token'
  | 'tokens'
  | 'refresh'
  | 'revoke'
  | 'invalidate'
  | 'sign-out'
  | 'retry'
  | 'request'
  | 'load'
  | 'failed'
  | 'http'
  | 'step';

export const STEP_LABEL: Record<StepKind, string> = {
  challenge: 'challenge',
  prm: 'resource metadata',
  'as-metadata': 'AS metadata',
  register: 'register',
  authorize: 'authorize',
  callback: 'callback',
  token: 'token',
  tokens: 'tokens',
  refresh: 'refresh',
  revoke: 'revoke',
  invalidate: 'invalidate',
  'sign-out': 'sign out',
  retry: 'retry',
  request: 'request',
  load: 'load',
  failed: 'failed',
  http: 'HTTP',
  step: 'step',
};

interface StepBase {
  /** Unique within the list: `x:<exchange>` or `e:<seq>`. */
  key: string;
  kind: StepKind;
  /** The first event's sequence number (the order of the list). */
  seq: number;
  ts: number;
  channel: string;
}

export interface ExchangeStep extends StepBase {
  type: 'exchange';
  exchange: string;
  request?: TraceEvent;
  response?: TraceEvent;
  end?: TraceEvent;
  method?: string;
  url?: string;
  status?: number;
  durationMs?: number;
}

export interface EventStep extends StepBase {
  type: 'event';
  event: TraceEvent;
  /** `meta.step` as recorded (for a failure, the step that failed). */
  name: string;
  text: string;
}

export type AuthStep = ExchangeStep | EventStep;

/** The events that make a server's steps: the `auth` channel, and 401/403 answers elsewhere. */
/** One rule in main and here: live pushes always carry these events. */
export { isAuthRelevant };

const pathOf = (url: string | undefined): string => {
  if (!url) return '';
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
};

/** A form body (a string `a=b&c=d`, or already an object) → its parameters. */
export function formParams(body: unknown): Record<string, string> | undefined {
  if (typeof body === 'string') {
    if (!/^[\w.%-]+=[^&]*(&[\w.%-]+=[^&]*)*$/.test(body.trim())) return undefined;
    try {
      return Object.fromEntries(new URLSearchParams(body.trim()));
    } catch {
      return undefined;
    }
  }
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(body)) out[k] = typeof v === 'string' ? v : safeStringify(v);
    return out;
  }
  return undefined;
}

/** What an HTTP exchange of the flow was, from its method, URL and body. */
export function classifyExchange(method: string | undefined, url: string | undefined, body: unknown, channel: string, status?: number): StepKind {
  if (channel !== 'auth') return status === 401 || status === 403 ? 'challenge' : 'http';
  const path = pathOf(url).toLowerCase();
  if (path.includes('/.well-known/oauth-protected-resource')) return 'prm';
  if (path.includes('/.well-known/oauth-authorization-server') || path.includes('/.well-known/openid-configuration')) return 'as-metadata';
  const m = (method ?? 'GET').toUpperCase();
  const form = m === 'POST' ? formParams(body) : undefined;
  const grant = form?.grant_type;
  if (grant === 'refresh_token') return 'refresh';
  if (grant) return 'token';
  if (m === 'POST' && (/revo(ke|cation)/.test(path) || (form?.token !== undefined && !grant))) return 'revoke';
  if (m === 'POST' && (/regist/.test(path) || (body && typeof body === 'object' && 'redirect_uris' in body))) return 'register';
  if (m === 'GET') {
    try {
      if (url && new URL(url).searchParams.get('response_type')) return 'authorize';
    } catch {
      // not a URL: fall through
    }
    if (/authori[sz]e/.test(path)) return 'authorize';
  }
  if (/token/.test(path) && m === 'POST') return 'token';
  return 'http';
}

const EVENT_STEPS = new Set<StepKind>(['register', 'authorize', 'callback', 'tokens', 'refresh', 'invalidate', 'sign-out', 'retry', 'request', 'load', 'token']);

function eventStep(e: TraceEvent): EventStep {
  const name = typeof e.meta?.step === 'string' ? e.meta.step : 'step';
  const text = e.text ?? '';
  const failed = text.startsWith('failed:');
  const kind: StepKind = failed ? 'failed' : EVENT_STEPS.has(name as StepKind) ? (name as StepKind) : 'step';
  return { type: 'event', key: `e:${e.seq}`, kind, seq: e.seq, ts: e.ts, channel: e.channel, event: e, name, text };
}

/** Events (any order, duplicates allowed) → steps in sequence order, exchanges grouped. */
export function buildSteps(events: Iterable<TraceEvent>): AuthStep[] {
  const bySeq = new Map<number, TraceEvent>();
  for (const e of events) bySeq.set(e.seq, e);
  const sorted = [...bySeq.values()].sort((a, b) => a.seq - b.seq);
  const exchanges = new Map<string, ExchangeStep>();
  const steps: AuthStep[] = [];
  for (const e of sorted) {
    if (e.exchange && (e.kind === 'http-request' || e.kind === 'http-response' || e.kind === 'http-end')) {
      const key = `x:${e.server}:${e.exchange}`;
      let step = exchanges.get(key);
      if (!step) {
        step = { type: 'exchange', key, kind: 'http', seq: e.seq, ts: e.ts, channel: e.channel, exchange: e.exchange };
        exchanges.set(key, step);
        steps.push(step);
      }
      if (e.kind === 'http-request') {
        step.request = e;
        step.method = e.http?.method ?? step.method;
        step.url = e.http?.url ?? step.url;
      } else if (e.kind === 'http-response') {
        step.response = e;
        step.status = e.http?.status;
        step.method ??= e.http?.method;
        // The response decides the exchange's channel (a POST is post-json or post-sse once answered).
        step.channel = e.channel;
      } else {
        step.end = e;
        step.durationMs = e.durationMs;
        step.status ??= e.http?.status;
      }
    } else if (e.kind === 'auth-step') {
      steps.push(eventStep(e));
    }
  }
  for (const step of exchanges.values()) step.kind = classifyExchange(step.method, step.url, step.request?.body, step.channel, step.status);
  // An MCP exchange that was not a challenge (its request matched the query only by channel) is noise.
  return steps.filter((s) => s.type === 'event' || s.channel === 'auth' || s.kind === 'challenge');
}

/** `WWW-Authenticate: Bearer error="insufficient_scope", scope="a b", resource_metadata="…"` → its parameters. */
export function parseChallenge(header: string | undefined): { scheme: string; params: Record<string, string> } | undefined {
  if (!header) return undefined;
  const match = /^\s*([A-Za-z0-9_-]+)\s*(.*)$/s.exec(header);
  if (!match) return undefined;
  const params: Record<string, string> = {};
  const re = /([A-Za-z0-9_-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))/g;
  for (let m = re.exec(match[2]!); m; m = re.exec(match[2]!)) params[m[1]!.toLowerCase()] = m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : m[3]!;
  return { scheme: match[1]!, params };
}

/** The parameters of an authorization URL worth a row each, in the order they matter. */
export const AUTHORIZE_PARAMS = ['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'code_challenge', 'code_challenge_method', 'resource'] as const;

/** An authorization URL → its endpoint and every query parameter (known ones first). */
export function decodeAuthorizationUrl(raw: string): { endpoint: string; params: [string, string][] } | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  const all = [...url.searchParams.entries()];
  const known = AUTHORIZE_PARAMS.flatMap((name) => all.filter(([k]) => k === name));
  const rest = all.filter(([k]) => !(AUTHORIZE_PARAMS as readonly string[]).includes(k));
  return { endpoint: `${url.origin}${url.pathname}`, params: [...known, ...rest] };
}

/** Requested vs granted scopes: in both, missing from the grant, granted without being asked. */
export function compareScopes(requested: string | undefined, granted: string | undefined): { both: string[]; missing: string[]; extra: string[] } {
  const split = (s: string | undefined) => (s ?? '').split(/\s+/).filter(Boolean);
  const req = split(requested);
  const got = split(granted);
  const gotSet = new Set(got);
  const reqSet = new Set(req);
  return { both: req.filter((s) => gotSet.has(s)), missing: req.filter((s) => !gotSet.has(s)), extra: got.filter((s) => !reqSet.has(s)) };
}

/** "in 4 min 10 s" / "2 h 3 min ago". */
export function relativeTime(ms: number): string {
  const abs = Math.abs(ms);
  const s = Math.floor(abs / 1000);
  let text: string;
  if (s < 60) text = `${s} s`;
  else if (s < 3600) text = `${Math.floor(s / 60)} min ${s % 60} s`;
  else if (s < 86_400) text = `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  else text = `${Math.floor(s / 86_400)} d ${Math.floor((s % 86_400) / 3600)} h`;
  return ms >= 0 ? `in ${text}` : `${text} ago`;
}
