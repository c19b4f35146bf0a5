/**
 * Resumption through the HTTP proxy (#12, must-show), with the SDK 1.x client and the real
 * `switchboard proxy --upstream` process, its trace read back from the library:
 *
 *   - the upstream cuts a stream with `retry:` (the fault lab, 2025 era with an event store):
 *     the client reconnects with `Last-Event-ID` through the proxy and gets the rest;
 *   - the proxy itself cuts the stream (`--fault sse-cut`, what a person switches on to see how
 *     their client copes) while the tool is still running: the client resumes through the proxy
 *     and the events the server sends after the reconnect arrive on the resumed stream.
 *
 * Either way the call completes with every progress notification once, and the proxy's
 * recording shows both streams: the POST's, ending early (with the upstream's `retry:`, or the
 * proxy's applied fault), and the GET on the `resumption` channel carrying the last event id
 * seen, with the resumed events and the response.
 *
 * Not against the published server-everything (2026.8.31): its InMemoryEventStore's
 * replayEventsAfter returns the last event id where the SDK expects the stream id (and has no
 * getStreamIdForEventId), so the SDK files a resumed GET under an unknown stream and every event
 * the tool sends after the reconnect is stored but never written: a call resumed mid-operation
 * hangs until its timeout, with or without a proxy (seen through the proxy: the resumed GET
 * opens with 200 and the upstream sends nothing on it).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../contract/trace';
import { startFixture, type RunningFixture } from '../fixtures/everything/harness';
import { startFlaky, type RunningFlaky } from '../fixtures/flaky-server/harness';
import { assertBuilt, readRecording, startHttpProxy, waitForRecordings } from '../support/proxy-run';

let root: string;
let lab: RunningFlaky;
let fixture: RunningFixture;

beforeAll(async () => {
  assertBuilt();
  root = mkdtempSync(join(tmpdir(), 'switchboard-proxy-field-resume-'));
  lab = await startFlaky({ era: 'legacy', faults: [{ type: 'sse-cut', method: 'tools/call', afterEvents: 2, retryMs: 50, times: 1 }] });
  fixture = await startFixture({ transport: 'http', era: 'legacy', sessions: true });
}, 60_000);

afterAll(async () => {
  await lab?.close();
  await fixture?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

interface Resumed {
  progress: number[];
  result: unknown;
  events: TraceEvent[];
}

/** The SDK 1.x client through a fresh proxy: one call that reports progress; the proxy's recording once it ended. */
async function callThroughProxy(name: string, upstream: string, tool: { name: string; arguments: Record<string, unknown> }, proxyFlags: string[] = []): Promise<Resumed> {
  const dataDir = mkdtempSync(join(root, 'data-'));
  const proxy = await startHttpProxy({ name, dataDir, upstream, extra: proxyFlags });
  const progress: number[] = [];
  let result: unknown;
  try {
    const client = new Client({ name: 'field-resume-v1', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(proxy.url), { reconnectionOptions: { initialReconnectionDelay: 50, maxReconnectionDelay: 200, reconnectionDelayGrowFactor: 1, maxRetries: 30 } }));
    try {
      result = await client.callTool(tool, undefined, { timeout: 30_000, onprogress: (p) => progress.push(p.progress) });
    } finally {
      await client.close();
    }
  } finally {
    await proxy.close();
  }
  const [summary] = await waitForRecordings(dataDir, (r) => r.kind === 'proxy');
  expect(summary!.proxy?.client?.name).toBe('field-resume-v1');
  return { progress, result, events: (await readRecording(dataDir, summary!.id)).events };
}

/**
 * The trace's two streams: the POST that was cut (by the upstream, with its `retry:` event; or by
 * the proxy, an applied `sse-cut` fault), and the GET that resumed it from the last event id.
 */
