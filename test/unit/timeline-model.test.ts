/**
 * The timeline's model (renderer/src/features/timeline/model.ts) in Node: trace events folded
 * into lanes, spans and ticks. Events are shaped as contract/trace.ts says (test/support/trace-events.ts),
 * and one test folds a trace the core recorded against the real everything fixture.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANNELS, EVENT_KINDS, type TraceEvent } from '../../contract/trace';
import { createCore } from '../../main/core/app';
import { MemorySettingsStore } from '../../main/core/store/settings';
import { slim } from '../../main/core/trace/hub';
import { summarizeBody } from '../../main/core/trace/rpc';
import { MAX_ROWS, ModelSync, TimelineModel, afterSeq, laneOrder, lowerBound, spanStart, Ticks, type Lane, type Span, type Tick } from '../../renderer/src/features/timeline/model';
import { startFixture, type RunningFixture } from '../fixtures/everything/harness';
import { call } from '../support/core-calls';
import { EventLog, T0 } from '../support/trace-events';

const fold = (events: readonly TraceEvent[]): TimelineModel => {
  const model = new TimelineModel();
  model.append(events);
  return model;
};

const laneOf = (model: TimelineModel, server: string, key: string): Lane | undefined => model.lanes.get(`${server}\u0000${key}`);

/** Everything a person sees of a model, comparable with toEqual. */
function picture(model: TimelineModel) {
  const lanes = [...model.lanes.values()]
    .sort((a, b) => a.id.localeCompare(b.id))
    .map((lane) => ({
      id: lane.id,
      rows: lane.rows,
      maxDur: lane.maxDur,
      open: lane.open.size,
      spans: lane.spans.map((s) => ({ seq: s.seq, row: s.row, start: s.start, end: s.end, status: s.status, label: s.label, events: s.events, detail: s.detail, httpStatus: s.httpStatus })),
      ticks: lane.ticks.list().map((t) => [t.event.seq, t.style]),
    }));
  return { lanes, servers: model.servers, count: model.count, firstSeq: model.firstSeq, lastSeq: model.lastSeq, minTs: model.minTs, maxTs: model.maxTs };
}

