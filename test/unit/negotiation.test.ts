/**
 * Version negotiation is not an error: the SDK's `server/discover` probe and a legacy server's
 * expected refusal are marked `negotiation` as they are appended, left out of "Errors only" and
 * the snapshots' error counts, and otherwise kept exactly as they arrived. A probe that meets a
 * real failure (401, 5xx, a broken transport) stays an error.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { isErrorEvent, type TraceEventInput } from '../../contract/trace';
import { SnapshotEngine } from '../../main/core/trace/snapshots';
import { TraceStore } from '../../main/core/trace/store';

let store: TraceStore;
afterEach(() => store?.close());

const probeOut = (server = 's', id = 'server-discover-probe-1'): TraceEventInput => ({
  server,
  channel: 'stdio',
  kind: 'jsonrpc-out',
  dir: 'out',
  rpc: { id, method: 'server/discover', kind: 'request' },
  body: { jsonrpc: '2.0', id, method: 'server/discover', params: {} },
});
const refusal = (server = 's', id: string | number = 'server-discover-probe-1'): TraceEventInput => ({
  server,
  channel: 'stdio',
  kind: 'jsonrpc-in',
  dir: 'in',
  rpc: { id, kind: 'error', errorCode: -32601, errorMessage: 'Method not found' },
  body: { jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } },
});

function httpProbe(exchange: string, status: number, end: 'complete' | 'error' = 'complete'): TraceEventInput[] {
  const id = `server-discover-probe-${exchange}`;
  return [
    { server: 'h', channel: 'discovery', kind: 'http-request', dir: 'out', exchange, http: { method: 'POST', url: 'http://127.0.0.1/mcp' }, rpc: { id, method: 'server/discover', kind: 'request' } },
    { server: 'h', channel: 'discovery', kind: 'http-response', dir: 'in', exchange, http: { status } },
    {
      server: 'h',
      channel: 'discovery',
      kind: 'http-end',
      dir: 'in',
      exchange,
      http: { status, end },
      ...(status === 400 ? { rpc: { id, kind: 'error' as const, errorCode: -32601, errorMessage: 'Method not found' } } : {}),
    },
  ];
}

describe('negotiation marks', () => {
  it('marks the stdio probe and its Method-not-found answer, which "Errors only" leaves out, and keeps the body as it arrived', () => {
    store = new TraceStore();
    const probe = store.append(probeOut());
    const answer = store.append(refusal());
    // an ordinary request refused the same way afterwards is an error
    store.append({ server: 's', channel: 'stdio', kind: 'jsonrpc-out', dir: 'out', rpc: { id: 7, method: 'logging/setLevel', kind: 'request' } });
    const real = store.append(refusal('s', 7));
    expect(probe.negotiation).toBe('probe');
    expect(answer.negotiation).toBe('answer');
    expect(answer.body).toEqual({ jsonrpc: '2.0', id: 'server-discover-probe-1', error: { code: -32601, message: 'Method not found' } });
    expect(answer.rpc?.kind).toBe('error');
    expect(real.negotiation).toBeUndefined();
    expect(isErrorEvent(answer)).toBe(false);
    expect(isErrorEvent(real)).toBe(true);
    const errors = store.query({ errorsOnly: true }).events.map((e) => e.seq);
    expect(errors).toEqual([real.seq]);
    // still visible without the filter
    expect(store.query({}).events.map((e) => e.seq)).toContain(answer.seq);
  });

  it('marks an HTTP probe exchange answered 4xx as expected, but 401 and 5xx and a broken transport as failed', () => {
    store = new TraceStore();
    for (const e of [...httpProbe('a', 400), ...httpProbe('b', 401), ...httpProbe('c', 503), ...httpProbe('d', 404, 'error')]) store.append(e);
    const all = store.query({}).events;
    const marks = (exchange: string) => all.filter((e) => e.exchange === exchange).map((e) => e.negotiation);
    expect(marks('a')).toEqual(['probe', 'answer', 'answer']);
    expect(marks('b')).toEqual(['probe', 'failed', 'failed']);
    expect(marks('c')).toEqual(['probe', 'failed', 'failed']);
    expect(marks('d')).toEqual(['probe', 'answer', 'failed']);
    const errors = store.query({ errorsOnly: true }).events.map((e) => `${e.exchange}:${e.kind}`);
    expect(errors).toEqual(['b:http-response', 'b:http-end', 'c:http-response', 'c:http-end', 'd:http-end']);
  });

  it('does not count an expected probe answer in the snapshots, and counts a real error', () => {
    store = new TraceStore();
    const engine = new SnapshotEngine();
    store.subscribe((e) => engine.apply(e));
    store.append(probeOut());
    store.append(refusal());
    expect(engine.snapshot('s')!.channels.stdio!.errors).toBe(0);
    expect(engine.snapshot('s')!.buckets.reduce((n, b) => n + b.errors.rpc, 0)).toBe(0);
    store.append({ server: 's', channel: 'stdio', kind: 'jsonrpc-out', dir: 'out', rpc: { id: 3, method: 'tools/call', kind: 'request' } });
    store.append(refusal('s', 3));
    expect(engine.snapshot('s')!.channels.stdio!.errors).toBe(1);
    expect(engine.snapshot('s')!.buckets.reduce((n, b) => n + b.errors.rpc, 0)).toBe(1);
  });

  it('forgets open probes when the connection goes down (a later reply with the same id is not negotiation)', () => {
    store = new TraceStore();
    store.append(probeOut());
    store.append({ server: 's', channel: 'lifecycle', kind: 'state', dir: 'none', text: 'disconnected', meta: { state: 'disconnected' } });
    expect(store.append(refusal()).negotiation).toBeUndefined();
  });

  it('keeps the mark of an imported event', () => {
    store = new TraceStore();
    const imported = store.append({ ...refusal(), negotiation: 'answer' });
    expect(imported.negotiation).toBe('answer');
    expect(store.query({ errorsOnly: true }).events).toEqual([]);
  });
});