function expectBothStreams(events: TraceEvent[], cutBy: 'upstream' | 'proxy', resumedProgress: number[]): void {
  const post = events.find((e) => e.kind === 'http-request' && e.rpc?.method === 'tools/call');
  expect(post, 'the tools/call POST').toBeDefined();
  const cut = events.filter((e) => e.exchange === post!.exchange);
  expect(cut.find((e) => e.kind === 'http-response')?.channel).toBe('post-sse');
  expect(cut.some((e) => e.rpc?.kind === 'result'), 'the cut stream carried no response').toBe(false);
  if (cutBy === 'upstream') {
    expect(cut.some((e) => e.kind === 'sse-retry' && e.sse?.retry === 50), 'the upstream\'s retry: on the cut stream').toBe(true);
  } else {
    const applied = events.filter((e) => e.channel === 'lifecycle' && e.kind === 'fault' && e.meta?.['fault'] === 'sse-cut');
    expect(applied, 'the cut is in the trace as an applied fault').toHaveLength(1);
    expect(applied[0]!.meta?.['method']).toBe('tools/call');
  }
  const lastId = cut.filter((e) => e.kind === 'sse-event' && e.sse?.id).at(-1)?.sse?.id;
  expect(lastId, 'an event id before the cut').toBeTruthy();

  // The GET that resumed it: the last attempt. When the proxy cuts, the proxy ends its upstream
  // request at once, but the SDK's server (1.32, on @hono/node-server) may keep that stream until
  // it next writes to it or its answer is done: meanwhile it answers 409 (that stream still has a
  // connection) and the client tries again (30 tries, 200 ms apart: longer than the tool runs;
  // with 5, a fast machine used them all up within 850 ms) — every attempt is in the trace.
  const attempts = events.filter((e) => e.channel === 'resumption' && e.kind === 'http-request');
  const get = attempts.at(-1);
  expect(get, 'the resuming GET').toBeDefined();
  for (const early of attempts.slice(0, -1)) {
    expect(events.find((e) => e.exchange === early.exchange && e.kind === 'http-response')?.http?.status, 'an earlier attempt').toBe(409);
  }
  expect(get!.http?.method).toBe('GET');
  expect(get!.http?.headers?.['last-event-id']).toBe(lastId);
  const resumed = events.filter((e) => e.exchange === get!.exchange && e.kind === 'sse-event');
  const progress = resumed.filter((e) => e.rpc?.method === 'notifications/progress').map((e) => (e.body as { params?: { progress?: number } }).params?.progress);
  expect(progress, 'progress on the resumed stream').toEqual(resumedProgress);
  expect(resumed.find((e) => e.rpc?.kind === 'result')?.rpc?.id).toBe(post!.rpc?.id);
}

describe('resumption through the HTTP proxy (SDK 1.x client, real proxy process)', () => {
  it('the upstream cuts the stream with retry:, the client reconnects with Last-Event-ID through the proxy', async () => {
    const { progress, result, events } = await callThroughProxy('field resume (lab)', lab.url, { name: 'slow_count', arguments: { steps: 4, delayMs: 20 } });
    expect(progress).toEqual([1, 2, 3, 4]);
    expect(JSON.stringify(result)).toContain('counted to 4');
    // The lab cuts after two events (priming, progress 1): the rest comes on the resumed stream.
    expectBothStreams(events, 'upstream', [2, 3, 4]);
    expect((await lab.state()).faults[0]?.hits).toBe(1);
  }, 90_000);

  it('the proxy cuts the stream mid-call (--fault sse-cut): the client resumes through it, later events arrive live', async () => {
    // 4 steps 300 ms apart: the client (retry: 50 ms) is back long before the tool is done.
    const { progress, result, events } = await callThroughProxy('field resume (proxy cut)', fixture.url, { name: 'slow_count', arguments: { steps: 4, delayMs: 300 } }, [
      '--fault',
      'sse-cut:method=tools/call,afterEvents=2,retryMs=50,times=1',
    ]);
    expect(progress).toEqual([1, 2, 3, 4]);
    expect(JSON.stringify(result)).toContain('counted to 4');
    expectBothStreams(events, 'proxy', [2, 3, 4]);
  }, 90_000);
});
