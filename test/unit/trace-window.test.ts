/**
 * Traffic's windows over main's store (main/core/trace/window.ts): rows by position among the
 * matches or around a seq, filters evaluated on the index, over a store most of whose events are
 * spilled to disk — checked against a plain scan of every event; and through the real core's
 * dispatcher as the contract method `traceWindow`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { TraceEvent, TraceEventInput } from '../../contract/trace';
import { createCore, type Core } from '../../main/core/app';
import { MemorySettingsStore } from '../../main/core/store/settings';
import { TraceStore } from '../../main/core/trace/store';
import { traceWindow, type TraceWindowQuery } from '../../main/core/trace/window';

const stores: TraceStore[] = [];
const cores: Core[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) store.close();
  for (const core of cores.splice(0)) await core.shutdown();
});

/** Stdio requests (two methods, two servers), every seventh a stderr line, every 13th a JSON-RPC error. */
function input(i: number): TraceEventInput {
  if (i % 7 === 3) return { server: i % 2 ? 'a' : 'b', channel: 'stdio', kind: 'stderr', dir: 'in', text: `line ${i}${i % 70 === 3 ? ' NEEDLE' : ''}` };
  if (i % 13 === 5)
    return { server: 'a', channel: 'stdio', kind: 'jsonrpc-in', dir: 'in', rpc: { id: i, kind: 'error' }, body: { jsonrpc: '2.0', id: i, error: { code: -32000, message: `bad ${i}` } }, bytes: 50 };
  return {
    server: i % 3 ? 'a' : 'b',
    channel: 'stdio',
    kind: 'jsonrpc-out',
    dir: 'out',
    rpc: { id: i, method: i % 2 ? 'tools/call' : 'tools/list', kind: 'request' },
    body: { jsonrpc: '2.0', id: i, method: i % 2 ? 'tools/call' : 'tools/list', params: { marker: `m${i}` } },
    bytes: 60,
  };
}

function filled(n: number, windowSize = 200): TraceStore {
  const store = new TraceStore({ windowSize });
  stores.push(store);
  for (let i = 0; i < n; i++) store.append(input(i));
  return store;
}

/** What a window must hold, by a plain scan of every event (store.all reads the spilled ones back). */
function expected(store: TraceStore, pred: (e: TraceEvent) => boolean, q: Pick<TraceWindowQuery, 'afterSeq' | 'throughSeq'> = {}): number[] {
  const seqs: number[] = [];
  for (const e of store.all()) if (pred(e) && e.seq > (q.afterSeq ?? 0) && e.seq <= (q.throughSeq ?? Infinity)) seqs.push(e.seq);
  return seqs;
}

const seqs = (events: TraceEvent[]) => events.map((e) => e.seq);

