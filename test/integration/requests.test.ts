/**
 * When the server asks — elicitation (form and URL), sampling, roots — through the core
 * (`createCore` … `dispatch`, `requestPending` events), against the asking fixture as a real
 * separate process, in both protocol eras and over both transports:
 *   - 2025-11-25: server→client requests (on HTTP: on the call's POST stream, or the GET
 *     stream), each answered by the client's own POST;
 *   - 2026-07-28: `input_required` results, fulfilled through the same handlers and answered by
 *     retrying the call with `inputResponses` (multi round-trip).
 * Then what is not era-specific: deadlines, server cancellation, the legacy call timeout that
 * stands still while a person answers, roots and their change notification, the policies
 * (accept-defaults, decline, off: the capability is not even declared), `-32042`, and the CLI.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ServerConfig, type MethodName, type PendingRequest, type RequestAnswer, type Result } from '../../contract';
import type { TraceEvent } from '../../contract/trace';
import { createCore, type Core } from '../../main/core/app';
import { ServerConnection } from '../../main/core/connection/server-connection';
import { EventHub } from '../../main/core/events';
import { RequestBroker } from '../../main/core/requests/broker';
import { MemorySettingsStore } from '../../main/core/store/settings';
import { parseUrlElicitationRequired } from '../../renderer/src/features/requests/url-elicitation';
import { askingStdioCommand, startAskingFixture, DASHBOARD_URL, EVIL_URLS, LINK_URL, type RunningAskingFixture } from '../fixtures/asking/harness';

const ROOT = join(import.meta.dirname, '../..');

// ---------------------------------------------------------------------------------------
// helpers

async function call<M extends MethodName>(core: Core, method: M, args: unknown): Promise<Result<M>> {
  const envelope = await core.dispatch(method, args);
  if (!envelope.ok) throw new Error(`${method} failed: ${envelope.error.message}`);
  return envelope.result as Result<M>;
}

/** Collects what the core says about server requests; `next()` hands out pending ones in order. */
function watch(core: Core) {
  const pending: PendingRequest[] = [];
  const resolved: { id: string; outcome: string; action?: string }[] = [];
  const completed: { serverId: string; elicitationId: string }[] = [];
  let taken = 0;
  let wake: (() => void) | undefined;
  core.events.subscribe((event, payload) => {
    if (event === 'requestPending') pending.push(payload as PendingRequest);
    else if (event === 'requestResolved') resolved.push(payload as (typeof resolved)[number]);
    else if (event === 'elicitationComplete') completed.push(payload as (typeof completed)[number]);
    else return;
    wake?.();
  });
  const until = async <T>(what: string, probe: () => T | undefined, timeoutMs = 10_000): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = probe();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, 50);
      });
    }
  };
  return {
    pending,
    resolved,
    completed,
    until,
    /** The next server request not handed out yet. */
    next: (timeoutMs?: number) => until('a server request', () => (pending.length > taken ? pending[taken++] : undefined), timeoutMs),
  };
}
type Watch = ReturnType<typeof watch>;

async function answer(core: Core, request: PendingRequest, reply: RequestAnswer) {
  return core.dispatch('answerRequest', { id: request.id, answer: reply });
}

/** Starts a tool call, answers the requests it causes with `reply`, returns the server's structured result. */
async function ask(core: Core, w: Watch, serverId: string, tool: string, args: Record<string, unknown>, ...replies: ((r: PendingRequest) => RequestAnswer)[]) {
  const running = call(core, 'callTool', { serverId, tool, args });
  running.catch(() => undefined);
  const seen: PendingRequest[] = [];
  for (const reply of replies) {
    const request = await w.next();
    seen.push(request);
    const envelope = await answer(core, request, reply(request));
    expect(envelope, JSON.stringify(envelope)).toMatchObject({ ok: true, result: { answered: true } });
  }
  const done = await running;
  return { structured: done.result.structuredContent as Record<string, unknown>, result: done.result, requests: seen };
}

