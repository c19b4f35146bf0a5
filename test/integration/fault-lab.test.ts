/**
 * Proves the flaky-server fault lab (test/fixtures/flaky-server) really misbehaves as specified.
 * Only plain fetch / raw child processes and the official v2 client SDK are used here — never
 * Switchboard's own code: the lab is the ground truth Switchboard's reliability suite builds on.
 */
import { spawn } from 'node:child_process';
import { PassThrough } from 'node:stream';

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

import { FLAKY_MAIN, flakyStdioCommand, startFlaky, type RunningFlaky, type StdioFault } from '../fixtures/flaky-server/harness.js';
import { TSX_LOADER_URL } from '../fixtures/everything/harness.js';

// ---------------------------------------------------------------------------
// raw protocol helpers
// ---------------------------------------------------------------------------

const LEGACY = '2025-11-25';
const MODERN = '2026-07-28';
const ACCEPT = 'application/json, text/event-stream';

let nextId = 1;

function envelope(): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientInfo': { name: 'fault-lab-test', version: '0' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
}

/** A 2026-07-28 (stateless, envelope) request. */
function modernPost(url: string, method: string, params: Record<string, unknown> = {}, init: RequestInit = {}): Promise<Response> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: ACCEPT,
    'mcp-protocol-version': MODERN,
    'mcp-method': method,
  };
  if (method === 'tools/call' && typeof params['name'] === 'string') headers['mcp-name'] = params['name'];
  return fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: envelope() } }),
    ...init,
  });
}

/** 2025-11-25 initialize; returns the session id. */
async function legacyInit(url: string): Promise<string> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: nextId++,
      method: 'initialize',
      params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'fault-lab-test', version: '0' } },
    }),
  });
  expect(response.status).toBe(200);
  const sessionId = response.headers.get('mcp-session-id');
  expect(sessionId).toBeTruthy();
  await response.text();
  const initialized = await legacyPost(url, sessionId!, { jsonrpc: '2.0', method: 'notifications/initialized' });
  expect(initialized.status).toBe(202);
  return sessionId!;
}

function legacyPost(url: string, sessionId: string, message: unknown, init: RequestInit = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT, 'mcp-session-id': sessionId, 'mcp-protocol-version': LEGACY },
    body: JSON.stringify(message),
    ...init,
  });
}

function legacyCall(url: string, sessionId: string, method: string, params: Record<string, unknown> = {}, init: RequestInit = {}): Promise<Response> {
  return legacyPost(url, sessionId, { jsonrpc: '2.0', id: nextId++, method, params }, init);
}

/** The JSON-RPC messages of an SSE body (events whose data is not JSON are skipped). */
function sseMessages(text: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const block of text.split('\n\n')) {
    const data = block
      .split('\n')
      .filter((l) => l.startsWith('data:'))
      .map((l) => l.slice(5).trimStart())
      .join('\n');
    if (!data) continue;
    try {
      out.push(JSON.parse(data) as Record<string, unknown>);
    } catch {
      /* not JSON */
    }
  }
  return out;
}

/** Reads a streaming body until `predicate(textSoFar)` holds (or the stream ends / times out). */
async function readUntil(response: Response, predicate: (text: string) => boolean, timeoutMs = 5000): Promise<string> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const deadline = Date.now() + timeoutMs;
  try {
    while (!predicate(text)) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new Error(`readUntil timed out; got:\n${text.slice(0, 2000)}`);
      let timer: NodeJS.Timeout | undefined;
      const step = await Promise.race([
        reader.read(),
        new Promise<'timeout'>((resolve) => {
          timer = setTimeout(() => resolve('timeout'), remaining);
        }),
      ]);
      clearTimeout(timer);
      if (step === 'timeout') continue;
      if (step.done) break;
      text += decoder.decode(step.value, { stream: true });
    }
  } finally {
    void reader.cancel().catch(() => {});
  }
  return text;
}

/** Does reading the body settle within `ms`? */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const result = await Promise.race([
    promise.then(
      () => true,
      () => true,
    ),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    }),
  ]);
  clearTimeout(timer);
  return result;
}

