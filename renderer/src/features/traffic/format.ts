/** How trace events read in the table and the detail pane: plain functions, no React. */
import { safeStringify } from '../../../../contract/bounded-json';
import type { TraceEvent } from '../../../../contract/trace';
import { appOf } from '../../components/app-tool';

/** The store's error flag, the snapshots' counts and the red rows share one rule (contract/trace.ts). */
export { isErrorEvent } from '../../../../contract/trace';

/** Part of the version negotiation (the `server/discover` probe and a legacy server's expected answer): shown with its own badge. */
export function isNegotiationEvent(e: TraceEvent): boolean {
  return e.negotiation !== undefined;
}

/** A channel the server turned off (405 on GET) — expected, shown grey, not red. */
export function isDisabledEvent(e: TraceEvent): boolean {
  return e.http?.status === 405 || e.meta?.disabled === true;
}

export function isNotification(e: TraceEvent): boolean {
  return e.rpc?.kind === 'notification' || (e.batch?.every((b) => b.kind === 'notification') ?? false);
}

/** Lifecycle events drawn as separators across the table. */
export function isSeparator(e: TraceEvent): boolean {
  return e.kind === 'session' || e.kind === 'reconnect' || e.kind === 'state' || e.kind === 'era';
}

export const DIR_ARROW: Record<TraceEvent['dir'], string> = { out: '→', in: '←', none: '·' };

/** The app's name for a table cell: its tool, else its resource uri, else "app". */
export function appLabel(e: TraceEvent): string | undefined {
  const app = appOf(e);
  if (!app) return undefined;
  return clip(app.tool ?? app.uri ?? 'app', 80);
}

/** The detail pane's direction: host and app for the bridge, sent and received for a server. */
export function directionLabel(e: TraceEvent): string {
  if (e.channel === 'app') return e.dir === 'out' ? 'Switchboard → app' : e.dir === 'in' ? 'app → Switchboard' : 'none';
  return e.dir === 'out' ? 'sent →' : e.dir === 'in' ? 'received ←' : 'none';
}

export function shortSession(session: string | undefined): string {
  if (!session) return '';
  return session.length > 8 ? `${session.slice(0, 8)}…` : session;
}

/** Clips server-supplied text for a one-line cell. */
export function clip(text: string, max = 300): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function rpcLabel(e: TraceEvent): string {
  if (e.batch) return `batch (${e.batch.length}): ${e.batch.map((b) => b.method ?? b.kind).slice(0, 3).join(', ')}${e.batch.length > 3 ? ', …' : ''}`;
  const rpc = e.rpc;
  if (!rpc) return '';
  if (rpc.method) return rpc.method;
  if (rpc.kind === 'error') return `error ${rpc.errorCode ?? ''}${rpc.errorMessage ? ` ${rpc.errorMessage}` : ''} (#${String(rpc.id ?? '?')})`;
  if (rpc.kind === 'result') return `result #${String(rpc.id ?? '?')}`;
  return rpc.kind;
}

/** The "method / status" cell: the HTTP part (method, status, end), the JSON-RPC part, and a dimmed extra (SSE id). */
export function methodStatus(e: TraceEvent): { http: string; rpc: string; extra: string } {
  let http = '';
  let extra = '';
  if (e.kind === 'http-request') http = e.http?.method ?? '';
  else if (e.kind === 'http-response') {
    const status = e.http?.status;
    http = status === undefined ? '' : `${status}${isDisabledEvent(e) ? ' disabled' : e.http?.statusText ? ` ${e.http.statusText}` : ''}`;
  } else if (e.kind === 'http-end') http = `end ${e.http?.end ?? ''}`.trim();
  else if (e.kind === 'sse-event') {
    http = e.sse?.priming ? 'sse prime' : e.sse?.event && e.sse.event !== 'message' ? `sse ${e.sse.event}` : 'sse';
    if (e.sse?.id) extra = `id ${e.sse.id}`;
  } else if (e.kind === 'sse-retry') http = `retry ${e.sse?.retry ?? ''}`;
  let rpc = rpcLabel(e);
  // A bridge message the host refused or contained: what it was, and why.
  if (e.channel === 'app' && e.kind === 'error' && e.text) rpc = rpc ? `${rpc} · refused: ${e.text}` : `refused: ${e.text}`;
  if (!rpc && e.text) rpc = e.text;
  if (!rpc && e.kind === 'http-request' && e.http?.url) rpc = urlPath(e.http.url);
  return { http: clip(http, 80), rpc: clip(rpc, 300), extra: clip(extra, 120) };
}

export function urlPath(url: string): string {
  try {
    const u = new URL(url);
    return `${u.pathname}${u.search}`;
  } catch {
    return url;
  }
}

/** Duration shown in the table: the whole exchange on its end, time-to-first-byte on the response. */
export function durationOf(e: TraceEvent): number | undefined {
  return e.durationMs ?? e.http?.ttfbMs;
}

/** A POSIX-shell single-quoted word. */
export function shellWord(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

const SKIP_CURL_HEADERS = new Set(['content-length', 'host', 'connection', 'accept-encoding']);

/**
 * The request as a curl command. Headers and body come from the trace, where secrets were
 * already replaced by placeholders; the command carries those placeholders, not the secrets.
 */
export function curlCommand(request: TraceEvent, streamed: boolean): string {
  const http = request.http ?? {};
  const lines = [`curl ${shellWord(http.url ?? '')}`];
  const method = (http.method ?? 'GET').toUpperCase();
  if (method !== 'GET') lines.push(`-X ${method}`);
  for (const [name, value] of Object.entries(http.headers ?? {})) {
    if (SKIP_CURL_HEADERS.has(name.toLowerCase())) continue;
    lines.push(`-H ${shellWord(`${name}: ${value}`)}`);
  }
  if (request.body !== undefined) lines.push(`--data-raw ${shellWord(typeof request.body === 'string' ? request.body : safeStringify(request.body))}`);
  if (streamed) lines.push('-N');
  return lines.join(' \\\n  ');
}
