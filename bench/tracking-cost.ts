/**
 * Tracking's CPU cost per call, in one process and without a network: the tracking fetch over a
 * `base` fetch that answers at once with a canned MCP answer (application/json, or one SSE event),
 * each answer consumed as the SDK consumes it (`json()`, or TextDecoderStream → EventSourceParserStream
 * → JSON.parse), against the same base fetch untracked. Sides alternate in rounds; the figure is
 * the median over rounds of (tracked − untracked) CPU µs per call. A third row does the same for a
 * large answer (2 MiB of JSON, application/json), in ms per call. Other processes on the machine
 * disturb this far less than the wall-time ratios of bench/run.ts, so it is the figure to compare
 * changes by. Printed for the record (info rows: the goals are the ratios in bench/run.ts).
 *
 *   npx tsx bench/tracking-cost.ts     Knobs (env): BENCH_COST_CALLS (10000 a side), BENCH_COST_ROUNDS (5),
 *                                       BENCH_COST_LARGE_CALLS (100 a side, the 2 MiB answer)
 */
import { pathToFileURL } from 'node:url';
import { EventSourceParserStream } from 'eventsource-parser/stream';
import type { FetchLike } from '@modelcontextprotocol/client';
import { TraceHub } from '../main/core/trace/hub';
import { Redactor } from '../main/core/trace/redact';
import { createTrackingFetch } from '../main/core/transport/tracking-fetch';
import { missed, printGoals, type GoalRow } from './goals';
import { envInt, median } from './stats';

const URL_ = 'http://127.0.0.1:9/mcp';
const SESSION = '3f1c7a52-9d0e-4b8a-a5c1-2f4e6d8b0a17';
const TEXT = 'the quick brown fox jumps over the lazy dog';

const ECHO = { content: [{ type: 'text', text: `echo: ${TEXT}` }] };
/** A tool's large answer: 2 MiB of JSON, text blocks of ~100 bytes each. */
const LARGE = { content: Array.from({ length: 2 ** 21 / 100 }, (_, i) => ({ type: 'text', text: `row ${i}: ${TEXT}` })) };

function baseFetch(sse: boolean, result: unknown = ECHO): FetchLike {
  return async (_url, init) => {
    const { id } = JSON.parse(String(init?.body)) as { id: number };
    const answer = JSON.stringify({ jsonrpc: '2.0', id, result });
    const body = sse ? `event: message\nid: s${id}\ndata: ${answer}\n\n` : answer;
    return new Response(body, { status: 200, headers: { 'content-type': sse ? 'text/event-stream' : 'application/json', 'mcp-session-id': SESSION, 'cache-control': 'no-cache' } });
  };
}

let nextId = 0;
async function call(fetchImpl: FetchLike): Promise<void> {
  const headers = new Headers({ 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': SESSION, 'mcp-protocol-version': '2025-11-25' });
  const message = { jsonrpc: '2.0', id: ++nextId, method: 'tools/call', params: { name: 'echo', arguments: { text: TEXT } } };
  const response = await fetchImpl(new URL(URL_), { method: 'POST', headers, body: JSON.stringify(message) });
  if (response.headers.get('content-type') === 'text/event-stream') {
    const reader = response.body!.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      JSON.parse(value.data);
    }
  } else await response.json();
}

async function cpuPerCall(fetchImpl: FetchLike, calls: number): Promise<number> {
  const start = process.cpuUsage();
  for (let i = 0; i < calls; i++) await call(fetchImpl);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / calls;
}

export async function trackingCostWorkload(): Promise<GoalRow[]> {
  const calls = envInt('BENCH_COST_CALLS', 10_000, 100);
  const rounds = envInt('BENCH_COST_ROUNDS', 5, 1);
  const largeCalls = envInt('BENCH_COST_LARGE_CALLS', 100, rounds);
  const rows: GoalRow[] = [];
  const workloads = [
    { name: 'JSON answer', sse: false, result: ECHO, calls, warm: 2000, ms: false },
    { name: 'SSE answer', sse: true, result: ECHO, calls, warm: 2000, ms: false },
    { name: 'JSON answer of 2 MiB', sse: false, result: LARGE, calls: largeCalls, warm: 10, ms: true },
  ];
  for (const { name, sse, result, calls, warm, ms } of workloads) {
    const hub = new TraceHub(undefined);
    const base = baseFetch(sse, result);
    const tracked = createTrackingFetch({ server: 'bench', endpoint: new URL(URL_), transport: 'streamable-http', record: hub.record, redactor: new Redactor(), now: hub.now, base });
    await cpuPerCall(base, warm);
    await cpuPerCall(tracked, warm);
    const perRound = Math.max(1, Math.round(calls / rounds));
    const diffs: number[] = [];
    const bases: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const [u, t] = r % 2 === 0 ? [await cpuPerCall(base, perRound), await cpuPerCall(tracked, perRound)] : (([t2, u2]) => [u2, t2])([await cpuPerCall(tracked, perRound), await cpuPerCall(base, perRound)]);
      diffs.push(t! - u!);
      bases.push(u!);
    }
    // µs per call, or ms for the large answer
    const [scale, unit] = ms ? [1000, 'ms'] : [1, 'µs'];
    const figure = (us: number, digits: number) => (us / scale).toFixed(digits);
    console.log(
      `tracking cost (${name}, in-process, no network): untracked ${figure(median(bases), 1)} ${unit}/call, tracking adds ${figure(median(diffs), 1)} ${unit}/call ` +
        `(rounds ${diffs.map((d) => figure(d, ms ? 1 : 0)).join(' ')}); ${hub.store.size.toLocaleString('en-US')} events recorded`,
    );
    rows.push({ what: `tracking's CPU per call, in-process (${name})`, ours: `${figure(median(diffs), 1)} ${unit}`, goal: '—', pass: null, info: true });
    hub.close();
  }
  return rows;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const rows = await trackingCostWorkload();
  // Forked by bench/run.ts (from its bundle): the rows go back over IPC, the parent prints them.
  if (process.send) process.send(rows);
  else {
    printGoals(rows);
    if (missed(rows)) process.exitCode = 1;
  }
}
