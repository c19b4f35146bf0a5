/**
 * The proxy's cost (#12): latency a request gains through `switchboard proxy` (stdio and HTTP),
 * and how soon the first event of an SSE stream arrives through it, against the same server
 * without it, measured in one run. Run by `npm run bench` (bench/run.ts), or alone:
 *
 *   npx electron-vite build && npx tsx bench/proxy.ts
 *
 * Method. One process here holds two 2.x SDK clients per transport: `direct` (stdio: spawns the
 * everything fixture; HTTP: connects to one fixture process) and `proxied` (stdio: spawns the
 * built `switchboard proxy -- <the same command>`; HTTP: connects to a `switchboard proxy
 * --upstream` in front of that same fixture process). The proxies record into a fresh library,
 * as they do by default. Each side warms up, then the sides alternate in short rounds of
 * sequential `tools/call echo` round trips (ABBA order), so load from elsewhere on the machine
 * hits both alike. Added latency = proxied quantile − direct quantile over every sample.
 * Time to first event: `slow_count` (3 progress notifications 20 ms apart on the POST's SSE
 * stream), from the call to the first progress notification, alternating sides; a proxy that
 * buffered the stream would show it at the end instead.
 *
 * Lines (last): proxy_stdio_added_p50_ms, proxy_http_added_p50_ms, proxy_sse_ttfe_direct_ms, and
 * proxy_goal (≤ 0.2 ms added at p50 on loopback) PASS/FAIL per proxy.
 *
 * The proxy process's own CPU time per request (Linux /proc, 10 ms ticks over the whole run) is
 * printed too: unlike wall-clock latency, it does not grow with the load of a shared machine.
 *
 * Knobs (env): BENCH_PROXY_CALLS (2000 a side), BENCH_PROXY_ROUND (100 calls a round),
 * BENCH_PROXY_WARMUP (200), BENCH_PROXY_TTFE (40 streams a side), BENCH_PROXY_BUDGET_MS (20000 a
 * latency workload: past it no new round starts, both sides having had the same rounds; the
 * number of samples measured is printed), BENCH_PROXY_FLAGS (more flags for both proxies, e.g.
 * `--no-library` to see what recording costs).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport, type Transport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { startFixture, stdioFixtureCommand, type RunningFixture } from '../test/fixtures/everything/harness';
import { spawnListening, type ListeningProcess } from '../test/fixtures/spawn-listening';
import { envInt, quantile, median } from './stats';
import { cpuMsOf } from './support/cpu-share';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SWITCHBOARD = join(REPO, 'bin', 'switchboard.mjs');
/** The goal (#12): at most this much added per request at p50 on loopback. */
const GOAL_P50_MS = 0.2;

const num = (name: string, fallback: number): number => envInt(name, fallback, 1);

const CONFIG = {
  calls: num('BENCH_PROXY_CALLS', 2000),
  round: num('BENCH_PROXY_ROUND', 100),
  warmup: num('BENCH_PROXY_WARMUP', 200),
  ttfe: num('BENCH_PROXY_TTFE', 40),
  budgetMs: num('BENCH_PROXY_BUDGET_MS', 20_000),
  /** More flags for both proxies (e.g. `--no-library`, to see what recording costs). */
  proxyFlags: (process.env['BENCH_PROXY_FLAGS'] ?? '').split(/\s+/).filter(Boolean),
};

type Side = 'direct' | 'proxied';
const SIDES: Side[] = ['direct', 'proxied'];
/** ABBA: even rounds direct first, odd rounds proxied first. */
const orderOf = (round: number): Side[] => (round % 2 === 0 ? SIDES : [...SIDES].reverse());

const cleanups: (() => Promise<void> | void)[] = [];

async function connect(side: Side, transport: Transport): Promise<Client> {
  const client = new Client({ name: `switchboard-bench-proxy-${side}`, version: '0.0.0' }, { versionNegotiation: { mode: 'legacy' } });
  await client.connect(transport, { timeout: 60_000 });
  cleanups.push(() => client.close().catch(() => {}));
  return client;
}

const TEXT = 'the quick brown fox jumps over the lazy dog';

