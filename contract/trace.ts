/**
 * The trace model: every observable thing that crosses a connection becomes one immutable
 * event with a per-run sequence number. Plain types (no runtime schema): events are produced
 * by our own code at high rate, and validating each would cost more than it proves.
 * Query arguments coming from the renderer are validated (see `TraceQuery` in index.ts).
 */

export const CHANNELS = [
  'post-json',
  'post-sse',
  'get',
  'resumption',
  'delete',
  'listen',
  'discovery',
  'auth',
  'legacy-sse',
  'legacy-post',
  'stdio',
  'lifecycle',
  /** MCP Apps: a bridge message between Switchboard and an app running in its sandbox (renderer-side, reported to main). */
  'app',
] as const;
export type Channel = (typeof CHANNELS)[number];

export const EVENT_KINDS = [
  'http-request',
  'http-response',
  'http-end',
  'sse-event',
  'sse-comment',
  'sse-retry',
  'jsonrpc-out',
  'jsonrpc-in',
  'stdout-garbage',
  'stderr',
  'spawn',
  'exit',
  'session',
  'state',
  'era',
  'reconnect',
  'error',
  /** A step of an OAuth flow that is not an HTTP exchange of ours (opening the login, the callback). */
  'auth-step',
  /** The recording proxy (#12): faults switched on or off (`meta.faults`), or one applied to a message (`meta.fault`). */
  'fault',
] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

export type Direction = 'out' | 'in' | 'none';

export interface RpcSummary {
  id?: string | number;
  method?: string;
  kind: 'request' | 'notification' | 'result' | 'error';
  errorCode?: number;
  errorMessage?: string;
  /** For progress notifications: the token, which names the request it belongs to. */
  progressToken?: string | number;
  /** For `notifications/cancelled`: the id of the request it cancels (`params.requestId`). */
  cancels?: string | number;
  /** For a result: true when it is a tool's error (`result.isError: true`). */
  isError?: true;
}

export interface HttpInfo {
  method?: string;
  url?: string;
  status?: number;
  statusText?: string;
  /** Secrets already redacted. Lower-case names. */
  headers?: Record<string, string>;
  contentType?: string;
  /** Time from sending the request to the response headers. */
  ttfbMs?: number;
  /** How an exchange or stream ended. */
  end?: 'complete' | 'server-closed' | 'client-aborted' | 'error';
}

export interface SseInfo {
  id?: string;
  event?: string;
  retry?: number;
  /** An event with an id and no data: the stream's priming event. */
  priming?: boolean;
}

export interface TraceEvent {
  seq: number;
  /** Epoch milliseconds with sub-millisecond precision. */
  ts: number;
  server: string;
  channel: Channel;
  kind: EventKind;
  dir: Direction;
  /** Groups one HTTP request, its response and its SSE events. */
  exchange?: string;
  session?: string;
  rpc?: RpcSummary;
  /** Several JSON-RPC messages in one body (a batch). */
  batch?: RpcSummary[];
  http?: HttpInfo;
  sse?: SseInfo;
  bytes?: number;
  durationMs?: number;
  /** The payload: parsed JSON when it was JSON, else text. Redacted. */
  body?: unknown;
  /**
   * The body's text exactly as it arrived (redacted), kept when the parsed `body` was nested
   * deeper than LIMITS.carriedDepth and had to be cut (the cut parts are truncation markers).
   * Exports write this text, byte for byte, in place of `body`.
   */
  raw?: string;
  /** True when `body` is a preview of a larger payload; the whole one is paged from disk. */
  truncated?: boolean;
  /** Free text: a stderr line, an error message, a state name. */
  text?: string;
  /** Structured extras (spawn info, exit code, session ids, era). */
  meta?: Record<string, unknown>;
  /**
   * Part of the protocol-version negotiation (the 2026-07-28 `server/discover` probe), marked as
   * the event is appended (main/core/trace/negotiation.ts): `probe` the probe request, `answer`
   * an answer a legacy server is expected to give (Method not found, an HTTP 4xx): not an error;
   * `failed` a probe answer that is a real failure (401/403, 5xx, a transport error).
   */
  negotiation?: NegotiationMark;
}