const accept = (content?: Record<string, unknown>) => (): RequestAnswer => ({ kind: 'elicitation', action: 'accept', ...(content ? { content } : {}) });
const REQUIRED = { username: 'ada_l', email: 'ada@example.com', age: 36 };
const DEFAULTS = { homepage: 'https://example.com/~me', height: 1.75, newsletter: true, plan: 'free', region: 'eu', interests: ['mcp'] };

function eventsOf(core: Core, server: string, from = 0): TraceEvent[] {
  return [...core.trace.store.all()].filter((e) => e.server === server && e.seq > from);
}

/** An event's whole body (stored bodies may be previews). */
async function bodyOf(core: Core, event: TraceEvent): Promise<unknown> {
  if (!event.truncated) return event.body;
  return (await call(core, 'traceEvent', { seq: event.seq })).payload;
}

type Target = { type: 'stdio'; command: string; args: string[] } | { type: 'http'; url: string };

// ---------------------------------------------------------------------------------------

let http: RunningAskingFixture;

beforeAll(async () => {
  http = await startAskingFixture({ era: 'both' });
});

afterAll(async () => {
  await http?.close();
});

const stdioTarget = (): Target => ({ type: 'stdio', ...askingStdioCommand('both') });

const VARIANTS = [
  { label: '2025-11-25 over Streamable HTTP', era: 'legacy', transport: 'http' },
  { label: '2026-07-28 over Streamable HTTP', era: 'modern', transport: 'http' },
  { label: '2025-11-25 over stdio', era: 'legacy', transport: 'stdio' },
  { label: '2026-07-28 over stdio', era: 'modern', transport: 'stdio' },
] as const;

