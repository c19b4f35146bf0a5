/**
 * The call path's own cost (#15 item 2): what Switchboard adds to one tools/call on top of the
 * SDK's own `Client.callTool`, against the same server, in one run. Run by `npm run bench`
 * (once wired into bench/run.ts), or alone:
 *
 *   npx tsx bench/callpath.ts
 *
 * Method. One process holds four clients of one everything-fixture process (HTTP, legacy era,
 * sessions on), each calling `echo` sequentially:
 *   sdk       the SDK's Client over an untracked StreamableHTTPClientTransport (the floor);
 *   tracked   the same, its fetch the tracking fetch into a TraceHub (part B's share, printed
 *             for the record: the tracked transport is part of the call path);
 *   contract  Switchboard's core (`createCore`, memory settings) through `core.dispatch('callTool')`,
 *             as both carriers hand it a call: the dispatcher, the handler, the catalog, the
 *             connection, the SDK client over the tracking fetch;
 *   ws        the same core behind the real browser-mode carrier (`startWebHost`, in this
 *             process), called by a WebSocket client with the per-launch token, as the renderer
 *             does (it also receives the pushed trace batches and snapshots, as the renderer does).
 * Every side warms up, then the sides take turns in short rounds (ABBA: the order of the sides
 * is reversed every other round), so load from elsewhere on the machine hits them alike. Added
 * latency = side quantile − sdk quantile over every sample of the run.
 *
 * Goal: contract − sdk ≤ 0.5 ms at p50. Why 0.5 ms: on loopback one echo round trip of the SDK
 * costs ~1–3 ms here, of which the tracked transport (part B: recording every byte) is ~0.3 ms;
 * the rest of the path (validate the arguments, resolve the name in a cached catalog, one audit
 * record appended in memory, the history entry) is bookkeeping in memory, tens of µs when no
 * per-call rebuild, file write, trace query or extra round trip happens. 0.5 ms leaves room for
 * the tracked transport and that bookkeeping and no room for a second round trip (≥ 1 ms). The
 * WebSocket carrier's added latency is printed as an info row (it includes a loopback WebSocket
 * round trip and the JSON frames, which no in-process call pays).
 *
 * Client CPU per call: this process's CPU time (user + system) while each side ran its rounds,
 * over its calls. The sides take turns, so that time is the side's own (the fixture is another
 * process); unlike wall-clock latency it hardly moves with the load of a shared machine, so the
 * added CPU per call (contract − sdk) is printed as an info row beside the latency goal.
 *
 * Knobs (env): BENCH_CALLPATH_CALLS (1500 a side), BENCH_CALLPATH_ROUND (50 calls a round),
 * BENCH_CALLPATH_WARMUP (200 a side), BENCH_CALLPATH_BUDGET_MS (60000: past it no new round
 * starts; every side has had the same rounds, and the samples measured are printed),
 * BENCH_CALLPATH_ONLY (sides besides the SDK's, comma-separated: `tracked,contract,ws`; e.g.
 * `contract` for a CPU profile of that side with `node --cpu-prof --import tsx bench/callpath.ts`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { setMaxListeners } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Envelope } from '../contract';
import { createCore, type Core } from '../main/core/app';
import { MemorySettingsStore } from '../main/core/store/settings';
import { TraceHub } from '../main/core/trace/hub';
import { Redactor } from '../main/core/trace/redact';
import { createTrackingFetch } from '../main/core/transport/tracking-fetch';
import { startWebHost, type WebHost } from '../main/adapters/web/host';
import { startFixture, type RunningFixture } from '../test/fixtures/everything/harness';
import { HostClient } from '../test/support/host-client';
import { printGoals, missed, type GoalRow } from './goals';
import { envInt, quantile } from './stats';

/** The goal: Switchboard's callTool through the contract adds at most this much at p50. */
const GOAL_ADDED_P50_MS = 0.5;

const CONFIG = {
  calls: envInt('BENCH_CALLPATH_CALLS', 1500, 1),
  round: envInt('BENCH_CALLPATH_ROUND', 50, 1),
  warmup: envInt('BENCH_CALLPATH_WARMUP', 200, 0),
  budgetMs: envInt('BENCH_CALLPATH_BUDGET_MS', 60_000, 1),
  /** Only these sides besides the SDK's (comma-separated), e.g. `contract` for a CPU profile of that side. */
  only: (process.env['BENCH_CALLPATH_ONLY'] ?? '').split(',').filter(Boolean),
};

const TEXT = 'the quick brown fox jumps over the lazy dog';
const EXPECTED = `echo: ${TEXT}`;

type SideName = 'sdk' | 'tracked' | 'contract' | 'ws';
const SIDES: SideName[] = ['sdk', 'tracked', 'contract', 'ws'];

interface Side {
  name: SideName;
  /** One echo call; throws when the answer is not the echo. */
  call(): Promise<void>;
  close(): Promise<void>;
}

