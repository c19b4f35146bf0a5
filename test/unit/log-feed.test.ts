/**
 * The log feed (#15): main pushes every log line only while a window holds a `logFeed` lease (the
 * Logs view); otherwise a push carries its newest LOG_FEED_TAIL lines, marked `partial`, so a
 * server's log flood is not carried into windows that do not show it. Main keeps the recent lines
 * (`recentLogs`), and the renderer's LogStore, against the real core behind the typed contract
 * client, shows every one of them once the view takes the lease: in main's order, none twice, and
 * cleared ones do not come back.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LOG_FEED_LEASE_MS, LOG_FEED_TAIL, LogLevel, LogLine, type EventPayload } from '../../contract';
import { createApi, type SwitchboardApi } from '../../contract/client';
import { createCore, type Core } from '../../main/core/app';
import { EventHub } from '../../main/core/events';
import { Leases } from '../../main/core/leases';
import { LogBus } from '../../main/core/logs/log-bus';
import { MemorySettingsStore } from '../../main/core/store/settings';
import { LogStore } from '../../renderer/src/features/logs/log-store';

afterEach(() => {
  vi.useRealTimers();
});

describe('leases', () => {
  it('are held while any runs: the first one begins it, renewals change nothing, the last one given back ends it', () => {
    const changes: boolean[] = [];
    const leases = new Leases(1_000, (held) => changes.push(held));
    expect(leases.set('a', true)).toBe(true);
    expect(leases.set('a', true)).toBe(true);
    expect(leases.set('b', true)).toBe(true);
    expect(leases.set('a', false)).toBe(true);
    expect(changes).toEqual([true]);
    expect(leases.set('b', false)).toBe(false);
    expect(changes).toEqual([true, false]);
    leases.close();
  });

  it('run out when not renewed in time, and the oldest is dropped past the most allowed', () => {
    vi.useFakeTimers();
    const changes: boolean[] = [];
    const leases = new Leases(1_000, (held) => changes.push(held), 2);
    leases.set('a', true);
    vi.advanceTimersByTime(999);
    leases.set('a', true);
    vi.advanceTimersByTime(999);
    expect(leases.held).toBe(true);
    vi.advanceTimersByTime(1);
    expect(leases.held).toBe(false);
    expect(changes).toEqual([true, false]);

    leases.set('a', true);
    leases.set('b', true);
    leases.set('c', true);
    // 'a' was dropped for 'c': giving back the two others ends it
    leases.set('b', false);
    expect(leases.held).toBe(true);
    leases.set('c', false);
    expect(leases.held).toBe(false);
  });
});

/** A log bus on its own hub, with the pushes it makes. */
function bus(options?: ConstructorParameters<typeof LogBus>[1]): { logs: LogBus; pushes: EventPayload<'logBatch'>[] } {
  const hub = new EventHub();
  const pushes: EventPayload<'logBatch'>[] = [];
  hub.subscribe((event, payload) => event === 'logBatch' && pushes.push(payload as EventPayload<'logBatch'>));
  return { logs: new LogBus(hub, options), pushes };
}

const write = (logs: LogBus, from: number, count: number) => {
  for (let i = from; i < from + count; i++) logs.write({ source: 'server', serverId: 's', level: 'info', text: `line ${i}` });
};
const texts = (lines: { text: string }[]) => lines.map((l) => l.text);
const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => `line ${from + i}`);

describe('the log bus', () => {
  it('numbers its lines one after another, from its start time in µs (a restarted main numbers after the last)', () => {
    const before = Date.now();
    const { logs } = bus();
    write(logs, 0, 5);
    const ids = logs.history().map((l) => l.id!);
    expect(ids[0]).toBeGreaterThanOrEqual(before * 1000);
    expect(ids[0]).toBeLessThanOrEqual(Date.now() * 1000);
    expect(ids.map((id) => id - ids[0]!)).toEqual([0, 1, 2, 3, 4]);
  });

  it('without a lease pushes the newest LOG_FEED_TAIL lines of a flood (partial); a short batch whole; with a lease every line', () => {
    const { logs, pushes } = bus();
    write(logs, 0, 250);
    logs.flush();
    expect(pushes).toHaveLength(1);
    expect(pushes[0]!.partial).toBe(true);
    expect(texts(pushes[0]!.lines)).toEqual(range(150, LOG_FEED_TAIL));

    write(logs, 250, LOG_FEED_TAIL);
    logs.flush();
    expect(pushes[1]!.partial).toBeUndefined();
    expect(texts(pushes[1]!.lines)).toEqual(range(250, LOG_FEED_TAIL));

    expect(logs.feed('window-1', true)).toEqual({ full: true, leaseMs: LOG_FEED_LEASE_MS });
    write(logs, 350, 250);
    logs.flush();
    expect(pushes[2]!.partial).toBeUndefined();
    expect(texts(pushes[2]!.lines)).toEqual(range(350, 250));

    expect(logs.feed('window-1', false)).toEqual({ full: false, leaseMs: 0 });
    write(logs, 600, 250);
    logs.flush();
    expect(pushes[3]!.partial).toBe(true);
    // what the pushes left out, main still has
    expect(texts(logs.history())).toEqual(range(0, 850));
  });

  it('goes back to partial pushes when a lease is not renewed', () => {
    vi.useFakeTimers();
    const { logs, pushes } = bus();
    logs.feed('window-1', true);
    vi.advanceTimersByTime(LOG_FEED_LEASE_MS);
    write(logs, 0, 250);
    logs.flush();
    expect(pushes.at(-1)!.partial).toBe(true);
  });

  it('gives back in its history the very lines it pushed (kept as columns, every field as written)', () => {
    const { logs, pushes } = bus();
    logs.feed('window-1', true);
    for (const [i, level] of LogLevel.options.entries()) {
      logs.write({ source: LogLine.shape.source.options[i % 5]!, serverId: i % 2 ? `s${i}` : undefined, level, text: `${level} ✓ ${'x'.repeat(i * 100)}` });
      logs.app(level, `app ${i}`);
    }
    logs.write({ source: 'stderr', serverId: 's', level: 'info', text: 'dated', ts: 1_234.5 });
    logs.flush();
    const pushed = pushes.flatMap((p) => p.lines).map((l) => JSON.parse(JSON.stringify(l)) as unknown);
    expect(pushed).toHaveLength(17);
    expect(logs.history()).toEqual(pushed);
    expect(logs.history().at(-1)).toMatchObject({ ts: 1_234.5, text: 'dated' });
  });

  it('keeps the newest lines within both bounds: lines and characters', () => {
    const byLines = bus({ keep: 100 }).logs;
    write(byLines, 0, 1_000);
    expect(texts(byLines.history())).toEqual(range(900, 100));

    // each line is 8 or 9 characters ("line 120"): 1,000 characters hold the newest 111
    const byChars = bus({ keepChars: 1_000 }).logs;
    write(byChars, 0, 5_000);
    const kept = byChars.history();
    expect(kept.reduce((n, l) => n + l.text.length, 0)).toBeLessThanOrEqual(1_000);
    expect(texts(kept)).toEqual(range(5_000 - kept.length, kept.length));
    expect(kept.length).toBe(111);
  });
});

