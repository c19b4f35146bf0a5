/**
 * The Traffic table's row models (renderer/src/features/traffic/models.ts) in Node, against the
 * real parts they talk to: the core's trace store and dispatcher behind the typed contract client
 * (`traceQuery` pages), and the renderer's own TraceBuffer fed by the core's `traceBatch` pushes.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { createApi, type SwitchboardApi } from '../../contract/client';
import { TRACE_FEED_TAIL, isErrorEvent, type TraceEvent, type TraceEventInput } from '../../contract/trace';
import { createCore, type Core } from '../../main/core/app';
import { MemorySettingsStore } from '../../main/core/store/settings';
import { ExchangeGroup, LIST_MAX_EVENTS, ListModel, SeqModel, WindowModel, findSeq, firstAfter, type RowModel } from '../../renderer/src/features/traffic/models';
import { LEAN_WINDOW, TraceBuffer } from '../../renderer/src/state/trace-buffer';

const cores: Core[] = [];
const disposers: (() => void)[] = [];
afterEach(async () => {
  for (const dispose of disposers.splice(0)) dispose();
  for (const core of cores.splice(0)) await core.shutdown();
});

interface World {
  core: Core;
  api: SwitchboardApi;
  /** Appends events to the core's trace (the store numbers them). */
  record(inputs: TraceEventInput[]): void;
  events(): TraceEvent[];
}

function world(): World {
  const core = createCore({ settings: new MemorySettingsStore(), carrier: 'browser', version: 't' });
  cores.push(core);
  const api = createApi({
    invoke: (method, args) => core.dispatch(method, args),
    subscribe: (event, listener) => core.events.subscribe((name, payload) => name === event && listener(payload)),
  });
  return { core, api, record: (inputs) => inputs.forEach((input) => core.trace.record(input)), events: () => [...core.trace.store.all()] };
}

/** A live buffer that has loaded main's window and follows its pushes. */
async function liveBuffer(w: World): Promise<TraceBuffer> {
  const buffer = new TraceBuffer(w.api);
  disposers.push(await buffer.start());
  return buffer;
}

/** Resolves on the model's next change. */
const changed = (model: RowModel): Promise<void> =>
  new Promise((resolve) => {
    const off = model.subscribe(() => {
      off();
      resolve();
    });
  });

async function settled(model: RowModel): Promise<void> {
  await expect.poll(() => model.status().loading || model.status().loadingOlder).toBe(false);
}

/** `n` events: stdio lines, a stderr line, every fifth a JSON-RPC error; HTTP exchanges in between. */
let exchanges = 0;
function inputs(n: number, server = 's'): TraceEventInput[] {
  const out: TraceEventInput[] = [];
  for (let i = 0; out.length < n; i++) {
    if (i % 7 === 3) {
      const exchange = `x${++exchanges}`;
      out.push({ server, channel: 'post-json', kind: 'http-request', dir: 'out', exchange, rpc: { id: i, method: 'tools/call', kind: 'request' }, http: { method: 'POST', url: 'http://h/mcp' } });
      out.push({ server, channel: 'post-sse', kind: 'http-response', dir: 'in', exchange, http: { status: i % 2 ? 200 : 500, contentType: 'text/event-stream' } });
      out.push({ server, channel: 'post-sse', kind: 'sse-event', dir: 'in', exchange, rpc: { id: i, kind: 'result' } });
      out.push({ server, channel: 'post-sse', kind: 'http-end', dir: 'in', exchange, http: { end: 'complete' } });
    } else if (i % 5 === 0) out.push({ server, channel: 'stdio', kind: 'jsonrpc-in', dir: 'in', rpc: { id: i, kind: 'error', errorCode: -32603, errorMessage: 'no' } });
    else if (i % 5 === 1) out.push({ server, channel: 'stdio', kind: 'stderr', dir: 'in', text: `line ${i}` });
    else out.push({ server, channel: 'stdio', kind: 'jsonrpc-out', dir: 'out', rpc: { id: i, method: 'ping', kind: 'request' } });
  }
  return out.slice(0, n);
}

