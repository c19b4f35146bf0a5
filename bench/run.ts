/**
 * `npm run bench`: the overhead of our tracked HTTP transport, measured against real loopback
 * fixture servers with the official SDK client, tracked and untracked side by side.
 *
 * Workloads
 *   json   Streamable HTTP (legacy era, sessions on), POSTs answered as application/json: sequential `echo` calls
 *   sse    the same, POSTs answered as text/event-stream
 *   flood  one `flood` call per round whose POST stream carries N notifications/message
 *   store  1,000,000 realistic events appended into a TraceStore (default window)
 *
 * Method. Each side (untracked: the global fetch; tracked: createTrackingFetch → TraceHub) is its
 * own client process with its own connection and session, so neither side's heap, GC debt or JIT
 * state leaks into the other's numbers; both talk to the same fixture process. Each side warms up,
 * then the sides alternate in rounds (ABBA order: U,T then T,U, ...) so drift hits both equally.
 * A round's ratio is tracked time / untracked time; the reported ratio is the median of the
 * per-round ratios (the total-time ratio is printed too). The last line is `overhead_ratio=<x>`,
 * the worst median ratio of the three transport workloads. Client-process CPU time is printed
 * too: it is what the tracking adds, without the server's share of each round trip.
 *
 * Many short rounds rather than a few long ones: on a shared 2-core machine, bursts of outside
 * load then spoil a few rounds (which the median ignores) instead of one side's whole half.
 *
 * Knobs (env): BENCH_CALLS (500 per round), BENCH_ROUNDS (10), BENCH_WARMUP (300),
 * BENCH_FLOOD (10000 per round), BENCH_FLOOD_ROUNDS (10), BENCH_STORE_EVENTS (1000000),
 * BENCH_ONLY (comma list of workloads), BENCH_DEADLINE_MS (230000),
 * BENCH_CLIENT_NODE_ARGS (extra node flags for the client processes, e.g. "--cpu-prof").
 */
import { fork, type ChildProcess } from 'node:child_process';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startFixture, TSX_LOADER_URL, type RunningFixture } from '../test/fixtures/everything/harness';
import type { Command, Reply, Side } from './client';
import type { StoreResult } from './store';

const HERE = dirname(fileURLToPath(import.meta.url));

const num = (name: string, fallback: number): number => {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`bad ${name}=${raw}`);
  return Math.floor(value);
};

const CONFIG = {
  calls: num('BENCH_CALLS', 500),
  rounds: Math.max(1, num('BENCH_ROUNDS', 10)),
  warmup: num('BENCH_WARMUP', 300),
  flood: Math.max(1000, num('BENCH_FLOOD', 10_000)),
  floodRounds: Math.max(1, num('BENCH_FLOOD_ROUNDS', 10)),
  storeEvents: num('BENCH_STORE_EVENTS', 1_000_000),
  deadlineMs: num('BENCH_DEADLINE_MS', 230_000),
  only: new Set((process.env['BENCH_ONLY'] ?? 'json,sse,flood,store').split(',').map((s) => s.trim())),
  clientNodeArgs: (process.env['BENCH_CLIENT_NODE_ARGS'] ?? '').split(/\s+/).filter(Boolean),
};
/** Notifications per latency chunk in the flood workload. */
const FLOOD_CHUNK = 1000;

// ---------------------------------------------------------------------------------------
// Child processes

const children = new Set<ChildProcess>();
const fixtures = new Set<RunningFixture>();

class ClientProcess {
  private readonly child: ChildProcess;
  private waiting: { resolve: (reply: Reply) => void; reject: (error: Error) => void } | undefined;
  private exited: string | undefined;

