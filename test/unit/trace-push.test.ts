import { afterEach, describe, expect, it, vi } from 'vitest';
import { Batcher, EventHub } from '../../main/core/events';
import fc from 'fast-check';
import { TraceHub, slim, type TraceHubOptions } from '../../main/core/trace/hub';
import { TRACE_FEED_LEASE_MS, type TraceEvent, type TraceEventInput } from '../../contract/trace';
import { rowRange, rowsBelow } from '../../renderer/src/components/row-range';

const note = (i: number): TraceEventInput => ({
  server: 's',
  channel: 'stdio',
  kind: 'jsonrpc-in',
  dir: 'in',
  rpc: { method: 'notifications/message', kind: 'notification' },
  body: { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: `n${i}` } },
  bytes: 80,
});

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('Batcher', () => {
  afterEach(() => vi.useRealTimers());

  it('flushes on its timer when a batch stays under maxItems', async () => {
    vi.useFakeTimers();
    const flushed: number[][] = [];
    const batcher = new Batcher<number>((items) => flushed.push(items), 250, 100);
    for (let i = 0; i < 99; i++) batcher.push(i);
    await vi.advanceTimersByTimeAsync(249);
    expect(flushed).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(flushed).toHaveLength(1);
    expect(flushed[0]).toHaveLength(99);
  });

  it('flushes on the next turn of the event loop once a batch reaches maxItems, without waiting for the timer', async () => {
    const flushed: number[][] = [];
    const batcher = new Batcher<number>((items) => flushed.push(items), 60_000, 100);
    for (let i = 0; i < 150; i++) batcher.push(i);
    // Not on the push itself: the caller's synchronous work is not interrupted.
    expect(flushed).toEqual([]);
    await nextTurn();
    expect(flushed).toHaveLength(1);
    expect(flushed[0]).toEqual(Array.from({ length: 150 }, (_, i) => i));
    // The timer was cleared with the flush: the next item starts a new batch.
    batcher.push(150);
    batcher.drain();
    expect(flushed[1]).toEqual([150]);
  });
});

