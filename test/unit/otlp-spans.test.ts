/**
 * The span builder (#16) on trace events written by hand, for the cases a fixture server does not
 * produce on demand: a propagated `_meta.traceparent`, a server→client request inside a tool
 * call's stream, stdio, a batch, an answer that never came, a process that exits, and the last
 * net catching a secret that the redaction at the source missed (in a URL, a header, a session
 * id, a tool name, an error message), in the OTLP JSON and the protobuf both.
 */
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../contract/trace';
import { otlpJsonChunks, otlpSpanBatches } from '../../main/core/otlp/export';
import { MAX_ATTRIBUTE_CHARS, MAX_OPEN_SPANS, SpanBuilder } from '../../main/core/otlp/spans';
import { parseHeaderFlag, tracesUrl } from '../../main/core/otlp/send';
import { Redactor } from '../../main/core/trace/redact';
import { attributeMap, decodeOtlp } from '../support/otlp-receiver';

let seq = 0;
const T0 = 1_767_000_000_000.25;
function ev(partial: Partial<TraceEvent> & Pick<TraceEvent, 'kind'>): TraceEvent {
  seq++;
  return { seq, ts: T0 + seq * 10, server: 's1', channel: 'post-sse', dir: 'out', ...partial } as TraceEvent;
}

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';
const SECRET = 'leaked-secret-3f9a7c21';

function httpToolCall(): TraceEvent[] {
  seq = 0;
  const call = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'book', arguments: {}, _meta: { traceparent: `00-${TRACE_ID}-${PARENT}-01`, tracestate: 'rojo=1' } } };
  return [
    ev({ kind: 'http-request', exchange: 'x1', session: 'sess-1', rpc: { id: 7, method: 'tools/call', kind: 'request' }, body: call, http: { method: 'POST', url: `http://mcp.example:8080/mcp?k=${SECRET}`, headers: { 'x-trace-note': SECRET } } }),
    ev({ kind: 'http-response', dir: 'in', exchange: 'x1', session: 'sess-1', http: { status: 200, contentType: 'text/event-stream' } }),
    // The server asks the client something while the tool runs, on the same stream.
    ev({ kind: 'sse-event', dir: 'in', exchange: 'x1', session: 'sess-1', rpc: { id: 0, method: 'elicitation/create', kind: 'request' }, body: { jsonrpc: '2.0', id: 0, method: 'elicitation/create', params: { message: 'sure?' } } }),
    ev({ kind: 'http-request', exchange: 'x2', session: 'sess-1', rpc: { id: 0, kind: 'result' }, body: { jsonrpc: '2.0', id: 0, result: { action: 'accept' } }, http: { method: 'POST', url: 'http://mcp.example:8080/mcp' } }),
    ev({ kind: 'http-end', dir: 'in', exchange: 'x2', http: { end: 'complete', status: 202 } }),
    ev({ kind: 'sse-event', dir: 'in', exchange: 'x1', session: 'sess-1', rpc: { id: 7, kind: 'error', errorCode: -32000, errorMessage: `boom ${SECRET}` } }),
    ev({ kind: 'http-end', dir: 'in', exchange: 'x1', http: { end: 'server-closed', status: 200 } }),
  ];
}