  constructor(
    readonly side: Side,
    url: string,
  ) {
    this.child = fork(join(HERE, 'client.ts'), [url, side], {
      execArgv: ['--import', TSX_LOADER_URL, ...CONFIG.clientNodeArgs],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    children.add(this.child);
    this.child.on('message', (reply: Reply) => {
      const waiting = this.waiting;
      this.waiting = undefined;
      if (!waiting) return;
      if (reply.op === 'error') waiting.reject(new Error(`${side} client: ${reply.message}`));
      else waiting.resolve(reply);
    });
    this.child.on('exit', (code, signal) => {
      children.delete(this.child);
      this.exited = `${side} client exited (code ${code}, signal ${signal})`;
      this.waiting?.reject(new Error(this.exited));
      this.waiting = undefined;
    });
  }

  /** The next reply (the first one is `ready`, once connected). */
  next(timeoutMs: number): Promise<Reply> {
    if (this.exited) return Promise.reject(new Error(this.exited));
    return new Promise<Reply>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting = undefined;
        reject(new Error(`${this.side} client: no reply within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiting = {
        resolve: (reply) => {
          clearTimeout(timer);
          resolve(reply);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
    });
  }

  async run<Op extends Reply['op']>(command: Command, op: Op, timeoutMs: number): Promise<Extract<Reply, { op: Op }>> {
    const reply = this.next(timeoutMs);
    this.child.send(command);
    const answer = await reply;
    if (answer.op !== op) throw new Error(`${this.side} client: expected ${op}, got ${answer.op}`);
    return answer as Extract<Reply, { op: Op }>;
  }

  async close(): Promise<void> {
    if (this.exited) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    try {
      await this.run({ op: 'close' }, 'closed', 5000);
    } catch {
      this.child.kill('SIGKILL');
    }
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 3000);
    await exited;
    clearTimeout(timer);
  }
}

async function spawnClients(url: string): Promise<Record<Side, ClientProcess>> {
  const untracked = new ClientProcess('untracked', url);
  const tracked = new ClientProcess('tracked', url);
  await Promise.all([untracked.next(30_000), tracked.next(30_000)]);
  return { untracked, tracked };
}

async function fixture(jsonResponse: boolean, sessions = true): Promise<RunningFixture> {
  const fx = await startFixture({ transport: 'http', era: 'legacy', sessions, jsonResponse });
  fixtures.add(fx);
  return fx;
}

async function closeFixture(fx: RunningFixture): Promise<void> {
  await fx.close();
  fixtures.delete(fx);
}

// ---------------------------------------------------------------------------------------
// Statistics

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

const median = (values: number[]): number => quantile([...values].sort((a, b) => a - b), 0.5);
const sum = (values: number[]): number => values.reduce((a, b) => a + b, 0);

interface SideResult {
  /** Units (calls or notifications) per round. */
  units: number;
  roundMs: number[];
  /** CPU time of the client process in each round. */
  cpuMs: number[];
  /** Per call (echo) or per chunk of FLOOD_CHUNK notifications (flood), ms. */
  samples: number[];
  traceEvents?: number;
  heapUsed?: number;
}

interface WorkloadResult {
  name: string;
  unit: string;
  sampleLabel: string;
  untracked: SideResult;
  tracked: SideResult;
  roundRatios: number[];
  ratio: number;
  totalRatio: number;
  /** Client-process CPU time, tracked / untracked, over all rounds. */
  cpuRatio: number;
  wallMs: number;
}

function summarize(name: string, unit: string, sampleLabel: string, untracked: SideResult, tracked: SideResult, wallMs: number): WorkloadResult {
  const roundRatios = tracked.roundMs.map((t, i) => t / untracked.roundMs[i]!);
  return { name, unit, sampleLabel, untracked, tracked, roundRatios, ratio: median(roundRatios), totalRatio: sum(tracked.roundMs) / sum(untracked.roundMs), cpuRatio: sum(tracked.cpuMs) / sum(untracked.cpuMs), wallMs };
}

/** ABBA: even rounds untracked first, odd rounds tracked first. */
const orderOf = (round: number): Side[] => (round % 2 === 0 ? ['untracked', 'tracked'] : ['tracked', 'untracked']);

// ---------------------------------------------------------------------------------------
// Workloads

async function echoWorkload(name: 'json' | 'sse'): Promise<WorkloadResult> {
  const started = performance.now();
  const fx = await fixture(name === 'json');
  const clients = await spawnClients(fx.url);
  try {
    const perCallBudget = 20; // ms; generous, only to bound a hang
    const results: Record<Side, SideResult> = {
      untracked: { units: CONFIG.calls, roundMs: [], cpuMs: [], samples: [] },
      tracked: { units: CONFIG.calls, roundMs: [], cpuMs: [], samples: [] },
    };
    for (const side of ['untracked', 'tracked'] as const) {
      if (CONFIG.warmup > 0) await clients[side].run({ op: 'echo', calls: CONFIG.warmup }, 'echo', 30_000 + CONFIG.warmup * perCallBudget);
    }
    for (let round = 0; round < CONFIG.rounds; round++) {
      for (const side of orderOf(round)) {
        const reply = await clients[side].run({ op: 'echo', calls: CONFIG.calls }, 'echo', 30_000 + CONFIG.calls * perCallBudget);
        results[side].roundMs.push(reply.totalMs);
        results[side].cpuMs.push(reply.cpuMs);
        results[side].samples.push(...reply.latencies);
      }
    }
    for (const side of ['untracked', 'tracked'] as const) {
      const stats = await clients[side].run({ op: 'stats' }, 'stats', 5000);
      results[side].traceEvents = stats.traceEvents;
      results[side].heapUsed = stats.heapUsed;
    }
    return summarize(name, 'calls', 'per call', results.untracked, results.tracked, performance.now() - started);
  } finally {
    await Promise.all([clients.untracked.close(), clients.tracked.close()]);
    await closeFixture(fx);
  }
}

async function floodWorkload(): Promise<WorkloadResult> {
  const started = performance.now();
  const fx = await fixture(false, process.env['BENCH_FLOOD_SESSIONS'] !== 'off');
  const clients = await spawnClients(fx.url);
  try {
    const budget = 30_000 + CONFIG.flood; // 1 ms a notification: only to bound a hang
    const results: Record<Side, SideResult> = {
      untracked: { units: CONFIG.flood, roundMs: [], cpuMs: [], samples: [] },
      tracked: { units: CONFIG.flood, roundMs: [], cpuMs: [], samples: [] },
    };
    for (const side of ['untracked', 'tracked'] as const) {
      await clients[side].run({ op: 'flood', count: Math.min(CONFIG.flood, 5000), every: FLOOD_CHUNK }, 'flood', budget);
    }
    for (let round = 0; round < CONFIG.floodRounds; round++) {
      for (const side of orderOf(round)) {
        const reply = await clients[side].run({ op: 'flood', count: CONFIG.flood, every: FLOOD_CHUNK }, 'flood', budget);
        results[side].roundMs.push(reply.totalMs);
        results[side].cpuMs.push(reply.cpuMs);
        results[side].samples.push(...reply.chunks);
      }
    }
    for (const side of ['untracked', 'tracked'] as const) {
      const stats = await clients[side].run({ op: 'stats' }, 'stats', 5000);
      results[side].traceEvents = stats.traceEvents;
      results[side].heapUsed = stats.heapUsed;
    }
    return summarize('flood', 'notifs', `per ${FLOOD_CHUNK / 1000}k notifs`, results.untracked, results.tracked, performance.now() - started);
  } finally {
    await Promise.all([clients.untracked.close(), clients.tracked.close()]);
    await closeFixture(fx);
  }
}

function storeWorkload(): Promise<StoreResult & { wallMs: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = fork(join(HERE, 'store.ts'), [String(CONFIG.storeEvents)], {
      execArgv: ['--expose-gc', '--import', TSX_LOADER_URL],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    children.add(child);
    let result: StoreResult | undefined;
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('message', (message: StoreResult) => {
      result = message;
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      children.delete(child);
      if (result) resolve({ ...result, wallMs: performance.now() - started });
      else reject(new Error(`store bench exited without a result (code ${code}, signal ${signal})`));
    });
  });
}

// ---------------------------------------------------------------------------------------
// Output

const f = (value: number, digits = 2): string => (Number.isFinite(value) ? value.toFixed(digits) : '-');
const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const int = (value: number): string => Math.round(value).toLocaleString('en-US');

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows.map((r, i) => {
    const line = r.map((cell, c) => (c < 2 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ');
    return i === 0 ? `${line}\n${widths.map((w) => '-'.repeat(w)).join('  ')}` : line;
  }).join('\n');
}

function printWorkloads(results: WorkloadResult[]): void {
  const rows: string[][] = [['workload', 'side', 'units', 'units/s', 'p50 ms', 'p99 ms', 'sample', 'total ms', 'client cpu ms', 'trace events']];
  for (const r of results) {
    for (const side of ['untracked', 'tracked'] as const) {
      const s = r[side];
      const sorted = [...s.samples].sort((a, b) => a - b);
      const totalMs = sum(s.roundMs);
      rows.push([
        r.name,
        side,
        `${int(s.units * s.roundMs.length)} ${r.unit}`,
        int(((s.units * s.roundMs.length) / totalMs) * 1000),
        f(quantile(sorted, 0.5), 3),
        f(quantile(sorted, 0.99), 3),
        r.sampleLabel,
        f(totalMs, 0),
        f(sum(s.cpuMs), 0),
        side === 'tracked' ? int(s.traceEvents ?? 0) : '-',
      ]);
    }
  }
  console.log(table(rows));
  console.log('');
  const ratioRows: string[][] = [['workload', 'per-round ratios (tracked/untracked)', 'median', 'total-time', 'client cpu', 'wall s']];
  for (const r of results) ratioRows.push([r.name, r.roundRatios.map((x) => f(x, 3)).join(' '), f(r.ratio, 3), f(r.totalRatio, 3), f(r.cpuRatio, 3), f(r.wallMs / 1000, 1)]);
  console.log(table(ratioRows));
  console.log('median: the ratio reported (median of per-round wall-time ratios); total-time: Σ tracked / Σ untracked wall time;');
  console.log('client cpu: Σ client-process CPU time, tracked / untracked (what the tracking itself costs, without the server\'s share)');
}

function printStore(s: StoreResult & { wallMs: number }): void {
  console.log('');
  console.log(`trace store: ${int(s.events)} events appended (window ${int(s.windowSize)}), size=${int(s.size)} ${s.size === s.events ? 'OK' : 'MISMATCH'}`);
  console.log(`  append throughput  ${int(s.eventsPerSec)} events/s (${f(s.appendMs, 0)} ms appending, ${f((s.appendMs * 1000) / s.events, 2)} µs/event; ${f(s.wallMs / 1000, 1)} s wall incl. event generation)`);
  console.log(`  heap used          ${mb(s.before.heapUsed)} → ${mb(s.after.heapUsed)} (+${mb(s.after.heapUsed - s.before.heapUsed)})${s.gcAvailable ? ', after global.gc()' : ', gc NOT exposed'}`);
  console.log(`  array buffers      ${mb(s.before.arrayBuffers)} → ${mb(s.after.arrayBuffers)} (+${mb(s.after.arrayBuffers - s.before.arrayBuffers)}; the typed-array index lives here, off the V8 heap)`);
  console.log(`  rss                ${mb(s.before.rss)} → ${mb(s.after.rss)} (+${mb(s.after.rss - s.before.rss)})`);
  console.log(`  indexBytes()       ${mb(s.indexBytes)} (${f(s.indexBytes / s.events, 1)} B/event)`);
}

// ---------------------------------------------------------------------------------------

async function cleanup(): Promise<void> {
  for (const child of children) child.kill('SIGKILL');
  await Promise.allSettled([...fixtures].map((fx) => fx.close()));
}

async function main(): Promise<void> {
  const deadline = setTimeout(() => {
    console.error(`bench: deadline of ${CONFIG.deadlineMs} ms exceeded, aborting`);
    void cleanup().finally(() => process.exit(1));
  }, CONFIG.deadlineMs);
  const started = performance.now();
  console.log(
    `switchboard bench: node ${process.version}, ${cpus().length} cpus (${cpus()[0]?.model.trim() ?? '?'}); ` +
      `echo: ${CONFIG.warmup} warm-up + ${CONFIG.rounds} rounds × ${CONFIG.calls} calls a side; ` +
      `flood: ${CONFIG.floodRounds} rounds × ${CONFIG.flood} notifications a side; store: ${CONFIG.storeEvents} events`,
  );
  console.log('sides: untracked = global fetch, tracked = createTrackingFetch → TraceHub; one client process a side, one fixture process a workload; rounds in ABBA order\n');

  const results: WorkloadResult[] = [];
  try {
    if (CONFIG.only.has('json')) results.push(await echoWorkload('json'));
    if (CONFIG.only.has('sse')) results.push(await echoWorkload('sse'));
    if (CONFIG.only.has('flood')) results.push(await floodWorkload());
    if (results.length) printWorkloads(results);
    if (CONFIG.only.has('store') && CONFIG.storeEvents > 0) printStore(await storeWorkload());
  } catch (error) {
    clearTimeout(deadline);
    await cleanup();
    throw error;
  }
  clearTimeout(deadline);
  console.log(`\nbench wall time ${f((performance.now() - started) / 1000, 1)} s`);
  if (results.length) console.log(`overhead_ratio=${Math.max(...results.map((r) => r.ratio)).toFixed(3)}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
