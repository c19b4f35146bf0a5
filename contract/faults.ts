/**
 * Faults (#12): one model shared by the fault lab (test/fixtures/flaky-server) and the recording
 * proxy (`switchboard proxy --fault …`, the proxy panel in the app). The schemas are the contract:
 * the renderer sends them, the proxy validates them, the lab's control API accepts them.
 *
 * Scope fields narrow a fault to requests by JSON-RPC method, HTTP method, count (`after`,
 * `times`) and chance (`rate`). Which faults a transport can act on: FAULTS_BY_TRANSPORT.
 */
import { z } from 'zod';

const scopeFields = {
  /** Only requests whose JSON-RPC body contains this method (or one of these methods). */
  method: z.union([z.string().min(1).max(200), z.array(z.string().min(1).max(200)).min(1).max(50)]).optional(),
  /** Only this HTTP method (HTTP only). */
  http: z.enum(['POST', 'GET', 'DELETE']).optional(),
  /** Let the first N matching requests through untouched ("after N requests"). */
  after: z.number().int().min(0).optional(),
  /** Then apply to the next N matching requests only, after which the fault is exhausted. */
  times: z.number().int().min(1).optional(),
  /** Apply to this share of the matching requests (0..1, drawn per request); absent: every one. */
  rate: z.number().min(0).max(1).optional(),
};

export const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;

export const FaultSchema = z.discriminatedUnion('type', [
  /** Delay before the request is handled (additive: combines with any other fault). */
  z.strictObject({ type: z.literal('latency'), ms: z.number().int().min(0).max(600_000), ...scopeFields }),
  /** An HTTP error status instead of the real answer; 503/429 carry `Retry-After` (default 1 s). */
  z.strictObject({
    type: z.literal('http-error'),
    status: z.number().int().min(400).max(599).default(500),
    /** Seconds (number) or an HTTP date (string). Default: 1 for 503 and 429, none otherwise. */
    retryAfter: z.union([z.number().int().min(0), z.string().min(1).max(100)]).optional(),
    body: z.string().max(100_000).optional(),
    contentType: z.string().max(200).default('text/plain; charset=utf-8'),
    ...scopeFields,
  }),
  /** The request IS handled by the server, then the socket is reset (TCP RST) instead of answering fully. */
  z.strictObject({
    type: z.literal('reset'),
    phase: z.enum(['mid-body', 'before-headers']).default('mid-body'),
    afterBytes: z.number().int().min(0).default(16),
    ...scopeFields,
  }),
  /** The SSE answer ends early (default: right before the event carrying the JSON-RPC response; GET: after the first event). */
  z.strictObject({
    type: z.literal('sse-cut'),
    afterEvents: z.number().int().min(0).optional(),
    eventIds: z.boolean().default(true),
    retryMs: z.number().int().min(0).optional(),
    partial: z.boolean().default(false),
    how: z.enum(['close', 'reset']).default('close'),
    ...scopeFields,
  }),
  /** Legacy sessions: terminated once a session has served `afterRequests` POSTs; then every request on it gets 404. */
  z.strictObject({ type: z.literal('session-expiry'), afterRequests: z.number().int().min(0) }),
  /** 401 with `WWW-Authenticate: Bearer …`. */
  z.strictObject({
    type: z.literal('unauthorized'),
    realm: z.string().max(200).default('flaky-lab'),
    error: z.string().max(200).default('invalid_token'),
    errorDescription: z.string().max(1000).default('The access token expired'),
    resourceMetadata: z.string().max(2000).optional(),
    ...scopeFields,
  }),
  /** 403 with `WWW-Authenticate: Bearer error="insufficient_scope", scope="<scope>"`. */
  z.strictObject({ type: z.literal('forbidden'), scope: z.string().max(200).default('mcp:write'), ...scopeFields }),
  /** 200 answers that are not what the client asked for. */
  z.strictObject({ type: z.literal('malformed'), variant: z.enum(['invalid-json', 'invalid-json-sse', 'not-jsonrpc', 'wrong-content-type']), ...scopeFields }),
  /** A response that never completes (stdio: the request's answer is never forwarded). */
  z.strictObject({
    type: z.literal('stall'),
    headers: z.boolean().default(false),
    contentType: z.string().max(200).default('text/event-stream'),
    body: z.string().max(100_000).optional(),
    ...scopeFields,
  }),
  /** `count` notifications/message written on the request's own (SSE) answer, before the real events. */
  z.strictObject({ type: z.literal('flood'), count: z.number().int().min(1).max(1_000_000).default(1000), level: z.enum(LOG_LEVELS).default('info'), ...scopeFields }),
  /** `count` notifications/tools/list_changed in a burst (lab only: needs the server's sessions). Additive. */
  z.strictObject({ type: z.literal('storm'), count: z.number().int().min(1).max(100_000).default(100), ...scopeFields }),
  /**
   * Server-to-client notifications are not delivered (SSE events / stdout lines carrying a
   * JSON-RPC notification whose method matches `notification`, default every one). `method`
   * scopes by the request whose answer stream carries them; `rate` drops that share. Additive.
   */
  z.strictObject({
    type: z.literal('drop-notifications'),
    notification: z.union([z.string().min(1).max(200), z.array(z.string().min(1).max(200)).min(1).max(50)]).optional(),
    ...scopeFields,
  }),
  /** stdio: the request is answered with this JSON-RPC error by the proxy; the server never sees it. */
  z.strictObject({
    type: z.literal('jsonrpc-error'),
    code: z.number().int().default(-32603),
    message: z.string().max(1000).default('injected by the Switchboard proxy'),
    ...scopeFields,
  }),
]);

/** A fault as written by a person or a flag (defaults optional). */
export type FaultSpec = z.input<typeof FaultSchema>;
/** A validated fault (defaults filled in). */
export type Fault = z.output<typeof FaultSchema>;
export type FaultType = Fault['type'];

export const FAULT_TYPES: readonly FaultType[] = FaultSchema.options.map((o) => o.shape.type.value);

/** What each transport can act on. The lab also takes `storm`; the proxy cannot (it does not own the server's sessions). */
export const FAULTS_BY_TRANSPORT: Record<'http' | 'stdio', readonly FaultType[]> = {
  http: ['latency', 'http-error', 'reset', 'sse-cut', 'session-expiry', 'unauthorized', 'forbidden', 'malformed', 'stall', 'flood', 'drop-notifications'],
  stdio: ['latency', 'stall', 'drop-notifications', 'jsonrpc-error'],
};

/** A fault as a proxy reports it: the spec, plus how often it matched and was applied. */
export const ArmedFault = z.object({
  id: z.number().int(),
  fault: FaultSchema,
  seen: z.number().int().min(0),
  hits: z.number().int().min(0),
  exhausted: z.boolean(),
});
export type ArmedFault = z.output<typeof ArmedFault>;