describe('TraceBuffer', () => {
  it('without a full-feed lease: loads the newest 500, is pushed the newest 200 (partial), keeps at most LEAN_WINDOW, never an event twice', async () => {
    const w = world();
    w.record(inputs(300));
    const pushed = new Promise<{ events: TraceEvent[]; partial?: boolean }>((resolve) => disposers.push(w.api.on('traceBatch', resolve)));
    const buffer = await liveBuffer(w); // loads all 300 before the batch that carries the newest is pushed
    const push = await pushed;
    expect(push.partial).toBe(true);
    // the newest 200, and before them only HTTP responses (each settles its exchange's channel)
    const older = push.events.slice(0, -TRACE_FEED_TAIL);
    expect(push.events.slice(-TRACE_FEED_TAIL).map((e) => e.seq)).toEqual(Array.from({ length: TRACE_FEED_TAIL }, (_, i) => 101 + i));
    expect(older.length).toBeGreaterThan(0);
    expect(older.every((e) => e.kind === 'http-response' && e.seq <= 100)).toBe(true);
    expect(buffer.full).toBe(false);
    expect(buffer.events.map((e) => e.seq)).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
    w.record(inputs(5));
    await expect.poll(() => buffer.events.length).toBe(305);
    expect(new Set(buffer.events.map((e) => e.seq)).size).toBe(305);

    // a flood: the buffer holds the newest of each push, bounded, in order; the total is exact
    for (let i = 0; i < 20; i++) {
      w.record(inputs(1_000));
      await new Promise((resolve) => setTimeout(resolve, 300)); // one push each
    }
    await expect.poll(() => buffer.total).toBe(20_305);
    const seqs = buffer.events.map((e) => e.seq);
    expect(seqs.length).toBeLessThanOrEqual(LEAN_WINDOW);
    expect(seqs.at(-1)).toBe(20_305);
    expect(seqs.every((seq, i) => i === 0 || seq > seqs[i - 1]!)).toBe(true);
    expect(seqs.slice(-TRACE_FEED_TAIL)).toEqual(Array.from({ length: TRACE_FEED_TAIL }, (_, i) => 20_305 - TRACE_FEED_TAIL + 1 + i));
    expect(seqs.length).toBeLessThan(20_305 - 300); // it was not given everything
  });

  it('with a full-feed lease: a whole window without a gap, every event pushed; released, the pushes are partial again', async () => {
    const w = world();
    w.record(inputs(7_000));
    const buffer = await liveBuffer(w);
    const release = buffer.acquireFull();
    await expect.poll(() => buffer.full).toBe(true);
    // (what the partial feed still held went out as one last partial push when the lease began)
    const batches: { partial?: boolean; seqs: number[] }[] = [];
    disposers.push(w.api.on('traceBatch', ({ events, partial }) => batches.push({ partial, seqs: events.map((e) => e.seq) })));
    expect(buffer.events.map((e) => e.seq)).toEqual(Array.from({ length: 5_000 }, (_, i) => 2_001 + i));
    for (let i = 0; i < 5; i++) {
      w.record(inputs(1_000));
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    await expect.poll(() => buffer.events.at(-1)?.seq).toBe(12_000);
    expect(buffer.events.map((e) => e.seq)).toEqual(Array.from({ length: 10_000 }, (_, i) => 2_001 + i));
    expect(batches.length).toBeGreaterThan(0);
    expect(batches.every((b) => !b.partial)).toBe(true);
    expect(batches.flatMap((b) => b.seqs)).toEqual(Array.from({ length: 5_000 }, (_, i) => 7_001 + i));

    release();
    expect(buffer.full).toBe(false);
    expect(buffer.events.length).toBe(LEAN_WINDOW); // what it holds is trimmed to what a table shows
    batches.length = 0;
    await new Promise((resolve) => setTimeout(resolve, 50)); // the release reaches main
    w.record(inputs(1_000));
    await expect.poll(() => batches.length).toBe(1);
    expect(batches[0]).toMatchObject({ partial: true });
    expect(batches[0]!.seqs.slice(-TRACE_FEED_TAIL)).toEqual(Array.from({ length: TRACE_FEED_TAIL }, (_, i) => 13_000 - TRACE_FEED_TAIL + 1 + i));
    expect(batches[0]!.seqs.length).toBeLessThan(1_000); // not the 1,000 recorded: the older ones are only the HTTP responses
  });
});

describe('TraceBuffer, lease lost', () => {
  it('a partial push while it wants the full feed: it takes the lease again and starts over from a whole window', async () => {
    const w = world();
    w.record(inputs(1_000));
    const buffer = await liveBuffer(w);
    const release = buffer.acquireFull();
    disposers.push(release);
    await expect.poll(() => buffer.full).toBe(true);
    // main forgets the lease (as when it runs out before a renewal is heard)
    await w.api.traceFeed({ lease: buffer.lease, full: false });
    w.record(inputs(3_000));
    await expect.poll(() => buffer.events.at(-1)?.seq, { timeout: 5_000 }).toBe(4_000);
    await expect.poll(() => buffer.full).toBe(true);
    w.record(inputs(1_000));
    await expect.poll(() => buffer.events.at(-1)?.seq).toBe(5_000);
    // whole again: no gap in what it holds
    const seqs = buffer.events.map((e) => e.seq);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => seqs[0]! + i));
    expect(seqs.length).toBeGreaterThanOrEqual(5_000 - 1);
  });
});