describe('TimelineModel', () => {
  it('an empty list changes nothing, not even the version', () => {
    const model = new TimelineModel();
    model.append([]);
    model.append([new EventLog().state('s', 'connecting')], 1);
    expect(model.version).toBe(0);
    expect(model.count).toBe(0);
    expect(model.lanes.size).toBe(0);
    expect(model.minTs).toBe(Infinity);
  });

  it('one event: one lifecycle tick, its seq first and last', () => {
    const log = new EventLog();
    const state = log.state('s', 'connecting');
    const model = fold(log.events);
    expect(model.count).toBe(1);
    expect([model.firstSeq, model.lastSeq]).toEqual([state.seq, state.seq]);
    expect([model.minTs, model.maxTs]).toEqual([state.ts, state.ts]);
    expect(model.servers).toEqual(['s']);
    const lane = laneOf(model, 's', 'lifecycle')!;
    expect(lane.ticks.list().map((t) => [t.event, t.style])).toEqual([[state, 'life']]);
    expect(model.version).toBe(1);
  });

  it('a POST answered with JSON: a closed request span and a closed exchange span', () => {
    const log = new EventLog();
    const [request, , end] = log.postJson('s', { id: 1, method: 'tools/list' }, { result: { tools: [] } });
    const model = fold(log.events);
    const rpc = laneOf(model, 's', 'rpc-out')!.spans;
    expect(rpc).toHaveLength(1);
    expect(rpc[0]).toMatchObject({ type: 'rpc', label: 'tools/list', status: 'ok', open: false, start: request!.ts, end: end!.ts, seq: request!.seq, endEvent: end });
    const exchange = laneOf(model, 's', 'post-json')!.spans;
    expect(exchange).toHaveLength(1);
    expect(exchange[0]).toMatchObject({ type: 'exchange', label: 'POST /mcp', status: 'ok', httpStatus: 200, open: false });
    expect(laneOf(model, 's', 'errors')).toBeUndefined();
    expect(laneOf(model, 's', 'rpc-out')!.maxDur).toBe(end!.ts - request!.ts);
  });

  it('a POST whose answer is an SSE stream moves to post-sse; its events are ticks and counted on the span', () => {
    const log = new EventLog();
    const exchange = log.nextExchange();
    log.add({ server: 's', channel: 'post-json', kind: 'http-request', dir: 'out', exchange, rpc: { id: 7, method: 'tools/call', kind: 'request' }, http: { method: 'POST', url: 'http://h/mcp' } });
    log.add({ server: 's', channel: 'post-sse', kind: 'http-response', dir: 'in', exchange, http: { status: 200, contentType: 'text/event-stream' } });
    log.add({ server: 's', channel: 'post-sse', kind: 'sse-event', dir: 'in', exchange, rpc: { method: 'notifications/progress', kind: 'notification' } });
    log.add({ server: 's', channel: 'post-sse', kind: 'sse-event', dir: 'in', exchange, rpc: { id: 7, kind: 'result' }, body: { jsonrpc: '2.0', id: 7, result: { content: [] } } });
    log.add({ server: 's', channel: 'post-sse', kind: 'http-end', dir: 'in', exchange, http: { end: 'complete' } });
    const model = fold(log.events);
    expect(laneOf(model, 's', 'post-json')!.spans).toEqual([]);
    const [span] = laneOf(model, 's', 'post-sse')!.spans;
    expect(span).toMatchObject({ stream: true, events: 2, status: 'ok', open: false });
    expect(laneOf(model, 's', 'post-sse')!.ticks.list().map((t) => t.style)).toEqual(['in', 'in']);
    expect(laneOf(model, 's', 'rpc-out')!.spans[0]).toMatchObject({ status: 'ok', label: 'tools/call' });
    expect(laneOf(model, 's', 'notifications')!.ticks).toHaveLength(1);
  });

  it('an HTTP 404 answers the requests it carried with an error; a GET 405 is a channel turned off, not an error', () => {
    const log = new EventLog();
    log.postJson('s', { id: 1, method: 'resources/list' }, {}, 404);
    const get = log.nextExchange();
    log.add({ server: 's', channel: 'get', kind: 'http-request', dir: 'out', exchange: get, http: { method: 'GET', url: 'http://h/mcp' } });
    log.add({ server: 's', channel: 'get', kind: 'http-response', dir: 'in', exchange: get, http: { status: 405 } });
    log.add({ server: 's', channel: 'get', kind: 'http-end', dir: 'in', exchange: get, http: { status: 405, end: 'complete' } });
    const model = fold(log.events);
    expect(laneOf(model, 's', 'rpc-out')!.spans[0]).toMatchObject({ status: 'error', detail: 'HTTP 404', open: false });
    expect(laneOf(model, 's', 'post-json')!.spans[0]).toMatchObject({ status: 'error', httpStatus: 404 });
    expect(laneOf(model, 's', 'get')!.spans[0]).toMatchObject({ status: 'ok', httpStatus: 405 });
    // the 404's response, and nothing of the 405
    expect(laneOf(model, 's', 'errors')!.ticks.list().map((t) => t.event.http?.status)).toEqual([404]);
  });

  it("the version probe's expected refusal is not an error", () => {
    const log = new EventLog();
    log.line('s', 'out', { id: 'server-discover-probe-1', method: 'server/discover' }).negotiation = 'probe';
    const answer = log.line('s', 'in', { id: 'server-discover-probe-1', error: { code: -32601, message: 'Method not found' } });
    answer.negotiation = 'answer';
    const model = fold(log.events);
    expect(laneOf(model, 's', 'errors')).toBeUndefined();
    expect(laneOf(model, 's', 'rpc-out')!.spans[0]).toMatchObject({ status: 'ok', detail: '-32601 Method not found' });
    expect(laneOf(model, 's', 'stdio')!.ticks.list().map((t) => t.style)).toEqual(['out', 'in']);
  });

  it('a real JSON-RPC error is an error span, an error tick and a red stdio tick', () => {
    const log = new EventLog();
    log.line('s', 'out', { id: 3, method: 'tools/call' });
    log.line('s', 'in', { id: 3, error: { code: -32602, message: 'bad' } });
    const model = fold(log.events);
    expect(laneOf(model, 's', 'rpc-out')!.spans[0]).toMatchObject({ status: 'error', detail: '-32602 bad' });
    expect(laneOf(model, 's', 'errors')!.ticks).toHaveLength(1);
    expect(laneOf(model, 's', 'stdio')!.ticks.list().map((t) => t.style)).toEqual(['out', 'error']);
  });

  it('a tool result with isError is a tool error; a request from the server is on its own lane', () => {
    const log = new EventLog();
    log.line('s', 'out', { id: 1, method: 'tools/call' });
    log.line('s', 'in', { id: 1, result: { isError: true, content: [] } });
    log.line('s', 'in', { id: 1, method: 'sampling/createMessage' });
    log.line('s', 'out', { id: 1, result: {} });
    const model = fold(log.events);
    expect(laneOf(model, 's', 'rpc-out')!.spans[0]).toMatchObject({ status: 'tool-error', detail: 'isError: true' });
    // the same id the other way is another request
    expect(laneOf(model, 's', 'rpc-in')!.spans[0]).toMatchObject({ label: 'sampling/createMessage', status: 'ok', open: false });
  });

  it('notifications/cancelled closes its request as cancelled; a repeated id abandons the first', () => {
    const log = new EventLog();
    log.line('s', 'out', { id: 1, method: 'tools/call' });
    log.line('s', 'out', { method: 'notifications/cancelled', params: { requestId: 1 } });
    log.line('s', 'out', { id: 2, method: 'a' });
    log.line('s', 'out', { id: 2, method: 'b' });
    const model = fold(log.events);
    expect(laneOf(model, 's', 'rpc-out')!.spans.map((s) => [s.label, s.status])).toEqual([
      ['tools/call', 'cancelled'],
      ['a', 'abandoned'],
      ['b', 'pending'],
    ]);
    expect(laneOf(model, 's', 'rpc-out')!.open.size).toBe(1);
  });

  it('folds pushed events (no body, no headers) as it folds whole ones: a tool error and a cancellation come from the summary', () => {
    const log = new EventLog();
    log.line('s', 'out', { id: 1, method: 'tools/call' });
    log.line('s', 'in', { id: 1, result: { isError: true, content: [] } });
    log.line('s', 'out', { id: 2, method: 'tools/call' });
    log.line('s', 'out', { method: 'notifications/cancelled', params: { requestId: 2 } });
    log.line('s', 'out', { id: 'three', method: 'tools/call' });
    log.line('s', 'in', { id: 'three', result: { isError: false, content: [] } });
    log.postJson('h', { id: 4, method: 'tools/call' }, { result: { isError: true, content: [] } });
    // As main records them (its summary of each body) and as a push carries them (hub.ts slim).
    const recorded = log.events.map((e) => ({ ...e, ...summarizeBody(e.body) }));
    const pushed = recorded.map(slim);
    expect(pushed.every((e) => e.body === undefined && e.http?.headers === undefined)).toBe(true);
    const model = fold(pushed);
    expect(laneOf(model, 's', 'rpc-out')!.spans.map((s) => [s.label, s.status])).toEqual([
      ['tools/call', 'tool-error'],
      ['tools/call', 'cancelled'],
      ['tools/call', 'ok'],
    ]);
    expect(laneOf(model, 'h', 'rpc-out')!.spans.map((s) => s.status)).toEqual(['tool-error']);
    expect(picture(model)).toEqual(picture(fold(recorded)));
  });

  it("a disconnect abandons that server's waiting requests and streams, not another server's", () => {
    const log = new EventLog();
    log.line('a', 'out', { id: 1, method: 'tools/call' });
    log.line('b', 'out', { id: 1, method: 'tools/call' });
    const get = log.nextExchange();
    log.add({ server: 'a', channel: 'get', kind: 'http-request', dir: 'out', exchange: get, http: { method: 'GET', url: 'http://h/mcp' } });
    const down = log.state('a', 'disconnected');
    const model = fold(log.events);
    expect(laneOf(model, 'a', 'rpc-out')!.spans[0]).toMatchObject({ status: 'abandoned', end: down.ts, open: false });
    expect(laneOf(model, 'a', 'get')!.spans[0]).toMatchObject({ status: 'abandoned', open: false });
    expect(laneOf(model, 'b', 'rpc-out')!.spans[0]).toMatchObject({ status: 'pending', open: true });
    // an answer after the disconnect does not reopen anything
    log.line('a', 'in', { id: 1, result: {} });
    model.append(log.events, model.count);
    expect(laneOf(model, 'a', 'rpc-out')!.spans[0]!.status).toBe('abandoned');
  });

  it('a process: spawn opens a span, an unexpected exit closes it as an error; a respawn abandons the old one', () => {
    const log = new EventLog();
    log.add({ server: 's', channel: 'stdio', kind: 'spawn', dir: 'none', meta: { command: '/usr/bin/node' } });
    log.add({ server: 's', channel: 'stdio', kind: 'spawn', dir: 'none', meta: { command: '/usr/bin/node' } });
    log.add({ server: 's', channel: 'stdio', kind: 'stderr', dir: 'in', text: 'oops' });
    log.add({ server: 's', channel: 'stdio', kind: 'exit', dir: 'none', meta: { code: 70, expected: false } });
    log.add({ server: 's', channel: 'stdio', kind: 'stdout-garbage', dir: 'in', text: 'Listening' });
    const model = fold(log.events);
    const lane = laneOf(model, 's', 'stdio')!;
    expect(lane.spans.map((s) => [s.label, s.status, s.detail])).toEqual([
      ['node', 'abandoned', undefined],
      ['node', 'error', 'exit 70'],
    ]);
    expect(lane.ticks.list().map((t) => t.style)).toEqual(['muted', 'error', 'error']);
    expect(laneOf(model, 's', 'errors')!.ticks.list().map((t) => t.event.kind)).toEqual(['exit', 'stdout-garbage']);
  });

  it('a batch body: every message in it is paired', () => {
    const log = new EventLog();
    const exchange = log.nextExchange();
    log.add({ server: 's', channel: 'post-json', kind: 'http-request', dir: 'out', exchange, http: { method: 'POST', url: 'http://h/mcp' }, batch: [{ id: 1, method: 'a', kind: 'request' }, { id: 2, method: 'b', kind: 'request' }] });
    log.add({ server: 's', channel: 'post-json', kind: 'http-response', dir: 'in', exchange, http: { status: 200, contentType: 'application/json' } });
    log.add({ server: 's', channel: 'post-json', kind: 'http-end', dir: 'in', exchange, http: { end: 'complete' }, batch: [{ id: 2, kind: 'result' }, { id: 1, kind: 'error', errorCode: -1, errorMessage: 'no' }] });
    const model = fold(log.events);
    expect(laneOf(model, 's', 'rpc-out')!.spans.map((s) => [s.label, s.status])).toEqual([
      ['a', 'error'],
      ['b', 'ok'],
    ]);
  });

  it('concurrent spans pack into at most MAX_ROWS rows', () => {
    const log = new EventLog();
    for (let id = 0; id < MAX_ROWS + 3; id++) log.line('s', 'out', { id, method: 'slow' });
    const model = fold(log.events);
    const lane = laneOf(model, 's', 'rpc-out')!;
    expect(lane.rows).toBe(MAX_ROWS);
    expect(lane.spans.map((s) => s.row)).toEqual([0, 1, 2, 3, 3, 3, 3]);
    // once the first ends, the next request takes its row again
    log.line('s', 'in', { id: 0, result: {} });
    log.line('s', 'out', { id: 99, method: 'next' });
    model.append(log.events, model.count);
    expect(lane.spans.at(-1)).toMatchObject({ label: 'next', row: 0 });
  });

  it('events whose times go backwards are still kept sorted by time', () => {
    const log = new EventLog();
    log.add({ server: 's', channel: 'lifecycle', kind: 'session', dir: 'none', ts: T0 + 50 });
    log.add({ server: 's', channel: 'lifecycle', kind: 'era', dir: 'none', ts: T0 + 10 });
    log.add({ server: 's', channel: 'lifecycle', kind: 'reconnect', dir: 'none', ts: T0 + 30 });
    log.line('s', 'out', { id: 1, method: 'late' }).ts = T0 + 40;
    log.line('s', 'out', { id: 2, method: 'early' }).ts = T0 + 5;
    const model = fold(log.events);
    expect(laneOf(model, 's', 'lifecycle')!.ticks.list().map((t) => t.ts)).toEqual([T0 + 10, T0 + 30, T0 + 50]);
    expect(laneOf(model, 's', 'rpc-out')!.spans.map((s) => s.label)).toEqual(['early', 'late']);
    expect([model.minTs, model.maxTs]).toEqual([T0 + 5, T0 + 50]);
  });

  it('kinds it draws nothing for, and kinds it does not know, are counted and skipped', () => {
    const log = new EventLog();
    log.add({ server: 's', channel: 'auth', kind: 'auth-step', dir: 'none', meta: { step: 'login' } });
    log.add({ server: 's', channel: 'lifecycle', kind: 'from-the-future' as TraceEvent['kind'], dir: 'none' });
    log.add({ server: 's', channel: 'post-json', kind: 'http-response', dir: 'in', exchange: 'never-opened', http: { status: 500 } });
    log.add({ server: 's', channel: 'post-json', kind: 'http-request', dir: 'out', http: { method: 'POST' } }); // no exchange id
    const model = fold(log.events);
    expect(model.count).toBe(4);
    expect(model.lanes.size).toBe(0);
  });

  it('lanes order by kind, then by channel in the contract order', () => {
    const log = new EventLog();
    log.state('s', 'connecting');
    log.add({ server: 's', channel: 'stdio', kind: 'stderr', dir: 'in', text: 'x' });
    log.add({ server: 's', channel: 'get', kind: 'sse-comment', dir: 'in' });
    log.line('s', 'out', { id: 1, method: 'm' });
    log.add({ server: 's', channel: 'lifecycle', kind: 'error', dir: 'none', text: 'boom' });
    const model = fold(log.events);
    const order = [...model.lanes.values()].sort((a, b) => laneOrder(a) - laneOrder(b)).map((l) => l.channel ?? l.kind);
    expect(order).toEqual(['rpc-out', 'get', 'stdio', 'lifecycle', 'errors']);
  });

  it('a huge trace: 100,000 events, 20,000 requests paired, counted once', () => {
    const log = new EventLog();
    for (let id = 0; id < 20_000; id++) {
      log.line('s', 'out', { id, method: 'ping' });
      log.line('s', 'in', { id, result: {} });
      log.add({ server: 's', channel: 'stdio', kind: 'stderr', dir: 'in', text: 'chatter' });
      log.line('s', 'in', { method: 'notifications/message' });
      log.line('s', 'out', { method: 'notifications/progress' });
    }
    const model = fold(log.events);
    expect(model.count).toBe(100_000);
    const spans = laneOf(model, 's', 'rpc-out')!.spans;
    expect(spans).toHaveLength(20_000);
    expect(spans.every((s) => s.status === 'ok')).toBe(true);
    expect(laneOf(model, 's', 'notifications')!.ticks).toHaveLength(40_000);
    expect(laneOf(model, 's', 'stdio')!.ticks).toHaveLength(100_000);
  });
});

