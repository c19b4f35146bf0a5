/**
 * #18 item 2: a WebSocket client that stops reading must not grow main without limit. One page
 * socket is paused (it reads nothing) for the length of a flood while another drives the calls;
 * main's RSS is sampled throughout and must stay under a bound, and when the paused page reads
 * again it is told to resync and catches up by querying the trace, with no event lost.
 * Drives the built browser-mode host (`out/main/web.js`) and the everything fixture over HTTP.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startBrowserMode, type BrowserModeApp } from '../e2e/support/browser-mode';
import { startFixture, type RunningFixture } from '../fixtures/everything/harness';
import { HostClient, rssMiB } from '../support/host-client';

/** How long the page socket stays paused while the flood runs. */
const PAUSE_MS = Number(process.env.SWITCHBOARD_BACKPRESSURE_MS ?? 60_000);
/** Main's resident memory may grow by at most this much while one socket reads nothing (documented in docs/limits.md). */
const RSS_GROWTH_BOUND_MIB = 300;

let app: BrowserModeApp;
let fixture: RunningFixture;
let driver: HostClient;
let paused: HostClient;

beforeAll(async () => {
  fixture = await startFixture({ transport: 'http', era: 'legacy' });
  app = await startBrowserMode();
  driver = await HostClient.open(app);
  paused = await HostClient.open(app);
}, 60_000);

afterAll(async () => {
  driver?.close();
  paused?.close();
  await app?.close();
  await fixture?.close();
});

it('a paused page socket during a flood: main stays bounded, the page resyncs and loses no event', { timeout: PAUSE_MS + 240_000 }, async () => {
  const status = await driver.ok<{ id: string }>('addServer', { name: 'flood', target: { type: 'http', url: fixture.url }, era: 'legacy', pingIntervalSec: 0, requestTimeoutSec: 300 });
  await driver.ok('connectServer', { id: status.id });

  let lastSeen = 0;
  let pushed = 0;
  let resync: { held: number; since: number } | undefined;
  paused.onEvent((event, payload) => {
    if (event === 'traceBatch')
      for (const e of (payload as { events: { seq: number }[] }).events) {
        lastSeen = Math.max(lastSeen, e.seq);
        pushed++;
      }
    if (event === 'resync') resync = payload as typeof resync;
  });

  // Every event in the pushes (a page with the Timeline open holds this lease): the heaviest feed.
  await driver.ok('traceFeed', { lease: 'backpressure', full: true });
  const renew = setInterval(() => void driver.ok('traceFeed', { lease: 'backpressure', full: true }).catch(() => undefined), 3_000);

  const pid = app.process.pid!;
  const before = rssMiB(pid);
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(pid))), 250);

  // The page stops reading: its TCP socket is not read, so main's send queue for it grows.
  (paused.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket.pause();
  const seenAtPause = lastSeen;
  const pushedAtPause = pushed;
  const started = Date.now();
  let notifications = 0;
  try {
    for (let round = 0; round < 10_000 && Date.now() - started < PAUSE_MS; round++) {
      await driver.ok('callTool', { tool: 'flood__flood', args: { count: 2000 } }, 120_000);
      notifications += 2000;
    }
  } finally {
    clearInterval(sampler);
    clearInterval(renew);
  }
  const floodMs = Date.now() - started;
  const { total } = await driver.ok<{ total: number }>('traceQuery', { limit: 1 });
  console.log(
    `backpressure: ${notifications.toLocaleString('en-US')} notifications, ${total.toLocaleString('en-US')} trace events in ${(floodMs / 1000).toFixed(1)} s ` +
      `(${Math.round(total / (floodMs / 1000)).toLocaleString('en-US')} events/s); main RSS ${before.toFixed(0)} MiB before, ${peak.toFixed(0)} MiB peak (bound: +${RSS_GROWTH_BOUND_MIB} MiB)`,
  );
  expect(peak - before).toBeLessThan(RSS_GROWTH_BOUND_MIB);

  // The page reads again: what was queued arrives, then one resync saying pushes were held back.
  (paused.ws as unknown as { _socket: { resume(): void } })._socket.resume();
  await expect.poll(() => resync, { timeout: 60_000, interval: 200 }).toBeDefined();
  expect(resync!.held).toBeGreaterThan(0);
  // It really missed pushes: fewer events reached it than the trace gained.
  const missed = total - seenAtPause - (pushed - pushedAtPause);
  console.log(`backpressure: the paused page was pushed ${(pushed - pushedAtPause).toLocaleString('en-US')} of ${(total - seenAtPause).toLocaleString('en-US')} new events; ${resync!.held.toLocaleString('en-US')} pushes held back`);
  expect(missed).toBeGreaterThan(0);

  // It catches up by querying, from the last event it saw: every seq, in order, none missing.
  let expected = seenAtPause + 1;
  let cursor: number | undefined = seenAtPause;
  while (cursor !== undefined) {
    const page: { events: { seq: number }[]; nextCursor?: number } = await paused.ok('traceQuery', { cursor, limit: 5000 }, 120_000);
    for (const event of page.events) {
      if (event.seq !== expected) throw new Error(`trace gap: expected seq ${expected}, got ${event.seq}`);
      expected++;
    }
    cursor = page.nextCursor;
  }
  expect(expected - 1).toBeGreaterThanOrEqual(total);
  // The socket is live again: a new push reaches it.
  const before2 = lastSeen;
  await driver.ok('callTool', { tool: 'flood__flood', args: { count: 10 } });
  await expect.poll(() => lastSeen, { timeout: 30_000 }).toBeGreaterThan(before2);
});