describe('seq search', () => {
  it('firstAfter and findSeq agree with a scan, with and without gaps', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: 200 })), fc.integer({ min: -5, max: 210 }), (seqs, seq) => {
        const events = [...seqs].sort((a, b) => a - b).map((s) => ({ seq: s }) as TraceEvent);
        const after = events.findIndex((e) => e.seq > seq);
        expect(firstAfter(events, seq)).toBe(after < 0 ? events.length : after);
        expect(findSeq(events, seq)).toBe(events.find((e) => e.seq === seq));
      }),
    );
    expect(findSeq([], 1)).toBeUndefined();
  });
});

describe('ExchangeGroup', () => {
  it('collects its exchange: request, response, SSE events, end and errors', () => {
    const events = inputs(11).map((e, i) => ({ ...e, seq: i + 1, ts: i }) as TraceEvent);
    const http = events.filter((e) => e.exchange !== undefined);
    const group = new ExchangeGroup(http[0]!.exchange!, http[0]!);
    for (const e of http) group.add(e, isErrorEvent(e));
    expect(group.seq).toBe(http[0]!.seq);
    expect([group.request, group.response, group.end]).toEqual([http[0], http[1], http[3]]);
    expect(group.sseCount).toBe(1);
    expect(group.errors).toBe(0);
    expect(group.contains(http[2]!.seq)).toBe(true);
    expect(group.contains(http[0]!.seq - 1)).toBe(false);
  });
});