// ---------------------------------------------------------------------------------------
// Properties over random traces

const SERVERS = ['a', 'b'];
const METHODS = ['tools/call', 'tools/list', 'notifications/cancelled', 'notifications/progress', 'ping'];

/** Random traces of every kind, with request ids that collide, answers, cancels and times that jump back. */
const traceArb = fc
  .array(
    fc.record({
      server: fc.constantFrom(...SERVERS),
      channel: fc.constantFrom(...CHANNELS),
      kind: fc.constantFrom(...EVENT_KINDS),
      dir: fc.constantFrom('out' as const, 'in' as const, 'none' as const),
      exchange: fc.option(fc.constantFrom('x1', 'x2', 'x3'), { nil: undefined }),
      rpc: fc.option(
        fc.record({
          id: fc.option(fc.integer({ min: 0, max: 4 }), { nil: undefined }),
          method: fc.constantFrom(...METHODS),
          kind: fc.constantFrom('request' as const, 'notification' as const, 'result' as const, 'error' as const),
        }),
        { nil: undefined },
      ),
      status: fc.option(fc.constantFrom(200, 202, 404, 405, 500), { nil: undefined }),
      state: fc.option(fc.constantFrom('connected', 'disconnected', 'error'), { nil: undefined }),
      dt: fc.integer({ min: -20, max: 50 }),
    }),
    { maxLength: 120 },
  )
  .map((specs) => {
    const log = new EventLog();
    let ts = T0;
    for (const s of specs) {
      ts += s.dt;
      log.add({
        server: s.server,
        channel: s.channel,
        kind: s.kind,
        dir: s.dir,
        ts,
        exchange: s.exchange,
        rpc: s.rpc,
        http: s.status !== undefined ? { status: s.status, method: 'POST', url: 'http://h/mcp', contentType: s.status === 200 ? 'text/event-stream' : undefined } : undefined,
        meta: s.state ? { state: s.state } : undefined,
        body: s.rpc?.method === 'notifications/cancelled' ? { params: { requestId: s.rpc.id } } : undefined,
      });
    }
    return log.events;
  });