function checkEcho(result: { content?: unknown } | undefined, side: string): void {
  const text = (result?.content as { text?: string }[] | undefined)?.[0]?.text;
  if (text !== EXPECTED) throw new Error(`${side}: echo answered ${JSON.stringify(text)}`);
}

async function sdkSide(name: 'sdk' | 'tracked', url: string): Promise<Side> {
  const hub = name === 'tracked' ? new TraceHub(undefined) : undefined;
  const fetch = hub ? createTrackingFetch({ server: 'bench', endpoint: new URL(url), transport: 'streamable-http', record: hub.record, redactor: new Redactor(), now: hub.now }) : undefined;
  const client = new Client({ name: `switchboard-callpath-${name}`, version: '0.0.0' }, { versionNegotiation: { mode: 'legacy' } });
  const transport = new StreamableHTTPClientTransport(new URL(url), fetch ? { fetch } : {});
  await client.connect(transport);
  // undici's per-request abort listeners on the transport's long-lived signal (see bench/client.ts,
  // also for what the lifted limit costs the sides whose requests carry that signal).
  const signal = (transport as unknown as { _abortController?: AbortController })._abortController?.signal;
  if (signal) setMaxListeners(0, signal);
  return {
    name,
    call: async () => checkEcho((await client.callTool({ name: 'echo', arguments: { text: TEXT } }, { timeout: 10_000 })) as { content?: unknown }, name),
    close: async () => {
      await client.close().catch(() => {});
      hub?.close();
    },
  };
}

/** A core with one HTTP server connected (no pings, so the trace holds only the calls). */
async function startCore(url: string): Promise<{ core: Core; serverId: string }> {
  const core = createCore({ settings: new MemorySettingsStore(), carrier: 'browser', version: 'bench' });
  const added = await core.dispatch('addServer', { name: 'everything', target: { type: 'http', url }, pingIntervalSec: 0 });
  if (!added.ok) throw new Error(`addServer: ${added.error.message}`);
  const id = (added.result as { id: string }).id;
  const connected = await core.dispatch('connectServer', { id });
  if (!connected.ok || (connected.result as { state: string }).state !== 'connected') throw new Error(`connectServer: ${JSON.stringify(connected)}`);
  const signal = (core.connections.get(id) as unknown as { machine?: { transport?: { _abortController?: AbortController } } }).machine?.transport?._abortController?.signal;
  if (signal) setMaxListeners(0, signal);
  return { core, serverId: id };
}

const unwrap = (envelope: Envelope, side: string): { result: { content?: unknown } } => {
  if (!envelope.ok) throw new Error(`${side}: callTool failed: ${envelope.error.message}`);
  return envelope.result as { result: { content?: unknown } };
};

async function contractSide(url: string): Promise<Side> {
  const { core } = await startCore(url);
  return {
    name: 'contract',
    call: async () => checkEcho(unwrap(await core.dispatch('callTool', { tool: 'echo', args: { text: TEXT } }), 'contract').result, 'contract'),
    close: () => core.shutdown(),
  };
}

async function wsSide(url: string): Promise<Side> {
  const { core } = await startCore(url);
  const rendererDir = mkdtempSync(join(tmpdir(), 'sb-callpath-renderer-'));
  let host: WebHost | undefined;
  let client: HostClient | undefined;
  try {
    host = await startWebHost({ core, rendererDir });
    client = await HostClient.open({ url: host.url, origin: `http://127.0.0.1:${host.port}` });
  } catch (error) {
    await host?.close();
    await core.shutdown();
    rmSync(rendererDir, { recursive: true, force: true });
    throw error;
  }
  const ws = client;
  const web = host;
  return {
    name: 'ws',
    call: async () => checkEcho(unwrap(await ws.call('callTool', { tool: 'echo', args: { text: TEXT } }, 10_000), 'ws').result, 'ws'),
    close: async () => {
      ws.close();
      await web.close();
      await core.shutdown();
      rmSync(rendererDir, { recursive: true, force: true });
    },
  };
}

async function timed(side: Side, calls: number, into: number[]): Promise<void> {
  for (let i = 0; i < calls; i++) {
    const t0 = performance.now();
    await side.call();
    into.push(performance.now() - t0);
  }
}

const ms = (value: number): string => `${value.toFixed(3)} ms`;
const signed = (value: number): string => `${value >= 0 ? '+' : ''}${value.toFixed(3)} ms`;