describe('SeqModel', () => {
  it('row i is event baseline + i + 1: from the live window, the rest paged from main; each event once', async () => {
    const w = world();
    w.record(inputs(6_200)); // more than the buffer loads (the newest 500): the oldest 5,700 are only in main
    const buffer = await liveBuffer(w);
    expect(buffer.events[0]!.seq).toBe(5_701);
    const model = new SeqModel(w.api, 'live', buffer);
    disposers.push(() => model.dispose());
    expect(model.count).toBe(6_200);
    expect(model.rowAt(6_199)).toBe(buffer.events.at(-1));
    expect(model.rowAt(0)).toBeUndefined(); // not loaded yet

    const loaded = changed(model);
    model.visible(0, 5_699);
    await loaded;
    await settled(model);
    const all = w.events();
    const rows = Array.from({ length: model.count }, (_, i) => model.rowAt(i));
    expect(rows.map((e) => e?.seq)).toEqual(all.map((e) => e.seq));
    expect(rows.every((row, i) => row !== undefined && row.seq === model.seqAt(i) && model.indexOfSeq(row.seq) === i)).toBe(true);
    expect(model.status()).toMatchObject({ count: 6_200, events: 6_200, total: 6_200, exact: true, loading: false });
  });

  it('"Clear view" hides what came before; paused, the end holds still while main grows', async () => {
    const w = world();
    w.record(inputs(50));
    const buffer = await liveBuffer(w);
    const model = new SeqModel(w.api, 'live', buffer);
    disposers.push(() => model.dispose());
    const bumped = changed(model);
    model.configure(20, 40);
    await bumped;
    expect(model.count).toBe(20);
    expect(model.seqAt(0)).toBe(21);
    expect(model.rowAt(0)?.seq).toBe(21);
    expect(model.indexOfSeq(20)).toBe(-1);
    expect(model.indexOfSeq(41)).toBe(-1);
    expect(model.indexOfSeq(40)).toBe(19);

    w.record(inputs(10));
    await expect.poll(() => buffer.total).toBe(60);
    expect(model.count).toBe(20); // frozen
    model.configure(20, undefined);
    expect(model.count).toBe(40);
    expect(model.rowAt(39)?.seq).toBe(60);
  });

  it('an empty trace has no rows; without a live buffer the count is what main reports', async () => {
    const w = world();
    const empty = new SeqModel(w.api, 'live', await liveBuffer(w));
    expect([empty.count, empty.rowAt(0), empty.indexOfSeq(1)]).toEqual([0, undefined, -1]);
    w.record(inputs(1_234));
    const paged = new SeqModel(w.api, 'live', null);
    disposers.push(() => paged.dispose(), () => empty.dispose());
    expect(paged.status().loading).toBe(true);
    await expect.poll(() => paged.count).toBe(1_234);
    paged.visible(1_000, 1_233);
    await expect.poll(() => paged.rowAt(1_233)?.seq).toBe(1_234);
    expect(paged.rowAt(1_000)?.seq).toBe(1_001);
  });
});