describe('SpanBuilder', () => {
  it('honours _meta.traceparent, nests a server request in the call it came in, and makes its answer POST no span of its own', () => {
    const builder = new SpanBuilder({ serverNames: { s1: 'Bookings' }, app: { name: 'Switchboard', version: '1' } });
    const spans = httpToolCall().flatMap((e) => builder.push(e));
    spans.push(...builder.finish());
    const call = spans.find((s) => s.name === 'tools/call book')!;
    const elicit = spans.find((s) => s.name === 'elicitation/create')!;
    expect(call.spanContext().traceId).toBe(TRACE_ID);
    expect(call.parentSpanContext).toMatchObject({ traceId: TRACE_ID, spanId: PARENT, isRemote: true });
    expect(call.spanContext().traceState?.serialize()).toBe('rojo=1');
    expect(call.kind).toBe(2); // api SpanKind.CLIENT
    expect(call.attributes).toMatchObject({ 'error.type': '-32000', 'rpc.response.status_code': '-32000', 'jsonrpc.request.id': '7', 'server.address': 'mcp.example', 'server.port': 8080, 'mcp.session.id': 'sess-1' });
    expect(call.status.code).toBe(2);
    // The span ends at its answer: the stream's end, later, is no event of it.
    expect(call.events.map((e) => e.name)).toEqual(['http.request', 'http.response', 'sse.event', 'sse.event']);
    expect(elicit.kind).toBe(1); // SERVER: the server asked us
    expect(elicit.parentSpanContext?.spanId).toBe(call.spanContext().spanId);
    expect(elicit.spanContext().traceId).toBe(TRACE_ID);
    // The answer's POST is an event of the elicitation span, not an HTTP span of its own.
    expect(elicit.events.map((e) => e.name)).toContain('http.request');
    expect(spans.map((s) => s.name).sort()).toEqual(['elicitation/create', 'tools/call book']);
  });

  it('stdio: pipe transport, a batch, an answer that never came and a process that exits', () => {
    seq = 0;
    const builder = new SpanBuilder({ serverNames: {}, app: { name: 'Switchboard', version: '1' } });
    const events = [
      ev({ kind: 'jsonrpc-out', channel: 'stdio', rpc: { id: 1, method: 'tools/list', kind: 'request' }, body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } }),
      ev({ kind: 'jsonrpc-in', channel: 'stdio', dir: 'in', rpc: { id: 1, kind: 'result' }, body: { jsonrpc: '2.0', id: 1, result: { tools: [] } } }),
      ev({
        kind: 'jsonrpc-out',
        channel: 'stdio',
        batch: [
          { id: 2, method: 'prompts/get', kind: 'request' },
          { id: 3, method: 'resources/read', kind: 'request' },
        ],
        body: [
          { jsonrpc: '2.0', id: 2, method: 'prompts/get', params: { name: 'greet' } },
          { jsonrpc: '2.0', id: 3, method: 'resources/read', params: { uri: 'file:///a.txt' } },
        ],
      }),
      ev({ kind: 'jsonrpc-in', channel: 'stdio', dir: 'in', rpc: { id: 2, kind: 'result' }, body: { jsonrpc: '2.0', id: 2, result: {} } }),
      ev({ kind: 'jsonrpc-out', channel: 'stdio', rpc: { id: 4, method: 'ping', kind: 'request' }, body: { jsonrpc: '2.0', id: 4, method: 'ping' } }),
      ev({ kind: 'exit', channel: 'stdio', dir: 'none', text: 'exited with code 1' }),
    ];
    const spans = events.flatMap((e) => builder.push(e));
    const leftover = builder.finish();
    expect(leftover).toEqual([]);
    const list = spans.find((s) => s.name === 'tools/list')!;
    expect(list.attributes['network.transport']).toBe('pipe');
    expect(list.events.map((e) => e.name)).toEqual(['stdio.write', 'stdio.read']);
    expect(spans.find((s) => s.name === 'prompts/get greet')!.attributes['gen_ai.prompt.name']).toBe('greet');
    const read = spans.find((s) => s.name === 'resources/read')!;
    expect(read.attributes).toMatchObject({ 'mcp.resource.uri': 'file:///a.txt', 'error.type': 'process_exited' });
    expect(spans.find((s) => s.name === 'ping')!.status.code).toBe(2);
    expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(1);

    seq = 0;
    const open = new SpanBuilder({ serverNames: {}, app: { name: 'Switchboard', version: '1' } });
    open.push(ev({ kind: 'jsonrpc-out', channel: 'stdio', rpc: { id: 9, method: 'tools/call', kind: 'request' }, body: { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'slow' } } }));
    open.push(ev({ kind: 'stderr', channel: 'stdio', dir: 'in', text: 'working' }));
    const [unanswered] = open.finish();
    expect(unanswered!.attributes['switchboard.open_at_end']).toBe(true);
    // Open to the end of the trace: its last event (the stderr line), 10 ms after it started.
    expect(unanswered!.endTime).toEqual([1_767_000_000, 20_250_000]);
    expect(unanswered!.startTime).toEqual([1_767_000_000, 10_250_000]);
  });

  it('an exchange that carried no request is an HTTP span; a GET that failed is an error', () => {
    seq = 0;
    const builder = new SpanBuilder({ serverNames: {}, app: { name: 'Switchboard', version: '1' } });
    const spans = [
      ev({ kind: 'http-request', channel: 'listen', exchange: 'g1', http: { method: 'GET', url: 'https://mcp.example/mcp' } }),
      ev({ kind: 'http-response', channel: 'listen', dir: 'in', exchange: 'g1', http: { status: 405 } }),
      ev({ kind: 'http-end', channel: 'listen', dir: 'in', exchange: 'g1', http: { end: 'complete', status: 405 } }),
    ].flatMap((e) => builder.push(e));
    expect(spans).toHaveLength(1);
    expect(spans[0]).toMatchObject({ name: 'GET', attributes: expect.objectContaining({ 'http.request.method': 'GET', 'http.response.status_code': 405, 'server.port': 443, 'error.type': '405' }) });
  });
});

