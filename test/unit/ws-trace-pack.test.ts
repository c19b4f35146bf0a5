/**
 * Trace pushes on the browser-mode WebSocket: the fields every event of a push has alike travel
 * once (`packTraceBatch` inside `encodeEvent`), and the page's carrier puts them back
 * (`unpackTraceBatch`). What the page's listeners get must be the push main emitted.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LIMITS, depthOf } from '../../contract/bounded-json';
import { encodeEvent, unpackTraceBatch } from '../../contract/ws';

const SERVER = 'b5a3c1d2-1111-4222-8333-944455556666';
const SESSION = '3f1c7a52-9d0e-4b8a-a5c1-2f4e6d8b0a17';

/** A flood's notification as main pushes it (slimmed: no body). */
const notification = (seq: number) => ({
  server: SERVER,
  channel: 'post-sse',
  kind: 'sse-event',
  dir: 'in',
  exchange: 'x7',
  session: SESSION,
  sse: { event: 'message' },
  rpc: { method: 'notifications/message', kind: 'notification' },
  bytes: 118,
  seq,
  ts: 1796570483022.5737 + seq,
  truncated: true,
});

/** What a page listener receives for an event frame, as the carrier hands it on. */
const received = (frame: string) => {
  const parsed = JSON.parse(frame) as { event: string; payload: unknown };
  return parsed.event === 'traceBatch' ? unpackTraceBatch(parsed.payload) : parsed.payload;
};

describe('trace pushes on the WebSocket', () => {
  it("a flood's push travels in about half the bytes and arrives as emitted, key order included", () => {
    const payload = { events: Array.from({ length: 500 }, (_, i) => notification(1000 + i)), total: 1499 };
    const frame = encodeEvent('traceBatch', payload);
    const plain = JSON.stringify({ type: 'event', event: 'traceBatch', payload });
    expect(frame.length).toBeLessThan(plain.length * 0.55);
    expect(JSON.parse(frame).payload.shared).toEqual({ server: SERVER, channel: 'post-sse', kind: 'sse-event', dir: 'in', exchange: 'x7', session: SESSION });
    expect(JSON.stringify(received(frame))).toBe(JSON.stringify(payload));
    // What bench/ui-flood.ts and the stress test read off the frame's tail.
    expect(frame).toMatch(/"total":1499\}\}$/);
    const partial = encodeEvent('traceBatch', { ...payload, partial: true });
    expect(partial).toMatch(/"total":1499,"partial":true\}\}$/);
    expect(received(partial)).toEqual({ ...payload, partial: true });
  });

  it('only what every event has alike is shared; the rest stays in each event', () => {
    const a = notification(1);
    const b = { ...notification(2), kind: 'http-end', session: undefined };
    const { session: _dropped, ...c } = notification(3);
    const payload = { events: [a, b, c], total: 3 };
    const packed = JSON.parse(encodeEvent('traceBatch', payload)).payload;
    expect(packed.shared).toEqual({ server: SERVER, channel: 'post-sse', dir: 'in', exchange: 'x7' });
    expect(packed.events[1].kind).toBe('http-end');
    expect(packed.events[0].session).toBe(SESSION);
    expect(received(encodeEvent('traceBatch', payload))).toEqual(JSON.parse(JSON.stringify(payload)));
  });

  it('a push of one event, or with nothing alike, and every other event, go as they are', () => {
    const one = { events: [notification(1)], total: 1 };
    expect(encodeEvent('traceBatch', one)).toBe(JSON.stringify({ type: 'event', event: 'traceBatch', payload: one }));
    const unlike = { events: [{ seq: 1, server: 'a' }, { seq: 2, server: 'b' }], total: 2 };
    expect(encodeEvent('traceBatch', unlike)).toBe(JSON.stringify({ type: 'event', event: 'traceBatch', payload: unlike }));
    const snapshot = { server: SERVER, events: [notification(1), notification(2)] };
    expect(encodeEvent('snapshot', snapshot)).toBe(JSON.stringify({ type: 'event', event: 'snapshot', payload: snapshot }));
  });

  it('a packed push is still cut to the carried depth', () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 5_000; i++) deep = { d: deep };
    const payload = { events: [{ ...notification(1), body: deep }, notification(2)], total: 2 };
    const frame = encodeEvent('traceBatch', payload);
    expect(depthOf(JSON.parse(frame))).toBeLessThanOrEqual(LIMITS.carriedDepth + 1);
    const events = (received(frame) as { events: { server: string; seq: number }[] }).events;
    expect(events.map((e) => [e.server, e.seq])).toEqual([
      [SERVER, 1],
      [SERVER, 2],
    ]);
  });

  it('any push arrives as emitted (property)', () => {
    const pick = <T>(values: T[]) => fc.option(fc.constantFrom(...values), { nil: undefined });
    const event = fc.record(
      {
        seq: fc.nat(),
        server: pick(['s1', 's2', '']),
        channel: pick(['stdio', 'post-sse']),
        kind: pick(['sse-event', 'http-end']),
        dir: pick(['in', 'out']),
        exchange: pick(['x1', 'x2']),
        session: pick(['e1', SESSION]),
        body: fc.jsonValue({ maxDepth: 3 }),
      },
      { requiredKeys: ['seq'] },
    );
    fc.assert(
      fc.property(fc.array(event, { maxLength: 12 }), fc.nat(), fc.boolean(), (events, total, partial) => {
        const payload = { events, total, ...(partial ? { partial } : {}) };
        expect(received(encodeEvent('traceBatch', payload))).toEqual(JSON.parse(JSON.stringify(payload)));
      }),
      { numRuns: 1_000 },
    );
  });
});