describe('ListModel', () => {
  const listModel = (w: World, buffer: TraceBuffer | null, query: Record<string, unknown> | null, options: { grouped?: boolean; baseline?: number; expanded?: Set<string> } = {}) => {
    const model = new ListModel(w.api, 'live', buffer, query, true, options.grouped ?? false, options.expanded ?? new Set(), options.baseline ?? 0, isErrorEvent);
    disposers.push(() => model.dispose());
    return model;
  };

  it('grouped: an exchange is one row, expanded it shows its events; seqs map back to rows', async () => {
    const w = world();
    w.record(inputs(30));
    const buffer = await liveBuffer(w);
    const model = listModel(w, buffer, null, { grouped: true });
    await settled(model);
    const all = w.events();
    const exchanges = new Set(all.filter((e) => e.exchange).map((e) => e.exchange));
    const loose = all.filter((e) => !e.exchange).length;
    expect(model.count).toBe(loose + exchanges.size);
    const group = model.rowAt(model.indexOfSeq(all.find((e) => e.kind === 'sse-event')!.seq)) as ExchangeGroup;
    expect(group).toBeInstanceOf(ExchangeGroup);
    expect(group.events.map((e) => e.kind)).toEqual(['http-request', 'http-response', 'sse-event', 'http-end']);
    expect(group.errors).toBe(isErrorEvent(group.response!) ? 1 : 0);
    expect(model.groupOf(group.events[2]!)).toBe(group);

    model.setExpanded(new Set([group.exchange]));
    expect(model.count).toBe(loose + exchanges.size + 4);
    const at = model.indexOfSeq(group.events[2]!.seq);
    expect(model.rowAt(at)).toBe(group.events[2]);
    expect(model.rowAt(model.indexOfSeq(group.seq))).toBe(group.events[0]);

    // live: new events join their rows
    w.record(inputs(14));
    await expect.poll(() => buffer.total).toBe(44);
    model.tick(false); // new events are read from main
    await expect.poll(() => model.events.length).toBe(44);
    model.setExpanded(new Set());
    const rows = Array.from({ length: model.count }, (_, i) => model.rowAt(i)!);
    const shown = rows.flatMap((row) => (row instanceof ExchangeGroup ? row.events : [row]));
    expect(shown.map((e) => e.seq).sort((a, b) => a - b)).toEqual(Array.from({ length: 44 }, (_, i) => i + 1));
  });

  it('grouped, one exchange of more events than it may hold: older pages add no row, load up to LIST_MAX_EVENTS, then stop and say so', async () => {
    const w = world();
    w.record(inputs(2_000)); // older than the exchange: never reached
    const exchange = 'x-flood';
    const flood: TraceEventInput[] = [{ server: 's', channel: 'post-sse', kind: 'http-request', dir: 'out', exchange, rpc: { id: 1, method: 'tools/call', kind: 'request' }, http: { method: 'POST', url: 'http://h/mcp' } }];
    for (let i = 0; i < LIST_MAX_EVENTS + 1_000; i++) flood.push({ server: 's', channel: 'post-sse', kind: 'sse-event', dir: 'in', exchange, rpc: { method: 'notifications/message', kind: 'notification' } });
    w.record(flood);
    w.record(Array.from({ length: 500 }, (_, i): TraceEventInput => ({ server: 's', channel: 'stdio', kind: 'stderr', dir: 'in', text: `after ${i}` })));
    const model = listModel(w, null, null, { grouped: true });
    await settled(model);
    // the newest page: 500 loose lines and the exchange's last 500 events, in one row
    expect(model.count).toBe(501);
    let loads = 0;
    while (model.hasOlder) {
      expect(await model.loadOlder()).toBe(true);
      loads++;
      expect(model.count).toBe(501); // every older page joined the group already shown
    }
    expect(model.events.length).toBeGreaterThanOrEqual(LIST_MAX_EVENTS);
    expect(model.events.length).toBeLessThan(LIST_MAX_EVENTS + 1_000);
    expect(loads).toBe(Math.ceil(LIST_MAX_EVENTS / 1_000) - 1);
    expect(await model.loadOlder()).toBe(false);
    expect(model.status()).toMatchObject({ exact: false, capped: true, loadingOlder: false });
    expect(model.indexOfSeq(2_000)).toBe(-1); // the older events were not loaded
  }, 60_000);

  it('ungrouped with a baseline: only events after it, ticking adds only what is new', async () => {
    const w = world();
    w.record(inputs(40));
    const buffer = await liveBuffer(w);
    const model = listModel(w, buffer, null, { baseline: 25 });
    await settled(model);
    expect(model.events.map((e) => e.seq)).toEqual(Array.from({ length: 15 }, (_, i) => 26 + i));
    expect(model.hasOlder).toBe(false);
    model.tick(true); // paused: nothing
    w.record(inputs(5));
    await expect.poll(() => buffer.total).toBe(45);
    model.tick(true);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(model.count).toBe(15);
    model.tick(false);
    model.tick(false); // a second tick while the first one's read is under way adds nothing twice
    await expect.poll(() => model.events.length).toBe(20);
    expect(model.events.map((e) => e.seq)).toEqual(Array.from({ length: 20 }, (_, i) => 26 + i));
    expect(model.indexOfSeq(26)).toBe(0);
    expect(model.indexOfSeq(25)).toBe(-1);
  });

  it('filtered: the newest page first, older pages on demand, new matches tailed; every match once, in order', async () => {
    const w = world();
    w.record(inputs(8_000));
    const buffer = await liveBuffer(w);
    const model = listModel(w, buffer, { errorsOnly: true });
    await settled(model);
    const matches = () => w.events().filter(isErrorEvent).map((e) => e.seq);
    expect(matches().length).toBeGreaterThan(1_000); // more than one page
    expect(model.status().exact).toBe(false);
    expect(model.events.map((e) => e.seq)).toEqual(matches().slice(-1_000));
    while (model.hasOlder) expect(await model.loadOlder()).toBe(true);
    expect(model.status()).toMatchObject({ exact: true, total: 8_000 });
    expect(model.events.map((e) => e.seq)).toEqual(matches());

    w.record(inputs(700));
    const grown = changed(model);
    model.tick(false);
    await grown;
    await expect.poll(() => model.events.length).toBe(matches().length);
    expect(model.events.map((e) => e.seq)).toEqual(matches());
    expect(await model.loadOlder()).toBe(false);
  });

  it('whatever the baseline, grouping and expanded rows: every event after the baseline is shown exactly once, in order', async () => {
    const w = world();
    w.record(inputs(600));
    const buffer = await liveBuffer(w);
    const all = w.events();
    const exchangeIds = [...new Set(all.flatMap((e) => (e.exchange ? [e.exchange] : [])))];
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 620 }), fc.boolean(), fc.subarray(exchangeIds), fc.boolean(), async (baseline, grouped, expanded, filtered) => {
        const model = listModel(w, buffer, filtered ? { errorsOnly: true } : null, { grouped, baseline, expanded: new Set(expanded) });
        await settled(model);
        while (model.hasOlder) await model.loadOlder();
        const wanted = all.filter((e) => e.seq > baseline && (!filtered || isErrorEvent(e))).map((e) => e.seq);
        const rows = Array.from({ length: model.count }, (_, i) => model.rowAt(i)!);
        const shown: number[] = [];
        for (const row of rows) {
          if (row instanceof ExchangeGroup) {
            if (!expanded.includes(row.exchange)) shown.push(...row.events.map((e) => e.seq));
          } else shown.push(row.seq);
        }
        expect(grouped ? [...shown].sort((a, b) => a - b) : shown).toEqual(wanted); // grouped rows sit at their first event
        for (const seq of wanted) expect(model.indexOfSeq(seq)).toBeGreaterThanOrEqual(0);
        model.dispose();
      }),
      { numRuns: 40 },
    );
  });

  it('a query main refuses is an error in the status, not a throw', async () => {
    const w = world();
    const model = listModel(w, null, { statusClass: [9] });
    await settled(model);
    expect(model.status().error).toMatch(/statusClass|Invalid|invalid/);
    expect(model.count).toBe(0);
  });
});