async function echoRound(client: Client, calls: number, into: number[]): Promise<void> {
  for (let i = 0; i < calls; i++) {
    const t0 = performance.now();
    const result = await client.callTool({ name: 'echo', arguments: { text: TEXT } }, { timeout: 10_000 });
    into.push(performance.now() - t0);
    if (i === 0 && (result.content?.[0] as { text?: string } | undefined)?.text !== `echo: ${TEXT}`) throw new Error('echo returned something unexpected');
  }
}

interface Latencies {
  direct: number[];
  proxied: number[];
}

async function echoWorkload(clients: Record<Side, Client>): Promise<Latencies> {
  for (const side of SIDES) await echoRound(clients[side], CONFIG.warmup, []);
  const samples: Latencies = { direct: [], proxied: [] };
  const rounds = Math.max(1, Math.ceil(CONFIG.calls / CONFIG.round));
  const started = performance.now();
  // Rounds in pairs (ABBA), so that both sides always have had as many rounds, of each order.
  for (let round = 0; round < rounds; round++) {
    if (round % 2 === 0 && round > 0 && performance.now() - started > CONFIG.budgetMs) break;
    for (const side of orderOf(round)) await echoRound(clients[side], CONFIG.round, samples[side]);
  }
  return samples;
}

/** From the call to the first progress notification of `slow_count` (its POST answer is an SSE stream). */
async function firstEvent(client: Client): Promise<number> {
  let first: number | undefined;
  const t0 = performance.now();
  await client.callTool({ name: 'slow_count', arguments: { steps: 3, delayMs: 20 } }, {
    timeout: 10_000,
    onprogress: () => {
      first ??= performance.now() - t0;
    },
  });
  if (first === undefined) throw new Error('slow_count sent no progress notification');
  return first;
}

async function ttfeWorkload(clients: Record<Side, Client>): Promise<Latencies> {
  for (const side of SIDES) await firstEvent(clients[side]);
  const samples: Latencies = { direct: [], proxied: [] };
  for (let i = 0; i < CONFIG.ttfe; i++) {
    for (const side of orderOf(i)) samples[side].push(await firstEvent(clients[side]));
  }
  return samples;
}

/** Where the proxies record (a fresh library), unless BENCH_PROXY_FLAGS says `--no-library`; then the flags. */
const recordInto = (dataDir: string): string[] => [...(CONFIG.proxyFlags.includes('--no-library') ? [] : ['--data-dir', dataDir]), ...CONFIG.proxyFlags];

/** Runs `work`, and says how much CPU the proxy process spent per proxied request meanwhile. */
async function withProxyCpu<T extends Latencies>(pid: number | null | undefined, work: () => Promise<T>): Promise<{ samples: T; cpuPerRequestMs: number }> {
  const before = cpuMsOf(pid);
  const samples = await work();
  const after = cpuMsOf(pid);
  return { samples, cpuPerRequestMs: before === undefined || after === undefined ? NaN : (after - before) / (samples.proxied.length + CONFIG.warmup) };
}

async function startHttpProxy(upstream: string, dataDir: string): Promise<ListeningProcess> {
  const cli = ['proxy', '--name', 'bench http', ...recordInto(dataDir), '--upstream', upstream, '--port', '0'];
  const proxy = await spawnListening('switchboard proxy (bench)', SWITCHBOARD, cli, 30_000, [SWITCHBOARD, ...cli]);
  cleanups.push(() => proxy.close());
  return proxy;
}

// ---------------------------------------------------------------------------------------
// Output

const f = (value: number, digits = 3): string => (Number.isFinite(value) ? value.toFixed(digits) : '-');

function describe(label: string, samples: Latencies): { p50: number; p99: number } {
  const sorted = { direct: [...samples.direct].sort((a, b) => a - b), proxied: [...samples.proxied].sort((a, b) => a - b) };
  for (const side of SIDES) {
    const s = sorted[side];
    console.log(`  ${label} ${side.padEnd(7)}  n=${s.length}  p50 ${f(quantile(s, 0.5))} ms  p99 ${f(quantile(s, 0.99))} ms  max ${f(s.at(-1) ?? NaN)} ms`);
  }
  return { p50: quantile(sorted.proxied, 0.5) - quantile(sorted.direct, 0.5), p99: quantile(sorted.proxied, 0.99) - quantile(sorted.direct, 0.99) };
}

