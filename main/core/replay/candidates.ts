/**
 * Replay, part 1: which recorded requests of a trace can be sent again, each paired with its
 * recorded response. One pass over the trace's JSON-RPC events (requests out, answers in), by
 * the trace's own index (kinds), so events that carry no message are never deserialized.
 *
 * Replayable: what Switchboard (the client) asked a server — tools/call, resources/read,
 * prompts/get, every list, completion/complete. Never: initialize (our connection has its own),
 * notifications, responses, the version probe (`server/discover`), what the server asked us
 * (sampling, elicitation, roots: direction in), an MCP App's bridge messages, a "Test
 * connection" probe's requests. Other requests (ping, logging/setLevel, subscribe, tasks/*, a
 * server's own extension methods) only when named in `only`.
 */
import type { ReplayCandidate } from '../../../contract';
import type { TraceEvent } from '../../../contract/trace';
import type { TraceHub } from '../trace/hub';

/** Sent again unless the person narrows the methods. */
export const DEFAULT_METHODS = new Set([
  'tools/call',
  'tools/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'prompts/list',
  'prompts/get',
  'completion/complete',
]);

/** Never sent again, even when asked for: why, in words. */
export const NEVER_REPLAYED: Record<string, string> = {
  initialize: 'initialize is never replayed: the target connection has its own session.',
  'server/discover': 'server/discover is the version probe of a connect, not a request of the session.',
  'subscriptions/listen': 'subscriptions/listen is the long-lived stream of a session, not a request to compare.',
};

/** A recorded request with what replaying it needs. */
export interface RecordedRequest {
  candidate: ReplayCandidate;
  /** The request's JSON-RPC params as recorded (redacted). */
  params: Record<string, unknown> | undefined;
  requestTs: number;
  /** The recorded answer's message (`result` or `error`), if it was answered. */
  response?: { message: Record<string, unknown>; ts: number };
  /** Not replayable, and why (only for requests named by seq). */
  refused?: string;
}

export interface ScanOptions {
  /** Methods to keep (exact names); absent: DEFAULT_METHODS. */
  only?: string[];
  /** Request seqs to keep; absent: all. A seq that is not replayable is kept with `refused`. */
  seqs?: number[];
  /** Server id → name, for the candidates' names (else the id). */
  serverName: (id: string) => string;
}

const PAGE = 5_000;
const SUMMARY_CHARS = 120;

/** Every JSON-RPC message an event carries (a batch or one). */
function messagesOf(event: TraceEvent, body: unknown): Record<string, unknown>[] {
  const list = Array.isArray(body) ? body : [body];
  return list.filter((m): m is Record<string, unknown> => !!m && typeof m === 'object' && !Array.isArray(m));
}

/** The body of an event, whole (a large payload is stored beside the trace and previewed in the event). */
function bodyOf(hub: TraceHub, event: TraceEvent): unknown {
  if (!event.truncated) return event.body;
  try {
    return hub.store.payload(event.seq);
  } catch {
    return event.body;
  }
}

export function summarize(method: string, params: Record<string, unknown> | undefined): string {
  const clip = (text: string) => (text.length > SUMMARY_CHARS ? `${text.slice(0, SUMMARY_CHARS - 1)}…` : text);
  if (!params) return method;
  const json = (value: unknown) => {
    try {
      return JSON.stringify(value) ?? '';
    } catch {
      return '…';
    }
  };
  if (method === 'tools/call') return clip(`${String(params.name ?? '?')}(${params.arguments === undefined ? '' : json(params.arguments)})`);
  if (method === 'resources/read') return clip(String(params.uri ?? '?'));
  if (method === 'prompts/get') return clip(`${String(params.name ?? '?')}${params.arguments ? ` ${json(params.arguments)}` : ''}`);
  const { _meta: _ignored, ...rest } = params;
  return clip(Object.keys(rest).length ? `${method} ${json(rest)}` : method);
}

/**
 * The client's requests in a trace, oldest first, with their recorded answers. Pairing is by
 * server and JSON-RPC id, a request replacing an older one with the same id (a reconnected
 * stdio server numbers from 0 again), as the snapshot engine pairs them.
 */
export function scanRequests(hub: TraceHub, options: ScanOptions): RecordedRequest[] {
  const only = options.only?.length ? new Set(options.only) : undefined;
  const seqs = options.seqs?.length ? new Set(options.seqs) : undefined;
  const found: RecordedRequest[] = [];
  const pending = new Map<string, RecordedRequest>();
  let cursor: number | undefined;
  for (;;) {
    const page = hub.store.query({ kinds: ['http-request', 'jsonrpc-out', 'http-end', 'sse-event', 'jsonrpc-in', 'http-response'], cursor, limit: PAGE });
    for (const event of page.events) {
      if (event.channel === 'app' || event.meta?.check === true) continue;
      const rpcs = event.batch ?? (event.rpc ? [event.rpc] : []);
      if (rpcs.length === 0) continue;
      if (event.dir === 'out') {
        if (!rpcs.some((r) => r.kind === 'request')) continue;
        for (const message of messagesOf(event, bodyOf(hub, event))) {
          const method = message.method;
          const id = message.id;
          if (typeof method !== 'string' || (typeof id !== 'string' && typeof id !== 'number')) continue;
          const refused = NEVER_REPLAYED[method] ?? (event.negotiation === 'probe' ? NEVER_REPLAYED['server/discover'] : undefined);
          // Named by seq: the person chose it (a ping too), unless `only` leaves its method out.
          const keep = seqs ? seqs.has(event.seq) && (!only || only.has(method)) : !refused && (only ? only.has(method) : DEFAULT_METHODS.has(method));
          if (!keep) {
            // Still tracked, so that its answer is not taken by an older request with the same id.
            pending.delete(`${event.server}|${id}`);
            continue;
          }
          const params = message.params && typeof message.params === 'object' && !Array.isArray(message.params) ? (message.params as Record<string, unknown>) : undefined;
          const request: RecordedRequest = {
            candidate: {
              seq: event.seq,
              serverId: event.server,
              serverName: options.serverName(event.server),
              method,
              ...(method === 'tools/call' && typeof params?.name === 'string' ? { tool: params.name } : {}),
              summary: summarize(method, params),
            },
            params,
            requestTs: event.ts,
            ...(refused ? { refused } : {}),
          };
          found.push(request);
          pending.set(`${event.server}|${id}`, request);
        }
      } else if (event.dir === 'in' && rpcs.some((r) => r.kind === 'result' || r.kind === 'error')) {
        for (const message of messagesOf(event, bodyOf(hub, event))) {
          const id = message.id;
          if ((typeof id !== 'string' && typeof id !== 'number') || typeof message.method === 'string') continue;
          const key = `${event.server}|${id}`;
          const request = pending.get(key);
          if (!request) continue;
          pending.delete(key);
          request.candidate.responseSeq = event.seq;
          request.response = { message, ts: event.ts };
        }
      }
    }
    if (page.nextCursor === undefined) break;
    cursor = page.nextCursor;
  }
  return found;
}

/** The distinct tool names of the tools/call among these, sorted. */
export function toolsOf(requests: { candidate: ReplayCandidate }[]): string[] {
  return [...new Set(requests.flatMap((r) => (r.candidate.tool === undefined ? [] : [r.candidate.tool])))].sort();
}