describe('WindowModel', () => {
  it('filtered rows by position from main: the count is every match, the page keeps only rows near the screen, a jump asks main, live ticks follow the trace', async () => {
    const w = world();

    w.record(inputs(6_000));
    const model = new WindowModel(w.api, 'live', { kinds: ['stderr'] }, true);
    disposers.push(() => model.dispose());
    model.configure(0, undefined);
    await expect.poll(() => model.status().loading).toBe(false);
    const all = w.events().filter((e) => e.kind === 'stderr');
    expect(model.count).toBe(all.length);

    // The middle on screen: exactly those rows (and a margin) are loaded.
    const mid = Math.floor(all.length / 2);
    model.visible(mid, mid + 30);
    await expect.poll(() => model.rowAt(mid + 30)?.seq).toBe(all[mid + 30]!.seq);
    for (let i = mid; i <= mid + 30; i++) expect(model.rowAt(i)!.seq).toBe(all[i]!.seq);
    expect(model.rowAt(0)).toBeUndefined(); // not near the screen: not held

    // Jump: the position of a match, 'absent' for an event that does not match.
    const target = all[17]!.seq;
    expect(model.indexOfSeq(target)).toBe(-1);
    await expect.poll(() => model.locate(target)).toBe(17);
    expect(model.indexOfSeq(target)).toBe(17);
    const other = w.events().find((e) => e.kind !== 'stderr')!.seq;
    model.locate(other);
    await expect.poll(() => model.locate(other)).toBe('absent');

    // Live: new matches raise the count on the next tick.
    w.record(inputs(700));
    model.tick(false);
    const now = w.events().filter((e) => e.kind === 'stderr').length;
    await expect.poll(() => model.count).toBe(now);

    // Paused at a seq and cleared up to another: main counts only between them.
    model.configure(1_000, 4_000);
    await expect.poll(() => model.status().loading || model.status().loadingOlder).toBe(false);
    await expect.poll(() => model.count).toBe(all.filter((e) => e.seq > 1_000 && e.seq <= 4_000).length);
  });
});
