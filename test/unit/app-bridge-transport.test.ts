/**
 * The MCP App bridge transport (renderer/src/features/apps/host/bridge-transport.ts) against a
 * fake window pair: which messages it takes, where it sends, what it traces, how it contains a
 * flood. A manual clock and timer make the token bucket and the batching exact.
 */
import { describe, expect, it } from 'vitest';
import type { AppBridgeMessage, AppLogEntry } from '../../contract';
import { APP_DIAGNOSTIC_METHOD as DIAGNOSTIC_METHOD, APP_OVER_BUDGET_METHOD } from '../../contract/app-sandbox';
import { BridgeTransport, LIMITS, diagnosticEntry, messageLabel, type MessageEventLike } from '../../renderer/src/features/apps/host/bridge-transport';

const SANDBOX = 'http://127.0.0.1:41001';

function rig(options: { limits?: Partial<typeof LIMITS> } = {}) {
  let now = 1_000_000;
  const timers: { fn: () => void; at: number }[] = [];
  const listeners = new Set<(e: MessageEventLike) => void>();
  const posted: { message: unknown; origin: string }[] = [];
  const frame = { postMessage: (message: unknown, origin: string) => posted.push({ message, origin }) };
  const otherFrame = { postMessage: () => undefined };
  const traced: AppBridgeMessage[][] = [];
  const logged: AppLogEntry[][] = [];
  let flooded: number | null = null;
  const transport = new BridgeTransport({
    host: { addEventListener: (_t, l) => listeners.add(l), removeEventListener: (_t, l) => listeners.delete(l) },
    frame: () => frame,
    sandboxOrigin: SANDBOX,
    sink: { trace: (m) => traced.push(m), log: (e) => logged.push(e) },
    onFlooded: (n) => (flooded = n),
    now: () => now,
    setTimer: (fn, ms) => {
      const t = { fn, at: now + ms };
      timers.push(t);
      return t;
    },
    clearTimer: (t) => {
      const i = timers.indexOf(t as (typeof timers)[number]);
      if (i >= 0) timers.splice(i, 1);
    },
    limits: options.limits,
  });
  const received: unknown[] = [];
  transport.onmessage = (m) => received.push(m);
  return {
    transport,
    frame,
    otherFrame,
    posted,
    traced,
    logged,
    received,
    listeners,
    flooded: () => flooded,
    /** Delivers a message event to every listener, as the browser would. */
    emit(data: unknown, source: unknown = frame, origin = SANDBOX) {
      for (const l of [...listeners]) l({ data, source, origin });
    },
    /** Moves the clock and runs the timers that are due. */
    advance(ms: number) {
      now += ms;
      for (const t of timers.filter((x) => x.at <= now)) {
        timers.splice(timers.indexOf(t), 1);
        t.fn();
      }
    },
    allTraced: () => traced.flat(),
    allLogged: () => logged.flat(),
  };
}