describe('SpanBuilder: how a request ends without an answer', () => {
  it('an HTTP error ends it as an error; the 2026 probe refused by an older server is negotiation; an abort is cancelled; a 202 waits', () => {
    seq = 0;
    const builder = new SpanBuilder({ serverNames: {}, app: { name: 'Switchboard', version: '1' } });
    const post = (x: string, id: number, method: string, extra: Partial<TraceEvent> = {}) =>
      ev({ kind: 'http-request', exchange: x, rpc: { id, method, kind: 'request' }, body: { jsonrpc: '2.0', id, method }, http: { method: 'POST', url: 'http://h/mcp' }, ...extra });
    const end = (x: string, http: TraceEvent['http'], extra: Partial<TraceEvent> = {}) => ev({ kind: 'http-end', dir: 'in', exchange: x, http, ...extra });
    const spans = [
      post('p', 1, 'server/discover', { negotiation: 'probe' }),
      end('p', { end: 'complete', status: 400 }, { negotiation: 'answer' }),
      post('a', 2, 'tools/list'),
      end('a', { end: 'complete', status: 500 }),
      post('b', 3, 'tools/call'),
      end('b', { end: 'client-aborted' }),
      post('c', 4, 'ping'),
      end('c', { end: 'complete', status: 202 }),
      ev({ kind: 'sse-event', channel: 'get', dir: 'in', exchange: 'g', rpc: { id: 4, kind: 'result' }, body: { jsonrpc: '2.0', id: 4, result: {} } }),
      post('d', 5, 'server/discover', { negotiation: 'probe' }),
      ev({ kind: 'http-end', dir: 'in', exchange: 'd', rpc: { id: 5, kind: 'error', errorCode: -32601, errorMessage: 'Method not found' }, http: { end: 'complete', status: 200 }, negotiation: 'answer' }),
    ].flatMap((e) => builder.push(e));
    const by = (id: string) => spans.find((s) => s.attributes['jsonrpc.request.id'] === id)!;
    expect(by('1').attributes).toMatchObject({ 'switchboard.negotiation': 'answer' });
    expect(by('1').status.code).toBe(0);
    expect(by('2').attributes['error.type']).toBe('500');
    expect(by('3').attributes['error.type']).toBe('cancelled');
    expect(by('4').status.code).toBe(0); // answered on the GET stream after its POST's 202
    expect(by('4').events.map((e) => e.name)).toEqual(['http.request', 'http.end', 'sse.event']);
    expect(by('5').attributes).toMatchObject({ 'switchboard.negotiation': 'answer', 'rpc.response.status_code': '-32601' });
    expect(by('5').attributes['error.type']).toBeUndefined();
    expect(builder.finish()).toEqual([]);
  });
});