describe('TimelineModel properties', () => {
  it('appending in any chunks draws what one append draws, and counts every event once', () => {
    fc.assert(
      fc.property(traceArb, fc.array(fc.nat(), { maxLength: 6 }), (events, cuts) => {
        const whole = fold(events);
        const chunked = new TimelineModel();
        const points = [...new Set(cuts.map((c) => (events.length ? c % (events.length + 1) : 0)))].sort((x, y) => x - y);
        let from = 0;
        for (const to of [...points, events.length]) {
          chunked.append(events.slice(0, to), from);
          from = Math.max(from, to);
        }
        expect(chunked.count).toBe(events.length);
        expect(picture(chunked)).toEqual(picture(whole));
      }),
      { numRuns: 300 },
    );
  });

  it('every lane stays sorted by time, every open span is in its lane and open, rows stay in bounds', () => {
    fc.assert(
      fc.property(traceArb, (events) => {
        const model = fold(events);
        for (const lane of model.lanes.values()) {
          for (let i = 1; i < lane.ticks.length; i++) expect(lane.ticks.ts[i - 1]!).toBeLessThanOrEqual(lane.ticks.ts[i]!);
          for (let i = 1; i < lane.spans.length; i++) expect(lane.spans[i - 1]!.start).toBeLessThanOrEqual(lane.spans[i]!.start);
          for (const span of lane.open) {
            expect(span.open).toBe(true);
            expect(span.lane).toBe(lane);
            expect(lane.spans).toContain(span);
          }
          for (const span of lane.spans) {
            expect(span.lane).toBe(lane);
            expect(span.row).toBeLessThan(MAX_ROWS);
            expect(span.row).toBeLessThan(lane.rows);
            if (!span.open) {
              expect(span.end).toBeGreaterThanOrEqual(span.start);
              expect(span.end - span.start).toBeLessThanOrEqual(lane.maxDur);
            } else expect(lane.open.has(span)).toBe(true);
          }
        }
        // a span is in exactly one lane
        const all = [...model.lanes.values()].flatMap((lane) => lane.spans);
        expect(new Set(all).size).toBe(all.length);
      }),
      { numRuns: 300 },
    );
  });
});

