/**
 * Trace store workload, run as its own process by bench/run.ts (with --expose-gc, so heap
 * figures are measured after a full collection): append N realistic events into a TraceStore
 * with the default window and report throughput and memory.
 *
 *   node --expose-gc --import tsx bench/store.ts [events]   (prints one JSON line, or sends it over IPC)
 */
import type { TraceEventInput } from '../contract/trace';
import { TraceStore } from '../main/core/trace/store';

export interface StoreResult {
  events: number;
  size: number;
  windowSize: number;
  appendMs: number;
  eventsPerSec: number;
  gcAvailable: boolean;
  before: Memory;
  after: Memory;
  indexBytes: number;
}

const total = Number(process.argv[2] ?? 1_000_000);
const BATCH = 10_000;

const gc = (globalThis as { gc?: () => void }).gc;
const collect = (): void => {
  if (gc) {
    gc();
    gc();
  }
};
/** `arrayBuffers`: off-heap backing stores, where the store's typed-array index lives. */
export interface Memory {
  heapUsed: number;
  arrayBuffers: number;
  rss: number;
}
const memory = (): Memory => {
  const m = process.memoryUsage();
  return { heapUsed: m.heapUsed, arrayBuffers: m.arrayBuffers, rss: m.rss };
};

const SESSION = '3f1c7a52-9d0e-4b8a-a5c1-2f4e6d8b0a17';
const URL_ = 'http://127.0.0.1:41234/mcp';

/**
 * What the tracking fetch records for one Streamable HTTP `tools/call` answered over SSE,
 * plus a log notification on every other exchange: 4–5 events with small JSON-RPC bodies.
 * Every event gets fresh objects (as parsed bodies would be), so the window's heap is honest.
 */
function exchangeEvents(n: number, out: TraceEventInput[]): void {
  const exchange = `x${n}`;
  const id = n + 1;
  const request = { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text: `hello ${n}` }, _meta: { progressToken: id } } };
  out.push({
    server: 'bench',
    channel: 'post-json',
    kind: 'http-request',
    dir: 'out',
    exchange,
    session: SESSION,
    http: { method: 'POST', url: URL_, headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-session-id': SESSION, 'mcp-protocol-version': '2025-06-18' } },
    rpc: { id, method: 'tools/call', kind: 'request', progressToken: id },
    body: request,
    bytes: JSON.stringify(request).length,
  });
  out.push({
    server: 'bench',
    channel: 'post-sse',
    kind: 'http-response',
    dir: 'in',
    exchange,
    session: SESSION,
    http: { method: 'POST', status: 200, statusText: 'OK', headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', 'mcp-session-id': SESSION }, contentType: 'text/event-stream', ttfbMs: 0.4 + (n % 7) / 10 },
  });
  if (n % 2 === 0) {
    const note = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', logger: 'everything', data: `flood ${n}/1000` } };
    out.push({ server: 'bench', channel: 'post-sse', kind: 'sse-event', dir: 'in', exchange, session: SESSION, sse: { id: `s::${n}a` }, rpc: { method: 'notifications/message', kind: 'notification' }, body: note, bytes: JSON.stringify(note).length });
  }
  const result = { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: `echo: hello ${n}` }] } };
  out.push({ server: 'bench', channel: 'post-sse', kind: 'sse-event', dir: 'in', exchange, session: SESSION, sse: { id: `s::${n}b` }, rpc: { id, kind: 'result' }, body: result, bytes: JSON.stringify(result).length });
  out.push({ server: 'bench', channel: 'post-sse', kind: 'http-end', dir: 'in', exchange, session: SESSION, durationMs: 0.9 + (n % 5) / 10, bytes: 180, http: { end: 'server-closed', status: 200 }, meta: { events: n % 2 === 0 ? 2 : 1 } });
}

function run(): StoreResult {
  collect();
  const before = memory();
  const store = new TraceStore();
  let appendMs = 0;
  let exchange = 0;
  const batch: TraceEventInput[] = [];
  try {
    while (store.size < total) {
      batch.length = 0;
      while (batch.length < BATCH) exchangeEvents(exchange++, batch);
      const take = Math.min(batch.length, total - store.size);
      const t0 = performance.now();
      for (let i = 0; i < take; i++) store.append(batch[i]!);
      appendMs += performance.now() - t0;
    }
    batch.length = 0;
    collect();
    const after = memory();
    return {
      events: total,
      size: store.size,
      windowSize: store.windowSize,
      appendMs,
      eventsPerSec: (store.size / appendMs) * 1000,
      gcAvailable: gc !== undefined,
      before,
      after,
      indexBytes: store.indexBytes(),
    };
  } finally {
    store.close();
  }
}

const result = run();
if (process.send) process.send(result, () => process.disconnect());
else process.stdout.write(JSON.stringify(result) + '\n');