function textOf(result: { content?: unknown }): string {
  return ((result.content ?? []) as { type: string; text?: string }[])
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('');
}

function newClient(mode: 'auto' | 'legacy' = 'auto'): Client {
  return new Client({ name: 'fault-lab-test', version: '0' }, { versionNegotiation: { mode } });
}

// ---------------------------------------------------------------------------
// raw stdio helper
// ---------------------------------------------------------------------------

interface StdioRun {
  stdout(): string;
  stderr(): string;
  send(message: unknown): void;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(): void;
}

function runStdio(fault: StdioFault | StdioFault[] | undefined, extraArgs: string[] = []): StdioRun {
  const { command, args } = flakyStdioCommand(fault, extraArgs);
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  child.stdin.on('error', () => {});
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    stdout: () => stdout,
    stderr: () => stderr,
    send: (message) => void child.stdin.write(JSON.stringify(message) + '\n'),
    exited,
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}

async function until(predicate: () => boolean, timeoutMs = 10_000): Promise<void> {
  const start = Date.now();
  while (!predicate()) {
    if (Date.now() - start > timeoutMs) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
};

// ---------------------------------------------------------------------------
// HTTP lab
// ---------------------------------------------------------------------------

describe('flaky-server over HTTP (era both)', () => {
  let lab: RunningFlaky;
  let beta: RunningFlaky | undefined;

  beforeAll(async () => {
    lab = await startFlaky({ era: 'both', name: 'alpha' });
  });
  afterAll(async () => {
    await Promise.all([lab?.close(), beta?.close()]);
  });
  beforeEach(async () => {
    await lab.reset();
  });

  it('control API: state, validation, reset, loopback/Origin guard', async () => {
    expect(lab.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(lab.controlUrl).toBe(lab.url.replace(/\/mcp$/, '/__lab'));
    const set = await lab.setFaults([{ type: 'latency', ms: 1 }, { type: 'http-error', status: 503, times: 2, method: 'tools/list' }]);
    expect(set.faults).toHaveLength(2);
    expect(set.faults[1]).toMatchObject({ type: 'http-error', status: 503, times: 2, seen: 0, hits: 0, exhausted: false });
    const appended = await lab.setFaults({ type: 'session-expiry', afterRequests: 4 }, { append: true });
    expect(appended.faults).toHaveLength(2);
    expect(appended.sessionExpiry).toEqual({ afterRequests: 4 });

    const bad = await fetch(`${lab.controlUrl}/faults`, { method: 'POST', body: JSON.stringify({ type: 'nope' }) });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toMatch(/unknown fault type "nope"; one of latency, http-error/);
    const badScope = await fetch(`${lab.controlUrl}/faults`, { method: 'POST', body: JSON.stringify({ type: 'latency', ms: 5, times: 0 }) });
    expect(badScope.status).toBe(400);

    const crossOrigin = await fetch(`${lab.controlUrl}/reset`, { method: 'POST', headers: { origin: 'http://evil.example' } });
    expect(crossOrigin.status).toBe(403);

    await modernPost(lab.url, 'tools/list');
    const state = await lab.state();
    expect(state.counters.requests).toBe(1);
    expect(state.counters.byRpcMethod['tools/list']).toBe(1);
    expect(state.recent.at(-1)).toMatchObject({ http: 'POST', methods: ['tools/list'], status: 503, faults: ['latency', 'http-error'] });

    const reset = await lab.reset();
    expect(reset.faults).toEqual([]);
    expect(reset.sessionExpiry).toBeNull();
    expect(reset.counters.requests).toBe(0);
  });

  it('latency: delays only the scoped method', async () => {
    await lab.setFaults({ type: 'latency', ms: 400, method: 'tools/call' });
    const start = Date.now();
    const slow = await modernPost(lab.url, 'tools/call', { name: 'echo', arguments: { text: 'x' } });
    expect(slow.status).toBe(200);
    expect(Date.now() - start).toBeGreaterThanOrEqual(390);
    expect((await modernPost(lab.url, 'tools/list')).status).toBe(200);
    const state = await lab.state();
    expect(state.faults[0]).toMatchObject({ seen: 1, hits: 1 });
    expect(state.counters.faultsApplied).toEqual({ latency: 1 });
  });

  it('http-error 500: "times" limits it to the next N requests', async () => {
    await lab.setFaults({ type: 'http-error', status: 500, times: 1 });
    const first = await modernPost(lab.url, 'tools/list');
    expect(first.status).toBe(500);
    expect(first.headers.get('retry-after')).toBeNull();
    expect(await first.text()).toContain('injected HTTP 500');
    const second = await modernPost(lab.url, 'tools/list');
    expect(second.status).toBe(200);
    expect((await lab.state()).faults[0]).toMatchObject({ hits: 1, exhausted: true });
  });

  it('http-error 503 carries Retry-After (scoped to a JSON-RPC method)', async () => {
    await lab.setFaults([
      { type: 'http-error', status: 503, retryAfter: 7, method: 'tools/list' },
      { type: 'http-error', status: 503, method: 'prompts/list' },
    ]);
    const listed = await modernPost(lab.url, 'tools/list');
    expect(listed.status).toBe(503);
    expect(listed.headers.get('retry-after')).toBe('7');
    const prompts = await modernPost(lab.url, 'prompts/list');
    expect(prompts.status).toBe(503);
    expect(prompts.headers.get('retry-after')).toBe('1');
    const call = await modernPost(lab.url, 'tools/call', { name: 'echo', arguments: { text: 'ok' } });
    expect(call.status).toBe(200);
  });

  it('"after N requests" lets the first N through', async () => {
    await lab.setFaults({ type: 'http-error', status: 500, after: 2 });
    expect((await modernPost(lab.url, 'tools/list')).status).toBe(200);
    expect((await modernPost(lab.url, 'tools/list')).status).toBe(200);
    expect((await modernPost(lab.url, 'tools/list')).status).toBe(500);
    expect((await modernPost(lab.url, 'tools/list')).status).toBe(500);
  });

  it('reset mid-body: headers arrive, then the body read fails; before-headers: fetch itself rejects', async () => {
    await lab.setFaults({ type: 'reset', afterBytes: 10, times: 1 });
    const response = await modernPost(lab.url, 'tools/call', { name: 'echo', arguments: { text: 'reset me' } });
    expect(response.status).toBe(200);
    await expect(response.text()).rejects.toThrow();

    await lab.setFaults({ type: 'reset', phase: 'before-headers', times: 1 });
    await expect(modernPost(lab.url, 'tools/list')).rejects.toThrow();
    // the lab is healthy again afterwards
    expect((await modernPost(lab.url, 'tools/list')).status).toBe(200);
  });

  it('sse-cut (legacy, with event ids + retry hint): the stream ends before the response; Last-Event-ID resumes it', async () => {
    const sessionId = await legacyInit(lab.url);
    await lab.setFaults({ type: 'sse-cut', method: 'tools/call', retryMs: 1500 });
    const response = await legacyCall(lab.url, sessionId, 'tools/call', { name: 'echo', arguments: { text: 'cut' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const text = await response.text(); // ends (cleanly) — early
    expect(text).toMatch(/^id: (\S+)\ndata: \n\n/);
    expect(text).toContain('retry: 1500\n');
    expect(text.indexOf('id:')).toBeLessThan(text.indexOf('retry: 1500'));
    expect(sseMessages(text)).toEqual([]);
    const lastEventId = /^id: (\S+)$/m.exec(text)![1]!;

    const resumed = await fetch(lab.url, {
      headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': LEGACY, 'last-event-id': lastEventId },
    });
    expect(resumed.status).toBe(200);
    const replay = await readUntil(resumed, (t) => t.includes('echo: cut'));
    expect(sseMessages(replay)[0]).toMatchObject({ result: { content: [{ type: 'text', text: 'echo: cut' }] } });
  });

  it('sse-cut without event ids, partial last event; and modern JSON answers re-framed as SSE', async () => {
    const sessionId = await legacyInit(lab.url);
    await lab.setFaults({ type: 'sse-cut', method: 'tools/call', eventIds: false, partial: true });
    const text = await (await legacyCall(lab.url, sessionId, 'tools/call', { name: 'echo', arguments: { text: 'half' } })).text();
    expect(text).not.toMatch(/^id:/m);
    expect(text).toContain('data: \n\n'); // the (now id-less) priming event
    expect(text).toContain('event: message\ndata: {"result":'); // start of the response event…
    expect(text).not.toContain('echo: half"'); // …but not all of it
    expect(sseMessages(text)).toEqual([]);

    await lab.setFaults({ type: 'sse-cut', method: 'tools/call', retryMs: 250, how: 'reset' });
    const modern = await modernPost(lab.url, 'tools/call', { name: 'echo', arguments: { text: 'modern' } });
    expect(modern.status).toBe(200);
    expect(modern.headers.get('content-type')).toContain('text/event-stream');
    await expect(modern.text()).rejects.toThrow();

    // with an SDK client (legacy era, ids kept): the client transparently resumes the cut stream
    await lab.setFaults({ type: 'sse-cut', method: 'tools/call', retryMs: 50, times: 1 });
    const resumptions: string[] = [];
    const recordingFetch = async (input: string | URL, init?: RequestInit): Promise<Response> => {
      const lastEventId = new Headers(init?.headers).get('last-event-id');
      if ((init?.method ?? 'GET') === 'GET' && lastEventId) resumptions.push(lastEventId);
      return fetch(input, init);
    };
    const client = newClient('legacy');
    await client.connect(new StreamableHTTPClientTransport(new URL(lab.url), { fetch: recordingFetch }));
    try {
      const result = await client.callTool({ name: 'echo', arguments: { text: 'resumed' } });
      expect(textOf(result)).toBe('echo: resumed');
      expect((await lab.state()).faults[0]).toMatchObject({ hits: 1, exhausted: true });
      expect(resumptions).toHaveLength(1);
    } finally {
      await client.close();
    }
  });

  it('session expiry: 404 after N POSTs on a session; a fresh initialize works', async () => {
    await lab.setFaults({ type: 'session-expiry', afterRequests: 2 });
    const sessionId = await legacyInit(lab.url); // notifications/initialized is POST #1
    expect((await legacyCall(lab.url, sessionId, 'tools/list')).status).toBe(200); // #2
    const expired = await legacyCall(lab.url, sessionId, 'tools/list');
    expect(expired.status).toBe(404);
    expect(await expired.json()).toMatchObject({ error: { code: -32001 } });
    expect((await legacyCall(lab.url, sessionId, 'ping')).status).toBe(404);
    const get = await fetch(lab.url, { headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId } });
    expect(get.status).toBe(404);

    const again = await legacyInit(lab.url);
    expect(again).not.toBe(sessionId);
    expect((await legacyCall(lab.url, again, 'tools/list')).status).toBe(200);
    const state = await lab.state();
    expect(state.counters).toMatchObject({ sessionsIssued: 2, sessionsExpired: 1 });
    expect(state.sessions.map((s) => s.id)).toContain(again);
    expect(state.sessions.map((s) => s.id)).not.toContain(sessionId);
  });

  it('401 after N requests with WWW-Authenticate: Bearer', async () => {
    await lab.setFaults({ type: 'unauthorized', after: 2, resourceMetadata: 'http://127.0.0.1:1/.well-known/oauth-protected-resource' });
    expect((await modernPost(lab.url, 'tools/list')).status).toBe(200);
    expect((await modernPost(lab.url, 'tools/list')).status).toBe(200);
    const denied = await modernPost(lab.url, 'tools/list');
    expect(denied.status).toBe(401);
    const challenge = denied.headers.get('www-authenticate')!;
    expect(challenge).toMatch(/^Bearer /);
    expect(challenge).toContain('error="invalid_token"');
    expect(challenge).toContain('resource_metadata="http://127.0.0.1:1/.well-known/oauth-protected-resource"');
  });

  it('403 insufficient_scope with the required scope', async () => {
    await lab.setFaults({ type: 'forbidden', scope: 'files:write admin', method: 'tools/call' });
    const denied = await modernPost(lab.url, 'tools/call', { name: 'echo', arguments: { text: 'x' } });
    expect(denied.status).toBe(403);
    const challenge = denied.headers.get('www-authenticate')!;
    expect(challenge).toMatch(/^Bearer error="insufficient_scope", scope="files:write admin"/);
    expect((await modernPost(lab.url, 'tools/list')).status).toBe(200);
  });

  it('malformed answers: invalid JSON, invalid JSON in SSE, not JSON-RPC, text/html', async () => {
    await lab.setFaults({ type: 'malformed', variant: 'invalid-json', times: 1 });
    const invalid = await modernPost(lab.url, 'tools/list');
    expect(invalid.status).toBe(200);
    expect(invalid.headers.get('content-type')).toBe('application/json');
    await expect(invalid.json()).rejects.toThrow(SyntaxError);

    await lab.setFaults({ type: 'malformed', variant: 'invalid-json-sse', times: 1 });
    const invalidSse = await modernPost(lab.url, 'tools/list');
    expect(invalidSse.headers.get('content-type')).toContain('text/event-stream');
    const sseText = await invalidSse.text();
    expect(sseText).toMatch(/^event: message\ndata: \{/);
    expect(sseMessages(sseText)).toEqual([]);

    await lab.setFaults({ type: 'malformed', variant: 'not-jsonrpc', times: 1 });
    const notRpc = (await (await modernPost(lab.url, 'tools/list')).json()) as Record<string, unknown>;
    expect(notRpc).not.toHaveProperty('jsonrpc');
    expect(notRpc).not.toHaveProperty('result');

    await lab.setFaults({ type: 'malformed', variant: 'wrong-content-type', times: 1 });
    const html = await modernPost(lab.url, 'tools/list');
    expect(html.status).toBe(200);
    expect(html.headers.get('content-type')).toContain('text/html');
    expect(await html.text()).toContain('<html>');

    // the official client rejects it too
    await lab.setFaults({ type: 'malformed', variant: 'wrong-content-type', method: 'tools/list' });
    const client = newClient('auto');
    await client.connect(new StreamableHTTPClientTransport(new URL(lab.url)));
    try {
      await expect(client.listTools()).rejects.toThrow();
    } finally {
      await client.close();
    }
  });

  it('stall: without headers fetch never resolves; with headers the body never completes', async () => {
    await lab.setFaults({ type: 'stall', times: 1 });
    const pending = modernPost(lab.url, 'tools/list', {}, { signal: AbortSignal.timeout(800) });
    await expect(pending).rejects.toMatchObject({ name: 'TimeoutError' });

    await lab.setFaults({ type: 'stall', headers: true, contentType: 'application/json', body: '{"jsonrpc":"2.0",', times: 1 });
    const ac = new AbortController();
    const response = await modernPost(lab.url, 'tools/list', {}, { signal: ac.signal });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    const body = response.text();
    expect(await settlesWithin(body, 800)).toBe(false);
    expect((await lab.state()).counters.stalledOpen).toBeGreaterThanOrEqual(1);
    ac.abort();
    await expect(body).rejects.toThrow();
  });

  it('big: a ~10 MB tool result (modern + legacy)', async () => {
    const client = newClient('auto');
    await client.connect(new StreamableHTTPClientTransport(new URL(lab.url)));
    try {
      expect(client.getProtocolEra()).toBe('modern');
      const result = await client.callTool({ name: 'big', arguments: {} });
      const text = textOf(result);
      expect(text.length).toBe(10_000_000);
      expect(text.startsWith('big line 00000001 ')).toBe(true);
    } finally {
      await client.close();
    }
    const sessionId = await legacyInit(lab.url);
    const raw = await (await legacyCall(lab.url, sessionId, 'tools/call', { name: 'big', arguments: {} })).text();
    expect(raw.length).toBeGreaterThan(10_000_000);
    expect(textOf(sseMessages(raw)[0]!['result'] as { content: unknown })).toHaveLength(10_000_000);
  });

  it('flood: N notifications/message on the answer stream before the result', async () => {
    await lab.setFaults({ type: 'flood', count: 500, method: 'tools/call' });
    const text = await (await modernPost(lab.url, 'tools/call', { name: 'echo', arguments: { text: 'after the flood' } })).text();
    const messages = sseMessages(text);
    expect(messages).toHaveLength(501);
    expect(messages.slice(0, 500).every((m) => m['method'] === 'notifications/message')).toBe(true);
    expect(messages[500]).toMatchObject({ result: { content: [{ text: 'echo: after the flood' }] } });

    // the official client (legacy era) sees all of them and still gets its result
    await lab.setFaults({ type: 'flood', count: 300, method: 'tools/call' });
    const client = newClient('legacy');
    let received = 0;
    client.setNotificationHandler('notifications/message', () => {
      received += 1;
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(lab.url)));
    try {
      const result = await client.callTool({ name: 'echo', arguments: { text: 'x' } });
      expect(textOf(result)).toBe('echo: x');
      await until(() => received >= 300, 5000);
      expect(received).toBe(300);
    } finally {
      await client.close();
    }
  });

  it('drop-notifications: matching notification events of the answer stream are not delivered (times caps them; rate 0 drops none)', async () => {
    await lab.setFaults({ type: 'drop-notifications', notification: 'notifications/message', method: 'tools/call', times: 30 });
    const text = await (await modernPost(lab.url, 'tools/call', { name: 'flood', arguments: { count: 50 } })).text();
    const messages = sseMessages(text);
    expect(messages).toHaveLength(21);
    expect(messages.slice(0, 20).map((m) => (m['params'] as { data: string }).data)).toEqual(Array.from({ length: 20 }, (_, i) => `flood ${i + 31}/50`));
    expect(messages[20]).toMatchObject({ result: { content: [{ text: 'flooded 50' }] } });
    const state = await lab.state();
    expect(state.faults[0]).toMatchObject({ type: 'drop-notifications', seen: 1, hits: 30, exhausted: true });
    expect(state.counters.faultsApplied['drop-notifications']).toBe(30);
    expect(state.recent.at(-1)?.faults).toEqual(['drop-notifications']);

    await lab.setFaults({ type: 'drop-notifications', rate: 0 });
    expect(sseMessages(await (await modernPost(lab.url, 'tools/call', { name: 'flood', arguments: { count: 10 } })).text())).toHaveLength(11);
    expect((await lab.state()).faults[0]).toMatchObject({ seen: 1, hits: 0 });

    // jsonrpc-error is the stdio proxy's: the lab refuses it with a message that says so.
    await expect(lab.setFaults({ type: 'jsonrpc-error' })).rejects.toThrow(/jsonrpc-error cannot be injected by the fault lab/);
  });

  it('list_changed storm on the legacy GET stream (control API and method-scoped fault)', async () => {
    await lab.expireSessions(); // sessions of earlier tests would get the control-API storm too
    const sessionId = await legacyInit(lab.url);
    const get = await fetch(lab.url, {
      headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': LEGACY },
    });
    expect(get.status).toBe(200);
    const count = (t: string): number => t.split('notifications/tools/list_changed').length - 1;
    const reading = readUntil(get, (t) => count(t) >= 80, 10_000);

    const storm = await lab.storm(50);
    expect(storm.sent).toBe(50);
    await lab.setFaults({ type: 'storm', count: 30, method: 'tools/list' });
    const listed = await legacyCall(lab.url, sessionId, 'tools/list');
    expect(listed.status).toBe(200);
    expect(sseMessages(await listed.text()).some((m) => m['method'] === 'notifications/tools/list_changed')).toBe(false);

    const text = await reading;
    expect(count(text)).toBe(80);
    expect((await lab.state()).counters.stormNotifications).toBe(80);
  });

  it('list_changed storm reaches a modern subscriptions/listen stream', async () => {
    const client = newClient('auto');
    let received = 0;
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      received += 1;
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(lab.url)));
    try {
      expect(client.getProtocolEra()).toBe('modern');
      const subscription = await client.listen({ toolsListChanged: true });
      const result = await client.callTool({ name: 'storm', arguments: { count: 25 } });
      expect(textOf(result)).toBe('stormed 25');
      await until(() => received >= 25, 5000);
      expect(received).toBe(25);
      await subscription.close();
    } finally {
      await client.close();
    }
  });

  it('duplicate tool names: two instances both expose shared_tool (and --fault works from the CLI)', async () => {
    beta = await startFlaky({ era: 'both', name: 'beta', faults: [{ type: 'http-error', status: 503, retryAfter: 3, times: 1 }] });
    const first = await modernPost(beta.url, 'tools/list');
    expect(first.status).toBe(503);
    expect(first.headers.get('retry-after')).toBe('3');

    const clients = [newClient('auto'), newClient('legacy')];
    await clients[0]!.connect(new StreamableHTTPClientTransport(new URL(lab.url)));
    await clients[1]!.connect(new StreamableHTTPClientTransport(new URL(beta.url)));
    try {
      expect(clients.map((c) => c.getServerVersion()?.name)).toEqual(['alpha', 'beta']);
      for (const client of clients) {
        const { tools } = await client.listTools();
        expect(tools.filter((t) => t.name === 'shared_tool')).toHaveLength(1);
        expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['big', 'flood', 'storm', 'crash', 'echo']));
      }
      const answers = await Promise.all(clients.map((c) => c.callTool({ name: 'shared_tool', arguments: {} })));
      expect(answers.map(textOf)).toEqual(['shared_tool from alpha', 'shared_tool from beta']);
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
  });
});

describe('flaky-server --era legacy / modern', () => {
  it('legacy-only and modern-only instances serve only their era', async () => {
    const [legacy, modern] = await Promise.all([startFlaky({ era: 'legacy' }), startFlaky({ era: 'modern' })]);
    try {
      const a = newClient('auto');
      await a.connect(new StreamableHTTPClientTransport(new URL(legacy.url)));
      expect(a.getProtocolEra()).toBe('legacy');
      await a.close();
      const b = newClient('auto');
      await b.connect(new StreamableHTTPClientTransport(new URL(modern.url)));
      expect(b.getProtocolEra()).toBe('modern');
      await b.close();
      expect((await modern.state()).counters.sessionsIssued).toBe(0);
      expect((await legacy.state()).counters.sessionsIssued).toBe(1);
    } finally {
      await Promise.all([legacy.close(), modern.close()]);
    }
  });
});

// ---------------------------------------------------------------------------
// CLI
// ---------------------------------------------------------------------------

function runCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', TSX_LOADER_URL, FLAKY_MAIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}

describe('flaky-server CLI', () => {
  it('--help lists every fault and curl examples; bad --fault exits 2', async () => {
    const [help, bad] = await Promise.all([runCli(['--help']), runCli(['--fault', 'http-error:status=99'])]);
    expect(help.code).toBe(0);
    for (const type of ['latency', 'http-error', 'reset', 'sse-cut', 'session-expiry', 'unauthorized', 'forbidden', 'malformed', 'stall', 'flood', 'storm']) {
      expect(help.stdout).toContain(type);
    }
    for (const fault of ['exit-at-start', 'crash-mid-call', 'garbage-stdout', 'hang-initialize', 'stderr-flood']) {
      expect(help.stdout).toContain(fault);
    }
    expect(help.stdout).toMatch(/curl .*\/__lab\/faults/);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('status');
  });
});

// ---------------------------------------------------------------------------
// stdio variants
// ---------------------------------------------------------------------------

describe('flaky-server over stdio', () => {
  it('exit-at-start: exits 3 without a byte on stdout', async () => {
    const run = runStdio('exit-at-start');
    const { code } = await run.exited;
    expect(code).toBe(3);
    expect(run.stdout()).toBe('');
    expect(run.stderr()).toContain('exit-at-start');
  });

  it('crash tool: the process dies mid-call, after half a response line', async () => {
    const run = runStdio(undefined);
    try {
      run.send(INITIALIZE);
      await until(() => run.stdout().includes('"id":1'));
      run.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      run.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'crash', arguments: {} } });
      const { code } = await run.exited;
      expect(code).toBe(70);
      const lines = run.stdout().split('\n');
      expect(JSON.parse(lines[0]!)).toMatchObject({ id: 1, result: { protocolVersion: LEGACY } });
      expect(lines.at(-1)).toMatch(/^\{"jsonrpc":"2\.0","id":2,"result":/);
      expect(() => JSON.parse(lines.at(-1)!)).toThrow();
    } finally {
      run.kill();
    }
  });

  it('crash-mid-call: any tools/call kills the process; the SDK client sees the call fail', async () => {
    const { command, args } = flakyStdioCommand('crash-mid-call');
    const transport = new StdioClientTransport({ command, args, stderr: 'pipe' });
    const client = newClient('auto');
    let closed = false;
    client.onclose = () => {
      closed = true;
    };
    await client.connect(transport);
    try {
      await expect(client.listTools()).resolves.toBeDefined();
      await expect(client.callTool({ name: 'echo', arguments: { text: 'boom' } })).rejects.toThrow();
      await until(() => closed);
    } finally {
      await client.close();
    }
  });

  it('garbage-stdout: non-JSON lines interleaved with valid responses', async () => {
    const run = runStdio('garbage-stdout');
    try {
      run.send(INITIALIZE);
      await until(() => run.stdout().includes('"id":1'));
      run.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      run.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'g' } } });
      await until(() => run.stdout().includes('"id":2'));
      const lines = run.stdout().split('\n').filter((l) => l !== '');
      const rpc = lines.filter((l) => {
        try {
          return (JSON.parse(l) as { jsonrpc?: string }).jsonrpc === '2.0';
        } catch {
          return false;
        }
      });
      expect(rpc).toHaveLength(2);
      expect(lines.length - rpc.length).toBeGreaterThanOrEqual(3); // banner + one before each response
      expect(lines[0]).not.toMatch(/^\{"jsonrpc"/);
      const firstRpc = lines.indexOf(rpc[0]!);
      const secondRpc = lines.indexOf(rpc[1]!);
      expect(secondRpc - firstRpc).toBeGreaterThan(1); // garbage between the two responses
    } finally {
      run.kill();
    }
  });

  it('hang-initialize: initialize is never answered (but the process stays up)', async () => {
    const control = runStdio(undefined);
    const run = runStdio('hang-initialize');
    try {
      control.send(INITIALIZE);
      run.send(INITIALIZE);
      await until(() => control.stdout().includes('"id":1'));
      await until(() => run.stderr().includes('hang-initialize: ignoring initialize'));
      await new Promise((r) => setTimeout(r, 500));
      expect(run.stdout()).toBe('');
      expect(await settlesWithin(run.exited, 10)).toBe(false);
    } finally {
      control.kill();
      run.kill();
    }
  });

  it('stderr-flood: thousands of stderr lines, still a working server', async () => {
    const { command, args } = flakyStdioCommand('stderr-flood');
    const transport = new StdioClientTransport({ command, args, stderr: 'pipe' });
    let stderr = '';
    (transport.stderr as PassThrough).on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const client = newClient('auto');
    await client.connect(transport);
    try {
      const result = await client.callTool({ name: 'echo', arguments: { text: 'loud' } });
      expect(textOf(result)).toBe('echo: loud');
      await until(() => stderr.split('\n').length > 5000);
      expect(stderr).toContain('flaky[stderr-flood] startup line 5000/5000');
    } finally {
      await client.close();
    }
  });
});