// ---------------------------------------------------------------------------------------

describe('ModelSync', () => {
  const trace = (n: number, firstSeq = 1): TraceEvent[] => {
    const log = new EventLog();
    for (let i = 0; i < firstSeq - 1; i++) log.state('s', 'connected');
    for (let i = 0; i < n; i++) log.line('s', i % 2 ? 'in' : 'out', i % 2 ? { id: i - 1, result: {} } : { id: i, method: 'm' });
    return log.events.slice(firstSeq - 1);
  };

  it('follows a growing list with one model, and draws what a fresh fold of the list draws', () => {
    fc.assert(
      fc.property(traceArb, fc.array(fc.nat(), { maxLength: 5 }), (events, cuts) => {
        const sync = new ModelSync();
        const first = sync.sync([]);
        for (const cut of [...cuts.map((c) => (events.length ? c % (events.length + 1) : 0))].sort((x, y) => x - y)) sync.sync(events.slice(0, cut));
        const model = sync.sync(events);
        expect(picture(model)).toEqual(picture(fold(events)));
        if (events.length && model !== first) expect(sync.sync(events)).toBe(model);
      }),
      { numRuns: 200 },
    );
  });

  it('keeps its model while the window slides a little, rebuilds when it was reset or refilled before its start', () => {
    const sync = new ModelSync();
    const events = trace(100);
    const model = sync.sync(events);
    expect(model.count).toBe(100);
    expect(sync.sync(events.slice(10))).toBe(model); // the front dropped a little: same model, nothing new
    expect(model.count).toBe(100);

    const reset = sync.sync(trace(5)); // main restarted: seqs begin again at 1
    expect(reset).not.toBe(model);
    expect(reset.count).toBe(5);

    const later = trace(3, 1_000);
    const jumped = sync.sync(later); // the window is past everything the model holds
    expect(jumped).not.toBe(reset);
    expect([jumped.firstSeq, jumped.count]).toEqual([1_000, 3]);

    expect(sync.sync([]).count).toBe(0);
  });

  it('drops, in place, what a window slid far has left behind: open spans stay, the rest matches a fresh fold', () => {
    const log = new EventLog();
    log.line('s', 'out', { id: 'forever', method: 'long/wait' }); // never answered: open for the whole run
    for (let i = 0; i < 40_000; i++) {
      log.line('s', 'out', { id: i, method: 'tools/call' });
      log.line('s', 'in', { id: i, result: {} });
      if (i % 10 === 0) log.line('s', 'in', { method: 'notifications/message' });
    }
    const events = log.events;
    const sync = new ModelSync();
    const model = sync.sync(events.slice(0, 20_000));
    // a live list of 20,000 sliding over the trace in batches of 500, as pushes arrive
    let window = events.slice(0, 20_000);
    for (let end = 20_500; end < events.length + 500; end += 500) {
      window = events.slice(Math.min(end, events.length) - 20_000, end);
      expect(sync.sync(window)).toBe(model);
    }
    expect(model.lastSeq).toBe(events.at(-1)!.seq);
    const first = window[0]!.seq;
    expect(model.firstSeq).toBeGreaterThan(events[0]!.seq + 50_000);
    expect(model.firstSeq).toBeLessThanOrEqual(first);
    const lane = laneOf(model, 's', 'rpc-out')!;
    expect(lane.spans[0]).toMatchObject({ label: 'long/wait', open: true, seq: 1 });
    for (const l of model.lanes.values()) {
      for (const tick of l.ticks.list()) expect(tick.event.seq).toBeGreaterThanOrEqual(model.firstSeq);
      for (const span of l.spans) if (!span.open) expect(span.endEvent!.seq).toBeGreaterThanOrEqual(model.firstSeq);
    }
    // from the model's first event on, the spans and ticks are those of a fresh fold of the same events
    const from = events.findIndex((e) => e.seq === model.firstSeq);
    const fresh = fold(events.slice(from));
    const after = (m: TimelineModel) =>
      [...m.lanes.values()].map((l) => ({
        id: l.id,
        spans: l.spans.filter((sp) => sp.seq >= model.firstSeq).map((sp) => [sp.seq, sp.start, sp.end, sp.status, sp.label]),
        ticks: l.ticks.list().map((t) => [t.event.seq, t.style]),
      }));
    expect(after(model)).toEqual(after(fresh));
    expect([model.count, model.lastSeq, model.maxTs]).toEqual([fresh.count, fresh.lastSeq, fresh.maxTs]);
    expect(model.minTs).toBe(lane.spans[0]!.start);
  });
});

