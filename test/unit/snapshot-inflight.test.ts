/**
 * The snapshot engine's in-flight count (main/core/trace/snapshots.ts): kept as requests come and
 * go instead of walking every waiting request on each event, it must always equal what the
 * snapshot lists as in flight — through answers, errors, cancellations, repeated ids, pings, the
 * long-lived listen request and disconnects, in random order.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TraceEventInput } from '../../contract/trace';
import { SnapshotEngine } from '../../main/core/trace/snapshots';
import { summarizeBody } from '../../main/core/trace/rpc';

const T0 = Date.UTC(2026, 11, 5, 12, 0, 0);
const METHODS = ['tools/call', 'ping', 'subscriptions/listen', 'resources/read'];

type Step =
  | { op: 'request'; id: number; method: string; dir: 'out' | 'in' }
  | { op: 'answer'; id: number; error: boolean; dir: 'out' | 'in' }
  | { op: 'cancel'; id: number; dir: 'out' | 'in' }
  | { op: 'disconnect' };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ op: fc.constant('request' as const), id: fc.nat(12), method: fc.constantFrom(...METHODS), dir: fc.constantFrom('out' as const, 'in' as const) }) },
  { weight: 4, arbitrary: fc.record({ op: fc.constant('answer' as const), id: fc.nat(12), error: fc.boolean(), dir: fc.constantFrom('out' as const, 'in' as const) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('cancel' as const), id: fc.nat(12), dir: fc.constantFrom('out' as const, 'in' as const) }) },
  { weight: 1, arbitrary: fc.constant({ op: 'disconnect' as const }) },
);

function eventOf(s: Step, ts: number, seq: number): Parameters<SnapshotEngine['apply']>[0] {
  const base = { seq, ts, server: 's', channel: 'stdio' as const };
  if (s.op === 'disconnect') return { ...base, channel: 'lifecycle', kind: 'state', dir: 'none', meta: { state: 'disconnected' } };
  const body =
    s.op === 'request'
      ? { jsonrpc: '2.0', id: s.id, method: s.method }
      : s.op === 'cancel'
        ? { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: s.id } }
        : s.error
          ? { jsonrpc: '2.0', id: s.id, error: { code: -1, message: 'no' } }
          : { jsonrpc: '2.0', id: s.id, result: {} };
  const input: TraceEventInput = { server: 's', channel: 'stdio', kind: s.dir === 'out' ? 'jsonrpc-out' : 'jsonrpc-in', dir: s.dir, body, ...summarizeBody(body) };
  return { ...input, seq, ts };
}

describe('SnapshotEngine in-flight count', () => {
  it('equals the requests the snapshot lists as in flight after every event, whatever the order', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 120 }), (steps) => {
        const engine = new SnapshotEngine();
        steps.forEach((s, i) => {
          // a new one-second bucket now and then, so buckets are created with the count too
          engine.apply(eventOf(s, T0 + i * 300, i + 1));
          const snapshot = engine.snapshot('s')!;
          expect(snapshot.buckets.at(-1)!.inFlight).toBe(snapshot.inFlight.length);
        });
      }),
      { numRuns: 300 },
    );
  });

  it('counts neither pings nor the listen request, and a repeated id replaces its request', () => {
    const engine = new SnapshotEngine();
    const steps: Step[] = [
      { op: 'request', id: 1, method: 'tools/call', dir: 'out' },
      { op: 'request', id: 2, method: 'ping', dir: 'out' },
      { op: 'request', id: 3, method: 'subscriptions/listen', dir: 'out' },
      { op: 'request', id: 1, method: 'ping', dir: 'out' }, // the same id again: a ping now
      { op: 'request', id: 1, method: 'tools/call', dir: 'in' }, // the other direction is another request
    ];
    const counts = steps.map((s, i) => {
      engine.apply(eventOf(s, T0, i + 1));
      return engine.snapshot('s')!.buckets.at(-1)!.inFlight;
    });
    expect(counts).toEqual([1, 1, 1, 0, 1]);
  });
});