async function main(): Promise<void> {
  if (!existsSync(join(REPO, 'out', 'main', 'cli.js'))) {
    console.log('proxy bench: skipped, the CLI is not built (npx electron-vite build)');
    return;
  }
  const started = performance.now();
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-bench-proxy-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  console.log(`\nproxy bench: ${CONFIG.warmup} warm-up + ${CONFIG.calls} echo calls a side in rounds of ${CONFIG.round} (ABBA), ${CONFIG.ttfe} SSE streams a side; 2.x SDK client; proxies record into a fresh library`);

  // stdio: the same command, spawned directly and through the proxy.
  const fixture = stdioFixtureCommand();
  const stdioProxy = new StdioClientTransport({ command: process.execPath, args: [SWITCHBOARD, 'proxy', '--name', 'bench stdio', ...recordInto(dataDir), '--', fixture.command, ...fixture.args], stderr: 'ignore' });
  const stdio = {
    direct: await connect('direct', new StdioClientTransport({ command: fixture.command, args: fixture.args, stderr: 'ignore' })),
    proxied: await connect('proxied', stdioProxy),
  };
  const stdioRun = await withProxyCpu(stdioProxy.pid, () => echoWorkload(stdio));
  const stdioAdded = describe('stdio', stdioRun.samples);
  for (const side of SIDES) await stdio[side].close();

  // HTTP: one fixture process (2025 era, sessions, answers as SSE), directly and through the proxy.
  const upstream: RunningFixture = await startFixture({ transport: 'http', era: 'legacy', sessions: true });
  cleanups.push(() => upstream.close());
  const proxy = await startHttpProxy(upstream.url, dataDir);
  const http = {
    direct: await connect('direct', new StreamableHTTPClientTransport(new URL(upstream.url))),
    proxied: await connect('proxied', new StreamableHTTPClientTransport(new URL(proxy.url))),
  };
  const upstreamCpu = cpuMsOf(upstream.pid);
  const httpRun = await withProxyCpu(proxy.pid, () => echoWorkload(http));
  const upstreamAfter = cpuMsOf(upstream.pid);
  // The server answers both sides' calls: its CPU per request, to read the proxy's against.
  const upstreamPerRequest = upstreamCpu === undefined || upstreamAfter === undefined ? NaN : (upstreamAfter - upstreamCpu) / (httpRun.samples.direct.length + httpRun.samples.proxied.length + 2 * CONFIG.warmup);
  const httpAdded = describe('http ', httpRun.samples);
  const ttfe = await ttfeWorkload(http);
  describe('ttfe ', ttfe);

  const verdict = (added: number): string => (added <= GOAL_P50_MS ? 'PASS' : 'FAIL');
  console.log(`proxy_stdio_added_p50_ms=${f(stdioAdded.p50)} p99=${f(stdioAdded.p99)}`);
  console.log(`proxy_http_added_p50_ms=${f(httpAdded.p50)} p99=${f(httpAdded.p99)}`);
  console.log(`proxy_cpu_per_request_ms stdio=${f(stdioRun.cpuPerRequestMs)} http=${f(httpRun.cpuPerRequestMs)} (the proxy process's own CPU time; the HTTP server's own: ${f(upstreamPerRequest)})`);
  console.log(`proxy_sse_ttfe_direct_ms=${f(median(ttfe.direct))} proxied_ms=${f(median(ttfe.proxied))}`);
  console.log(`proxy_goal=added p50 <= ${GOAL_P50_MS} ms on loopback: stdio ${verdict(stdioAdded.p50)}, http ${verdict(httpAdded.p50)}`);
  console.log(`proxy bench wall time ${f((performance.now() - started) / 1000, 1)} s`);
}

async function cleanup(): Promise<void> {
  for (const step of cleanups.reverse()) await step();
}

main().then(cleanup, async (error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  await cleanup();
  process.exit(1);
});