describe('sorted-array search', () => {
  it('lowerBound and afterSeq agree with a linear scan', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -50, max: 50 })), fc.integer({ min: -60, max: 60 }), (values, value) => {
        const sorted = [...values].sort((a, b) => a - b);
        const expected = sorted.findIndex((v) => v >= value);
        expect(lowerBound(sorted, value, (v) => v)).toBe(expected < 0 ? sorted.length : expected);
        const events = [...new Set(sorted)].map((seq) => ({ seq }) as TraceEvent);
        const after = events.findIndex((e) => e.seq > value);
        expect(afterSeq(events, value)).toBe(after < 0 ? events.length : after);
      }),
    );
    expect(lowerBound([{ start: 5 } as Span], 5, spanStart)).toBe(0);
  });

  it("a lane's ticks, kept as parallel arrays, are the list of tick objects they replaced: sorted by time, late ones before their time's, trimmed by seq", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 30 }), { maxLength: 60 }), fc.integer({ min: 0, max: 70 }), fc.integer({ min: -1, max: 32 }), (times, keepSeq, probe) => {
        const ticks = new Ticks();
        // the list it replaced: pushed when in order, else spliced in at the first tick not earlier
        const reference: Tick[] = [];
        times.forEach((ts, i) => {
          const event = { seq: i + 1, ts } as TraceEvent;
          const tick: Tick = { ts, style: i % 2 ? 'in' : 'out', event, rpc: i % 3 ? undefined : { kind: 'notification', method: `m${i}` } };
          ticks.add(ts, tick.style, event, tick.rpc);
          if (!reference.length || reference[reference.length - 1]!.ts <= ts) reference.push(tick);
          else reference.splice(lowerBound(reference, ts, (t) => t.ts), 0, tick);
        });
        expect(ticks.list()).toEqual(reference);
        expect(ticks.length).toBe(reference.length);
        expect(ticks.from(probe)).toBe(lowerBound(reference, probe, (t) => t.ts));
        expect(ticks.at(-1)).toBeUndefined();
        expect(ticks.at(reference.length)).toBeUndefined();
        ticks.keepFrom(keepSeq);
        expect(ticks.list()).toEqual(reference.filter((t) => t.event.seq >= keepSeq));
        expect([ticks.ts.length, ticks.styles.length, ticks.events.length, ticks.rpcs.length]).toEqual(Array(4).fill(ticks.length));
      }),
      { numRuns: 500 },
    );
  });
});

