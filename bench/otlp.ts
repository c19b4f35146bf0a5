/**
 * OTLP export throughput (#16), on its own: N tools/call requests over Streamable HTTP as a trace
 * records them (http-request, http-response, two SSE events, http-end: 5 events a request), turned
 * into OTLP/JSON pieces (the file export) and into protobuf requests of 512 spans (what
 * `otlpSend` posts; serialized only, nothing sent). Prints one JSON line.
 *
 *   npx tsx bench/otlp.ts [requests]      (default 50,000)
 */
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { TraceEvent } from '../contract/trace';
import { otlpJsonChunks, otlpSpanBatches } from '../main/core/otlp/export';
import { OTLP_BATCH_SPANS } from '../main/core/otlp/send';
import { Redactor } from '../main/core/trace/redact';

const requests = Number(process.argv[2] ?? 50_000);

function* events(): Generator<TraceEvent> {
  let seq = 0;
  let ts = Date.now() - requests * 5;
  const server = 'bench';
  const session = 'c3e4d20c-5d1f-4f42-9d7e-3a1b9f0c2e11';
  for (let id = 1; id <= requests; id++) {
    const exchange = `x${id}`;
    const url = 'http://127.0.0.1:3000/mcp';
    const base = { server, channel: 'post-sse' as const, exchange, session };
    yield { ...base, seq: ++seq, ts: ts++, kind: 'http-request', dir: 'out', rpc: { id, method: 'tools/call', kind: 'request' }, body: { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hello' } } }, http: { method: 'POST', url, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': session, authorization: 'Bearer [redacted]' } }, bytes: 120 };
    yield { ...base, seq: ++seq, ts: ts++, kind: 'http-response', dir: 'in', http: { status: 200, contentType: 'text/event-stream', ttfbMs: 1.2, headers: { 'content-type': 'text/event-stream' } } };
    yield { ...base, seq: ++seq, ts: ts++, kind: 'sse-event', dir: 'in', sse: { id: `${id}-0` }, bytes: 0 };
    yield { ...base, seq: ++seq, ts: ts++, kind: 'sse-event', dir: 'in', sse: { id: `${id}-1` }, rpc: { id, kind: 'result' }, body: { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'hello' }] } }, bytes: 90 };
    yield { ...base, seq: ++seq, ts: ts++, kind: 'http-end', dir: 'in', http: { end: 'server-closed', status: 200 }, durationMs: 4, bytes: 90 };
  }
}

const redactor = new Redactor();
redactor.addSecret('a-configured-secret-value');
const input = () => ({ events: events(), serverNames: { bench: 'Bench server' }, redactors: [redactor], app: { name: 'Switchboard', version: 'bench' } });

let peakHeap = 0;
const sample = () => (peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed));

let started = performance.now();
let bytes = 0;
let pieces = 0;
for (const piece of otlpJsonChunks(input())) {
  bytes += Buffer.byteLength(piece);
  if (++pieces % 50 === 0) sample();
}
const jsonMs = performance.now() - started;

started = performance.now();
let protoBytes = 0;
let posts = 0;
for (const batch of otlpSpanBatches(input(), OTLP_BATCH_SPANS)) {
  protoBytes += ProtobufTraceSerializer.serializeRequest(batch)?.length ?? 0;
  posts++;
  sample();
}
const protoMs = performance.now() - started;

console.log(
  JSON.stringify({
    requests,
    events: requests * 5,
    json: { ms: Math.round(jsonMs), spansPerSec: Math.round(requests / (jsonMs / 1000)), mib: +(bytes / 2 ** 20).toFixed(1) },
    protobuf: { ms: Math.round(protoMs), spansPerSec: Math.round(requests / (protoMs / 1000)), requests: posts, mib: +(protoBytes / 2 ** 20).toFixed(1) },
    peakHeapMiB: +(peakHeap / 2 ** 20).toFixed(0),
  }),
);
