/**
 * The charts' series and summary (renderer/src/features/charts/series.ts) in Node: from snapshot
 * buckets shaped as contract/trace.ts says, and from snapshots the core's snapshot engine derived
 * from recorded events. (formatMs/formatBytes are another change's; not tested here.)
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CHANNELS, type Channel, type ServerSnapshot, type TimeBucket } from '../../contract/trace';
import { createCore } from '../../main/core/app';
import { MemorySettingsStore } from '../../main/core/store/settings';
import { ERROR_CLASSES, MAX_LATENCY_METHODS, buildSeries, buildSummary, formatRate, percentile, safeLabel, stabilize } from '../../renderer/src/features/charts/series';
import { call } from '../support/core-calls';
import { T0 } from '../support/trace-events';

const bucket = (t: number, extra: Partial<TimeBucket> = {}): TimeBucket => ({ t, messages: {}, errors: { http4xx: 0, http5xx: 0, rpc: 0, transport: 0 }, bytes: 0, latency: {}, inFlight: 0, ...extra });

const snapshot = (server: string, buckets: TimeBucket[], extra: Partial<ServerSnapshot> = {}): ServerSnapshot => ({
  server,
  totalEvents: 0,
  channels: {},
  sessions: [],
  latency: {},
  inFlight: [],
  bytesIn: 0,
  bytesOut: 0,
  buckets,
  ...extra,
});

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

describe('buildSeries', () => {
  it('no snapshots: a window of zeros, nothing drawn', () => {
    const series = buildSeries([], T0 + 59_999, 60, 300);
    expect(series.stepSec).toBe(1);
    expect(series.messages).toHaveLength(60);
    expect(series.to - series.from).toBe(60_000);
    expect(series.to).toBe(T0 + 60_000);
    expect([series.channels, series.methods, series.maxMessages, series.maxErrors, series.maxInFlight, series.pingPoints]).toEqual([[], [], 0, 0, 0, 0]);
    expect(series.ping.every((p) => p.rtt === null)).toBe(true);
  });

  it('one bucket: its second is the last point; rates per second; the channel listed', () => {
    const series = buildSeries([snapshot('s', [bucket(T0, { messages: { stdio: 3 }, errors: { http4xx: 0, http5xx: 0, rpc: 1, transport: 0 }, inFlight: 2, pingRttMs: 4.567 })])], T0 + 999, 10, 100);
    const last = series.messages.at(-1)!;
    expect(last).toEqual({ t: T0, stdio: 3 });
    expect(series.channels).toEqual(['stdio']);
    expect(series.errors.at(-1)).toMatchObject({ rpc: 1, total: 1 });
    expect(series.inFlight.at(-1)).toEqual({ t: T0, inFlight: 2 });
    expect(series.ping.at(-1)).toEqual({ t: T0, rtt: 4.57 });
    expect(series.messages.slice(0, -1).every((p) => p.stdio === 0)).toBe(true);
  });

  it('a long window is aggregated into steps aligned in absolute time; rates are per second of the step', () => {
    const buckets = [bucket(T0 - 7_000, { messages: { get: 4 } }), bucket(T0 - 6_000, { messages: { get: 6 } })];
    const series = buildSeries([snapshot('s', buckets)], T0, 900, 300);
    expect(series.stepSec).toBe(3);
    expect(series.messages).toHaveLength(300);
    expect(series.from % 3_000).toBe(0);
    // both seconds fall in one 3 s step, or two: either way 10 messages over the window
    expect(sum(series.messages.map((p) => p.get! * 3))).toBe(10);
    const later = buildSeries([snapshot('s', buckets)], T0 + 1_000, 900, 300);
    expect(later.messages.map((p) => p.t).filter((t) => series.messages.some((q) => q.t === t)).length).toBeGreaterThan(290);
  });

  it('in flight carries over seconds without events (from before the window too), and adds up across servers', () => {
    const a = snapshot('a', [bucket(T0 - 60_000, { inFlight: 2 }), bucket(T0 - 3_000, { inFlight: 5 }), bucket(T0 - 1_000, { inFlight: 1 })]);
    const b = snapshot('b', [bucket(T0 - 2_000, { inFlight: 10 })]);
    const series = buildSeries([a, b], T0, 5, 5);
    expect(series.inFlight.map((p) => p.inFlight)).toEqual([2, 5, 5 + 10, 1 + 10, 1 + 10]);
    expect(series.maxInFlight).toBe(15);
  });

  it('latency: the methods with the most samples, their p50 and p95 per point; null where none', () => {
    const latency = (n: number, base: number) => Array.from({ length: n }, (_, i) => base + i);
    const buckets = [
      bucket(T0 - 1_000, { latency: { 'tools/call': latency(20, 100), ping: latency(3, 1), 'tools/list': latency(5, 10), 'resources/read': latency(4, 7), 'prompts/get': latency(2, 9), empty: [] } }),
      bucket(T0, { latency: { ping: latency(3, 2) } }),
    ];
    const series = buildSeries([snapshot('s', buckets)], T0, 2, 2);
    expect(series.methods).toHaveLength(MAX_LATENCY_METHODS);
    expect(series.methods).toEqual(['tools/call', 'ping', 'tools/list', 'resources/read']);
    const first = series.latency[0]!;
    expect(first.m0p50).toBe(110);
    expect(first.m0p95).toBe(119);
    expect(series.latency[1]!.m0p50).toBeNull();
    expect(series.latency[1]!.m1p50).toBe(3);
    expect(series.latencyPoints).toEqual([1, 2, 1, 1]);
  });

  const bucketsArb = fc
    .uniqueArray(fc.integer({ min: -400, max: 20 }), { maxLength: 60 })
    .chain((seconds) =>
      fc.tuple(
        ...[...seconds]
          .sort((x, y) => x - y)
          .map((s) =>
            fc.record({
              t: fc.constant(T0 + s * 1000),
              messages: fc.dictionary(fc.constantFrom(...CHANNELS), fc.nat({ max: 1_000_000 })),
              errors: fc.record({ http4xx: fc.nat(50), http5xx: fc.nat(50), rpc: fc.nat(50), transport: fc.nat(50) }),
              bytes: fc.nat(),
              latency: fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'), fc.array(fc.double({ min: 0, max: 1e5, noNaN: true }), { maxLength: 5 })),
              inFlight: fc.nat(100),
              pingRttMs: fc.option(fc.double({ min: 0, max: 1e4, noNaN: true }), { nil: undefined }),
            }),
          ),
      ),
    );

  it('every message and error of a bucket in the window is in exactly one point; none from outside it', () => {
    fc.assert(
      fc.property(fc.array(bucketsArb, { minLength: 1, maxLength: 3 }), fc.integer({ min: 1, max: 1_000 }), fc.integer({ min: 1, max: 400 }), fc.integer({ min: 0, max: 999 }), (perServer, windowSec, maxPoints, ms) => {
        const snapshots = perServer.map((buckets, i) => snapshot(`s${i}`, buckets as TimeBucket[]));
        const series = buildSeries(snapshots, T0 + ms, windowSec, maxPoints);
        expect(series.messages.length).toBeLessThanOrEqual(Math.max(maxPoints, 1));
        expect(series.messages.length).toBe(Math.ceil(windowSec / series.stepSec));
        expect(series.to - series.from).toBe(series.messages.length * series.stepSec * 1000);
        expect(series.to).toBeGreaterThan(T0); // the current second is in the last point
        expect(series.to - series.stepSec * 1000).toBeLessThanOrEqual(T0);
        const inWindow = snapshots.flatMap((s) => s.buckets).filter((b) => b.t >= series.from && b.t < series.to);
        for (const channel of CHANNELS) {
          const expected = sum(inWindow.map((b) => b.messages[channel as Channel] ?? 0));
          const got = sum(series.messages.map((p) => (p[channel] ?? 0) * series.stepSec));
          expect(got).toBeCloseTo(expected, 3);
          expect(series.channels.includes(channel)).toBe(expected > 0);
        }
        for (const cls of ERROR_CLASSES) expect(sum(series.errors.map((p) => p[cls] * series.stepSec))).toBeCloseTo(sum(inWindow.map((b) => b.errors[cls])), 6);
        const pinged = new Set(inWindow.filter((b) => b.pingRttMs !== undefined).map((b) => Math.floor((b.t - series.from) / (series.stepSec * 1000))));
        expect(series.pingPoints).toBe(pinged.size);
        for (let i = 1; i < series.messages.length; i++) expect(series.messages[i]!.t - series.messages[i - 1]!.t).toBe(series.stepSec * 1000);
      }),
      { numRuns: 300 },
    );
  });

  it('from the snapshots the core derives from a recorded trace', async () => {
    const core = createCore({ settings: new MemorySettingsStore(), carrier: 'browser', version: 't' });
    try {
      const now = core.trace.now();
      for (let id = 0; id < 30; id++) {
        core.trace.record({ server: 's', channel: 'stdio', kind: 'jsonrpc-out', dir: 'out', rpc: { id, method: id % 3 ? 'tools/call' : 'ping', kind: 'request' }, ts: now + id * 100 });
        core.trace.record({ server: 's', channel: 'stdio', kind: 'jsonrpc-in', dir: 'in', rpc: id % 10 === 0 ? { id, kind: 'error', errorCode: -1, errorMessage: 'x' } : { id, kind: 'result' }, ts: now + id * 100 + 20 });
      }
      const snapshots = (await call(core, 'snapshots', {})) as ServerSnapshot[];
      expect(snapshots.map((s) => s.server)).toEqual(['s']);
      const series = buildSeries(snapshots, now + 3_000, 60, 60);
      expect(sum(series.messages.map((p) => p.stdio ?? 0))).toBe(60);
      expect(series.channels).toEqual(['stdio']);
      expect(sum(series.errors.map((p) => p.rpc))).toBe(3);
      expect(series.methods).toContain('tools/call');
      expect(series.inFlight.at(-1)!.inFlight).toBe(0);
      const summary = buildSummary(snapshots);
      // The tile counts the channel's requests, responses, notifications and pings; the snapshot
      // engine counts an error answer as an error, not a response, so the tile shows 58 where the
      // chart's buckets count all 60 messages (a difference in main's snapshots, reported).
      const stdio = snapshots[0]!.channels.stdio!;
      expect(summary.perChannel).toEqual([{ channel: 'stdio', messages: stdio.requests + stdio.responses + stdio.notifications + stdio.pings, errors: 3 }]);
      expect(summary.totalMessages).toBe(58);
      expect(summary.latencySource).toBe('snapshot');
      expect(summary.latency.find((l) => l.method === 'tools/call')?.count).toBe(20);
    } finally {
      await core.shutdown();
    }
  });
});

describe('buildSummary', () => {
  const stats = (requests: number, errors: number) => ({ requests, responses: requests, notifications: 1, pings: 0, errors, state: 'open' as const, bytesIn: 0, bytesOut: 0, openStreams: 0 });

  it('nothing: zeros and no ping', () => {
    expect(buildSummary([])).toEqual({ perChannel: [], totalMessages: 0, latency: [], latencySource: 'samples', inFlight: [], sessions: { active: 0, total: 0, current: undefined }, bytesIn: 0, bytesOut: 0, ping: undefined });
  });

  it('adds up servers: channels in contract order, sessions, bytes, in flight oldest first, ping weighted by count', () => {
    const a = snapshot('a', [bucket(T0, { latency: { m: [1, 2, 3] } })], {
      channels: { stdio: stats(2, 1), get: { ...stats(0, 0), notifications: 0 } },
      sessions: [{ id: 'old', issuedAt: 1, endedAt: 2 }, { id: 'live-a', issuedAt: 3 }],
      inFlight: [{ id: 1, method: 'late', channel: 'stdio', since: 20 }],
      bytesIn: 10,
      bytesOut: 5,
      pingRtt: { last: 9, avg: 10, count: 1 },
      latency: { m: { count: 3, p50: 2, p95: 3, max: 3 } },
    });
    const b = snapshot('b', [bucket(T0, { latency: { m: [100, 200] } })], {
      channels: { 'post-json': stats(1, 0) },
      inFlight: [{ id: 2, method: 'early', channel: 'post-json', since: 10 }],
      bytesIn: 1,
      pingRtt: { last: 30, avg: 20, count: 3 },
      latency: { m: { count: 2, p50: 150, p95: 200, max: 200 } },
    });
    const summary = buildSummary([a, b]);
    expect(summary.perChannel).toEqual([
      { channel: 'post-json', messages: 3, errors: 0 },
      { channel: 'stdio', messages: 5, errors: 1 },
    ]);
    expect(summary.totalMessages).toBe(8);
    expect(summary.sessions).toEqual({ active: 1, total: 2, current: 'live-a' });
    expect([summary.bytesIn, summary.bytesOut]).toEqual([11, 5]);
    expect(summary.inFlight.map((r) => r.method)).toEqual(['early', 'late']);
    expect(summary.ping).toEqual({ last: 30, avg: (10 + 60) / 4 });
    // percentiles are not averaged across servers: the samples are merged
    expect(summary.latencySource).toBe('samples');
    expect(summary.latency).toEqual([{ method: 'm', p50: 3, p95: 200, count: 5 }]);
  });
});

describe('small helpers', () => {
  it('percentile picks from a sorted list, 0 for none', () => {
    expect(percentile([], 0.5)).toBe(0);
    expect(percentile([7], 0.95)).toBe(7);
    expect(percentile([1, 2, 3, 4], 0.5)).toBe(3);
    expect(percentile([1, 2, 3, 4], 1)).toBe(4);
    fc.assert(
      fc.property(fc.array(fc.integer(), { minLength: 1 }), fc.double({ min: 0, max: 1, noNaN: true }), (values, q) => {
        const sorted = [...values].sort((a, b) => a - b);
        expect(sorted).toContain(percentile(sorted, q));
      }),
    );
  });

  it('formatRate, safeLabel (counts and clock times: components/format.ts, renderer-format.test.ts)', () => {
    expect([formatRate(0), formatRate(2.5), formatRate(0.125), formatRate(3), formatRate(1234.6)]).toEqual(['0', '2.5', '0.13', '3', '1,235']);
    expect(safeLabel('a\u202Eb\u2066c')).toBe('abc');
    expect(safeLabel('x'.repeat(200), 10)).toBe(`${'x'.repeat(9)}…`);
    expect(safeLabel('short', 10)).toBe('short');
  });
});

describe('stabilize', () => {
  const at = (messages: number, errors = 0) => [snapshot('a', [bucket(T0, { messages: { 'post-sse': messages }, errors: { http4xx: errors, http5xx: 0, rpc: 0, transport: 0 } })])];

  it('keeps the previous object of every part that did not change, and takes the new one of every part that did', () => {
    const before = buildSeries(at(5), T0 + 1000, 60, 30);
    const after = stabilize(before, buildSeries(at(9), T0 + 1000, 60, 30));
    expect(after.from).toBe(before.from);
    expect(after.messages).not.toBe(before.messages);
    expect(after.maxMessages).toBeGreaterThan(before.maxMessages);
    for (const key of ['errors', 'inFlight', 'ping', 'latency', 'channels'] as const) expect(after[key]).toBe(before[key]);
    const withError = stabilize(after, buildSeries(at(9, 1), T0 + 1000, 60, 30));
    expect(withError.errors).not.toBe(after.errors);
    expect(withError.maxErrors).toBeGreaterThan(0);
    expect(withError.messages).toBe(after.messages);
  });

  it('a moved window is new throughout', () => {
    const before = buildSeries(at(5), T0 + 1000, 60, 30);
    const moved = buildSeries(at(5), T0 + 3000, 60, 30);
    expect(moved.from).not.toBe(before.from);
    const after = stabilize(before, moved);
    expect(after).toBe(moved);
    expect(after.errors).not.toBe(before.errors);
  });
});
