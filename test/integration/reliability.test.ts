/**
 * Reliability against the fault lab (test/fixtures/flaky-server): every fault the lab can inject,
 * in each era it applies to (legacy 2025-11-25 Streamable HTTP with sessions; modern 2026-07-28),
 * driven through the core exactly as the UI drives it (`dispatch`). For each fault the test checks
 *   1. the state transitions (serverState events),
 *   2. the recovery, or the error the user gets,
 *   3. that the trace holds every event (seq 1..N, no gaps) and shows the fault,
 *   4. that a second, healthy server (the everything fixture) kept answering during and after,
 *   5. that no tools/call was sent twice by Switchboard on its own.
 * What is asserted here is what docs/reliability.md reports.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Envelope, Result, ServerConfigInput, ServerStatus, ToolEntry } from '../../contract';
import type { TraceEvent } from '../../contract/trace';
import { createCore, type Core } from '../../main/core/app';
import { MemorySettingsStore } from '../../main/core/store/settings';
import { startFixture, type RunningFixture } from '../fixtures/everything/harness';
import { flakyStdioCommand, startFlaky, type RunningFlaky, type StdioFault } from '../fixtures/flaky-server/harness';

type Era = 'legacy' | 'modern';
const ERAS: Era[] = ['legacy', 'modern'];
/** The reconnect backoff's base for these tests: 50 ms, 100 ms, 200 ms … */
const BACKOFF_MS = 50;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

// Child processes start slowly on a busy machine: generous outer limits, tight fault timings.
vi.setConfig({ testTimeout: 60_000 });

// ---------------------------------------------------------------------------------------
// One world per test: a fresh core, the lab process(es), the shared healthy fixture.

const cores: Core[] = [];
const processes: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const core of cores.splice(0)) await core.shutdown();
  await Promise.all(processes.splice(0).map((close) => close()));
});

/** The healthy second server. It is never faulted; each test connects its own fresh core to it. */
let healthy: RunningFixture;
beforeAll(async () => {
  healthy = await startFixture({ transport: 'http', era: 'both' });
});
afterAll(async () => {
  await healthy?.close();
});

async function lab(options: Parameters<typeof startFlaky>[0] = {}): Promise<RunningFlaky> {
  const running = await startFlaky({ era: 'both', name: 'lab', ...options });
  processes.push(() => running.close());
  return running;
}

type CallReply = Envelope<Result<'callTool'>> & { ms: number };

class World {
  readonly core: Core;
  private readonly seen = new Map<string, ServerStatus[]>();

  constructor() {
    this.core = createCore({ settings: new MemorySettingsStore(), carrier: 'browser', version: 't', backoffBaseMs: BACKOFF_MS });
    cores.push(this.core);
    this.core.events.subscribe((event, payload) => {
      if (event !== 'serverState') return;
      const status = payload as ServerStatus;
      (this.seen.get(status.id) ?? this.seen.set(status.id, []).get(status.id)!).push(status);
    });
  }

  async add(input: ServerConfigInput): Promise<string> {
    const reply = await this.core.dispatch('addServer', input);
    if (!reply.ok) throw new Error(reply.error.message);
    return (reply.result as ServerStatus).id;
  }

  /** connectServer: resolves after the first attempt (connected, or failed with a retry scheduled). */
  async connect(id: string): Promise<ServerStatus> {
    const reply = await this.core.dispatch('connectServer', { id });
    if (!reply.ok) throw new Error(reply.error.message);
    return reply.result as ServerStatus;
  }

  async disconnect(id: string): Promise<void> {
    const reply = await this.core.dispatch('disconnectServer', { id });
    if (!reply.ok) throw new Error(reply.error.message);
  }

  status(id: string): ServerStatus {
    return this.core.connections.get(id)!.status();
  }

  async waitForState(id: string, state: ServerStatus['state'], timeout = 30_000): Promise<ServerStatus> {
    await expect.poll(() => this.status(id).state, { timeout, interval: 20 }).toBe(state);
    return this.status(id);
  }

  /** Every serverState event of a server, in order. */
  statuses(id: string): ServerStatus[] {
    return this.seen.get(id) ?? [];
  }

  /** The state names, with the attempt number when there is one: `reconnecting#2`. */
  states(id: string): string[] {
    return this.statuses(id).map((s) => (s.attempt ? `${s.state}#${s.attempt}` : s.state));
  }

  async call(tool: string, args: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): Promise<CallReply> {
    const started = performance.now();
    const reply = (await this.core.dispatch('callTool', { tool, args, ...extra })) as Envelope<Result<'callTool'>>;
    return { ...reply, ms: performance.now() - started };
  }

  /** A tools/list through the server's live client (both eras): a request that round-trips after everything sent before it. */
  async roundTrip(id: string): Promise<void> {
    await this.core.connections.get(id)!.withClient('tools/list', true, (client, timeoutMs) => client.listTools(undefined, { timeout: timeoutMs }));
  }

  async tools(serverId?: string): Promise<ToolEntry[]> {
    const reply = await this.core.dispatch('listTools', serverId ? { serverId } : {});
    if (!reply.ok) throw new Error(reply.error.message);
    return reply.result as ToolEntry[];
  }

  events(server: string): TraceEvent[] {
    return [...this.core.trace.store.all()].filter((e) => e.server === server);
  }

  /** Every tools/call that left Switchboard for this server: HTTP POSTs or stdio lines. */
  toolCallsSent(server: string): TraceEvent[] {
    return this.events(server).filter((e) => (e.kind === 'http-request' || e.kind === 'jsonrpc-out') && e.rpc?.kind === 'request' && e.rpc.method === 'tools/call');
  }

  /** The `text` argument of every tools/call sent to this server, in the order they went out. */
  toolCallTexts(server: string): unknown[] {
    return this.toolCallsSent(server).map((e) => (e.body as { params?: { arguments?: { text?: unknown } } } | undefined)?.params?.arguments?.text);
  }

  /** The events of one HTTP exchange. */
  exchange(server: string, exchange: string | undefined): TraceEvent[] {
    return this.events(server).filter((e) => e.exchange !== undefined && e.exchange === exchange);
  }

  reconnectDelays(server: string): unknown[] {
    return this.events(server)
      .filter((e) => e.kind === 'reconnect' && e.meta?.delayMs !== undefined)
      .map((e) => e.meta!.delayMs);
  }

  /** seq runs 1..N over the whole store: nothing lost, nothing repeated. */
  expectGapless(): void {
    const all = [...this.core.trace.store.all()];
    expect(all.length).toBe(this.core.trace.store.size);
    expect(all.length).toBeGreaterThan(0);
    const firstBad = all.findIndex((event, index) => event.seq !== index + 1);
    expect(firstBad, `seq gap at index ${firstBad}`).toBe(-1);
  }
}

/** The healthy server answering calls in a loop while a fault plays out on the other one. */
function heartbeat(world: World, tool = 'healthy__echo') {
  let stopped = false;
  let ok = 0;
  const failures: string[] = [];
  let answered!: () => void;
  const firstAnswer = new Promise<void>((resolve) => (answered = resolve));
  const loop = (async () => {
    while (!stopped) {
      const reply = await world.call(tool, { text: 'beat' });
      if (reply.ok) ok++;
      else failures.push(reply.error.message);
      answered();
      await sleep(25); // pacing of the load, not a wait before an assertion
    }
  })();
  return {
    /** Stops after at least one answer; resolves with what happened. */
    async stop(): Promise<{ ok: number; failures: string[] }> {
      await firstAnswer;
      stopped = true;
      await loop;
      return { ok, failures };
    },
  };
}

