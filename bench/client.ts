/**
 * One benchmark client side, run as its own process by bench/run.ts (so the tracked side's
 * trace heap, GC debt and JIT state never leak into the untracked side's numbers).
 *
 *   node --import tsx bench/client.ts   (spawned with an IPC channel; argv: <url> <tracked|untracked>)
 *
 * Protocol (IPC): the parent sends `Command`s one at a time; the client answers each with a
 * `Reply`. Latencies are measured here, around each awaited SDK call.
 */
import { setMaxListeners } from 'node:events';
import { Client, StreamableHTTPClientTransport, type FetchLike } from '@modelcontextprotocol/client';
import { createTrackingFetch } from '../main/core/transport/tracking-fetch';
import { Redactor } from '../main/core/trace/redact';
import { InProcessProfiler, type ProfileSummary } from './profile';
import { appTrace } from './support/app-trace';

export type Side = 'tracked' | 'untracked';

export type Command =
  | { op: 'echo'; calls: number }
  | { op: 'flood'; count: number; every: number }
  | { op: 'stats' }
  /** Starts node:inspector's CPU profiler in this process (the next commands run under it). */
  | { op: 'profile-start' }
  /** Stops it: the profile's top self-time functions. */
  | { op: 'profile-stop'; top: number }
  | { op: 'close' };

export type Reply =
  | { op: 'ready' }
  /** `cpuMs`: user + system CPU time this client process spent during the run. */
  | { op: 'echo'; totalMs: number; cpuMs: number; latencies: number[] }
  /** `chunks`: ms taken by each run of `every` consecutive notifications. */
  | { op: 'flood'; totalMs: number; cpuMs: number; received: number; chunks: number[] }
  | { op: 'stats'; traceEvents: number; heapUsed: number; rss: number }
  | { op: 'profile-started' }
  | { op: 'profile'; summary: ProfileSummary }
  | { op: 'closed' }
  | { op: 'error'; message: string };

const [url, side] = process.argv.slice(2) as [string, Side];
if (!url || (side !== 'tracked' && side !== 'untracked') || !process.send) {
  process.stderr.write('bench/client.ts: spawn me from bench/run.ts (argv: <url> <tracked|untracked>, with an IPC channel)\n');
  process.exit(2);
}

const send = (reply: Reply): void => {
  process.send!(reply);
};

// The tracked side's trace is the app's: recorded as it happens, as by default (support/app-trace.ts;
// BENCH_TRACE takes it apart).
const redactor = new Redactor();
const trace = side === 'tracked' ? appTrace([redactor]) : undefined;
const hub = trace?.hub;
const fetchImpl: FetchLike | undefined = trace
  ? createTrackingFetch({
      server: 'bench',
      endpoint: new URL(url),
      transport: 'streamable-http',
      record: trace.record,
      redactor,
      now: trace.hub.now,
    })
  : undefined;

const client = new Client({ name: `switchboard-bench-${side}`, version: '0.0.0' }, { versionNegotiation: { mode: 'legacy' } });
const transport = new StreamableHTTPClientTransport(new URL(url), fetchImpl ? { fetch: fetchImpl } : {});

let received = 0;
let onNotification: (() => void) | undefined;
client.setNotificationHandler('notifications/message', () => {
  received++;
  onNotification?.();
});

const profiler = new InProcessProfiler();

const TEXT = 'the quick brown fox jumps over the lazy dog';

const cpuMsSince = (start: NodeJS.CpuUsage): number => {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};

async function echo(calls: number): Promise<Reply> {
  const latencies = new Array<number>(calls);
  const cpu = process.cpuUsage();
  const start = performance.now();
  for (let i = 0; i < calls; i++) {
    const t0 = performance.now();
    const result = await client.callTool({ name: 'echo', arguments: { text: TEXT } }, { timeout: 10_000 });
    latencies[i] = performance.now() - t0;
    if (i === 0 && (result.content?.[0] as { text?: string } | undefined)?.text !== `echo: ${TEXT}`) throw new Error('echo returned something unexpected');
  }
  const totalMs = performance.now() - start;
  return { op: 'echo', totalMs, cpuMs: cpuMsSince(cpu), latencies };
}

async function flood(count: number, every: number): Promise<Reply> {
  received = 0;
  const chunks: number[] = [];
  let chunkStart = performance.now();
  onNotification = () => {
    if (received % every === 0) {
      const t = performance.now();
      chunks.push(t - chunkStart);
      chunkStart = t;
    }
  };
  const cpu = process.cpuUsage();
  const start = (chunkStart = performance.now());
  // The result travels on the same SSE stream after every notification, so when it resolves all were handled.
  await client.callTool({ name: 'flood', arguments: { count } }, { timeout: 60_000 });
  const totalMs = performance.now() - start;
  const cpuMs = cpuMsSince(cpu);
  onNotification = undefined;
  if (received !== count) throw new Error(`flood: received ${received} of ${count} notifications`);
  return { op: 'flood', totalMs, cpuMs, received, chunks };
}

async function handle(command: Command): Promise<Reply> {
  switch (command.op) {
    case 'echo':
      return echo(command.calls);
    case 'flood':
      return flood(command.count, command.every);
    case 'stats': {
      const memory = process.memoryUsage();
      return { op: 'stats', traceEvents: hub?.store.size ?? 0, heapUsed: memory.heapUsed, rss: memory.rss };
    }
    case 'profile-start':
      await profiler.start();
      return { op: 'profile-started' };
    case 'profile-stop':
      return { op: 'profile', summary: await profiler.stop(command.top) };
    case 'close':
      await client.close().catch(() => {});
      trace?.close();
      return { op: 'closed' };
  }
}

// Commands are strictly sequential: the parent waits for each reply before sending the next.
process.on('message', (command: Command) => {
  handle(command).then(
    (reply) => {
      send(reply);
      if (reply.op === 'closed') process.disconnect();
    },
    (error: unknown) => send({ op: 'error', message: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
  );
});

try {
  await client.connect(transport);
  // undici adds one abort listener per request to the transport's long-lived AbortSignal and
  // drops it only when the Request is garbage-collected; past undici's limit of 1,500 every
  // request then builds and prints a MaxListenersExceededWarning, at a rate that depends on
  // each side's GC timing. Lift the limit (outside the measured path). Only the untracked side's
  // requests reach undici with this signal (the tracked side hands it one per exchange,
  // `exchangeSignal`), so only that side pays for the lifted limit: Node 20's undici asks
  // `getMaxListeners` of the signal on every request, which throws (caught) for a limit of 0,
  // ~6 µs of CPU a request in a hot loop, 0.5–1.5 % of an untracked call's client CPU. That makes
  // the client CPU ratio look better by about as much; left as the lesser distortion (without it
  // the untracked side builds and prints a warning per request instead).
  const signal = (transport as unknown as { _abortController?: AbortController })._abortController?.signal;
  if (signal) setMaxListeners(0, signal);
  send({ op: 'ready' });
} catch (error) {
  send({ op: 'error', message: `connect failed: ${error instanceof Error ? error.message : String(error)}` });
}