const note = (method: string, params: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', method, params });

describe('BridgeTransport: what it takes', () => {
  it('takes JSON-RPC from the frame on the sandbox origin, and refuses the same window on another origin', async () => {
    const r = rig();
    await r.transport.start();
    r.emit(note('ui/notifications/size-changed', { height: 100 }));
    r.emit(note('ui/notifications/size-changed', { height: 200 }), r.frame, 'http://127.0.0.1:5173');
    expect(r.received).toEqual([note('ui/notifications/size-changed', { height: 100 })]);
    r.advance(LIMITS.flushMs);
    const traced = r.allTraced();
    expect(traced.map((m) => [m.dir, m.refused === undefined])).toEqual([
      ['in', true],
      ['in', false],
    ]);
    expect(traced[1]!.refused).toContain('http://127.0.0.1:5173');
    // a refusal is recorded as what it was about, without jsonrpc or id (not a message anyone sent)
    expect(traced[1]!.message).toEqual({ summary: 'refused', method: 'ui/notifications/size-changed' });
    expect(messageLabel(traced[1]!.message)).toBe('refused: ui/notifications/size-changed');
    expect(r.allLogged().map((e) => e.kind)).toEqual(['bridge']);
  });

  it('ignores messages from any other window (another frame, our own page), without counting them', async () => {
    const r = rig();
    await r.transport.start();
    r.emit(note('tools/call'), r.otherFrame);
    r.emit(note('tools/call'), null);
    expect(r.received).toEqual([]);
    r.advance(LIMITS.flushMs);
    expect(r.allTraced()).toEqual([]);
    expect(r.transport.stats.received).toBe(0);
  });

  it('refuses what is not JSON-RPC 2.0 or cannot be JSON, and passes nothing of it to the bridge', async () => {
    const r = rig({ limits: { maxMessageChars: 1000 } });
    await r.transport.start();
    const cyclic: Record<string, unknown> = { jsonrpc: '2.0', method: 'x', params: {} };
    (cyclic.params as Record<string, unknown>).self = cyclic;
    for (const bad of ['text', 42, null, [note('a')], { method: 'no-version' }, { jsonrpc: '2.0' }, { jsonrpc: '2.0', id: {}, result: {} }, cyclic, note('big', { text: 'x'.repeat(2000) })]) r.emit(bad);
    expect(r.received).toEqual([]);
    r.advance(LIMITS.flushMs);
    const traced = r.allTraced();
    expect(traced).toHaveLength(9);
    expect(traced.every((m) => typeof m.refused === 'string' && m.refused.length > 0)).toBe(true);
    expect(traced[7]!.refused).toMatch(/cannot be written as JSON/);
    expect(traced[8]!.refused).toMatch(/at most 1,000/);
  });

  it('routes switchboard/diagnostic to the log sink, never to the bridge (and still traces it)', async () => {
    const r = rig();
    await r.transport.start();
    r.emit(note(DIAGNOSTIC_METHOD, { kind: 'csp', level: 'error', text: "Refused to connect to 'https://evil.example'" }));
    r.emit(note(DIAGNOSTIC_METHOD, { kind: 'console', level: 'warning', text: 'careful' }));
    r.emit(note(DIAGNOSTIC_METHOD, { kind: 'other', text: 'not a kind' }));
    expect(r.received).toEqual([]);
    r.advance(LIMITS.flushMs);
    expect(r.allLogged().map(({ kind, level, text }) => ({ kind, level, text }))).toEqual([
      { kind: 'csp', level: 'error', text: "Refused to connect to 'https://evil.example'" },
      { kind: 'console', level: 'warning', text: 'careful' },
    ]);
    expect(r.allTraced().map((m) => messageLabel(m.message))).toEqual([DIAGNOSTIC_METHOD, DIAGNOSTIC_METHOD, DIAGNOSTIC_METHOD]);
  });

  it('sends only to the sandbox origin and traces what it sends; after close it neither sends nor listens', async () => {
    const r = rig();
    await r.transport.start();
    let closed = false;
    r.transport.onclose = () => (closed = true);
    await r.transport.send({ jsonrpc: '2.0', id: 1, result: {} });
    expect(r.posted).toEqual([{ message: { jsonrpc: '2.0', id: 1, result: {} }, origin: SANDBOX }]);
    await r.transport.close();
    expect(closed).toBe(true);
    expect(r.listeners.size).toBe(0);
    // close flushed what waited
    expect(r.allTraced().map((m) => [m.dir, messageLabel(m.message)])).toEqual([['out', 'response #1']]);
    await expect(r.transport.send({ jsonrpc: '2.0', method: 'x' })).rejects.toThrow(/closed/);
  });
});

describe('BridgeTransport: batching', () => {
  it('flushes every 100 ms, or at once when 500 wait, never more than 1,000 a batch', async () => {
    const r = rig();
    await r.transport.start();
    for (let i = 0; i < 499; i++) r.emit(note('n', { i }));
    expect(r.traced).toHaveLength(0);
    r.emit(note('n', { i: 499 }));
    expect(r.traced.map((b) => b.length)).toEqual([500]);
    for (let i = 0; i < 10; i++) r.emit(note('n', { i }));
    expect(r.traced).toHaveLength(1);
    r.advance(LIMITS.flushMs);
    expect(r.traced.map((b) => b.length)).toEqual([500, 10]);
  });

  it('keeps the last 200 messages for the Devtools strip and notifies once per flush, not per message', async () => {
    const r = rig();
    await r.transport.start();
    let notified = 0;
    r.transport.changes.subscribe(() => notified++);
    for (let i = 0; i < 450; i++) r.emit(note('n', { i }));
    r.advance(LIMITS.flushMs);
    const recent = r.transport.recent();
    expect(recent).toHaveLength(LIMITS.recent);
    expect((recent[0]!.message as { params: { i: number } }).params.i).toBe(250);
    expect(notified).toBe(1);
  });
});

describe('BridgeTransport: flood containment', () => {
  it('delivers a burst of 1,000, then 300 a second; drops the rest, summarised one per 1,000', async () => {
    const r = rig();
    await r.transport.start();
    for (let i = 0; i < 3_500; i++) r.emit(note('ui/notifications/size-changed', { i }));
    expect(r.received).toHaveLength(LIMITS.burst);
    expect(r.transport.stats.dropped).toBe(2_500);
    // the flood pauses: the next flush that saw no drop closes the partial group; a second later, 300 more get through
    r.advance(LIMITS.flushMs);
    r.advance(LIMITS.flushMs);
    r.advance(1000 - 2 * LIMITS.flushMs);
    for (let i = 0; i < 400; i++) r.emit(note('ping-ish', { i }));
    expect(r.received).toHaveLength(LIMITS.burst + LIMITS.perSecond);
    r.advance(LIMITS.flushMs);
    r.advance(LIMITS.flushMs);
    const summaries = r.allTraced().filter((m) => (m.message as { summary?: string }).summary === 'flood');
    // 2,500 dropped at once: two full groups and the partial one closed when the flood paused; then 100 more
    expect(summaries.map((s) => (s.message as { dropped: number }).dropped)).toEqual([1000, 1000, 500, 100]);
    expect(summaries[0]!.refused).toMatch(/the first was ui\/notifications\/size-changed/);
    expect(messageLabel(summaries[0]!.message)).toBe('flood: 1,000 dropped (first ui/notifications/size-changed)');
    expect((summaries[3]!.message as { firstMethod: string }).firstMethod).toBe('ping-ish');
    // one bridge log line a second while it lasts
    const floodLines = r.allLogged().filter((e) => e.kind === 'bridge');
    expect(floodLines).toHaveLength(2);
    expect(floodLines[0]!.text).toMatch(/flooding the bridge: 1 message dropped/);
    expect(r.flooded()).toBeNull();
  });

  it('stops after 5,000 dropped: closes, tells the host once, and ignores the rest of a 100,000-message flood', async () => {
    const r = rig();
    await r.transport.start();
    let closed = 0;
    r.transport.onclose = () => closed++;
    for (let i = 0; i < 100_000; i++) r.emit(note('flood', { i }));
    expect(r.flooded()).toBe(LIMITS.stopAfter);
    expect(closed).toBe(1);
    expect(r.received).toHaveLength(LIMITS.burst);
    expect(r.transport.stats.dropped).toBe(LIMITS.stopAfter);
    expect(r.listeners.size).toBe(0);
    const traced = r.allTraced();
    expect(traced.filter((m) => (m.message as { summary?: string }).summary === 'flood')).toHaveLength(LIMITS.stopAfter / LIMITS.summaryEvery);
    // every batch within the contract's bound
    expect(Math.max(...r.traced.map((b) => b.length))).toBeLessThanOrEqual(LIMITS.batchMax);
    expect(r.allLogged().at(-1)).toMatchObject({ level: 'error', kind: 'bridge', text: expect.stringMatching(/flooded the bridge with 5,000 messages/) });
  });
});

describe('BridgeTransport: the proxy\'s over-budget reports', () => {
  const report = (dropped: unknown, first: unknown = 'flood') => note(APP_OVER_BUDGET_METHOD, { dropped, first });

  it('counts what the proxy dropped as dropped here: summarised, logged, and the app stopped after 5,000', async () => {
    const r = rig();
    await r.transport.start();
    r.emit(report(1_000, 'notifications/message'));
    expect(r.transport.stats.dropped).toBe(1_000);
    // a report takes no token: the bridge still gets its whole burst
    for (let i = 0; i < LIMITS.burst; i++) r.emit(note('ui/notifications/size-changed', { i }));
    expect(r.received).toHaveLength(LIMITS.burst);
    expect(r.transport.stats.dropped).toBe(1_000);
    r.advance(LIMITS.flushMs);
    r.advance(LIMITS.flushMs);
    const summaries = r.allTraced().filter((m) => (m.message as { summary?: string }).summary === 'flood');
    expect(summaries.map((s) => s.message)).toEqual([{ summary: 'flood', dropped: 1_000, firstMethod: 'notifications/message' }]);
    expect(r.allLogged().filter((e) => e.kind === 'bridge')[0]!.text).toMatch(/flooding the bridge: 1,000 messages dropped/);
    // the reports themselves are not traced as messages, nor given to the bridge
    expect(r.allTraced().some((m) => (m.message as { method?: string }).method === APP_OVER_BUDGET_METHOD)).toBe(false);
    for (let i = 0; i < LIMITS.stopAfter / 1_000 - 2; i++) r.emit(report(1_000));
    expect(r.flooded()).toBeNull();
    r.emit(report(1_000));
    expect(r.flooded()).toBe(LIMITS.stopAfter);
    expect(r.transport.closed).toBe(true);
    expect(r.received.some((m) => (m as { method?: string }).method === APP_OVER_BUDGET_METHOD)).toBe(false);
  });

  it('refuses a malformed report, or one from another origin, and counts nothing from it', async () => {
    const r = rig();
    await r.transport.start();
    for (const bad of [0, -5, 1.5, '1000', 2 ** 60, null]) r.emit(report(bad));
    r.emit(note(APP_OVER_BUDGET_METHOD));
    r.emit(report(1_000), r.frame, 'http://127.0.0.1:5173');
    expect(r.transport.stats.dropped).toBe(0);
    expect(r.received).toEqual([]);
    r.advance(LIMITS.flushMs);
    const refused = r.allTraced().filter((m) => m.refused !== undefined);
    expect(refused).toHaveLength(8);
    expect(refused.slice(0, 7).every((m) => /malformed switchboard\/over-budget report/.test(m.refused!))).toBe(true);
    expect(refused[7]!.refused).toMatch(/must come from the sandbox origin/);
  });

  it('names a report\'s first method, clipped, or "message" when it has none', async () => {
    const r = rig();
    await r.transport.start();
    r.emit(report(5, 'x'.repeat(500)));
    r.advance(LIMITS.flushMs);
    r.advance(LIMITS.flushMs);
    r.emit(report(5, 42));
    r.advance(LIMITS.flushMs);
    r.advance(LIMITS.flushMs);
    const firsts = r.allTraced().flatMap((m) => ((m.message as { summary?: string }).summary === 'flood' ? [(m.message as { firstMethod: string }).firstMethod] : []));
    expect(firsts).toEqual(['x'.repeat(200), 'message']);
  });
});

describe('diagnosticEntry', () => {
  it('takes the proxy report shape only, and clips long text', () => {
    expect(diagnosticEntry({ kind: 'console', level: 'error', text: 'boom' }, 5)).toEqual({ ts: 5, level: 'error', kind: 'console', text: 'boom' });
    expect(diagnosticEntry({ kind: 'console', level: 'debug', text: 'x' }, 5)?.level).toBe('warning');
    expect(diagnosticEntry({ kind: 'log', text: 'x' }, 5)).toBeNull();
    expect(diagnosticEntry({ kind: 'csp', text: 5 }, 5)).toBeNull();
    expect(diagnosticEntry('text', 5)).toBeNull();
    expect(diagnosticEntry({ kind: 'csp', text: 'y'.repeat(50) }, 5, 10)?.text).toBe(`${'y'.repeat(10)}… (40 more characters)`);
  });
});