/** Point 4: the healthy server answered every call during the fault, and answers after it. */
async function expectHealthyThroughout(world: World, beat: ReturnType<typeof heartbeat>): Promise<void> {
  const during = await beat.stop();
  expect(during.failures).toEqual([]);
  expect(during.ok).toBeGreaterThan(0);
  const after = await world.call('healthy__echo', { text: 'after' });
  expect(after.ok).toBe(true);
  if (after.ok) expect(JSON.stringify(after.result.result)).toContain('echo: after');
}

interface Setup {
  world: World;
  flaky: RunningFlaky;
  labId: string;
  healthyId: string;
}

const LAB_CONFIG = { retries: 2, requestTimeoutSec: 5, connectTimeoutSec: 5, pingIntervalSec: 0 } as const;

/** A fresh core with the healthy server connected and an HTTP lab added (not connected). */
async function setupHttp(era: Era, config: Partial<ServerConfigInput> = {}, labOptions: Parameters<typeof startFlaky>[0] = {}): Promise<Setup> {
  const starting = lab(labOptions);
  const world = new World();
  const healthyId = await world.add({ name: 'healthy', target: { type: 'http', url: healthy.url }, era, pingIntervalSec: 0 });
  expect((await world.connect(healthyId)).state).toBe('connected');
  const flaky = await starting;
  // The heartbeat is off (pingIntervalSec 0) so that pings neither consume nor trip the faults.
  const labId = await world.add({ name: 'lab', target: { type: 'http', url: flaky.url }, era, ...LAB_CONFIG, ...config });
  return { world, flaky, labId, healthyId };
}

async function setupStdio(era: Era, fault: StdioFault, config: Partial<ServerConfigInput> = {}): Promise<Omit<Setup, 'flaky'>> {
  const world = new World();
  const healthyId = await world.add({ name: 'healthy', target: { type: 'http', url: healthy.url }, era, pingIntervalSec: 0 });
  const { command, args } = flakyStdioCommand(fault, ['--era', 'both', '--name', 'lab']);
  // connectTimeoutSec 20: the spawn (node + tsx) must never be what times out, except where that is the point.
  const labId = await world.add({ name: 'lab', target: { type: 'stdio', command, args }, era, ...LAB_CONFIG, connectTimeoutSec: 20, ...config });
  expect((await world.connect(healthyId)).state).toBe('connected');
  return { world, labId, healthyId };
}