describe.each(VARIANTS)('server requests, $label', ({ era, transport }) => {
  let core: Core;
  let w: Watch;
  let id: string;

  beforeAll(async () => {
    core = createCore({ settings: new MemorySettingsStore(), carrier: 'browser', version: 't' });
    w = watch(core);
    const target = transport === 'http' ? { type: 'http', url: http.url } : stdioTarget();
    ({ id } = await call(core, 'addServer', { name: `asking ${era} ${transport}`, target, era, pingIntervalSec: 0, roots: [{ uri: 'file:///srv/project', name: 'project' }] }));
    await call(core, 'connectServer', { id });
    expect(core.connections.get(id)!.status()).toMatchObject({ state: 'connected', era });
  });

  afterAll(async () => {
    await core?.shutdown();
  });

  it('form: accept with edits — the server gets the edits and the defaults of untouched fields; the trace shows the request and its answer', async () => {
    const from = core.trace.store.size;
    const edits = { ...REQUIRED, plan: 'team', region: 'apac', interests: ['rust', 'databases'], languages: ['fr'], newsletter: false, birthday: '1815-12-10', first_meeting: '2026-05-01T09:30:00.000Z' };
    const { structured, requests } = await ask(core, w, id, 'register_user', {}, accept(edits));
    const [request] = requests;
    expect(request).toMatchObject({ serverId: id, kind: 'elicitation-form', era, call: { tool: 'register_user' } });
    expect(request!.deadline).toBeGreaterThan(request!.receivedAt);
    expect(Object.keys((request!.params.requestedSchema as { properties: object }).properties)).toHaveLength(14);
    expect(structured).toEqual({ action: 'accept', content: { ...DEFAULTS, ...edits } });
    expect(w.resolved).toContainEqual({ id: request!.id, outcome: 'answered', action: 'accept' });

    const events = eventsOf(core, id, from);
    if (era === 'legacy') {
      // The server's request arrives on the wire (on HTTP: on the call's POST stream)…
      const asked = events.find((e) => e.rpc?.method === 'elicitation/create' && e.rpc.kind === 'request');
      expect(asked, 'elicitation/create in the trace').toBeDefined();
      expect(asked!.kind).toBe(transport === 'http' ? 'sse-event' : 'jsonrpc-in');
      if (transport === 'http') expect(['post-sse', 'get']).toContain(asked!.channel);
      // …and the answer goes back as a result with the same id (on HTTP: a POST of its own).
      const answered = events.find((e) => e.dir === 'out' && e.rpc?.kind === 'result' && e.rpc.id === asked!.rpc!.id && e.seq > asked!.seq);
      expect(answered, 'the client answer in the trace').toBeDefined();
      if (transport === 'http') expect(answered).toMatchObject({ kind: 'http-request', http: { method: 'POST' } });
      expect(await bodyOf(core, answered!)).toMatchObject({ result: { action: 'accept', content: { ...DEFAULTS, ...edits } } });
    } else {
      // Round 1: tools/call → input_required; round 2: tools/call again, with inputResponses.
      const calls = events.filter((e) => e.dir === 'out' && e.rpc?.method === 'tools/call' && e.rpc.kind === 'request');
      expect(calls).toHaveLength(2);
      const first = (await bodyOf(core, calls[0]!)) as { params: Record<string, unknown> };
      const retry = (await bodyOf(core, calls[1]!)) as { params: { inputResponses?: Record<string, unknown> } };
      expect(first.params.inputResponses).toBeUndefined();
      expect(retry.params.inputResponses).toEqual({ profile: { action: 'accept', content: { ...DEFAULTS, ...edits } } });
      const inputRequired = [];
      for (const e of events.filter((e) => e.dir === 'in' && e.rpc?.kind === 'result' && e.seq > calls[0]!.seq && e.seq < calls[1]!.seq)) {
        const body = (await bodyOf(core, e)) as { result?: { resultType?: string; inputRequests?: Record<string, { method: string }> } } | undefined;
        if (body?.result?.resultType === 'input_required') inputRequired.push(body.result);
      }
      expect(inputRequired).toHaveLength(1);
      expect(inputRequired[0]!.inputRequests!.profile!.method).toBe('elicitation/create');
      // No server→client request ever crosses the wire in this era.
      expect(events.some((e) => e.rpc?.method === 'elicitation/create')).toBe(false);
    }
    // The broker's own notes: waiting, then answered.
    expect(events.filter((e) => e.channel === 'lifecycle' && e.meta?.requestId === request!.id).map((e) => e.text)).toEqual(['elicitation-form waiting for an answer', 'elicitation-form answered: accept']);
  });

  it('form: accept leaving every default — the server receives the defaults', async () => {
    const { structured } = await ask(core, w, id, 'register_user', {}, accept(REQUIRED));
    expect(structured).toEqual({ action: 'accept', content: { ...DEFAULTS, ...REQUIRED } });
  });

  it('form: decline, and cancel, reach the server as such', async () => {
    expect((await ask(core, w, id, 'register_user', {}, () => ({ kind: 'elicitation', action: 'decline' }))).structured).toEqual({ action: 'decline' });
    expect((await ask(core, w, id, 'register_user', {}, () => ({ kind: 'elicitation', action: 'cancel' }))).structured).toEqual({ action: 'cancel' });
  });

  it('an invalid answer is refused with a readable error and the request stays pending', async () => {
    const running = call(core, 'callTool', { serverId: id, tool: 'register_user', args: {} });
    const request = await w.next();
    const bad = await answer(core, request, { kind: 'elicitation', action: 'accept', content: { username: 'ada_l', email: 'nope', age: 7, color: 'red' } });
    expect(bad.ok).toBe(false);
    if (!bad.ok) {
      expect(bad.error.code).toBe('invalid-arguments');
      expect(bad.error.message).toContain('email must be an email address');
      expect(bad.error.message).toContain('age must be at least 13');
      expect(bad.error.message).toContain('color is not a field of the request');
    }
    const wrongKind = await answer(core, request, { kind: 'sampling', action: 'approve', result: { model: 'm', role: 'assistant', content: { type: 'text', text: 'x' } } });
    expect(wrongKind.ok).toBe(false);
    expect((await call(core, 'listPendingRequests', {})).map((r) => r.id)).toContain(request.id);
    expect(await answer(core, request, { kind: 'elicitation', action: 'accept', content: REQUIRED })).toMatchObject({ ok: true, result: { answered: true } });
    expect((await running).result.structuredContent).toMatchObject({ action: 'accept' });
    expect(await answer(core, request, { kind: 'elicitation', action: 'decline' })).toMatchObject({ ok: true, result: { answered: false } });
  });

  it('two requests pending at once, both answerable, in any order', async () => {
    const running = call(core, 'callTool', { serverId: id, tool: 'double_check', args: {} });
    const a = await w.next();
    const b = await w.next();
    const pending = await call(core, 'listPendingRequests', {});
    expect(pending.map((r) => r.id).sort()).toEqual([a.id, b.id].sort());
    const [color, count] = String(a.params.message).startsWith('First') ? [a, b] : [b, a];
    expect(await answer(core, count, { kind: 'elicitation', action: 'accept', content: {} })).toMatchObject({ ok: true });
    expect(await answer(core, color, { kind: 'elicitation', action: 'accept', content: { color: 'green' } })).toMatchObject({ ok: true });
    expect((await running).result.structuredContent).toEqual({ first: { action: 'accept', content: { color: 'green' } }, second: { action: 'accept', content: { count: 2 } } });
  });

  it('sampling without tools: approve (the server gets the reply) and reject (the server is told)', async () => {
    const reply: RequestAnswer = { kind: 'sampling', action: 'approve', result: { model: 'human-reviewer', stopReason: 'endTurn', role: 'assistant', content: { type: 'text', text: 'A short summary.' } } };
    const { structured, requests } = await ask(core, w, id, 'summarize', {}, () => reply);
    expect(requests[0]).toMatchObject({ kind: 'sampling', params: { systemPrompt: 'You are a concise technical writer.', maxTokens: 200 } });
    expect(structured).toEqual({ model: 'human-reviewer', stopReason: 'endTurn', content: { type: 'text', text: 'A short summary.' } });

    // A list where a single block is due (no tools offered) is refused before it reaches the server.
    const running = call(core, 'callTool', { serverId: id, tool: 'summarize', args: {} });
    running.catch(() => undefined);
    const request = await w.next();
    const listed = await answer(core, request, { kind: 'sampling', action: 'approve', result: { model: 'm', role: 'assistant', content: [{ type: 'text', text: 'x' }] } });
    expect(listed.ok).toBe(false);
    await answer(core, request, { kind: 'sampling', action: 'reject', reason: 'not today' });
    const rejected = await running.then(
      (r) => JSON.stringify(r.result),
      (e: Error) => e.message,
    );
    expect(rejected).toContain('not today');
  });

  it('sampling with tools offered: a tool_use reply, then text after the tool result', async () => {
    const toolUse = { kind: 'sampling', action: 'approve', result: { model: 'human', stopReason: 'toolUse', role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Porto' } }] } } satisfies RequestAnswer;
    const text = { kind: 'sampling', action: 'approve', result: { model: 'human', stopReason: 'endTurn', role: 'assistant', content: { type: 'text', text: 'Go on Saturday.' } } } satisfies RequestAnswer;
    const { structured, requests } = await ask(core, w, id, 'plan_trip', { destination: 'Porto' }, () => toolUse, () => text);
    expect((requests[0]!.params.tools as { name: string }[]).map((t) => t.name)).toEqual(['search_flights', 'get_weather']);
    // The second request carries the conversation: the tool_use and the fixture's tool_result.
    const messages = requests[1]!.params.messages as { role: string; content: unknown }[];
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(JSON.stringify(messages[2]!.content)).toContain('Porto: 21 °C');
    expect(structured).toEqual({ rounds: 2, replies: [toolUse.result, text.result].map(({ model, stopReason, content }) => ({ model, stopReason, content })) });
  });

  it('URL mode: accepted after the person opened it; a non-https link cannot be accepted', async () => {
    const { structured, requests } = await ask(core, w, id, 'open_dashboard', {}, accept());
    expect(requests[0]).toMatchObject({ kind: 'elicitation-url', params: { url: DASHBOARD_URL } });
    expect(structured.action).toBe('accept');
    if (era === 'legacy') {
      // Only the 2025 era has the elicitationId and notifications/elicitation/complete.
      const elicitationId = requests[0]!.params.elicitationId as string;
      expect(elicitationId).toMatch(/^dash-/);
      await w.until('elicitation/complete', () => w.completed.find((c) => c.elicitationId === elicitationId));
    } else {
      expect(requests[0]!.params.elicitationId).toBeUndefined();
    }

    const running = call(core, 'callTool', { serverId: id, tool: 'open_evil', args: { kind: 'javascript' } });
    const evil = await w.next();
    expect(evil.params.url).toBe(EVIL_URLS.javascript);
    const refused = await answer(core, evil, { kind: 'elicitation', action: 'accept' });
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.error.message).toContain('Refusing to open a javascript: URL');
    await answer(core, evil, { kind: 'elicitation', action: 'decline' });
    expect((await running).result.structuredContent).toMatchObject({ action: 'decline' });
  });

  it('roots: the server gets the configured roots', async () => {
    const from = core.trace.store.size;
    const { structured } = await call(core, 'callTool', { serverId: id, tool: 'list_my_roots', args: {} }).then((r) => ({ structured: r.result.structuredContent as Record<string, unknown> }));
    expect(structured.roots).toEqual([{ uri: 'file:///srv/project', name: 'project' }]);
    if (era === 'legacy' && transport === 'http') {
      // Sent unrelated to the call: it travels on the standalone GET stream.
      expect(eventsOf(core, id, from).find((e) => e.rpc?.method === 'roots/list')).toMatchObject({ channel: 'get', kind: 'sse-event' });
    }
  });
});

// ---------------------------------------------------------------------------------------

describe('deadlines and server cancellation', () => {
  /** A broker whose questions expire after 300 ms. */
  class HurriedBroker extends RequestBroker {
    override ask(request: Parameters<RequestBroker['ask']>[0], options: Parameters<RequestBroker['ask']>[1] = {}) {
      return super.ask(request, { ...options, deadlineMs: 300 });
    }
  }

  it.each(['legacy', 'modern'] as const)('nobody answers within the deadline (%s): the request resolves as timeout and the call learns why', async (era) => {
    const events = new EventHub();
    const resolved: string[] = [];
    events.subscribe((event, payload) => {
      if (event === 'requestResolved') resolved.push((payload as { outcome: string }).outcome);
    });
    const broker = new HurriedBroker(events, () => undefined);
    const config = ServerConfig.parse({ id: 'hurried', name: 'hurried', target: stdioTarget(), era, pingIntervalSec: 0, retries: 0 });
    const connection = new ServerConnection(config, { observer: { onStatus: () => undefined, onStderrLine: () => undefined, onError: () => undefined }, record: () => undefined, broker });
    await connection.connect();
    try {
      const outcome = await connection.callTool('register_user', {}).then(
        (result) => JSON.stringify(result),
        (error: Error) => error.message,
      );
      expect(resolved).toEqual(['timeout']);
      expect(broker.list()).toEqual([]);
      // Legacy: the shim turns the failed leg into an isError result; modern: the call fails.
      expect(outcome).toContain('Nobody answered the elicitation-form request within 300 ms');
    } finally {
      await connection.disconnect();
    }
  });

  it.each(['legacy', 'modern'] as const)('the call is cancelled while its question waits (%s): the question goes away as cancelled', async (era) => {
    const core = createCore({ settings: new MemorySettingsStore(), carrier: 'browser', version: 't' });
    const w = watch(core);
    try {
      const { id } = await call(core, 'addServer', { name: 'cancelled', target: stdioTarget(), era, pingIntervalSec: 0 });
      await call(core, 'connectServer', { id });
      const running = core.dispatch('callTool', { serverId: id, tool: 'register_user', args: {}, callId: `c-${era}` });
      const request = await w.next();
      await call(core, 'cancelCall', { callId: `c-${era}` });
      await w.until('resolution', () => w.resolved.find((r) => r.id === request.id));
      expect(w.resolved.find((r) => r.id === request.id)!.outcome).toBe('cancelled-by-server');
      expect(await call(core, 'listPendingRequests', {})).toEqual([]);
      expect((await running).ok).toBe(false);
    } finally {
      await core.shutdown();
    }
  });

  it('2025 era: the call timeout stands still while a person answers', async () => {
    const core = createCore({ settings: new MemorySettingsStore(), carrier: 'browser', version: 't' });
    const w = watch(core);
    try {
      const { id } = await call(core, 'addServer', { name: 'slow person', target: { type: 'http', url: http.url }, era: 'legacy', pingIntervalSec: 0, requestTimeoutSec: 1 });
      await call(core, 'connectServer', { id });
      const running = call(core, 'callTool', { serverId: id, tool: 'register_user', args: {} });
      const request = await w.next();
      await new Promise((resolve) => setTimeout(resolve, 2_500)); // longer than the 1 s timeout
      await answer(core, request, { kind: 'elicitation', action: 'accept', content: REQUIRED });
      expect((await running).result.structuredContent).toMatchObject({ action: 'accept' });
    } finally {
      await core.shutdown();
    }
  });
});

// ---------------------------------------------------------------------------------------

describe('roots over time (2025 era)', () => {
  it.each(['http', 'stdio'] as const)('setRoots sends notifications/roots/list_changed and the server sees the new list (%s)', async (transport) => {
    const core = createCore({ settings: new MemorySettingsStore(), carrier: 'browser', version: 't' });
    try {
      const target = transport === 'http' ? { type: 'http', url: http.url } : stdioTarget();
      const { id } = await call(core, 'addServer', { name: 'roots', target, era: 'legacy', pingIntervalSec: 0, roots: [{ uri: 'file:///a' }] });
      await call(core, 'connectServer', { id });
      const roots = async () => (await call(core, 'callTool', { serverId: id, tool: 'list_my_roots', args: {} })).result.structuredContent as { roots: unknown[]; changed: number };
      expect(await roots()).toEqual({ roots: [{ uri: 'file:///a' }], changed: 0 });

      const from = core.trace.store.size;
      const status = await call(core, 'setRoots', { serverId: id, roots: [{ uri: 'file:///a' }, { uri: 'file:///b', name: 'b' }] });
      expect(status.config.roots).toHaveLength(2);
      const sent = await new Promise<TraceEvent | undefined>((resolve) => {
        const started = Date.now();
        const poll = () => {
          const found = eventsOf(core, id, from).find((e) => e.dir === 'out' && e.rpc?.method === 'notifications/roots/list_changed');
          if (found || Date.now() - started > 5_000) resolve(found);
          else setTimeout(poll, 20);
        };
        poll();
      });
      expect(sent, 'notifications/roots/list_changed in the trace').toBeDefined();
      await expect.poll(async () => (await roots()).changed).toBe(1);
      expect((await roots()).roots).toEqual([{ uri: 'file:///a' }, { uri: 'file:///b', name: 'b' }]);
      // Saved in the settings too.
      expect((await call(core, 'listServers', {})).find((s) => s.id === id)!.config.roots).toHaveLength(2);
    } finally {
      await core.shutdown();
    }
  });

  it('a server without roots is not offered the capability; adding the first root reconnects to declare it', async () => {
    const core = createCore({ settings: new MemorySettingsStore(), carrier: 'browser', version: 't' });
    try {
      const { id } = await call(core, 'addServer', { name: 'rootless', target: stdioTarget(), era: 'legacy', pingIntervalSec: 0 });
      await call(core, 'connectServer', { id });
      const initializes = async () => {
        const list = eventsOf(core, id).filter((e) => e.dir === 'out' && e.rpc?.method === 'initialize');
        return Promise.all(list.map(async (e) => ((await bodyOf(core, e)) as { params: { capabilities: Record<string, unknown> } }).params.capabilities));
      };
      expect((await initializes())[0]!.roots).toBeUndefined();
      const before = await call(core, 'callTool', { serverId: id, tool: 'list_my_roots', args: {} });
      expect(before.result.isError).toBe(true);

      await call(core, 'setRoots', { serverId: id, roots: [{ uri: 'file:///new' }] });
      const caps = await initializes();
      expect(caps).toHaveLength(2);
      expect(caps[1]!.roots).toEqual({ listChanged: true });
      const after = await call(core, 'callTool', { serverId: id, tool: 'list_my_roots', args: {} });
      expect(after.result.structuredContent).toMatchObject({ roots: [{ uri: 'file:///new' }] });
    } finally {
      await core.shutdown();
    }
  });
});

// ---------------------------------------------------------------------------------------

describe('policies: answered without asking anyone', () => {
  async function withCore<T>(options: { elicitation: string; sampling?: string; era: 'legacy' | 'modern'; answers?: Record<string, unknown> }, run: (core: Core, id: string, w: Watch) => Promise<T>): Promise<T> {
    const core = createCore({ settings: new MemorySettingsStore(), carrier: 'browser', version: 't', elicitationAnswers: options.answers });
    const w = watch(core);
    try {
      const { id } = await call(core, 'addServer', { name: `policy ${options.elicitation}`, target: stdioTarget(), era: options.era, pingIntervalSec: 0, elicitation: options.elicitation, sampling: options.sampling ?? 'ask' });
      await call(core, 'connectServer', { id });
      return await run(core, id, w);
    } finally {
      await core.shutdown();
    }
  }

  /** The client capabilities the server was told: initialize (2025) or the request's _meta envelope (2026). */
  async function declared(core: Core, id: string, era: 'legacy' | 'modern'): Promise<Record<string, unknown>> {
    const method = era === 'legacy' ? 'initialize' : 'tools/call';
    const event = eventsOf(core, id).find((e) => e.dir === 'out' && e.rpc?.method === method && e.rpc.kind === 'request')!;
    const body = (await bodyOf(core, event)) as { params: { capabilities?: Record<string, unknown>; _meta?: Record<string, Record<string, unknown>> } };
    return era === 'legacy' ? body.params.capabilities! : body.params._meta!['io.modelcontextprotocol/clientCapabilities']!;
  }

  it.each(['legacy', 'modern'] as const)('accept-defaults: the defaults plus the supplied answers, nobody asked (%s)', async (era) => {
    await withCore({ elicitation: 'accept-defaults', era, answers: REQUIRED }, async (core, id, w) => {
      const { result } = await call(core, 'callTool', { serverId: id, tool: 'register_user', args: {} });
      expect(result.structuredContent).toEqual({ action: 'accept', content: { ...DEFAULTS, ...REQUIRED } });
      expect(w.pending).toEqual([]);
      expect(w.resolved.at(-1)).toMatchObject({ outcome: 'policy', action: 'accept with defaults' });
    });
  });

  it('accept-defaults: a required field with neither default nor answer is declined, and the reason names it', async () => {
    await withCore({ elicitation: 'accept-defaults', era: 'legacy', answers: { username: 'ada_l' } }, async (core, id, w) => {
      const { result } = await call(core, 'callTool', { serverId: id, tool: 'register_user', args: {} });
      expect(result.structuredContent).toEqual({ action: 'decline' });
      expect(w.resolved.at(-1)!.action).toBe('decline: required fields email, age have no default and no supplied answer');
    });
  });

  it.each(['legacy', 'modern'] as const)('decline: the server is told decline, nobody asked (%s)', async (era) => {
    await withCore({ elicitation: 'decline', era }, async (core, id, w) => {
      const { result } = await call(core, 'callTool', { serverId: id, tool: 'register_user', args: {} });
      expect(result.structuredContent).toEqual({ action: 'decline' });
      expect(w.pending).toEqual([]);
      expect((await declared(core, id, era)).elicitation).toEqual({ form: {}, url: {} });
    });
  });

  it.each(['legacy', 'modern'] as const)('off: the capability is not declared, so the server cannot ask (%s)', async (era) => {
    await withCore({ elicitation: 'off', sampling: 'off', era }, async (core, id, w) => {
      const outcome = await core.dispatch('callTool', { serverId: id, tool: 'register_user', args: {} });
      const caps = await declared(core, id, era);
      expect(caps.elicitation).toBeUndefined();
      expect(caps.sampling).toBeUndefined();
      // 2025: the SDK's shim reports it as a tool error; 2026: the server refuses with a JSON-RPC error.
      const result = outcome.ok ? (outcome.result as Result<'callTool'>).result : undefined;
      const text = result ? JSON.stringify(result) : outcome.ok ? '' : outcome.error.message;
      if (result) expect(result.isError).toBe(true);
      expect(text).toMatch(/capabilit/i);
      expect(w.pending).toEqual([]);
    });
  });

  it('sampling reject: the server gets an error, nobody asked', async () => {
    await withCore({ elicitation: 'ask', sampling: 'reject', era: 'legacy' }, async (core, id, w) => {
      const outcome = await core.dispatch('callTool', { serverId: id, tool: 'summarize', args: {} });
      expect(JSON.stringify(outcome)).toContain('Switchboard policy: reject');
      expect(w.pending).toEqual([]);
    });
  });
});

// ---------------------------------------------------------------------------------------

describe('-32042: URL elicitation required (2025 era)', () => {
  it('the call error names the link (typed in its detail for the renderer); the server confirms; calling again succeeds', async () => {
    const core = createCore({ settings: new MemorySettingsStore(), carrier: 'browser', version: 't' });
    const w = watch(core);
    try {
      const { id } = await call(core, 'addServer', { name: 'linked', target: { type: 'http', url: http.url }, era: 'legacy', pingIntervalSec: 0 });
      await call(core, 'connectServer', { id });
      const first = await core.dispatch('callTool', { serverId: id, tool: 'needs_link', args: { account: 'acme' } });
      expect(first.ok).toBe(false);
      const message = first.ok ? '' : first.error.message;
      expect(message).toContain('URL elicitation required (-32042)');
      expect(message).toContain(`${LINK_URL}?account=acme`);
      const links = parseUrlElicitationRequired(first.ok ? undefined : first.error.detail);
      expect(links).toHaveLength(1);
      expect(links![0]).toMatchObject({ url: `${LINK_URL}?account=acme`, message: 'Link the account "acme" before using this tool.' });
      const elicitationId = links![0]!.elicitationId!;
      expect(elicitationId).toMatch(/^link-/);
      await w.until('elicitation/complete', () => w.completed.find((c) => c.elicitationId === elicitationId && c.serverId === id));
      const second = await call(core, 'callTool', { serverId: id, tool: 'needs_link', args: { account: 'acme' } });
      expect(second.result.structuredContent).toEqual({ linked: true, account: 'acme' });
      // The audit classifies the first call as a JSON-RPC error.
      expect((await call(core, 'listHistory', {})).find((h) => h.error?.includes('-32042'))?.outcome).toBe('rpc-error');
    } finally {
      await core.shutdown();
    }
  });
});

// ---------------------------------------------------------------------------------------

describe('the CLI (built: npx electron-vite build)', () => {
  const BIN = join(ROOT, 'bin/switchboard.mjs');
  const cli = (args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, [BIN, ...args], { cwd: ROOT, timeout: 60_000 }, (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }));
    });
  const stdio = () => {
    const { command, args } = askingStdioCommand('both');
    return ['--stdio', [command, ...args].map((w) => `'${w}'`).join(' ')];
  };

  beforeAll(() => {
    if (!existsSync(join(ROOT, 'out/main/cli.js'))) throw new Error('Build first: npx electron-vite build');
  });

  it('--elicitation accept-defaults with --elicitation-answer: the server gets the defaults and the answers', async () => {
    const { code, stdout, stderr } = await cli(['call', 'register_user', '--elicitation', 'accept-defaults', '--elicitation-answer', JSON.stringify(REQUIRED), '--json', ...stdio()]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(JSON.parse(stdout).result.structuredContent).toEqual({ action: 'accept', content: { ...DEFAULTS, ...REQUIRED } });
  });

  it('--elicitation decline: the server sees decline', async () => {
    const { code, stdout } = await cli(['call', 'register_user', '--elicitation', 'decline', '--json', ...stdio()]);
    expect(code).toBe(0);
    expect(JSON.parse(stdout).result.structuredContent).toEqual({ action: 'decline' });
  });

  it('a required field with neither default nor answer: declined, and the CLI says which', async () => {
    const { code, stdout, stderr } = await cli(['call', 'register_user', '--elicitation', 'accept-defaults', '--elicitation-answer', '{"username":"ada_l","age":30}', '--json', ...stdio()]);
    expect(code).toBe(0);
    expect(JSON.parse(stdout).result.structuredContent).toEqual({ action: 'decline' });
    expect(stderr).toContain('required field email has no default and no supplied answer');
    expect(stderr).toContain('--elicitation-answer');
  });
});