describe('SpanBuilder bounds', () => {
  it('an id reused before its answer ends the older request; past MAX_OPEN_SPANS the oldest is handed out, not lost', () => {
    seq = 0;
    const builder = new SpanBuilder({ serverNames: {}, app: { name: 'Switchboard', version: '1' } });
    const request = (id: number) => ev({ kind: 'jsonrpc-out', channel: 'stdio', rpc: { id, method: 'ping', kind: 'request' }, body: { jsonrpc: '2.0', id, method: 'ping' } });
    expect(builder.push(request(1))).toEqual([]);
    const [older] = builder.push(request(1));
    expect(older!.attributes['switchboard.unanswered']).toBe(true);
    let out = 0;
    for (let id = 2; id <= MAX_OPEN_SPANS + 1; id++) out += builder.push(request(id)).length;
    expect(out).toBe(1); // the oldest still open, closed to keep the cap
    expect(builder.finish()).toHaveLength(MAX_OPEN_SPANS);
  });

  it('a long value is cut after it is scrubbed, so no half of a secret stays', () => {
    seq = 0;
    const redactor = new Redactor();
    redactor.addSecret(SECRET);
    const url = `http://h/${'a'.repeat(MAX_ATTRIBUTE_CHARS - 5)}${SECRET}`;
    const builder = new SpanBuilder({ serverNames: {}, app: { name: 'Switchboard', version: '1' }, scrub: (t) => redactor.text(t) });
    const spans = [ev({ kind: 'http-request', channel: 'listen', exchange: 'g', http: { method: 'GET', url } }), ev({ kind: 'http-end', channel: 'listen', dir: 'in', exchange: 'g', http: { end: 'complete', status: 200 } })].flatMap((e) => builder.push(e));
    const full = String(spans[0]!.attributes['url.full']);
    expect(full.includes(SECRET.slice(0, 5))).toBe(false);
    expect(full.length).toBeLessThanOrEqual(MAX_ATTRIBUTE_CHARS + 1);
  });
});

describe('OTLP output', () => {
  const redactor = new Redactor();
  redactor.addSecret(SECRET);
  const input = () => ({ events: httpToolCall(), serverNames: { s1: `Bookings ${SECRET}` }, redactors: [redactor], app: { name: 'Switchboard', version: '1' } });

  it('the JSON file and the protobuf carry no secret the source missed', () => {
    const json = [...otlpJsonChunks(input())].join('');
    expect(json).toContain('[redacted]');
    expect(json.includes(SECRET)).toBe(false);
    const parsed = JSON.parse(json);
    const span = parsed.resourceSpans[0].scopeSpans[0].spans.find((s: { name: string }) => s.name === 'tools/call book');
    expect(span.parentSpanId).toBe(PARENT);
    expect(span.traceId).toBe(TRACE_ID);
    expect(span.startTimeUnixNano).toBe('1767000000010250000'); // T0 + 10 ms, sub-millisecond kept

    const bytes = ProtobufTraceSerializer.serializeRequest([...otlpSpanBatches(input())].flat())!;
    expect(Buffer.from(bytes).includes(SECRET)).toBe(false);
    const decoded = decodeOtlp(bytes);
    const spans = decoded.resourceSpans!.flatMap((rs) => rs.scopeSpans!.flatMap((ss) => ss.spans!));
    const call = spans.find((s) => s.name === 'tools/call book')!;
    expect(call.parentSpanId).toBe(PARENT);
    expect(attributeMap(decoded.resourceSpans![0]!.resource!.attributes)['service.name']).toBe('Bookings [redacted]');
  });

  it('endpoint and header flags', () => {
    expect(tracesUrl('http://collector:4318')).toBe('http://collector:4318/v1/traces');
    expect(tracesUrl('https://otlp.vendor.example/api/v2/traces')).toBe('https://otlp.vendor.example/api/v2/traces');
    expect(() => tracesUrl('file:///etc/passwd')).toThrow(/http/);
    expect(parseHeaderFlag('Authorization: Bearer abc:def')).toEqual({ name: 'Authorization', value: 'Bearer abc:def' });
    expect(parseHeaderFlag('x-api-key=k1')).toEqual({ name: 'x-api-key', value: 'k1' });
    expect(() => parseHeaderFlag('no colon here')).toThrow(/Name: value/);
  });
});