function textOf(reply: CallReply): string {
  if (!reply.ok) throw new Error(`call failed: ${reply.error.message}`);
  const content = (reply.result.result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.map((c) => c.text ?? '').join('');
}

function errorOf(reply: CallReply): string {
  if (reply.ok) throw new Error('expected the call to fail');
  return reply.error.message;
}

/** The exchange that carried the n-th tools/call to a server (0-based). */
function callExchange(world: World, server: string, n: number): TraceEvent[] {
  const request = world.toolCallsSent(server)[n];
  expect(request, `tools/call #${n}`).toBeDefined();
  return world.exchange(server, request!.exchange);
}

const responseOf = (events: TraceEvent[]) => events.find((e) => e.kind === 'http-response');
const endOf = (events: TraceEvent[]) => events.find((e) => e.kind === 'http-end');

// ---------------------------------------------------------------------------------------

describe.each(ERAS)('HTTP faults, %s era', (era) => {
  it('latency: the call completes, slower, and the latency shows in the snapshot', async () => {
    const { world, flaky, labId } = await setupHttp(era);
    await world.connect(labId);
    await flaky.setFaults({ type: 'latency', ms: 400, method: 'tools/call' });
    const beat = heartbeat(world);

    const reply = await world.call('lab__echo', { text: 'slow' });
    expect(textOf(reply)).toContain('echo: slow');
    expect(reply.ok && reply.result.durationMs).toBeGreaterThanOrEqual(400);
    await expectHealthyThroughout(world, beat);

    expect(world.states(labId)).toEqual(['connecting', 'connected']);
    const snapshot = world.core.trace.snapshots.snapshot(labId)!;
    expect(snapshot.latency['tools/call']).toMatchObject({ count: 1 });
    expect(snapshot.latency['tools/call']!.max).toBeGreaterThanOrEqual(400);
    expect(snapshot.latency['tools/call']!.p50).toBeGreaterThanOrEqual(400);
    expect(snapshot.inFlight).toEqual([]);
    // the wait is before the response headers: time to first byte carries it
    expect(responseOf(callExchange(world, labId, 0))!.http!.ttfbMs).toBeGreaterThanOrEqual(400);
    expect(world.toolCallsSent(labId)).toHaveLength(1);
    world.expectGapless();
  });

  it('HTTP 500 on connect: retries with backoff, gives up with the status; recovers once the 500s stop', async () => {
    const { world, flaky, labId } = await setupHttp(era);
    await flaky.setFaults({ type: 'http-error', status: 500 });
    const beat = heartbeat(world);

    await world.connect(labId);
    const failed = await world.waitForState(labId, 'error');
    expect(world.states(labId)).toEqual(['connecting', 'reconnecting#2', 'connecting#2', 'reconnecting#3', 'connecting#3', 'error']);
    expect(world.reconnectDelays(labId)).toEqual([BACKOFF_MS, 2 * BACKOFF_MS]);
    expect(failed.errorKind).toBe('protocol');
    expect(failed.error).toContain(`${flaky.url} answered HTTP 500`);
    expect(failed.error).toMatch(/Switchboard gave up after 3 attempts\.$/);
    for (const s of world.statuses(labId).filter((s) => s.state === 'reconnecting')) expect(s.nextAttemptAt).toBeGreaterThan(s.since - 1);

    // The 500s stop after two more: the next connect recovers on its third attempt.
    await flaky.setFaults({ type: 'http-error', status: 500, times: 2 });
    await world.connect(labId);
    await world.waitForState(labId, 'connected');
    expect(world.states(labId).slice(6)).toEqual(['connecting', 'reconnecting#2', 'connecting#2', 'reconnecting#3', 'connecting#3', 'connected']);
    expect(textOf(await world.call('lab__echo', { text: 'up' }))).toContain('echo: up');
    await expectHealthyThroughout(world, beat);

    // The trace shows each 500 (3 + 2 first requests of a connect: initialize / server/discover).
    const fiveHundreds = world.events(labId).filter((e) => e.kind === 'http-response' && e.http?.status === 500);
    expect(fiveHundreds).toHaveLength(5);
    const firstMethod = era === 'legacy' ? 'initialize' : 'server/discover';
    for (const response of fiveHundreds) expect(world.exchange(labId, response.exchange).find((e) => e.kind === 'http-request')!.rpc?.method).toBe(firstMethod);
    expect(world.toolCallsSent(labId)).toHaveLength(1);
    world.expectGapless();
  });

  it('HTTP 500 on a call: the call fails once, is not repeated, and the connection stays up', async () => {
    const { world, flaky, labId } = await setupHttp(era);
    await world.connect(labId);
    await flaky.setFaults({ type: 'http-error', status: 500, method: 'tools/call', times: 1 });
    const beat = heartbeat(world);

    const failed = await world.call('lab__echo', { text: 'a' });
    // The message is the SDK's with the response body (the lab's body names the status).
    expect(errorOf(failed)).toBe('lab: tools/call failed with HTTP 500. Error POSTing to endpoint: flaky-lab: injected HTTP 500\n');
    expect(textOf(await world.call('lab__echo', { text: 'b' }))).toContain('echo: b');
    await expectHealthyThroughout(world, beat);

    expect(world.states(labId)).toEqual(['connecting', 'connected']);
    expect(world.toolCallsSent(labId)).toHaveLength(2);
    expect(responseOf(callExchange(world, labId, 0))!.http).toMatchObject({ status: 500 });
    expect(world.core.trace.snapshots.snapshot(labId)!.inFlight).toEqual([]);
    world.expectGapless();
  });

  it('HTTP 503 + Retry-After on connect: retried on the backoff schedule, then connected', async () => {
    const { world, flaky, labId } = await setupHttp(era);
    await flaky.setFaults({ type: 'http-error', status: 503, retryAfter: 2, times: 2, body: 'Service Unavailable' });
    const beat = heartbeat(world);

    await world.connect(labId);
    await world.waitForState(labId, 'connected');
    expect(world.states(labId)).toEqual(['connecting', 'reconnecting#2', 'connecting#2', 'reconnecting#3', 'connecting#3', 'connected']);
    const retrying = world.statuses(labId).filter((s) => s.state === 'reconnecting');
    // The status is named even though the body does not repeat it.
    for (const s of retrying) expect(s.error).toContain(`${flaky.url} answered HTTP 503`);
    // Backoff only: the server's Retry-After (2 s) does not lengthen the wait (a gap, see docs/reliability.md).
    expect(world.reconnectDelays(labId)).toEqual([BACKOFF_MS, 2 * BACKOFF_MS]);
    await expectHealthyThroughout(world, beat);

    const unavailable = world.events(labId).filter((e) => e.kind === 'http-response' && e.http?.status === 503);
    expect(unavailable).toHaveLength(2);
    for (const response of unavailable) expect(response.http!.headers!['retry-after']).toBe('2');
    world.expectGapless();
  });

  it('HTTP 503 + Retry-After on a call: the call fails with the status in the message, not retried', async () => {
    const { world, flaky, labId } = await setupHttp(era);
    await world.connect(labId);
    await flaky.setFaults({ type: 'http-error', status: 503, retryAfter: 2, method: 'tools/call', times: 1 });
    const beat = heartbeat(world);

    const failed = await world.call('lab__echo', { text: 'a' });
    expect(errorOf(failed)).toContain('Error POSTing to endpoint');
    expect(errorOf(failed)).toContain('HTTP 503');
    // Nothing goes out behind the user's back: a repeat would be sent before the call settles,
    // and any later one would show between 'a' and the next call, or after it by the end.
    expect(world.toolCallTexts(labId)).toEqual(['a']);
    expect(textOf(await world.call('lab__echo', { text: 'b' }))).toContain('echo: b');
    expect(world.toolCallTexts(labId)).toEqual(['a', 'b']);
    await expectHealthyThroughout(world, beat);

    expect(world.states(labId)).toEqual(['connecting', 'connected']);
    expect(world.toolCallTexts(labId)).toEqual(['a', 'b']);
    expect(responseOf(callExchange(world, labId, 0))!.http).toMatchObject({ status: 503, headers: expect.objectContaining({ 'retry-after': '2' }) });
    world.expectGapless();
  });

  it('connection reset mid-response and before the headers: the call fails, the reset is in the trace', async () => {
    const { world, flaky, labId } = await setupHttp(era);
    await world.connect(labId);
    const beat = heartbeat(world);

    // Reset after the headers and 16 body bytes: the request WAS handled by the server.
    await flaky.setFaults({ type: 'reset', method: 'tools/call', times: 1 });
    const midBody = await world.call('lab__echo', { text: 'a' }, { timeoutMs: 1000 });
    if (era === 'legacy') {
      // The SSE answer dies before its priming event: the SDK cannot resume and never fails the
      // request, so the call waits out its timeout (a gap, see docs/reliability.md).
      expect(errorOf(midBody)).toMatch(/^lab: tools\/call timed out after \d+(\.\d+)? s with no answer\. .*Request timed out$/);
      expect(midBody.ms).toBeGreaterThanOrEqual(950);
    } else {
      expect(errorOf(midBody)).toBe('lab: the connection failed during tools/call (terminated). Switchboard reconnects by itself; the call was not repeated.');
      expect(midBody.ms).toBeLessThan(900);
    }
    const cut = callExchange(world, labId, 0);
    expect(responseOf(cut)!.http!.status).toBe(200);
    expect(endOf(cut)).toMatchObject({ http: { end: 'error' }, text: expect.stringContaining('ECONNRESET') });

    // Reset before any byte: fetch itself fails.
    await flaky.setFaults({ type: 'reset', phase: 'before-headers', method: 'tools/call', times: 1 });
    const beforeHeaders = await world.call('lab__echo', { text: 'b' }, { timeoutMs: 1000 });
    expect(errorOf(beforeHeaders)).toBe('lab: the connection failed during tools/call (fetch failed). Switchboard reconnects by itself; the call was not repeated.');
    expect(beforeHeaders.ms).toBeLessThan(900);
    const refused = callExchange(world, labId, 1);
    expect(responseOf(refused)).toBeUndefined();
    expect(endOf(refused)).toMatchObject({ http: { end: 'error' }, text: expect.stringContaining('ECONNRESET') });

    expect(textOf(await world.call('lab__echo', { text: 'c' }))).toContain('echo: c');
    await expectHealthyThroughout(world, beat);
    expect(world.states(labId)).toEqual(['connecting', 'connected']);
    expect(world.toolCallsSent(labId)).toHaveLength(3);
    if (era === 'legacy') {
      // the timed-out call was cancelled on the wire
      const cancelled = world.events(labId).filter((e) => e.kind === 'http-request' && e.rpc?.method === 'notifications/cancelled');
      expect(cancelled.map((e) => (e.body as { params: { requestId: unknown } }).params.requestId)).toEqual([world.toolCallsSent(labId)[0]!.rpc!.id]);
    }
    expect(world.core.trace.snapshots.snapshot(labId)!.inFlight).toEqual([]);
    world.expectGapless();
  });

  it('SSE stream cut mid-response, with event ids and a retry hint', async () => {
    const { world, flaky, labId } = await setupHttp(era);
    await world.connect(labId);
    const beat = heartbeat(world);

    if (era === 'legacy') {
      // Cut right before the response; the lab writes `retry: 100`. The SDK resumes with GET +
      // Last-Event-ID and the server replays the response: the call succeeds.
      await flaky.setFaults({ type: 'sse-cut', method: 'tools/call', retryMs: 100, times: 1 });
      const reply = await world.call('lab__echo', { text: 'resumed' });
      expect(textOf(reply)).toContain('echo: resumed');

      const post = callExchange(world, labId, 0);
      const request = post.find((e) => e.kind === 'http-request')!;
      expect(post.filter((e) => e.kind === 'sse-retry').map((e) => e.sse?.retry)).toEqual([100]);
      expect(post.some((e) => e.kind === 'sse-event' && e.rpc?.kind === 'result')).toBe(false);
      expect(endOf(post)!.http!.end).toBe('server-closed');
      const priming = post.find((e) => e.kind === 'sse-event' && e.sse?.priming)!;
      const resumption = world.events(labId).filter((e) => e.channel === 'resumption' && e.kind === 'http-request');
      expect(resumption).toHaveLength(1);
      expect(resumption[0]!.http!.headers!['last-event-id']).toBe(priming.sse!.id);
      const replayed = world.exchange(labId, resumption[0]!.exchange).find((e) => e.kind === 'sse-event' && e.rpc?.kind === 'result');
      expect(replayed!.rpc!.id).toBe(request.rpc!.id);
    } else {
      // The modern per-request stream has no event store. The lab numbers the events it forwards
      // (lab-1, lab-2), so the SDK tries GET + Last-Event-ID; a modern server answers 400, twice,
      // and the call waits out its timeout: a clear trace, an unclear error (see the gaps).
      await flaky.setFaults({ type: 'sse-cut', method: 'tools/call', afterEvents: 2, retryMs: 100, times: 1 });
      const reply = await world.call('lab__slow_count', { steps: 4, delayMs: 50 }, { timeoutMs: 1000, callId: 'cut-1' });
      expect(errorOf(reply)).toMatch(/^lab: tools\/call timed out after \d+(\.\d+)? s with no answer\. .*Request timed out$/);

      const post = callExchange(world, labId, 0);
      expect(post.filter((e) => e.kind === 'sse-event').map((e) => [e.sse?.id, e.rpc?.method])).toEqual([
        ['lab-1', 'notifications/progress'],
        ['lab-2', 'notifications/progress'],
      ]);
      expect(post.filter((e) => e.kind === 'sse-retry').map((e) => e.sse?.retry)).toEqual([100]);
      expect(endOf(post)!.http!.end).toBe('server-closed');
      const resumption = world.events(labId).filter((e) => e.channel === 'resumption' && e.kind === 'http-request');
      expect(resumption.map((e) => e.http!.headers!['last-event-id'])).toEqual(['lab-2', 'lab-2']);
      for (const r of resumption) expect(responseOf(world.exchange(labId, r.exchange))!.http!.status).toBe(400);
    }

    expect(textOf(await world.call('lab__echo', { text: 'next' }))).toContain('echo: next');
    await expectHealthyThroughout(world, beat);
    expect(world.states(labId)).toEqual(['connecting', 'connected']);
    expect(world.toolCallsSent(labId)).toHaveLength(2); // resumption is a GET, never a second POST
    world.expectGapless();
  });

  it('SSE stream cut mid-response without event ids (clean EOF, then a partial event + reset): the call times out', async () => {
    const { world, flaky, labId } = await setupHttp(era);
    await world.connect(labId);
    const beat = heartbeat(world);

    await flaky.setFaults({ type: 'sse-cut', method: 'tools/call', eventIds: false, times: 1 });
    const clean = await world.call('lab__echo', { text: 'a' }, { timeoutMs: 1000 });
    expect(errorOf(clean)).toMatch(/^lab: tools\/call timed out after \d+(\.\d+)? s with no answer\. .*Request timed out$/);
    expect(clean.ms).toBeGreaterThanOrEqual(950);
    const first = callExchange(world, labId, 0);
    expect(endOf(first)!.http!.end).toBe('server-closed');
    expect(first.some((e) => e.rpc?.kind === 'result')).toBe(false);
    for (const e of first.filter((e) => e.kind === 'sse-event')) expect(e.sse?.id).toBeUndefined();

    await flaky.setFaults({ type: 'sse-cut', method: 'tools/call', eventIds: false, partial: true, how: 'reset', times: 1 });
    const reset = await world.call('lab__echo', { text: 'b' }, { timeoutMs: 1000 });
    expect(errorOf(reset)).toMatch(/^lab: tools\/call timed out after \d+(\.\d+)? s with no answer\. .*Request timed out$/);
    const second = callExchange(world, labId, 1);
    expect(endOf(second)).toMatchObject({ http: { end: 'error' }, text: expect.stringContaining('ECONNRESET') });
    expect(second.some((e) => e.rpc?.kind === 'result')).toBe(false);

    expect(textOf(await world.call('lab__echo', { text: 'c' }))).toContain('echo: c');
    await expectHealthyThroughout(world, beat);
    expect(world.states(labId)).toEqual(['connecting', 'connected']);
    // no resumption without ids, and no second POST either
    expect(world.events(labId).filter((e) => e.channel === 'resumption')).toEqual([]);
    expect(world.toolCallsSent(labId)).toHaveLength(3);
    world.expectGapless();
  });

  it('401 after N requests: the failing call is not retried; the next connect is an auth error, not retried', async () => {
    const { world, flaky, labId } = await setupHttp(era);
    await world.connect(labId);
    await flaky.setFaults({ type: 'unauthorized', after: 2 });
    const beat = heartbeat(world);

    expect(textOf(await world.call('lab__echo', { text: '1' }))).toContain('echo: 1');
    expect(textOf(await world.call('lab__echo', { text: '2' }))).toContain('echo: 2');
    const third = await world.call('lab__echo', { text: '3' });
    // Switchboard would sign in, but the server publishes no OAuth metadata: the 401 is reported as it came.
    expect(errorOf(third)).toMatch(/^lab: tools\/call failed with HTTP 401\. The server answered HTTP 401 \(invalid_token: The access token expired\) and publishes no OAuth metadata/);
    // Not retried: a repeat would go out before the call settles; the check at the end (after a reconnect and more calls) catches a late one.
    expect(world.toolCallTexts(labId)).toEqual(['1', '2', '3']);
    const challenge = responseOf(callExchange(world, labId, 2))!.http!;
    expect(challenge.status).toBe(401);
    expect(challenge.headers!['www-authenticate']).toContain('error="invalid_token"');
    // A 401 on a call leaves the server "connected" (a gap, see docs/reliability.md).
    expect(world.status(labId).state).toBe('connected');

    // Reconnecting meets the 401 during the handshake: an auth error, no retry.
    await world.disconnect(labId);
    await world.connect(labId);
    const status = world.status(labId);
    expect(status).toMatchObject({ state: 'error', errorKind: 'auth' });
    expect(status.error).toContain(`${flaky.url}: The server answered HTTP 401`);
    expect(status.error).toMatch(/Switchboard did not retry, because HTTP 401 asks for a sign-in, not a retry\.$/);
    // A retry is decided when the attempt fails, before connect resolves: it would have traced a
    // `reconnect` with its delay and put the next attempt's time in the status.
    expect(status.nextAttemptAt).toBeUndefined();
    expect(world.states(labId)).toEqual(['connecting', 'connected', 'disconnected', 'connecting', 'error']);
    expect(world.reconnectDelays(labId)).toEqual([]);
    await expectHealthyThroughout(world, beat);
    // and still nothing, after the healthy server's round trips
    expect(world.states(labId)).toEqual(['connecting', 'connected', 'disconnected', 'connecting', 'error']);
    expect(world.reconnectDelays(labId)).toEqual([]);
    expect(world.toolCallTexts(labId)).toEqual(['1', '2', '3']);
    world.expectGapless();
  });

  it('403 insufficient_scope: a call fails naming the scope; on connect it is an auth error, not retried', async () => {
    const { world, flaky, labId } = await setupHttp(era);
    await world.connect(labId);
    await flaky.setFaults({ type: 'forbidden', scope: 'files:write', method: 'tools/call' });
    const beat = heartbeat(world);

    const failed = await world.call('lab__echo', { text: 'a' });
    expect(errorOf(failed)).toMatch(/^lab: tools\/call failed with HTTP 403\. The server answered HTTP 403 \(insufficient_scope: The request requires scope files:write\) and publishes no OAuth metadata/);
    // no step-up (the server publishes no OAuth metadata): a repeat would go out before the call settles; checked again at the end
    expect(world.toolCallTexts(labId)).toEqual(['a']);
    const challenge = responseOf(callExchange(world, labId, 0))!.http!;
    expect(challenge.status).toBe(403);
    expect(challenge.headers!['www-authenticate']).toMatch(/error="insufficient_scope".*scope="files:write"/);
    expect(world.status(labId).state).toBe('connected');

    await world.disconnect(labId);
    await flaky.setFaults({ type: 'forbidden', scope: 'files:write' });
    await world.connect(labId);
    const status = world.status(labId);
    expect(status).toMatchObject({ state: 'error', errorKind: 'auth' });
    expect(status.error).toMatch(/The server answered HTTP 403 \(insufficient_scope: .*files:write\) and publishes no OAuth metadata.* Switchboard did not retry, because HTTP 403 asks for a sign-in, not a retry\.$/);
    // A retry is decided before connect resolves (a traced `reconnect`, the next attempt's time in the status).
    expect(status.nextAttemptAt).toBeUndefined();
    expect(world.reconnectDelays(labId)).toEqual([]);
    expect(world.states(labId)).toEqual(['connecting', 'connected', 'disconnected', 'connecting', 'error']);
    await expectHealthyThroughout(world, beat);
    expect(world.reconnectDelays(labId)).toEqual([]);
    expect(world.states(labId)).toEqual(['connecting', 'connected', 'disconnected', 'connecting', 'error']);
    expect(world.toolCallTexts(labId)).toEqual(['a']);
    world.expectGapless();
  });

  it('malformed answers (invalid JSON, invalid JSON in SSE, JSON that is not JSON-RPC, text/html): each call fails alone', async () => {
    const { world, flaky, labId } = await setupHttp(era);
    await world.connect(labId);
    const beat = heartbeat(world);
    const malformed = async (variant: 'invalid-json' | 'invalid-json-sse' | 'not-jsonrpc' | 'wrong-content-type') => {
      await flaky.setFaults({ type: 'malformed', variant, method: 'tools/call', times: 1 });
      return world.call('lab__echo', { text: variant }, { timeoutMs: 1000 });
    };

    // 1. truncated JSON with application/json
    expect(errorOf(await malformed('invalid-json'))).toMatch(/^lab: the server's answer to tools\/call was not valid MCP: Unterminated string in JSON at position \d+$/);
    const invalid = callExchange(world, labId, 0);
    expect(responseOf(invalid)!.http).toMatchObject({ status: 200, contentType: 'application/json' });
    expect(endOf(invalid)).toMatchObject({ http: { end: 'complete' }, body: expect.stringContaining('{"jsonrpc":"2.0"') });
    expect(endOf(invalid)!.rpc).toBeUndefined();

    // 2. an SSE event whose data is not JSON: the SDK drops it and waits for an answer that never comes
    const sse = await malformed('invalid-json-sse');
    expect(errorOf(sse)).toMatch(/^lab: tools\/call timed out after \d+(\.\d+)? s with no answer\. .*Request timed out$/);
    const sseEvents = callExchange(world, labId, 1).filter((e) => e.kind === 'sse-event');
    expect(sseEvents).toHaveLength(1);
    expect(sseEvents[0]!.body).toContain('{oops: not json}');
    expect(sseEvents[0]!.rpc).toBeUndefined();

    // 3. valid JSON without jsonrpc/result: the SDK's schema error, clipped, says where the whole answer is
    const notRpc = errorOf(await malformed('not-jsonrpc'));
    expect(notRpc).toMatch(/^lab: the server's answer to tools\/call was not valid MCP: /);
    expect(notRpc).toContain('"code": "invalid_union"');
    expect(notRpc).toMatch(/characters; the whole answer is in Traffic\)$/);
    expect(endOf(callExchange(world, labId, 2))!.body).toMatchObject({ status: 'ok', message: 'this is not JSON-RPC' });

    // 4. a captive-portal page
    expect(errorOf(await malformed('wrong-content-type'))).toBe("lab: the server's answer to tools/call was not valid MCP: Unexpected content type: text/html; charset=utf-8");
    expect(responseOf(callExchange(world, labId, 3))!.http!.contentType).toBe('text/html; charset=utf-8');

    expect(textOf(await world.call('lab__echo', { text: 'fine' }))).toContain('echo: fine');
    await expectHealthyThroughout(world, beat);
    expect(world.states(labId)).toEqual(['connecting', 'connected']);
    expect(world.toolCallsSent(labId)).toHaveLength(5);
    if (era === 'legacy') {
      // Fixed here: none of the failed calls is still listed "in flight".
      expect(world.core.trace.snapshots.snapshot(labId)!.inFlight).toEqual([]);
    } else {
      // The SSE one still is: its stream ended, the SDK's modern cancellation (an abort) leaves no trace.
      expect(world.core.trace.snapshots.snapshot(labId)!.inFlight.map((r) => r.id)).toEqual([String(world.toolCallsSent(labId)[1]!.rpc!.id)]);
    }
    world.expectGapless();
  });

  it('stalled response (nothing, or headers then silence): the call times out after the configured timeout; the connection survives', async () => {
    const { world, flaky, labId } = await setupHttp(era, { requestTimeoutSec: 1 });
    await world.connect(labId);
    const beat = heartbeat(world);

    for (const [n, headers] of [false, true].entries()) {
      await flaky.setFaults({ type: 'stall', headers, method: 'tools/call', times: 1 });
      const stalled = await world.call('lab__echo', { text: `stall ${n}` });
      expect(errorOf(stalled)).toMatch(/^lab: tools\/call timed out after \d+(\.\d+)? s with no answer\. .*Request timed out$/);
      expect(stalled.ms).toBeGreaterThanOrEqual(950);
      expect(stalled.ms).toBeLessThan(3000);
      const exchange = callExchange(world, labId, n);
      if (headers) expect(responseOf(exchange)!.http).toMatchObject({ status: 200, contentType: 'text/event-stream' });
      else expect(responseOf(exchange)).toBeUndefined();
      if (era === 'modern') {
        // the modern era cancels by aborting the request: the exchange ends client-aborted
        await expect.poll(() => endOf(callExchange(world, labId, n))?.http?.end).toBe('client-aborted');
      } else {
        // the legacy era cancels with notifications/cancelled; the stalled exchange stays open
        await expect
          .poll(() => world.events(labId).filter((e) => e.kind === 'http-request' && e.rpc?.method === 'notifications/cancelled').length)
          .toBe(n + 1);
      }
    }

    // Legacy cancellation leaves the stalled HTTP exchanges open (a socket each) until disconnect (a gap);
    // the modern abort closes them.
    await expect.poll(async () => (await flaky.state()).counters.stalledOpen).toBe(era === 'legacy' ? 2 : 0);
    for (const n of [0, 1]) expect(endOf(callExchange(world, labId, n)) === undefined).toBe(era === 'legacy');

    expect(textOf(await world.call('lab__echo', { text: 'alive' }))).toContain('echo: alive');
    await expectHealthyThroughout(world, beat);
    expect(world.states(labId)).toEqual(['connecting', 'connected']);
    expect(world.toolCallsSent(labId)).toHaveLength(3);
    expect(world.core.trace.snapshots.snapshot(labId)!.inFlight).toEqual([]);
    world.expectGapless();
  });

  it('a 10 MB result arrives whole; the trace previews it and returns the whole payload on demand', async () => {
    const { world, labId } = await setupHttp(era, { requestTimeoutSec: 60 });
    await world.connect(labId);
    const beat = heartbeat(world);

    const reply = await world.call('lab__big', {});
    const text = textOf(reply);
    expect(text).toHaveLength(10_000_000);
    expect(text.startsWith('big line 00000001 ')).toBe(true);
    await expectHealthyThroughout(world, beat);

    const request = world.toolCallsSent(labId)[0]!;
    const carrier = world.events(labId).find((e) => e.rpc?.kind === 'result' && e.rpc.id === request.rpc!.id)!;
    expect(carrier.kind).toBe(era === 'legacy' ? 'sse-event' : 'http-end');
    expect(carrier.truncated).toBe(true);
    expect(carrier.bytes).toBeGreaterThan(10_000_000);
    expect(typeof carrier.body).toBe('string');
    expect((carrier.body as string).length).toBe(world.core.trace.store.previewBytes);
    const reply2 = await world.core.dispatch('traceEvent', { seq: carrier.seq });
    expect(reply2.ok).toBe(true);
    const payload = (reply2 as Envelope<Result<'traceEvent'>> & { ok: true }).result.payload as { id: unknown; result: { content: { text: string }[] } };
    expect(payload.id).toBe(request.rpc!.id);
    expect(payload.result.content[0]!.text).toBe(text);

    expect(world.states(labId)).toEqual(['connecting', 'connected']);
    expect(world.toolCallsSent(labId)).toHaveLength(1);
    world.expectGapless();
  });

  it('notification flood: 2,000 notifications before the result, every one in the trace', async () => {
    const { world, flaky, labId } = await setupHttp(era);
    await world.connect(labId);
    await flaky.setFaults({ type: 'flood', count: 2000, method: 'tools/call', times: 1 });
    const beat = heartbeat(world);

    expect(textOf(await world.call('lab__echo', { text: 'after the flood' }))).toContain('echo: after the flood');
    await expectHealthyThroughout(world, beat);

    const stream = callExchange(world, labId, 0);
    const flood = stream.filter((e) => e.kind === 'sse-event' && e.rpc?.method === 'notifications/message');
    expect(flood).toHaveLength(2000);
    expect(flood.map((e) => (e.body as { params: { data: string } }).params.data)).toEqual(Array.from({ length: 2000 }, (_, i) => `flood ${i + 1}/2000`));
    // and the result after them, on the same stream
    const result = stream.find((e) => e.rpc?.kind === 'result')!;
    expect(result.seq).toBeGreaterThan(flood.at(-1)!.seq);
    expect(world.core.trace.snapshots.snapshot(labId)!.channels['post-sse']!.notifications).toBeGreaterThanOrEqual(2000);
    expect(world.states(labId)).toEqual(['connecting', 'connected']);
    expect(world.toolCallsSent(labId)).toHaveLength(1);
    world.expectGapless();
  });

  it('list_changed storm: 200 notifications, every one in the trace, a debounced refresh, the catalog still right', async () => {
    const { world, flaky, labId } = await setupHttp(era);
    await world.connect(labId);
    const listRequests = () => world.events(labId).filter((e) => e.kind === 'http-request' && e.rpc?.method === 'tools/list').length;
    const toolsBefore = (await world.tools(labId)).map((t) => t.name).sort();
    expect(toolsBefore).toContain('lab__storm');
    const before = listRequests();
    expect(before).toBe(1);
    const beat = heartbeat(world);

    expect(await flaky.storm(200)).toMatchObject({ sent: 200 });
    const stormEvents = () => world.events(labId).filter((e) => e.kind === 'sse-event' && e.rpc?.method === 'notifications/tools/list_changed');
    await expect.poll(() => stormEvents().length, { timeout: 30_000 }).toBe(200);
    expect(new Set(stormEvents().map((e) => e.channel))).toEqual(new Set([era === 'legacy' ? 'get' : 'listen']));
    // The refresh is debounced (trailing): the last one starts after the last notification; once it is answered, nothing else is due.
    const lastStorm = stormEvents().at(-1)!.seq;
    const finalRefreshAnswered = () => {
      const request = world.events(labId).find((e) => e.kind === 'http-request' && e.rpc?.method === 'tools/list' && e.seq > lastStorm);
      return request !== undefined && world.exchange(labId, request.exchange).some((e) => e.rpc?.kind === 'result');
    };
    await expect.poll(finalRefreshAnswered, { timeout: 5_000 }).toBe(true);
    const settled = listRequests();
    const refreshes = settled - before;
    expect(refreshes).toBeGreaterThanOrEqual(1);
    expect(refreshes).toBeLessThanOrEqual(10); // debounced: far fewer than 200
    await expectHealthyThroughout(world, beat);

    expect((await world.tools(labId)).map((t) => t.name).sort()).toEqual(toolsBefore);
    expect(textOf(await world.call('lab__echo', { text: 'still here' }))).toContain('echo: still here');
    expect(world.status(labId).state).toBe('connected');
    // The refresh re-announces "connected" with the tool count: never another state.
    expect(new Set(world.states(labId).slice(1))).toEqual(new Set(['connected']));
    // No refresh after the final one, through the calls since.
    expect(listRequests()).toBe(settled);
    world.expectGapless();
  });
});

// ---------------------------------------------------------------------------------------

describe('session expiry (legacy era: sessions)', () => {
  it('after N requests: a list is renewed transparently and repeated; a tools/call is reported, not repeated', async () => {
    const { world, flaky, labId } = await setupHttp('legacy');
    await world.connect(labId);
    const connection = world.core.connections.get(labId)!;
    // Count from now: every session may serve 6 POSTs. A renewal costs 5 (initialized + 4 lists),
    // so the repeated request is the new session's 6th and goes through.
    await flaky.reset();
    await flaky.setFaults({ type: 'session-expiry', afterRequests: 6 });
    const beat = heartbeat(world);

    for (let i = 0; i < 7; i++) {
      const { tools } = await connection.withClient('tools/list', true, (client) => client.listTools());
      expect(tools.map((t) => t.name)).toContain('echo');
    }
    const expired = await world.call('lab__echo', { text: 'once' });
    expect(errorOf(expired)).toBe(
      'The server ended the session (HTTP 404) during tools/call. Switchboard started a new session; tools/call was not repeated because it may not be safe to run twice. Run it again.',
    );
    expect(textOf(await world.call('lab__echo', { text: 'again' }))).toContain('echo: again');
    await expectHealthyThroughout(world, beat);

    expect(world.states(labId)).toEqual(['connecting', 'connected', 'connecting', 'connected', 'connecting', 'connected']);
    expect(world.toolCallsSent(labId)).toHaveLength(2);
    const events = world.events(labId);
    const sessions = events.filter((e) => e.kind === 'session').map((e) => [e.meta?.event, e.meta?.sessionId]);
    expect(sessions.map(([what]) => what)).toEqual(['issued', 'expired', 'issued', 'expired', 'issued']);
    expect(sessions[1]![1]).toBe(sessions[0]![1]);
    expect(sessions[3]![1]).toBe(sessions[2]![1]);
    expect(new Set(sessions.filter(([what]) => what === 'issued').map(([, id]) => id)).size).toBe(3);
    expect(events.filter((e) => e.kind === 'http-response' && e.http?.status === 404 && e.channel !== 'get' && e.channel !== 'resumption')).toHaveLength(2);
    expect(events.filter((e) => e.kind === 'reconnect').map((e) => e.text)).toEqual([
      'session expired (HTTP 404): re-initializing with a new session',
      'repeating tools/list once on the new session',
      'session expired (HTTP 404): re-initializing with a new session',
    ]);
    // the tools/call that met the 404 went out once, on the expired session
    const [failedCall, laterCall] = world.toolCallsSent(labId);
    expect(failedCall!.session).toBe(sessions[2]![1]);
    expect(laterCall!.session).toBe(sessions[4]![1]);
    expect((await flaky.state()).counters.sessionsExpired).toBe(2);
    world.expectGapless();
  });

  it('a renewal that fails is handled like a failed connect: retried on a 500, an auth error on a 401 (not left "connecting")', async () => {
    const { world, flaky, labId } = await setupHttp('legacy');
    await world.connect(labId);
    const connection = world.core.connections.get(labId)!;
    const beat = heartbeat(world);

    // The session ends and the new initialize meets one 500: retried per policy, then connected.
    await flaky.expireSessions();
    await flaky.setFaults({ type: 'http-error', status: 500, method: 'initialize', times: 1 });
    await expect(connection.withClient('tools/list', true, (client) => client.listTools())).rejects.toThrow('injected HTTP 500');
    await world.waitForState(labId, 'connected');
    expect(world.states(labId)).toEqual(['connecting', 'connected', 'connecting', 'reconnecting#2', 'connecting#2', 'connected']);
    expect(world.reconnectDelays(labId)).toEqual([BACKOFF_MS]);
    expect(textOf(await world.call('lab__echo', { text: 'back' }))).toContain('echo: back');

    // The session ends and the new initialize meets a 401: an auth error, not retried.
    await flaky.expireSessions();
    await flaky.setFaults({ type: 'unauthorized', method: 'initialize' });
    await expect(connection.withClient('tools/list', true, (client) => client.listTools())).rejects.toThrow('HTTP 401');
    const status = world.status(labId);
    expect(status).toMatchObject({ state: 'error', errorKind: 'auth' });
    expect(status.error).toMatch(/answered HTTP 401.*Switchboard did not retry, because HTTP 401 asks for a sign-in, not a retry\.$/);
    expect(world.states(labId).slice(6)).toEqual(['connecting', 'error']);
    const notConnected = await world.call('lab__echo', { text: 'x' });
    expect(errorOf(notConnected)).toMatch(/^Server "lab" is error: .*answered HTTP 401/);
    await expectHealthyThroughout(world, beat);
    expect(world.toolCallsSent(labId)).toHaveLength(1);
    world.expectGapless();
  });
});

// ---------------------------------------------------------------------------------------

describe('duplicate tool names across two lab instances', () => {
  it('reports the collision; a bare ambiguous name is an error listing both; namespaced names reach each', async () => {
    const [alpha, beta] = await Promise.all([lab({ name: 'alpha' }), lab({ name: 'beta' })]);
    const world = new World();
    const healthyId = await world.add({ name: 'healthy', target: { type: 'http', url: healthy.url }, pingIntervalSec: 0 });
    const alphaId = await world.add({ name: 'alpha', target: { type: 'http', url: alpha.url }, era: 'legacy', ...LAB_CONFIG });
    const betaId = await world.add({ name: 'beta', target: { type: 'http', url: beta.url }, era: 'modern', ...LAB_CONFIG });
    await Promise.all([healthyId, alphaId, betaId].map((id) => world.connect(id)));
    for (const id of [healthyId, alphaId, betaId]) expect(world.status(id).state).toBe('connected');
    const beat = heartbeat(world);

    const collisions = await world.core.dispatch('toolCollisions', {});
    expect(collisions.ok).toBe(true);
    const map = (collisions as Envelope<Result<'toolCollisions'>> & { ok: true }).result;
    expect([...map.shared_tool!].sort()).toEqual(['alpha__shared_tool', 'beta__shared_tool']);
    expect([...map.echo!].sort()).toEqual(['alpha__echo', 'beta__echo', 'healthy__echo']);
    const alphaShared = (await world.tools(alphaId)).find((t) => t.originalName === 'shared_tool')!;
    expect(alphaShared.collidesWith).toEqual(['beta__shared_tool']);

    const ambiguous = await world.call('shared_tool', { text: 'x' });
    expect(ambiguous.ok).toBe(false);
    if (!ambiguous.ok) {
      expect(ambiguous.error.code).toBe('conflict');
      expect(ambiguous.error.message).toBe('Tool "shared_tool" exists on several servers: alpha__shared_tool, beta__shared_tool. Use a namespaced name.');
    }
    expect(world.toolCallsSent(alphaId)).toHaveLength(0);
    expect(world.toolCallsSent(betaId)).toHaveLength(0);

    expect(textOf(await world.call('alpha__shared_tool', { text: 'x' }))).toBe('shared_tool from alpha: x');
    expect(textOf(await world.call('beta__shared_tool', { text: 'y' }))).toBe('shared_tool from beta: y');
    expect(textOf(await world.call('shared_tool', { text: 'z' }, { serverId: betaId }))).toBe('shared_tool from beta: z');
    await expectHealthyThroughout(world, beat);
    expect(world.toolCallsSent(alphaId)).toHaveLength(1);
    expect(world.toolCallsSent(betaId)).toHaveLength(2);
    world.expectGapless();
  });
});

// ---------------------------------------------------------------------------------------

describe.each(ERAS)('stdio faults, %s era', (era) => {
  it('exits at start: an error after the retries the policy allows, each exit in the trace', async () => {
    const { world, labId } = await setupStdio(era, 'exit-at-start', { retries: 1 });
    const beat = heartbeat(world);

    await world.connect(labId);
    const failed = await world.waitForState(labId, 'error');
    expect(world.states(labId)).toEqual(['connecting', 'reconnecting#2', 'connecting#2', 'error']);
    expect(world.reconnectDelays(labId)).toEqual([BACKOFF_MS]);
    expect(failed.errorKind).toBe('protocol');
    expect(failed.error).toMatch(/^The process ".+" exited before completing the MCP handshake \(.+\)\. Its stderr is in Logs\. Switchboard gave up after 2 attempts\.$/);
    await expectHealthyThroughout(world, beat);

    const events = world.events(labId);
    expect(events.filter((e) => e.kind === 'spawn')).toHaveLength(2);
    const exits = events.filter((e) => e.kind === 'exit');
    expect(exits.map((e) => [e.meta?.code, e.meta?.expected])).toEqual([
      [3, false],
      [3, false],
    ]);
    expect(events.filter((e) => e.kind === 'stderr')).toHaveLength(2);
    expect(world.toolCallsSent(labId)).toHaveLength(0);
    world.expectGapless();
  });

  it('crashes mid-call: the call fails at once, a reconnect follows, the call is not re-sent', async () => {
    const { world, labId } = await setupStdio(era, 'crash-mid-call');
    await world.connect(labId);
    await world.waitForState(labId, 'connected');
    const beat = heartbeat(world);

    const crashed = await world.call('lab__echo', { text: 'boom' });
    expect(errorOf(crashed)).toBe('lab: the server process exited with code 70 while tools/call was running. Switchboard reconnects by itself; the call was not repeated.');
    expect(crashed.ms).toBeLessThan(2000);
    await world.waitForState(labId, 'connected');
    expect(world.states(labId)).toEqual(['connecting', 'connected', 'reconnecting#2', 'connecting#2', 'connected']);
    const dropped = world.statuses(labId).find((s) => s.state === 'reconnecting')!;
    expect(dropped.error).toMatch(/^The connection to "lab" closed unexpectedly \(".+"\)\. Its stderr is in Logs\.$/);
    expect((await world.tools(labId)).map((t) => t.name)).toContain('lab__echo');
    // A re-send would go out on the new process's stdin with the reconnect, before a later request
    // does (one ordered stream; every tools/call kills this lab, so the later one is a tools/list).
    const lists = () => world.events(labId).filter((e) => e.kind === 'jsonrpc-out' && e.rpc?.method === 'tools/list').length;
    const listsBefore = lists();
    await world.roundTrip(labId);
    expect(lists()).toBe(listsBefore + 1);
    await expectHealthyThroughout(world, beat);

    const events = world.events(labId);
    expect(world.toolCallTexts(labId)).toEqual(['boom']);
    expect(events.filter((e) => e.kind === 'spawn')).toHaveLength(2);
    expect(events.filter((e) => e.kind === 'exit').map((e) => [e.meta?.code, e.meta?.expected])).toEqual([[70, false]]);
    // the half response line written before dying
    const half = events.find((e) => e.kind === 'stdout-garbage')!;
    expect(half.text).toContain('"result":{"content":[{"type":"text","text":"crash: the pro');
    expect(half.meta?.reason).toBe('not JSON');
    expect(world.reconnectDelays(labId)).toEqual([BACKOFF_MS]);
    world.expectGapless();
  });

  it('garbage on stdout: every line flagged stdout-garbage, the connection still works', async () => {
    const { world, labId } = await setupStdio(era, 'garbage-stdout');
    const beat = heartbeat(world);
    await world.connect(labId);
    await world.waitForState(labId, 'connected');
    expect(textOf(await world.call('lab__echo', { text: 'through the noise' }))).toContain('echo: through the noise');
    await expectHealthyThroughout(world, beat);

    const garbage = world.events(labId).filter((e) => e.kind === 'stdout-garbage');
    // a banner at start, one before every message the server sent
    const answers = world.events(labId).filter((e) => e.kind === 'jsonrpc-in').length;
    expect(garbage).toHaveLength(answers + 1);
    expect(new Set(garbage.map((e) => e.meta?.reason))).toEqual(new Set(['not JSON', 'JSON but not JSON-RPC']));
    expect(garbage.map((e) => e.text)).toContain('<html>not even close</html>');
    expect(world.states(labId)).toEqual(['connecting', 'connected']);
    expect(world.toolCallsSent(labId)).toHaveLength(1);
    world.expectGapless();
  });

  it('hangs on initialize: the connect times out after connectTimeoutSec (2 s)', async () => {
    const { world, labId } = await setupStdio(era, 'hang-initialize', { connectTimeoutSec: 2, retries: 0 });
    const beat = heartbeat(world);
    const started = performance.now();
    await world.connect(labId);
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(1900);
    expect(elapsed).toBeLessThan(8000); // 2 s, plus ending the process (far from the 20 s default of the other tests)
    const failed = world.status(labId);
    expect(failed.state).toBe('error');
    if (era === 'legacy') {
      expect(failed.errorKind).toBe('timeout');
      expect(failed.error).toMatch(/^The process ".+" did not complete the MCP handshake within 2 s\. Its stderr is in Logs\.$/);
    } else {
      // the SDK reads an unanswered probe as "not a modern server"
      expect(failed.errorKind).toBe('protocol');
      expect(failed.error).toMatch(/^stdio ".+": Version negotiation failed: the server did not offer pinned protocol version 2026-07-28 via server\/discover \(no fallback in pin mode\)$/);
    }
    await expectHealthyThroughout(world, beat);

    expect(world.states(labId)).toEqual(['connecting', 'error']);
    const events = world.events(labId);
    expect(events.filter((e) => e.kind === 'jsonrpc-out').map((e) => e.rpc?.method)).toEqual([era === 'legacy' ? 'initialize' : 'server/discover']);
    expect(events.filter((e) => e.kind === 'jsonrpc-in')).toEqual([]);
    // Switchboard ended the hung process itself
    await expect.poll(() => world.events(labId).filter((e) => e.kind === 'exit').map((e) => e.meta?.expected)).toEqual([true]);
    world.expectGapless();
  });

  it('floods stderr: every line in the trace, the app stays responsive', async () => {
    const { world, labId } = await setupStdio(era, 'stderr-flood');
    const beat = heartbeat(world);
    await world.connect(labId);
    await world.waitForState(labId, 'connected');
    expect(textOf(await world.call('lab__echo', { text: 'heard' }))).toContain('echo: heard');
    await expectHealthyThroughout(world, beat);

    // 5,000 lines at start, then 100 for every message the server received
    const stderr = () => world.events(labId).filter((e) => e.kind === 'stderr');
    const expected = () => 5000 + 100 * world.events(labId).filter((e) => e.kind === 'jsonrpc-out').length;
    await expect.poll(() => stderr().length - expected(), { timeout: 30_000 }).toBe(0);
    const startup = new Set(stderr().flatMap((e) => /startup line (\d+)\/5000/.exec(e.text ?? '')?.[1] ?? []));
    expect(startup.size).toBe(5000);
    expect(world.states(labId)).toEqual(['connecting', 'connected']);
    expect(world.toolCallsSent(labId)).toHaveLength(1);
    world.expectGapless();
  });
});