describe('traceWindow over a store with a spilled part', () => {
  it('unfiltered: rows by position are the events by seq, spilled or in memory; the default is the tail', () => {
    const store = filled(10_000);
    const middle = traceWindow(store, { offset: 4_000, limit: 50 });
    expect(middle).toMatchObject({ offset: 4_000, matched: 10_000, total: 10_000 });
    expect(seqs(middle.events)).toEqual(Array.from({ length: 50 }, (_, k) => 4_001 + k));
    expect(middle.events[10]!.body).toEqual(input(4_010).body); // read back whole from the spill file
    const tail = traceWindow(store, { limit: 30 });
    expect(tail.offset).toBe(9_970);
    expect(seqs(tail.events).at(-1)).toBe(10_000);
    // past the end: nothing, not an error
    expect(traceWindow(store, { offset: 20_000 }).events).toEqual([]);
  });

  it('filters on the index (server, kind, method, errors) give the same rows and count as a scan of every event', () => {
    const store = filled(10_000);
    const cases: [TraceWindowQuery, (e: TraceEvent) => boolean][] = [
      [{ methods: ['tools/call'] }, (e) => e.rpc?.method === 'tools/call'],
      [{ servers: ['b'], kinds: ['jsonrpc-out'] }, (e) => e.server === 'b' && e.kind === 'jsonrpc-out'],
      [{ errorsOnly: true }, (e) => e.rpc?.kind === 'error'],
      [{ kinds: ['stderr'], servers: ['a'] }, (e) => e.kind === 'stderr' && e.server === 'a'],
      [{ methods: ['no/such'] }, () => false],
    ];
    for (const [filter, pred] of cases) {
      const all = expected(store, pred);
      const head = traceWindow(store, { ...filter, offset: 0, limit: 100 });
      expect(head.matched, JSON.stringify(filter)).toBe(all.length);
      expect(seqs(head.events)).toEqual(all.slice(0, 100));
      const mid = Math.floor(all.length / 2);
      const middle = traceWindow(store, { ...filter, offset: mid, limit: 100 });
      expect(seqs(middle.events)).toEqual(all.slice(mid, mid + 100));
      expect(middle.events.every(pred)).toBe(true);
    }
  });

  it('a text filter reads the events (spilled ones from disk) and finds the same as a scan', () => {
    const store = filled(5_000);
    const all = expected(store, (e) => e.text?.includes('NEEDLE') ?? false);
    expect(all.length).toBeGreaterThan(50);
    const win = traceWindow(store, { text: 'needle', offset: 0, limit: 2_000 });
    expect(win.matched).toBe(all.length);
    expect(seqs(win.events)).toEqual(all);
    // text and an index filter together
    const both = traceWindow(store, { text: 'needle', servers: ['a'], offset: 0, limit: 2_000 });
    expect(seqs(both.events)).toEqual(expected(store, (e) => e.server === 'a' && (e.text?.includes('NEEDLE') ?? false)));
  });

  it('jumps to a seq: the window is centred on it and says its position; a seq that does not match says -1', () => {
    const store = filled(10_000);
    const all = expected(store, (e) => e.rpc?.method === 'tools/list');
    const target = all[1_234]!;
    const around = traceWindow(store, { methods: ['tools/list'], aroundSeq: target, limit: 100 });
    expect(around.at).toBe(1_234);
    expect(around.offset).toBe(1_234 - 50);
    expect(around.events[around.at! - around.offset]!.seq).toBe(target);
    const stderrSeq = 4; // input(3) is a stderr line: no method
    const missing = traceWindow(store, { methods: ['tools/list'], aroundSeq: stderrSeq, limit: 100 });
    expect(missing.at).toBe(-1);
    expect(missing.offset).toBe(0); // where it would be: before the second match
    const plain = traceWindow(store, { aroundSeq: 7_000, limit: 20 });
    expect(plain.at).toBe(6_999);
    expect(seqs(plain.events)).toContain(7_000);
  });

  it('afterSeq and throughSeq bound the matches ("Clear view", a paused view)', () => {
    const store = filled(10_000);
    const bounds = { afterSeq: 3_000, throughSeq: 8_000 };
    const all = expected(store, (e) => e.kind === 'stderr', bounds);
    const win = traceWindow(store, { kinds: ['stderr'], ...bounds, offset: 0, limit: 2_000 });
    expect(win.matched).toBe(all.length);
    expect(seqs(win.events)).toEqual(all);
    const plain = traceWindow(store, { ...bounds, offset: 0, limit: 5 });
    expect(plain.matched).toBe(5_000);
    expect(seqs(plain.events)).toEqual([3_001, 3_002, 3_003, 3_004, 3_005]);
    expect(traceWindow(store, { ...bounds, aroundSeq: 2_000 }).at).toBe(-1);
  });

  it('a live trace: the matches are extended as events arrive (the same filter asked again)', () => {
    const store = filled(3_000);
    const first = traceWindow(store, { methods: ['tools/call'], limit: 10 });
    for (let i = 3_000; i < 6_000; i++) store.append(input(i));
    const again = traceWindow(store, { methods: ['tools/call'], limit: 10 });
    const all = expected(store, (e) => e.rpc?.method === 'tools/call');
    expect(again.matched).toBe(all.length);
    expect(again.matched).toBeGreaterThan(first.matched);
    expect(seqs(again.events)).toEqual(all.slice(-10));
  });

  it('a channel filter places a request by its exchange channel, also when the answer came after the last scan', () => {
    const store = new TraceStore({ windowSize: 10 });
    stores.push(store);
    const request = (x: string): TraceEventInput => ({ server: 's', channel: 'post-json', kind: 'http-request', dir: 'out', exchange: x, http: { method: 'POST', url: 'http://h/mcp' } });
    const response = (x: string): TraceEventInput => ({ server: 's', channel: 'post-sse', kind: 'http-response', dir: 'in', exchange: x, http: { status: 200 } });
    for (let i = 0; i < 50; i++) {
      store.append(request(`x${i}`));
      store.append(response(`x${i}`));
    }
    store.append(request('late'));
    expect(traceWindow(store, { channels: ['post-sse'], limit: 500 }).matched).toBe(100);
    store.append(response('late'));
    const win = traceWindow(store, { channels: ['post-sse'], limit: 500 });
    expect(win.matched).toBe(102);
    expect(seqs(win.events).slice(-2)).toEqual([101, 102]);
  });

  it('is the contract method traceWindow through the core (validated, live source)', async () => {
    const core = createCore({ settings: new MemorySettingsStore(), carrier: 'browser', version: 't' });
    cores.push(core);
    for (let i = 0; i < 500; i++) core.trace.record(input(i));
    const reply = await core.dispatch('traceWindow', { methods: ['tools/call'], offset: 10, limit: 5 });
    expect(reply.ok).toBe(true);
    const result = (reply as { result: { events: TraceEvent[]; matched: number; offset: number } }).result;
    const all = expected(core.trace.store, (e) => e.rpc?.method === 'tools/call');
    expect(result.matched).toBe(all.length);
    expect(seqs(result.events)).toEqual(all.slice(10, 15));
    const bad = await core.dispatch('traceWindow', { limit: 10_000 });
    expect(bad.ok).toBe(false);
  });
});