describe('TraceHub pushes', () => {
  afterEach(() => vi.useRealTimers());

  it('splits a burst into pushes of at most pushBatchEvents events, every event once and in order', async () => {
    const { hub, pushes } = pushing({ pushIntervalMs: 60_000, pushBatchEvents: 1_000 });
    hub.feed('w1', true); // a window asked for every event
    try {
      // One synchronous burst (as when main fell behind and a turn of its loop recorded thousands).
      for (let i = 0; i < 4_500; i++) hub.record(note(i));
      await nextTurn();
      expect(pushes.map((p) => p.events.length)).toEqual([1_000, 1_000, 1_000, 1_000, 500]);
      expect(pushes.flatMap((p) => p.events.map((e) => e.seq))).toEqual(Array.from({ length: 4_500 }, (_, i) => i + 1));
      expect(pushes.every((p) => p.total === 4_500 && p.partial === undefined)).toBe(true);
    } finally {
      hub.close();
    }
  });

  it('without a lease: one push an interval, the newest pushTail events and every older auth-relevant event or HTTP response, in seq order, marked partial', async () => {
    vi.useFakeTimers();
    const { hub, pushes } = pushing({ pushIntervalMs: 250, pushTail: 50 });
    try {
      for (let i = 0; i < 3_000; i++) {
        if (i === 10) hub.record({ server: 's', channel: 'auth', kind: 'http-request', dir: 'out', http: { method: 'POST', url: 'https://as/token' } });
        else if (i === 20) hub.record({ server: 's', channel: 'post-json', kind: 'http-response', dir: 'in', http: { status: 401 } });
        else if (i === 30) hub.record({ server: 's', channel: 'post-json', kind: 'http-response', dir: 'in', http: { status: 500 } });
        else hub.record(note(i));
      }
      expect(pushes).toEqual([]); // nothing before the interval, however many arrived
      await vi.advanceTimersByTimeAsync(250);
      expect(pushes).toHaveLength(1);
      expect(pushes[0]!.partial).toBe(true);
      expect(pushes[0]!.total).toBe(3_000);
      // the token request (auth channel), and both HTTP responses (the 401 and the 500: a response settles its exchange's channel)
      expect(pushes[0]!.events.map((e) => e.seq)).toEqual([11, 21, 31, ...Array.from({ length: 50 }, (_, i) => 2_951 + i)]);
      // fewer than pushTail since the last push: all of them
      for (let i = 0; i < 7; i++) hub.record(note(i));
      await vi.advanceTimersByTimeAsync(250);
      expect(pushes[1]!.events.map((e) => e.seq)).toEqual([3_001, 3_002, 3_003, 3_004, 3_005, 3_006, 3_007]);
      await vi.advanceTimersByTimeAsync(1_000);
      expect(pushes).toHaveLength(2); // quiet: no empty pushes
    } finally {
      hub.close();
    }
  });

  it('a push carries the index part of each event: no body, raw text or headers (marked truncated, still whole in main), the summary kept, the event in main untouched', async () => {
    const { hub, pushes } = pushing({ pushIntervalMs: 60_000 });
    hub.feed('w1', true);
    try {
      hub.record({
        server: 's',
        channel: 'post-json',
        kind: 'http-request',
        dir: 'out',
        exchange: 'x1',
        http: { method: 'POST', url: 'http://127.0.0.1:9/mcp', headers: { 'content-type': 'application/json' } },
        rpc: { id: 1, method: 'tools/call', kind: 'request' },
        body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo' } },
        bytes: 60,
      });
      hub.record({ server: 's', channel: 'post-json', kind: 'http-end', dir: 'in', exchange: 'x1', http: { status: 200, end: 'complete' }, rpc: { id: 1, kind: 'result', isError: true }, body: { deep: 1 }, raw: '{"deep":1}', bytes: 10 });
      hub.record({ server: 's', channel: 'stdio', kind: 'stderr', dir: 'in', text: 'a line' });
      hub.feed('w1', false); // drains the full feed
      const pushed = pushes.flatMap((p) => p.events);
      expect(pushed.map((e) => [e.seq, e.body, e.raw, e.http?.headers, e.truncated])).toEqual([
        [1, undefined, undefined, undefined, true],
        [2, undefined, undefined, undefined, true],
        [3, undefined, undefined, undefined, undefined],
      ]);
      expect(pushed[0]).toMatchObject({ rpc: { id: 1, method: 'tools/call', kind: 'request' }, http: { method: 'POST', url: 'http://127.0.0.1:9/mcp' }, bytes: 60 });
      expect(pushed[1]).toMatchObject({ rpc: { id: 1, kind: 'result', isError: true }, http: { status: 200, end: 'complete' } });
      expect(pushed[2]).toMatchObject({ text: 'a line' });
      // main keeps them whole (the renderer reads them by seq)
      expect(hub.store.get(1)).toMatchObject({ body: { params: { name: 'echo' } }, http: { headers: { 'content-type': 'application/json' } } });
      expect(hub.store.get(1)!.truncated).toBeUndefined();
      expect(hub.store.get(2)).toMatchObject({ body: { deep: 1 }, raw: '{"deep":1}' });
    } finally {
      hub.close();
    }
  });

  it('slims an event to the same JSON as a spread with body, raw and headers set to undefined, and leaves the event as it was', () => {
    const spreadSlim = (event: TraceEvent): TraceEvent => {
      const hasBody = event.body !== undefined || event.raw !== undefined;
      const lean: TraceEvent = hasBody ? { ...event, body: undefined, raw: undefined, truncated: true } : { ...event };
      if (event.http?.headers !== undefined) lean.http = { ...event.http, headers: undefined };
      return lean;
    };
    const event = fc.record(
      {
        seq: fc.nat(),
        ts: fc.double({ noNaN: true, noDefaultInfinity: true }),
        server: fc.string(),
        channel: fc.constantFrom('post-json', 'post-sse', 'stdio'),
        kind: fc.constantFrom('http-request', 'http-end', 'sse-event', 'jsonrpc-in'),
        dir: fc.constantFrom('in', 'out'),
        truncated: fc.boolean(),
        body: fc.jsonValue(),
        raw: fc.string(),
        http: fc.record({ method: fc.string(), status: fc.nat(), headers: fc.dictionary(fc.string(), fc.string()) }, { requiredKeys: [] }),
        rpc: fc.record({ id: fc.nat(), method: fc.string(), kind: fc.constantFrom('request', 'result') }, { requiredKeys: ['kind'] }),
        text: fc.string(),
      },
      { requiredKeys: ['seq', 'ts', 'server', 'channel', 'kind', 'dir'] },
    ) as fc.Arbitrary<TraceEvent>;
    fc.assert(
      fc.property(event, (e) => {
        const before = JSON.stringify(e);
        const lean = slim(e);
        expect(JSON.stringify(lean)).toBe(JSON.stringify(spreadSlim(e)));
        expect(JSON.stringify(e)).toBe(before);
        if (e.body === undefined && e.raw === undefined && e.http?.headers === undefined) expect(lean).toBe(e);
      }),
      { numRuns: 300 },
    );
  });

  it('leases: whole while any window holds one, each ends when given back or TRACE_FEED_LEASE_MS after its last renewal; order kept across every switch', async () => {
    vi.useFakeTimers();
    const { hub, pushes } = pushing({ pushIntervalMs: 250, pushTail: 10 });
    const burst = (n: number) => {
      for (let i = 0; i < n; i++) hub.record(note(i));
    };
    const seqs = () => pushes.flatMap((p) => p.events.map((e) => e.seq));
    try {
      burst(30); // partial: 21..30 will go
      expect(hub.feed('a', true)).toEqual({ full: true, leaseMs: TRACE_FEED_LEASE_MS });
      // what the partial feed held went out first, at once
      expect(pushes).toHaveLength(1);
      expect(pushes[0]!.partial).toBe(true);
      burst(30);
      hub.feed('b', true);
      hub.feed('a', false); // b still holds one
      burst(30);
      await vi.advanceTimersByTimeAsync(250);
      expect(pushes.slice(1).every((p) => !p.partial)).toBe(true);
      expect(seqs()).toEqual([...Array.from({ length: 10 }, (_, i) => 21 + i), ...Array.from({ length: 60 }, (_, i) => 31 + i)]);

      // b is renewed once, then not: its lease ends TRACE_FEED_LEASE_MS after the renewal
      await vi.advanceTimersByTimeAsync(TRACE_FEED_LEASE_MS - 1_000);
      hub.feed('b', true);
      await vi.advanceTimersByTimeAsync(TRACE_FEED_LEASE_MS - 1);
      burst(30);
      await vi.advanceTimersByTimeAsync(250);
      expect(pushes.at(-1)!.partial).toBeUndefined();
      expect(pushes.at(-1)!.events).toHaveLength(30);
      await vi.advanceTimersByTimeAsync(TRACE_FEED_LEASE_MS);
      burst(30);
      await vi.advanceTimersByTimeAsync(250);
      expect(pushes.at(-1)!.partial).toBe(true);
      expect(pushes.at(-1)!.events.map((e) => e.seq)).toEqual(Array.from({ length: 10 }, (_, i) => 141 + i));
    } finally {
      hub.close();
    }
  });
});

