/**
 * The fault engine (main/core/faults/engine.ts) and the `--fault` parser: scope (method, http,
 * after, times, rate with a scripted random source), the additive rule, counts and onChange,
 * drop-notifications decided per notification, session-expiry as an armed fault, checkSupported.
 */
import { describe, expect, it } from 'vitest';
import {
  FaultEngine,
  FaultSpecError,
  MAX_FAULTS,
  checkSupported,
  unsupportedReason,
  describeMessage,
  describeRequest,
  parseFault,
  parseFaultArg,
  parseFaultsBody,
  type RequestInfo,
} from '../../main/core/faults';

const post = (method: string, id: number | null = 1, accept = 'application/json, text/event-stream'): RequestInfo =>
  describeRequest('POST', { accept, sessionId: 's1' }, id === null ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', id, method });
const get = (): RequestInfo => describeRequest('GET', { accept: 'text/event-stream', sessionId: 's1' }, undefined);

/** A random source that returns the given values in turn (and fails the test when it runs out). */
function scripted(values: number[]): { random: () => number; used: () => number } {
  let i = 0;
  return {
    random: () => {
      if (i >= values.length) throw new Error('random source exhausted: more draws than expected');
      return values[i++]!;
    },
    used: () => i,
  };
}

describe('FaultEngine scope', () => {
  it('matches by JSON-RPC method (one or a list) and by HTTP method', () => {
    const engine = new FaultEngine([
      parseFault({ type: 'http-error', status: 500, method: 'tools/call' }),
      parseFault({ type: 'latency', ms: 10, method: ['tools/list', 'resources/list'] }),
      parseFault({ type: 'forbidden', http: 'GET' }),
    ]);
    expect(engine.plan(post('tools/call')).action?.type).toBe('http-error');
    expect(engine.plan(post('tools/list'))).toMatchObject({ latencyMs: 10, action: undefined, applied: ['latency'] });
    expect(engine.plan(post('ping'))).toMatchObject({ latencyMs: 0, action: undefined, applied: [] });
    expect(engine.plan(get()).action?.type).toBe('forbidden');
    const [err, lat, forb] = engine.list();
    expect([err!.seen, err!.hits, lat!.seen, lat!.hits, forb!.seen, forb!.hits]).toEqual([1, 1, 1, 1, 1, 1]);
  });

  it('after lets the first N matching requests through, times caps the hits, then the fault is exhausted', () => {
    const engine = new FaultEngine([parseFault({ type: 'http-error', status: 503, after: 2, times: 2, method: 'tools/call' })]);
    const actions = Array.from({ length: 6 }, () => engine.plan(post('tools/call')).action?.type ?? 'none');
    expect(actions).toEqual(['none', 'none', 'http-error', 'http-error', 'none', 'none']);
    const [armed] = engine.list();
    expect(armed).toMatchObject({ seen: 4, hits: 2, exhausted: true });
    // A request outside the scope is not even seen.
    engine.plan(post('tools/list'));
    expect(engine.list()[0]!.seen).toBe(4);
  });

  it('rate: one draw per matching request past `after`; a request not drawn is seen, not a hit', () => {
    const source = scripted([0.1, 0.9, 0.29, 0.3, 0.0]);
    const engine = new FaultEngine([parseFault({ type: 'http-error', status: 500, rate: 0.3, after: 1 })], { random: source.random });
    const actions = Array.from({ length: 6 }, () => engine.plan(post('tools/call')).action?.type ?? 'none');
    // request 1 is `after` (no draw); then draws 0.1 hit, 0.9 miss, 0.29 hit, 0.3 miss (not < rate), 0.0 hit
    expect(actions).toEqual(['none', 'http-error', 'none', 'http-error', 'none', 'http-error']);
    expect(source.used()).toBe(5);
    expect(engine.list()[0]).toMatchObject({ seen: 6, hits: 3, exhausted: false });
  });

  it('rate 0 never applies, rate 1 always does', () => {
    const engine = new FaultEngine([parseFault({ type: 'latency', ms: 5, rate: 0 }), parseFault({ type: 'latency', ms: 7, rate: 1 })], {
      random: () => 0.999999,
    });
    for (let i = 0; i < 5; i++) expect(engine.plan(post('tools/call')).latencyMs).toBe(7);
    expect(engine.list().map((a) => a.hits)).toEqual([0, 5]);
  });

  it('sse-cut and flood are only eligible where they can act (not counted as seen otherwise)', () => {
    const engine = new FaultEngine([parseFault({ type: 'sse-cut' }), parseFault({ type: 'flood', count: 3 })]);
    expect(engine.plan(post('tools/call', 1, 'application/json')).action).toBeUndefined();
    expect(engine.plan(post('notifications/initialized', null)).action).toBeUndefined();
    expect(engine.list().map((a) => a.seen)).toEqual([0, 0]);
    expect(engine.plan(get()).action?.type).toBe('sse-cut');
    expect(engine.plan(post('tools/call')).action?.type).toBe('sse-cut');
  });
});

describe('FaultEngine additive rule', () => {
  it('latency, storm and drop-notifications combine with anything; of the others the first matching wins', () => {
    const engine = new FaultEngine([
      parseFault({ type: 'latency', ms: 100 }),
      parseFault({ type: 'malformed', variant: 'not-jsonrpc', method: 'tools/list' }),
      parseFault({ type: 'http-error', status: 502 }),
      parseFault({ type: 'storm', count: 3 }),
      parseFault({ type: 'latency', ms: 20 }),
      parseFault({ type: 'drop-notifications' }),
      parseFault({ type: 'reset' }),
    ]);
    const plan = engine.plan(post('tools/call'));
    expect(plan.latencyMs).toBe(120);
    expect(plan.action?.type).toBe('http-error');
    expect(plan.storms.map((s) => s.count)).toEqual([3]);
    expect(plan.dropNotifications.map((d) => d.fault.type)).toEqual(['drop-notifications']);
    expect(plan.applied).toEqual(['latency', 'http-error', 'storm', 'latency']);
    expect(plan.appliedIds).toEqual([1, 3, 4, 5]);
    // The losing exclusive fault (reset) did not see the request; malformed was out of scope.
    const byType = Object.fromEntries(engine.list().map((a) => [a.fault.type, a.seen]));
    expect(byType).toMatchObject({ reset: 0, malformed: 0, 'http-error': 1 });

    const list = engine.plan(post('tools/list'));
    expect(list.action?.type).toBe('malformed');
  });

  it('an exhausted exclusive fault lets the next one win', () => {
    const engine = new FaultEngine([parseFault({ type: 'http-error', status: 500, times: 1 }), parseFault({ type: 'unauthorized' })]);
    expect(engine.plan(post('tools/call')).action?.type).toBe('http-error');
    expect(engine.plan(post('tools/call')).action?.type).toBe('unauthorized');
  });
});

describe('FaultEngine list, set, onChange', () => {
  it('set replaces (counts restart, ids keep growing) or appends; onChange fires on every change and not on a no-op', () => {
    const engine = new FaultEngine();
    let changes = 0;
    engine.onChange = () => (changes += 1);
    engine.plan(post('tools/call'));
    expect(changes).toBe(0); // nothing armed, nothing changed
    engine.set([parseFault({ type: 'latency', ms: 1 })]);
    expect(changes).toBe(1);
    engine.plan(post('tools/call'));
    expect(changes).toBe(2);
    expect(engine.list()).toEqual([{ id: 1, fault: { type: 'latency', ms: 1 }, seen: 1, hits: 1, exhausted: false }]);
    engine.set([parseFault({ type: 'stall' })], { append: true });
    expect(engine.list().map((a) => [a.id, a.fault.type, a.hits])).toEqual([
      [1, 'latency', 1],
      [2, 'stall', 0],
    ]);
    engine.set([parseFault({ type: 'latency', ms: 2 })]);
    expect(engine.list().map((a) => [a.id, a.hits])).toEqual([[3, 0]]);
    engine.clear();
    expect(engine.list()).toEqual([]);
    const before = changes;
    engine.clear();
    expect(changes).toBe(before);
  });

  it('list() is a copy: changing it does not change the engine', () => {
    const engine = new FaultEngine([parseFault({ type: 'latency', ms: 1 })]);
    const list = engine.list();
    list[0]!.hits = 99;
    list.pop();
    expect(engine.list()[0]!.hits).toBe(0);
  });

  it('a listener that throws does not break planning', () => {
    const engine = new FaultEngine([parseFault({ type: 'latency', ms: 3 })]);
    engine.onChange = () => {
      throw new Error('boom');
    };
    expect(engine.plan(post('tools/call')).latencyMs).toBe(3);
  });

  it('session-expiry: one per engine (a later one replaces it), never in a plan, counted by noteHit', () => {
    const engine = new FaultEngine([parseFault({ type: 'session-expiry', afterRequests: 3 })]);
    engine.set([parseFault({ type: 'session-expiry', afterRequests: 1 })], { append: true });
    expect(engine.list().map((a) => a.fault)).toEqual([{ type: 'session-expiry', afterRequests: 1 }]);
    const expiry = engine.sessionExpiry!;
    expect(expiry.afterRequests).toBe(1);
    expect(engine.plan(post('tools/call'))).toMatchObject({ action: undefined, applied: [] });
    engine.noteHit(expiry.id);
    expect(engine.list()[0]).toMatchObject({ hits: 1, seen: 1 });
  });

  it(`refuses more than ${MAX_FAULTS} faults`, () => {
    const many = Array.from({ length: MAX_FAULTS + 1 }, () => ({ type: 'latency', ms: 1 }));
    expect(() => parseFaultsBody(many)).toThrow(FaultSpecError);
    const engine = new FaultEngine();
    expect(() => engine.set(many.map((f) => parseFault(f)))).toThrow(/at most/);
  });
});

describe('drop-notifications', () => {
  it('is decided per notification: `notification` filters, rate draws per notification, times caps the drops', () => {
    const source = scripted([0.2, 0.7, 0.1, 0.4]);
    const engine = new FaultEngine(
      [parseFault({ type: 'drop-notifications', notification: ['notifications/progress', 'notifications/message'], rate: 0.5, times: 2, method: 'tools/call' })],
      { random: source.random },
    );
    expect(engine.plan(post('tools/list')).dropNotifications).toEqual([]); // out of scope
    const plan = engine.plan(post('tools/call'));
    expect(plan.applied).toEqual([]); // nothing applied until a notification is dropped
    const id = plan.dropNotifications[0]!.id;
    expect(engine.dropNotification(plan, 'notifications/resources/updated')).toBeUndefined(); // not listed: no draw
    expect(engine.dropNotification(plan, 'notifications/progress')).toBe(id); // 0.2 < 0.5
    expect(engine.dropNotification(plan, 'notifications/progress')).toBeUndefined(); // 0.7
    expect(engine.dropNotification(plan, 'notifications/message')).toBe(id); // 0.1
    expect(engine.dropNotification(plan, 'notifications/message')).toBeUndefined(); // exhausted: no draw
    expect(source.used()).toBe(3);
    expect(engine.list()[0]).toMatchObject({ hits: 2, exhausted: true });
  });

  it('a plan made before the faults changed drops nothing', () => {
    const engine = new FaultEngine([parseFault({ type: 'drop-notifications' })]);
    const plan = engine.plan(get());
    engine.set([]);
    expect(engine.dropNotification(plan, 'notifications/message')).toBeUndefined();
  });
});

describe('checkSupported', () => {
  it('names the faults a transport cannot act on', () => {
    const faults = [parseFault({ type: 'storm' }), parseFault({ type: 'jsonrpc-error' }), parseFault({ type: 'latency', ms: 1 })];
    expect(() => checkSupported(faults, 'http')).toThrow(/storm, jsonrpc-error cannot be injected by an HTTP proxy \(storm needs/);
    expect(() => checkSupported(faults, 'http', { also: ['storm'], who: 'the fault lab' })).toThrow(/^jsonrpc-error cannot be injected by the fault lab; it takes latency, .*, storm$/);
    expect(() => checkSupported([parseFault({ type: 'reset' }), parseFault({ type: 'sse-cut' })], 'stdio')).toThrow(/reset, sse-cut cannot be injected by a stdio proxy/);
    expect(() => checkSupported([parseFault({ type: 'latency', ms: 1, http: 'POST' })], 'stdio')).toThrow(/"http" .* cannot scope a stdio fault \(latency\)/);
    expect(() => checkSupported([parseFault({ type: 'stall' }), parseFault({ type: 'drop-notifications' }), parseFault({ type: 'jsonrpc-error' })], 'stdio')).not.toThrow();
    expect(() => checkSupported([parseFault({ type: 'session-expiry', afterRequests: 1 }), parseFault({ type: 'flood' })], 'http')).not.toThrow();
    expect(unsupportedReason([parseFault({ type: 'stall' })], 'stdio')).toBeUndefined();
    expect(unsupportedReason([parseFault({ type: 'flood' })], 'stdio')).toMatch(/^flood cannot be injected by a stdio proxy; it takes latency, stall, drop-notifications, jsonrpc-error$/);
  });
});

describe('parseFaultArg', () => {
  it('reads the shorthand: numbers, booleans, lists for method and notification, rate as a fraction', () => {
    expect(parseFaultArg('http-error:status=503,retryAfter=5,times=2')).toEqual({
      type: 'http-error',
      status: 503,
      retryAfter: 5,
      times: 2,
      contentType: 'text/plain; charset=utf-8',
    });
    expect(parseFaultArg('latency:ms=300,method=tools/call|tools/list,rate=0.25')).toEqual({
      type: 'latency',
      ms: 300,
      method: ['tools/call', 'tools/list'],
      rate: 0.25,
    });
    expect(parseFaultArg('drop-notifications:notification=notifications/progress|notifications/message')).toEqual({
      type: 'drop-notifications',
      notification: ['notifications/progress', 'notifications/message'],
    });
    expect(parseFaultArg('stall')).toEqual({ type: 'stall', headers: false, contentType: 'text/event-stream' });
    expect(parseFaultArg('sse-cut:partial=true,how=reset')).toMatchObject({ partial: true, how: 'reset', eventIds: true });
    expect(parseFaultArg('jsonrpc-error:code=-32000,message=nope')).toEqual({ type: 'jsonrpc-error', code: -32000, message: 'nope' });
  });

  it('reads JSON', () => {
    expect(parseFaultArg(' {"type":"session-expiry","afterRequests":2} ')).toEqual({ type: 'session-expiry', afterRequests: 2 });
  });

  it('rejects what is not a fault, with a message that says why', () => {
    expect(() => parseFaultArg('explode')).toThrow(/unknown fault type "explode"; one of latency, http-error/);
    expect(() => parseFaultArg('latency:ms')).toThrow(/expected key=value, got "ms"/);
    expect(() => parseFaultArg('latency:ms=1,bogus=2')).toThrow(FaultSpecError);
    expect(() => parseFaultArg('latency:ms=1,rate=1.5')).toThrow(/rate/);
    expect(() => parseFaultArg('latency:ms=1,type=stall')).toThrow(/bad key "type"/);
    expect(() => parseFaultArg('{"type":')).toThrow(/invalid JSON/);
    expect(() => parseFaultArg('x'.repeat(200_000))).toThrow(/longer than/);
    expect(() => parseFaultsBody({ faults: [], extra: 1 })).toThrow(/unexpected key/);
    expect(() => parseFault(null)).toThrow(/expected an object/);
  });
});

describe('describing requests', () => {
  it('reads methods and ids from a single message or a batch, and the stdio pseudo-method', () => {
    const batch = describeRequest('POST', { accept: 'text/event-stream' }, [
      { jsonrpc: '2.0', id: 'a', method: 'tools/call' },
      { jsonrpc: '2.0', method: 'notifications/progress' },
      { jsonrpc: '2.0', id: 7, result: {} },
      42,
    ]);
    expect(batch).toEqual({ http: 'POST', methods: ['tools/call', 'notifications/progress'], ids: ['a'], hasRequest: true, sessionId: undefined, acceptsSse: true });
    expect(describeMessage({ jsonrpc: '2.0', id: 3, method: 'ping' })).toEqual({ http: 'STDIO', methods: ['ping'], ids: [3], hasRequest: true, sessionId: undefined, acceptsSse: false });
  });

  it('stall and jsonrpc-error on stdio only meet requests (a notification has no answer to withhold)', () => {
    const engine = new FaultEngine([parseFault({ type: 'jsonrpc-error' })]);
    expect(engine.plan(describeMessage({ jsonrpc: '2.0', method: 'notifications/initialized' })).action).toBeUndefined();
    expect(engine.plan(describeMessage({ jsonrpc: '2.0', id: 1, method: 'tools/list' })).action?.type).toBe('jsonrpc-error');
  });
});