/** An event before the store assigns its sequence number and time. */
export type TraceEventInput = Omit<TraceEvent, 'seq' | 'ts'> & { ts?: number };

// ---------------------------------------------------------------------------------------
// Snapshots: per server, derived from events, what a UI renders without knowing how.

export type ChannelState = 'open' | 'idle' | 'off' | 'error' | 'disabled';

export interface ChannelStats {
  requests: number;
  responses: number;
  notifications: number;
  pings: number;
  errors: number;
  state: ChannelState;
  lastStatus?: number;
  lastError?: string;
  lastActivity?: number;
  connectedAt?: number;
  disconnectedAt?: number;
  bytesIn: number;
  bytesOut: number;
  /** Streams (SSE responses, GET/listen streams, a stdio process) currently open on this channel. */
  openStreams: number;
}

export interface LatencyStats {
  count: number;
  p50: number;
  p95: number;
  max: number;
}

export interface SessionRecord {
  id: string;
  issuedAt: number;
  endedAt?: number;
  endReason?: 'expired' | 'terminated' | 'changed' | 'disconnected';
}

export interface InFlightRequest {
  id: string | number;
  method: string;
  channel: Channel;
  since: number;
  progress?: { progress: number; total?: number; message?: string };
}

/** One second of activity. `t` is the second (epoch ms, floored to 1000). */
export interface TimeBucket {
  t: number;
  /** JSON-RPC messages per channel (requests, responses, notifications; pings included). */
  messages: Partial<Record<Channel, number>>;
  errors: { http4xx: number; http5xx: number; rpc: number; transport: number };
  bytes: number;
  /** Latencies of requests answered in this second, per method (a bounded sample). */
  latency: Record<string, number[]>;
  /** Requests in flight at the end of the second. */
  inFlight: number;
  pingRttMs?: number;
}

export interface ServerSnapshot {
  server: string;
  totalEvents: number;
  lastEventTs?: number;
  channels: Partial<Record<Channel, ChannelStats>>;
  sessions: SessionRecord[];
  latency: Record<string, LatencyStats>;
  inFlight: InFlightRequest[];
  bytesIn: number;
  bytesOut: number;
  pingRtt?: { last: number; avg: number; count: number };
  era?: string;
  protocolVersion?: string;
  /** Oldest first. In pushed updates, only the most recent few; in full snapshots, the last N minutes. */
  buckets: TimeBucket[];
}

// ---------------------------------------------------------------------------------------
// Classification: one rule for the store's error flag ("Errors only"), the table's red rows and
// the snapshots' error counts.

export type NegotiationMark = 'probe' | 'answer' | 'failed';

/** An error event: a failure, a JSON-RPC error, an HTTP error (405 is a channel turned off). An expected probe answer is negotiation, not an error. */
export function isErrorEvent(e: TraceEvent): boolean {
  if (e.negotiation === 'answer' || e.negotiation === 'probe') return false;
  return (
    e.kind === 'error' ||
    e.kind === 'stdout-garbage' ||
    e.rpc?.kind === 'error' ||
    (e.http?.status !== undefined && e.http.status >= 400 && e.http.status !== 405) ||
    e.http?.end === 'error'
  );
}

/** An event the OAuth views follow live: the auth channel, and a 401 or 403 on any channel. Live pushes always carry these (see `traceFeed`). */
export function isAuthRelevant(e: TraceEvent): boolean {
  if (e.channel === 'auth') return true;
  const status = e.http?.status;
  return e.kind === 'http-response' && (status === 401 || status === 403);
}

// ---------------------------------------------------------------------------------------
// The live feed (`traceFeed`)

/** How long a `traceFeed({ full: true })` lease lasts unless renewed. */
export const TRACE_FEED_LEASE_MS = 10_000;
/** Without a lease, a push carries at most this many of the newest events (plus the auth-relevant ones and HTTP responses): more than a tall screen of rows. */
export const TRACE_FEED_TAIL = 200;