type Push = { events: TraceEvent[]; total: number; partial?: boolean };

/** A hub whose trace pushes are collected. */
function pushing(options: TraceHubOptions): { hub: TraceHub; pushes: Push[] } {
  const events = new EventHub();
  const pushes: Push[] = [];
  events.subscribe((name, payload) => name === 'traceBatch' && pushes.push(payload as Push));
  return { hub: new TraceHub(events, options), pushes };
}

describe('rowRange (fixed-height virtual rows)', () => {
  it('gives the rows on screen plus overscan, clamped to the list', () => {
    // 24 px rows, a 240 px viewport scrolled to row 100: rows 100–109 on screen, 12 more each side.
    expect(rowRange(2400, 240, 1_000_000, 24, 12)).toEqual({ first: 88, last: 121, total: 24_000_000 });
    expect(rowRange(0, 240, 1_000, 24, 12)).toEqual({ first: 0, last: 21, total: 24_000 });
    // scrolled to the end
    expect(rowRange(1_000 * 24 - 240, 240, 1_000, 24, 12)).toEqual({ first: 978, last: 999, total: 24_000 });
    // a part row at the top still counts
    expect(rowRange(2410, 240, 1_000, 24, 0)).toEqual({ first: 100, last: 110, total: 24_000 });
  });

  it('has no rows for an empty list, and stays in range when the list shrank under the scroll position', () => {
    expect(rowRange(500, 240, 0, 24, 12)).toEqual({ first: 0, last: -1, total: 0 });
    const shrunk = rowRange(240_000, 240, 50, 24, 12);
    expect(shrunk.first).toBeLessThanOrEqual(shrunk.last);
    expect(shrunk.last).toBe(49);
  });

  it('counts the rows wholly below the viewport (the "newer" mark of a list that does not follow)', () => {
    // rows 100–109 on screen: 890 below
    expect(rowsBelow(2400, 240, 1_000, 24)).toBe(890);
    // a row cut by the bottom edge is on screen, not below
    expect(rowsBelow(2410, 240, 1_000, 24)).toBe(889);
    // at the end, or a list shorter than the screen, or shrunk under the scroll position: none
    expect(rowsBelow(1_000 * 24 - 240, 240, 1_000, 24)).toBe(0);
    expect(rowsBelow(0, 240, 5, 24)).toBe(0);
    expect(rowsBelow(240_000, 240, 50, 24)).toBe(0);
    // the list grew while the viewport stood still: every new row is below
    expect(rowsBelow(2400, 240, 1_500, 24) - rowsBelow(2400, 240, 1_000, 24)).toBe(500);
  });
});
