/**
 * The bench's tracked side, taken apart (bench/support/app-trace.ts, BENCH_TRACE): each mode does
 * with an event what its name says, so a decomposition run measures what it claims to. The
 * events go through the real hub and store; `recording` writes a real recording in a temp library.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { appTrace, type AppTrace } from '../../bench/support/app-trace';
import { Redactor } from '../../main/core/trace/redact';
import type { TraceEventInput } from '../../contract/trace';

const request = (id: number): TraceEventInput => ({
  server: 'bench',
  channel: 'post-json',
  kind: 'http-request',
  dir: 'out',
  exchange: `x${id}`,
  rpc: { kind: 'request', id, method: 'tools/call' },
  body: { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo' } },
});

let open: AppTrace | undefined;
afterEach(() => {
  open?.close();
  open = undefined;
  vi.unstubAllEnvs();
  vi.resetModules();
});

/** Records three events and waits a turn (the store serializes them on the next one). */
async function recordThree(trace: AppTrace): Promise<void> {
  for (let id = 1; id <= 3; id++) trace.record(request(id));
  await new Promise((resolve) => setImmediate(resolve));
}

describe('bench app trace modes', () => {
  it('recording: every event is stored and read back from the live recording', async () => {
    open = appTrace([new Redactor()], 'recording');
    await recordThree(open);
    expect(open.hub.store.size).toBe(3);
    expect(open.hub.store.get(3)?.rpc?.id).toBe(3);
    expect(open.hub.store.get(3)?.body).toEqual(request(3).body);
  });

  it('spill: every event is stored and read back from the spill file', async () => {
    open = appTrace([], 'spill');
    await recordThree(open);
    expect(open.hub.store.size).toBe(3);
    expect(open.hub.store.get(2)?.exchange).toBe('x2');
  });

  it('unwritten: the store indexes and snapshots every event, and writes none of them', async () => {
    open = appTrace([], 'unwritten');
    await recordThree(open);
    expect(open.hub.store.size).toBe(3);
    // indexed (their method found) and snapshotted ...
    expect(open.hub.store.query({ methods: ['tools/call'] }).events.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(open.hub.snapshots.snapshot('bench')?.totalEvents).toBe(3);
    // ... but never written: what reads back is the store's stub for an event it cannot read
    expect(open.hub.store.get(3)?.body).toBeUndefined();
    expect(open.hub.store.get(3)?.text).toMatch(/event not available: .*nothing was written/);
  });

  it('unrecorded: the events are dropped before the store', async () => {
    open = appTrace([], 'unrecorded');
    await recordThree(open);
    expect(open.hub.store.size).toBe(0);
  });

  it('BENCH_TRACE picks the mode; BENCH_RECORDING=0 still means spill; anything else is refused', async () => {
    vi.stubEnv('BENCH_TRACE', 'unwritten');
    expect((await import('../../bench/support/app-trace')).MODE).toBe('unwritten');
    vi.resetModules();
    vi.stubEnv('BENCH_TRACE', '');
    vi.stubEnv('BENCH_RECORDING', '0');
    expect((await import('../../bench/support/app-trace')).MODE).toBe('spill');
    vi.resetModules();
    vi.stubEnv('BENCH_RECORDING', '');
    expect((await import('../../bench/support/app-trace')).MODE).toBe('recording');
    vi.resetModules();
    vi.stubEnv('BENCH_TRACE', 'fast');
    await expect(import('../../bench/support/app-trace')).rejects.toThrow(/BENCH_TRACE=fast: expected one of recording, spill, unwritten, unrecorded/);
  });
});