// ---------------------------------------------------------------------------------------
// A trace the core recorded against a real server

describe('a recorded trace', () => {
  let fixture: RunningFixture;
  beforeAll(async () => {
    fixture = await startFixture({ transport: 'http', era: 'legacy' });
  });
  afterAll(async () => {
    await fixture?.close();
  });

  it('folds a real connect, list and call: every request answered, the model counts the whole trace', async () => {
    const core = createCore({ settings: new MemorySettingsStore(), carrier: 'browser', version: 't' });
    try {
      const { id } = await call(core, 'addServer', { name: 'real', target: { type: 'http', url: fixture.url }, era: 'auto', pingIntervalSec: 0 });
      expect((await call(core, 'connectServer', { id })).state).toBe('connected');
      await call(core, 'callTool', { tool: 'real__echo', args: { text: 'hi' } });

      const events = [...core.trace.store.all()];
      const sync = new ModelSync();
      // the renderer sees the trace in batches
      for (let end = 1; end <= events.length; end += 7) sync.sync(events.slice(0, end));
      const model = sync.sync(events);
      expect(model.count).toBe(events.length);
      expect(model.servers).toEqual([id]);

      const rpc = laneOf(model, id, 'rpc-out')!.spans;
      const byLabel = new Map(rpc.map((s) => [s.label, s]));
      // a legacy server refuses the 2026 probe with an HTTP 4xx: expected, so not drawn as an error
      const probe = events.find((e) => e.kind === 'http-request' && e.rpc?.method === 'server/discover')!;
      expect(events.filter((e) => e.exchange === probe.exchange && e.kind !== 'http-request').every((e) => e.negotiation === 'answer')).toBe(true);
      expect(byLabel.get('server/discover')).toMatchObject({ status: 'ok', detail: expect.stringMatching(/^HTTP 4\d\d$/), open: false });
      expect(model.lanes.get(probe.exchange ? `${id}\u0000${probe.channel}` : '')!.spans.find((s) => s.seq === probe.seq)).toMatchObject({ status: 'ok' });
      expect(byLabel.get('initialize')?.status).toBe('ok');
      expect(byLabel.get('tools/list')?.status).toBe('ok');
      expect(byLabel.get('tools/call')).toMatchObject({ status: 'ok', open: false });
      // every request the client sent was answered, none in error
      expect(rpc.filter((s) => s.open)).toEqual([]);
      expect(rpc.filter((s) => s.status !== 'ok')).toEqual([]);
      expect(laneOf(model, id, 'errors')).toBeUndefined();
      // the message layer and the channel lanes saw the same exchanges
      const exchanges = [...model.lanes.values()].filter((l) => l.kind === 'channel').flatMap((l) => l.spans);
      expect(exchanges.length).toBe(events.filter((e) => e.kind === 'http-request').length);
    } finally {
      await core.shutdown();
    }
  });
});