export async function callPathWorkload(): Promise<GoalRow[]> {
  const fixture: RunningFixture = await startFixture({ transport: 'http', era: 'legacy', sessions: true });
  const sides: Side[] = [];
  try {
    const wanted = (name: SideName) => CONFIG.only.length === 0 || CONFIG.only.includes(name);
    sides.push(await sdkSide('sdk', fixture.url));
    if (wanted('tracked')) sides.push(await sdkSide('tracked', fixture.url));
    if (wanted('contract')) sides.push(await contractSide(fixture.url));
    let wsProblem: string | undefined = wanted('ws') ? undefined : 'not asked for (BENCH_CALLPATH_ONLY)';
    if (!wsProblem) try {
      sides.push(await wsSide(fixture.url));
    } catch (error) {
      wsProblem = error instanceof Error ? error.message : String(error);
      console.log(`callpath: the WebSocket side could not start (${wsProblem}); measured without it`);
    }
    console.log(`callpath: ${CONFIG.calls} sequential echo calls a side (rounds of ${CONFIG.round}, ${CONFIG.warmup} warm-up), sides ${sides.map((s) => s.name).join(', ')}, HTTP legacy era, ABBA`);
    for (const side of sides) await timed(side, CONFIG.warmup, []);

    const samples = new Map<SideName, number[]>(sides.map((s) => [s.name, []]));
    // This process's CPU time while each side ran its rounds (the sides take turns, so it is that side's).
    const cpuUs = new Map<SideName, number>(sides.map((s) => [s.name, 0]));
    const started = performance.now();
    let rounds = 0;
    for (let done = 0; done < CONFIG.calls && performance.now() - started < CONFIG.budgetMs; done += CONFIG.round, rounds++) {
      const n = Math.min(CONFIG.round, CONFIG.calls - done);
      const order = rounds % 2 === 0 ? sides : [...sides].reverse();
      for (const side of order) {
        const cpu = process.cpuUsage();
        await timed(side, n, samples.get(side.name)!);
        const used = process.cpuUsage(cpu);
        cpuUs.set(side.name, cpuUs.get(side.name)! + used.user + used.system);
      }
    }

    const stats = new Map<SideName, { p50: number; p99: number; n: number; cpuMs: number }>();
    for (const [name, values] of samples) {
      const sorted = [...values].sort((a, b) => a - b);
      stats.set(name, { p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99), n: sorted.length, cpuMs: cpuUs.get(name)! / 1000 / Math.max(1, sorted.length) });
    }
    const sdk = stats.get('sdk')!;
    for (const name of SIDES) {
      const s = stats.get(name);
      if (!s) continue;
      const added = name === 'sdk' ? '' : `  added p50 ${signed(s.p50 - sdk.p50)}  p99 ${signed(s.p99 - sdk.p99)}  CPU ${signed(s.cpuMs - sdk.cpuMs)}`;
      console.log(`callpath ${name.padEnd(8)} n=${s.n}  p50 ${ms(s.p50)}  p99 ${ms(s.p99)}  client CPU/call ${ms(s.cpuMs)}${added}`);
    }
    if (sdk.n < CONFIG.calls) console.log(`callpath: the time budget (${CONFIG.budgetMs} ms) ended the run after ${sdk.n} calls a side`);

    const contract = stats.get('contract');
    const tracked = stats.get('tracked');
    const ws = stats.get('ws');
    const addedContract = contract ? contract.p50 - sdk.p50 : NaN;
    const rows: GoalRow[] = [
      {
        what: 'call path: Switchboard callTool (contract) vs SDK callTool, added p50',
        ours: contract ? `${signed(addedContract)} (p99 ${signed(contract.p99 - sdk.p99)}; SDK p50 ${ms(sdk.p50)})` : 'not measured (BENCH_CALLPATH_ONLY)',
        goal: `≤ ${GOAL_ADDED_P50_MS} ms`,
        pass: contract ? addedContract <= GOAL_ADDED_P50_MS : null,
      },
      {
        what: 'call path: Switchboard callTool (contract) vs SDK callTool, added client CPU per call',
        ours: contract ? `${signed(contract.cpuMs - sdk.cpuMs)} (SDK ${ms(sdk.cpuMs)}${tracked ? `, SDK over the tracking fetch ${ms(tracked.cpuMs)}` : ''})` : 'not measured (BENCH_CALLPATH_ONLY)',
        goal: '—',
        pass: null,
        info: true,
      },
      {
        what: 'call path: of which the tracked transport (SDK over tracking fetch vs SDK), added p50',
        ours: tracked ? `${signed(tracked.p50 - sdk.p50)} (p99 ${signed(tracked.p99 - sdk.p99)})` : 'not measured (BENCH_CALLPATH_ONLY)',
        goal: '—',
        pass: null,
        info: true,
      },
      {
        what: 'call path: through the browser-mode WebSocket vs SDK callTool, added p50',
        ours: ws ? `${signed(ws.p50 - sdk.p50)} (p99 ${signed(ws.p99 - sdk.p99)})` : `not measured: ${wsProblem}`,
        goal: '—',
        pass: null,
        info: true,
      },
    ];
    console.log(`callpath_added_p50_ms=${addedContract.toFixed(3)}`);
    return rows;
  } finally {
    for (const side of sides) await side.close().catch(() => {});
    await fixture.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const rows = await callPathWorkload();
  printGoals(rows);
  process.exit(missed(rows) > 0 ? 1 : 0);
}
