/**
 * Trace events shaped as contract/trace.ts and docs/trace-format.md describe them, numbered
 * 1, 2, 3 … as the store numbers them, for the renderer models' unit tests: an HTTP exchange is
 * its `http-request` (with the JSON-RPC summary), `http-response`, SSE events and `http-end`
 * (carrying a non-streamed body), on one `exchange` id; a stdio line is a `jsonrpc-out`/`-in`.
 */
import type { Channel, RpcSummary, TraceEvent, TraceEventInput } from '../../contract/trace';

export const T0 = Date.UTC(2026, 11, 1, 12, 0, 0);

export class EventLog {
  readonly events: TraceEvent[] = [];
  private seq = 0;
  private exchanges = 0;
  /** The time the next event gets unless it names its own (advances 1 ms per event). */
  now = T0;

  add(input: TraceEventInput): TraceEvent {
    const ts = input.ts ?? this.now;
    this.now = Math.max(this.now, ts) + 1;
    const event = { ...input, seq: ++this.seq, ts } as TraceEvent;
    this.events.push(event);
    return event;
  }

  nextExchange(): string {
    return `x${++this.exchanges}`;
  }

  /** A POST answered with JSON: request, 200, end with the body. Returns its events. */
  postJson(server: string, request: { id: number | string; method: string; params?: unknown }, answer: { result?: unknown; error?: { code: number; message: string } }, status = 200): TraceEvent[] {
    const exchange = this.nextExchange();
    const url = 'http://127.0.0.1:9/mcp';
    const rpc: RpcSummary = { id: request.id, method: request.method, kind: 'request' };
    const out = this.add({ server, channel: 'post-json', kind: 'http-request', dir: 'out', exchange, rpc, http: { method: 'POST', url }, body: { jsonrpc: '2.0', ...request } });
    const response = this.add({ server, channel: 'post-json', kind: 'http-response', dir: 'in', exchange, http: { status, contentType: 'application/json' } });
    const reply: RpcSummary | undefined =
      status >= 400 ? undefined : answer.error ? { id: request.id, kind: 'error', errorCode: answer.error.code, errorMessage: answer.error.message } : { id: request.id, kind: 'result' };
    const end = this.add({ server, channel: 'post-json', kind: 'http-end', dir: 'in', exchange, rpc: reply, http: { status, end: 'complete' }, body: reply ? { jsonrpc: '2.0', id: request.id, ...answer } : 'Not Found' });
    return [out, response, end];
  }

  /** A JSON-RPC line on a stdio channel. */
  line(server: string, dir: 'out' | 'in', message: { id?: number | string; method?: string; result?: unknown; error?: { code: number; message: string }; params?: unknown }, channel: Channel = 'stdio'): TraceEvent {
    const kind: RpcSummary['kind'] = message.method ? (message.id !== undefined ? 'request' : 'notification') : message.error ? 'error' : 'result';
    const rpc: RpcSummary = { id: message.id, method: message.method, kind, errorCode: message.error?.code, errorMessage: message.error?.message };
    return this.add({ server, channel, kind: dir === 'out' ? 'jsonrpc-out' : 'jsonrpc-in', dir, rpc, body: { jsonrpc: '2.0', ...message } });
  }

  state(server: string, state: string): TraceEvent {
    return this.add({ server, channel: 'lifecycle', kind: 'state', dir: 'none', text: state, meta: { state } });
  }
}
