/**
 * Issue #15 item 2: the call path does no needless work. N tool calls go through the core as
 * both carriers hand them to it (`core.dispatch('callTool', raw args)`) to a real everything
 * fixture over HTTP (legacy era, sessions), and then:
 *
 * - the trace — every event the tracking fetch recorded, as it was appended — holds exactly one
 *   outgoing HTTP request per call, each a POST carrying one `tools/call` (no tools/list before a
 *   call, no validation fetch, no second round trip), and each call's reply names its own request;
 * - spies on the collaborators (the real objects, their methods wrapped) show that no call writes
 *   the settings or reads (copies) the whole settings document, rebuilds the catalog or the slugs,
 *   queries the trace, or marks the call memory for writing when the input is the one remembered;
 * - the audit gets exactly one record per call (that is the call's own work), in memory.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TraceEvent } from '../../contract/trace';
import { createCore, type Core } from '../../main/core/app';
import { MemorySettingsStore } from '../../main/core/store/settings';
import { startFixture, type RunningFixture } from '../fixtures/everything/harness';
import { call } from '../support/core-calls';

const CALLS = 40;

let fixture: RunningFixture;
let core: Core;
let settings: MemorySettingsStore;
let serverId: string;

beforeAll(async () => {
  fixture = await startFixture({ transport: 'http', era: 'legacy', sessions: true });
  settings = new MemorySettingsStore();
  core = createCore({ settings, carrier: 'browser', version: 't' });
  // Argument values kept: the remembered input and the audit's arguments are on the path too.
  await call(core, 'updateSettings', { auditArgumentValues: true });
  // No heartbeat: every request on the wire during the calls is one of the calls.
  const added = await call(core, 'addServer', { name: 'everything', target: { type: 'http', url: fixture.url }, pingIntervalSec: 0 });
  serverId = added.id;
  expect((await call(core, 'connectServer', { id: serverId })).state).toBe('connected');
}, 60_000);

afterAll(async () => {
  await core?.shutdown();
  await fixture?.close();
});

/** What the spied collaborators did, by name. */
function spies() {
  const wrapped = {
    settingsWrite: vi.spyOn(settings, 'write'),
    settingsRead: vi.spyOn(settings, 'read'),
    traceQuery: vi.spyOn(core.trace.store, 'query'),
    traceGet: vi.spyOn(core.trace.store, 'get'),
    tracePayload: vi.spyOn(core.trace.store, 'payload'),
    rememberInput: vi.spyOn(core.callMemory, 'rememberInput'),
    forgetInput: vi.spyOn(core.callMemory, 'forgetInput'),
    auditAppend: vi.spyOn(core.audit, 'append'),
  };
  return {
    counts: () => Object.fromEntries(Object.entries(wrapped).map(([name, spy]) => [name, spy.mock.calls.length])) as Record<keyof typeof wrapped, number>,
    restore: () => Object.values(wrapped).forEach((spy) => spy.mockRestore()),
  };
}

describe('the call path', () => {
  it(`makes ${CALLS} calls with one request each on the wire and no per-call rebuild, write or query`, async () => {
    const args = { text: 'same every time' };
    // The first call remembers the input and settles whatever a first call computes (the catalog, the slugs).
    await call(core, 'callTool', { tool: 'everything__echo', args });
    const catalogBefore = { ...core.connections.catalog.counts };

    const recorded: TraceEvent[] = [];
    const unsubscribe = core.trace.store.subscribe((event) => {
      if (event.server === serverId) recorded.push(event);
    });
    const spied = spies();
    const replies = [];
    try {
      for (let i = 0; i < CALLS; i++) {
        // Both name forms: the namespaced name, and the bare name narrowed by serverId.
        const reply = await call(core, 'callTool', i % 2 ? { tool: 'everything__echo', args } : { tool: 'echo', serverId, args });
        expect((reply.result.content as { text: string }[])[0]!.text).toBe('echo: same every time');
        replies.push(reply);
      }
    } finally {
      unsubscribe();
    }
    const counts = spied.counts();
    spied.restore();

    // The wire: one outgoing HTTP request per call, each a POST of one tools/call.
    const requests = recorded.filter((e) => e.kind === 'http-request' && e.dir === 'out');
    expect(requests).toHaveLength(CALLS);
    for (const request of requests) {
      expect(request.http?.method).toBe('POST');
      expect(request.batch).toBeUndefined();
      expect(request.rpc).toMatchObject({ kind: 'request', method: 'tools/call' });
    }
    // Nothing else went out at the JSON-RPC level either (no tools/list, no ping, no notification).
    const outgoingRpc = recorded.filter((e) => e.dir === 'out' && e.rpc).map((e) => `${e.rpc!.kind} ${e.rpc!.method ?? ''}`);
    expect(new Set(outgoingRpc)).toEqual(new Set(['request tools/call']));
    // Each reply names its own request and its response, as recorded.
    expect(replies.map((r) => r.traceSeq)).toEqual(requests.map((e) => e.seq));
    const responses = new Map(recorded.filter((e) => e.dir === 'in' && e.rpc?.kind === 'result').map((e) => [e.seq, e]));
    for (const reply of replies) expect(responses.has(reply.responseSeq!)).toBe(true);

    // The collaborators: nothing per call but the call's own audit record.
    expect(counts).toEqual({
      settingsWrite: 0,
      settingsRead: 0,
      traceQuery: 0,
      traceGet: 0,
      tracePayload: 0,
      rememberInput: 0,
      forgetInput: 0,
      auditAppend: CALLS,
    });
    expect(core.connections.catalog.counts).toEqual(catalogBefore);
  });

  it('remembers a changed input once, and the audit keeps its values redacted as before', async () => {
    const spied = spies();
    await call(core, 'callTool', { tool: 'everything__echo', args: { text: 'a new input' } });
    await call(core, 'callTool', { tool: 'everything__echo', args: { text: 'a new input' } });
    const counts = spied.counts();
    spied.restore();
    expect(counts.rememberInput).toBe(1);
    expect(core.callMemory.lastInput('everything__echo')).toEqual({ text: 'a new input' });
    const [latest] = core.audit.list({ limit: 1 });
    expect(latest).toMatchObject({ tool: 'echo', outcome: 'ok', argumentKeys: ['text'], arguments: { text: 'a new input' } });
  });

  it('stops keeping argument values in the audit as soon as the setting is off', async () => {
    await call(core, 'updateSettings', { auditArgumentValues: false });
    await call(core, 'callTool', { tool: 'everything__echo', args: { text: 'not kept' } });
    const [latest] = core.audit.list({ limit: 1 });
    expect(latest).toMatchObject({ tool: 'echo', argumentKeys: ['text'] });
    expect(latest).not.toHaveProperty('arguments');
    expect(core.callMemory.lastInput('everything__echo')).toBeUndefined();
  });
});