const cores: Core[] = [];
afterEach(async () => {
  for (const core of cores.splice(0)) await core.shutdown();
});

/** The real core behind the typed contract client, as a window sees it. */
function world(): { core: Core; api: SwitchboardApi } {
  const core = createCore({ settings: new MemorySettingsStore(), carrier: 'browser', version: 't' });
  cores.push(core);
  const api = createApi({
    invoke: (method, args) => core.dispatch(method, args),
    subscribe: (event, listener) => core.events.subscribe((name, payload) => name === event && listener(payload)),
  });
  return { core, api };
}

const flood = (store: LogStore) => texts(store.lines.filter((l) => l.text.startsWith('line ')));

describe('the renderer log store', () => {
  it('holds only the newest of each push while the Logs view is closed, and every line main has once it opens', async () => {
    const { core, api } = world();
    const store = new LogStore(api);
    write(core.logs, 0, 1_000);
    core.logs.flush();
    expect(flood(store)).toEqual(range(900, LOG_FEED_TAIL));

    const release = store.acquire();
    await vi.waitFor(() => expect(store.loaded).toBe(true));
    expect(flood(store)).toEqual(range(0, 1_000));

    // the view is open: a flood arrives whole
    write(core.logs, 1_000, 500);
    core.logs.flush();
    expect(flood(store)).toEqual(range(0, 1_500));
    const ids = store.lines.map((l) => l.id!);
    expect(ids.every((id, i) => i === 0 || id > ids[i - 1]!)).toBe(true);

    // closed again: partial pushes; opened again: filled in, none twice
    release();
    write(core.logs, 1_500, 300);
    core.logs.flush();
    expect(flood(store)).toHaveLength(1_500 + LOG_FEED_TAIL);
    const again = store.acquire();
    await vi.waitFor(() => expect(flood(store)).toEqual(range(0, 1_800)));
    again();
  });

  it('does not bring cleared lines back when it reads main again', async () => {
    const { core, api } = world();
    const store = new LogStore(api);
    const release = store.acquire();
    write(core.logs, 0, 50);
    core.logs.flush();
    await vi.waitFor(() => expect(flood(store)).toEqual(range(0, 50)));
    store.clear();
    write(core.logs, 50, 3);
    core.logs.flush();
    expect(flood(store)).toEqual(range(50, 3));
    await store.resync();
    expect(flood(store)).toEqual(range(50, 3));
    release();
    const again = store.acquire();
    await vi.waitFor(() => expect(store.loaded).toBe(true));
    await store.resync();
    expect(flood(store)).toEqual(range(50, 3));
    again();
  });

  it('keeps lines older than all main still has in front of what it reads', async () => {
    // a main that keeps 10 lines and pushes the newest 5 without a lease, behind the typed contract client
    const hub = new EventHub();
    const logs = new LogBus(hub, { keep: 10, tail: 5 });
    const api = createApi({
      invoke: async (method, args) => {
        const { lease, full } = args as { lease: string; full: boolean };
        if (method === 'recentLogs') return { ok: true, result: { lines: logs.history() } };
        if (method === 'logFeed') return { ok: true, result: logs.feed(lease, full) };
        throw new Error(`not part of this test: ${method}`);
      },
      subscribe: (event, listener) => hub.subscribe((name, payload) => name === event && listener(payload)),
    });
    const store = new LogStore(api);
    const release = store.acquire();
    await vi.waitFor(() => expect(store.loaded).toBe(true));
    write(logs, 0, 30);
    logs.flush();
    expect(flood(store)).toEqual(range(0, 30));
    release();
    // closed: 15 more, of which the window is pushed the newest 5; main keeps the newest 10
    write(logs, 30, 15);
    logs.flush();
    expect(flood(store)).toEqual([...range(0, 30), ...range(40, 5)]);
    expect(texts(logs.history())).toEqual(range(35, 10));
    const again = store.acquire();
    // 30–34 are gone from main and never reached the window; the rest is in order, none twice
    await vi.waitFor(() => expect(flood(store)).toEqual([...range(0, 30), ...range(35, 10)]));
    again();
  });
});
