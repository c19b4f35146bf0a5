/**
 * Tracking's CPU cost per call, in one process and without a network: the tracking fetch over a
 * `base` fetch that answers at once with a canned MCP answer (application/json, or SSE), each
 * answer consumed as the SDK consumes it (`json()`, or TextDecoderStream → EventSourceParserStream
 * → JSON.parse), against the same base fetch untracked. Sides alternate in rounds; the figure is
 * the median over rounds of (tracked − untracked) CPU µs per call. Rows: a small JSON answer, a
 * small SSE answer, an SSE answer after 100 notifications (the flood's counterpart, given per
 * notification), and a large answer (2 MiB of JSON, in ms per call). Other processes on the
 * machine disturb this far less than the wall-time ratios of bench/run.ts, so it is the figure to
 * compare changes by. Printed for the record (info rows: the goals are the ratios in bench/run.ts).
 *
 * Where the cost goes: two more tracked sides run in the same rounds. One records nothing (the
 * tracking fetch alone: headers, body observation, parsing, summaries); one records into a store
 * whose sink writes nothing (the index, the snapshots, the live feed, but no event serialized).
 * The differences split tracking's cost into the fetch, the store, and writing each event out
 * (its JSON line): what a change to one of them could win at most. The tracked side records as
 * the app does by default, into a live recording (support/app-trace.ts); one more side has
 * recordings off (a spill file), and its writing out is printed beside.
 *
 *   npx tsx bench/tracking-cost.ts     Knobs (env): BENCH_COST_CALLS (10000 a side), BENCH_COST_ROUNDS (5),
 *                                       BENCH_COST_LARGE_CALLS (100 a side, the 2 MiB answer)
 */
import { pathToFileURL } from 'node:url';
import { EventSourceParserStream } from 'eventsource-parser/stream';
import type { FetchLike } from '@modelcontextprotocol/client';
import { TraceHub } from '../main/core/trace/hub';
import { appTrace, discardingSink, MODE } from './support/app-trace';
import type { TraceEventInput } from '../contract/trace';
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

/** The flood's notification, as the fixture sends it. */
const notification = (i: number) => `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', logger: 'flood', data: `flood message ${i}` } })}\n\n`;

function baseFetch(sse: boolean, result: unknown = ECHO, notifications = 0): FetchLike {
  const before = Array.from({ length: notifications }, (_, i) => notification(i)).join('');
  return async (_url, init) => {
    const { id } = JSON.parse(String(init?.body)) as { id: number };
    const answer = JSON.stringify({ jsonrpc: '2.0', id, result });
    const body = sse ? `${before}event: message\nid: s${id}\ndata: ${answer}\n\n` : answer;
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

/** This workload splits the cost itself (its own sides): it records as the app does unless BENCH_TRACE (or BENCH_RECORDING=0) says spill. */
const RECORDING = MODE !== 'spill';

type Side = 'untracked' | 'fetch' | 'store' | 'tracked' | 'spill';
/** `spill`: the app with recordings off (events to a spill file), beside `tracked` (the app's default: a live recording). */
const SIDES: Side[] = RECORDING ? ['untracked', 'fetch', 'store', 'tracked', 'spill'] : ['untracked', 'fetch', 'store', 'tracked'];

export async function trackingCostWorkload(): Promise<GoalRow[]> {
  const calls = envInt('BENCH_COST_CALLS', 10_000, 100);
  const rounds = envInt('BENCH_COST_ROUNDS', 5, 1);
  const largeCalls = envInt('BENCH_COST_LARGE_CALLS', 100, rounds);
  const rows: GoalRow[] = [];
  const FLOOD = 100;
  const workloads = [
    { name: 'JSON answer', sse: false, result: ECHO, notifications: 0, calls, warm: 2000, ms: false },
    { name: 'SSE answer', sse: true, result: ECHO, notifications: 0, calls, warm: 2000, ms: false },
    { name: `SSE answer after ${FLOOD} notifications`, sse: true, result: ECHO, notifications: FLOOD, calls: Math.max(rounds, Math.round(calls / 20)), warm: 100, ms: false },
    { name: 'JSON answer of 2 MiB', sse: false, result: LARGE, notifications: 0, calls: largeCalls, warm: 10, ms: true },
  ];
  for (const { name, sse, result, notifications, calls, warm, ms } of workloads) {
    const base = baseFetch(sse, result, notifications);
    // (the app's default, or recordings off with BENCH_RECORDING=0: this workload has its own split)
    const trace = appTrace([], RECORDING ? 'recording' : 'spill');
    const hub = trace.hub;
    const spilled = new TraceHub(undefined);
    const unwritten = new TraceHub(undefined, { store: { sink: discardingSink() } });
    const tracking = (record: (event: TraceEventInput) => void, now: () => number) => createTrackingFetch({ server: 'bench', endpoint: new URL(URL_), transport: 'streamable-http', record, redactor: new Redactor(), now, base });
    const fetches: Record<Side, FetchLike> = {
      untracked: base,
      fetch: tracking(() => undefined, hub.now),
      store: tracking(unwritten.record, unwritten.now),
      tracked: tracking(hub.record, hub.now),
      spill: tracking(spilled.record, spilled.now),
    };
    for (const side of SIDES) await cpuPerCall(fetches[side], warm);
    const perRound = Math.max(1, Math.round(calls / rounds));
    const per: Record<Side, number[]> = { untracked: [], fetch: [], store: [], tracked: [], spill: [] };
    for (let r = 0; r < rounds; r++) {
      // each round in another order (rotated), so no side always runs right after the same one
      for (let i = 0; i < SIDES.length; i++) {
        const side = SIDES[(i + r) % SIDES.length]!;
        per[side].push(await cpuPerCall(fetches[side], perRound));
      }
    }
    const diff = (side: Side, from: Side) => median(per[side].map((us, r) => us - per[from][r]!));
    // µs per call (or per notification), or ms for the large answer
    const [scale, unit] = ms ? [1000, 'ms'] : [notifications || 1, 'µs'];
    const figure = (us: number, digits: number) => (us / scale).toFixed(digits);
    const added = per.tracked.map((us, r) => us - per.untracked[r]!);
    const each = notifications ? 'notification' : 'call';
    console.log(
      `tracking cost (${name}, in-process, no network): untracked ${figure(median(per.untracked), 1)} ${unit}/${each}, tracking adds ${figure(median(added), 1)} ${unit}/${each} ` +
        `(rounds ${added.map((d) => figure(d, ms ? 1 : 0)).join(' ')}); ${hub.store.size.toLocaleString('en-US')} events recorded\n` +
        `  of which: the tracking fetch ${figure(diff('fetch', 'untracked'), 1)}, the store without writing ${figure(diff('store', 'fetch'), 1)}, ` +
        `writing the events out ${figure(diff('tracked', 'store'), 1)} ${unit}/${each} (medians of per-round differences; they need not add up)` +
        (RECORDING ? `\n  with recordings off (a spill file instead of the live recording): writing the events out ${figure(diff('spill', 'store'), 1)} ${unit}/${each}` : ''),
    );
    rows.push({ what: `tracking's CPU per ${each}, in-process (${name})`, ours: `${figure(median(added), 1)} ${unit}`, goal: '—', pass: null, info: true });
    rows.push({
      what: `  of which fetch / store / writing out`,
      ours: [diff('fetch', 'untracked'), diff('store', 'fetch'), diff('tracked', 'store')].map((us) => figure(us, 1)).join(' / ') + ` ${unit}`,
      goal: '—',
      pass: null,
      info: true,
    });
    trace.close();
    spilled.close();
    unwritten.close();
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
