import { afterEach, describe, expect, it, vi } from 'vitest';
import { Batcher, EventHub } from '../../main/core/events';
import { TraceHub } from '../../main/core/trace/hub';
import type { TraceEvent, TraceEventInput } from '../../contract/trace';
import { rowRange } from '../../renderer/src/components/row-range';

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
  it('splits a burst into pushes of at most pushBatchEvents events, every event once and in order', async () => {
    const events = new EventHub();
    const pushes: { events: TraceEvent[]; total: number }[] = [];
    events.subscribe((name, payload) => {
      if (name === 'traceBatch') pushes.push(payload as { events: TraceEvent[]; total: number });
    });
    const hub = new TraceHub(events, { pushIntervalMs: 60_000, pushBatchEvents: 1_000 });
    try {
      // One synchronous burst (as when main fell behind and a turn of its loop recorded thousands).
      for (let i = 0; i < 4_500; i++) hub.record(note(i));
      await nextTurn();
      expect(pushes.map((p) => p.events.length)).toEqual([1_000, 1_000, 1_000, 1_000, 500]);
      expect(pushes.flatMap((p) => p.events.map((e) => e.seq))).toEqual(Array.from({ length: 4_500 }, (_, i) => i + 1));
      expect(pushes.every((p) => p.total === 4_500)).toBe(true);
    } finally {
      hub.close();
    }
  });
});

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
});
