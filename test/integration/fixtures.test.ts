/**
 * Proves every variant of the "everything" fixture (test/fixtures/everything) works against the
 * REAL v2 client SDK, each fixture running as a separate child process.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PassThrough } from 'node:stream';

import {
  Client,
  ProtocolError,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  type FetchLike,
  type Transport,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

import { startFixture, stdioFixtureCommand, type RunningFixture, type StartFixtureOptions } from '../fixtures/everything/harness.js';

const TOOL_NAMES = ['echo', 'add', 'create_order', 'slow_count', 'fail', 'protocol_error', 'log', 'flood'];

// ---------------------------------------------------------------------------
// helpers
// ---------------------------------------------------------------------------

interface RecordedExchange {
  method: string;
  path: string;
  status: number;
  contentType: string | null;
  headers: Record<string, string>;
  /** JSON-RPC method(s) of the POST body, if any. */
  rpcMethod?: string;
}

/** A fetch that records what the client transport sends (and the status it got). */
function recordingFetch(log: RecordedExchange[]): FetchLike {
  return async (url, init) => {
    const response = await fetch(url, init);
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, key) => {
      headers[key] = value;
    });
    let rpcMethod: string | undefined;
    if (typeof init?.body === 'string') {
      try {
        const parsed = JSON.parse(init.body) as { method?: string } | { method?: string }[];
        rpcMethod = Array.isArray(parsed) ? parsed.map((m) => m.method).join(',') : parsed.method;
      } catch {
        /* not JSON */
      }
    }
    const u = new URL(url);
    log.push({
      method: (init?.method ?? 'GET').toUpperCase(),
      path: u.pathname + u.search,
      status: response.status,
      contentType: response.headers.get('content-type'),
      headers,
      ...(rpcMethod !== undefined && { rpcMethod }),
    });
    return response;
  };
}

function newClient(negotiation: 'auto' | 'legacy' = 'auto'): Client {
  return new Client({ name: 'switchboard-fixture-test', version: '0.0.0' }, { versionNegotiation: { mode: negotiation } });
}

function textOf(result: { content?: unknown }): string {
  const content = (result.content ?? []) as { type: string; text?: string }[];
  return content
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('');
}

async function until(predicate: () => boolean, timeoutMs = 5000): Promise<void> {
  const start = Date.now();
  while (!predicate()) {
    if (Date.now() - start > timeoutMs) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The full behavioural tour every variant must pass. */
async function exercise(client: Client): Promise<void> {
  expect(client.getServerVersion()?.name).toBe('everything');
  expect(client.getInstructions()).toMatch(/everything/);
  const caps = client.getServerCapabilities();
  expect(caps?.tools).toBeDefined();
  expect(caps?.logging).toBeDefined();
  expect(caps?.completions).toBeDefined();

  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name).sort()).toEqual([...TOOL_NAMES].sort());
  const order = tools.find((t) => t.name === 'create_order')!;
  const orderProps = order.inputSchema.properties as Record<string, { type?: unknown; properties?: Record<string, { format?: string }> }>;
  expect(orderProps['customer']?.properties?.['email']?.format).toBe('email');
  expect(orderProps['notes']?.type).toEqual(['string', 'null']);
  expect(tools.find((t) => t.name === 'add')?.outputSchema).toBeDefined();

  const echo = await client.callTool({ name: 'echo', arguments: { text: 'hello' } });
  expect(textOf(echo)).toBe('echo: hello');

  const add = await client.callTool({ name: 'add', arguments: { a: 2, b: 40 } });
  expect(add.structuredContent).toEqual({ sum: 42 });

  const created = await client.callTool({
    name: 'create_order',
    arguments: {
      customer: { name: 'Ada', email: 'ada@example.com' },
      items: [
        { sku: 'A-1', qty: 2 },
        { sku: 'B-2', qty: 3 },
      ],
      shipping: { express: true, address: { street: '1 Main St', city: 'Springfield', zip: '12345' } },
      notes: null,
    },
  });
  expect(created.isError).toBeFalsy();
  expect(created.structuredContent).toMatchObject({ itemCount: 2, totalQty: 5, express: true, priority: 'normal' });

  const progress: { progress: number; total?: number; message?: string }[] = [];
  const counted = await client.callTool(
    { name: 'slow_count', arguments: { steps: 4, delayMs: 30 } },
    { onprogress: (p) => progress.push(p) },
  );
  expect(textOf(counted)).toBe('counted to 4');
  // The final progress notification can race the result on single-stream transports (stdio, SSE):
  // the v2 client dispatches notifications on a microtask but responses synchronously.
  expect(progress.length).toBeGreaterThanOrEqual(3);
  expect(progress[0]).toMatchObject({ progress: 1, total: 4, message: 'step 1/4' });

  const failed = await client.callTool({ name: 'fail', arguments: { message: 'kaboom' } });
  expect(failed.isError).toBe(true);
  expect(textOf(failed)).toBe('kaboom');

  const rejected = client.callTool({ name: 'protocol_error', arguments: {} });
  await expect(rejected).rejects.toBeInstanceOf(ProtocolError);
  await expect(rejected).rejects.toMatchObject({ code: -32602 });

  const { resources } = await client.listResources();
  expect(resources.map((r) => r.uri)).toContain('fixture://readme');
  const readme = await client.readResource({ uri: 'fixture://readme' });
  expect(readme.contents[0]).toMatchObject({ mimeType: 'text/markdown' });

  const { resourceTemplates } = await client.listResourceTemplates();
  expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(['fixture://items/{id}']);
  const item = await client.readResource({ uri: 'fixture://items/beta' });
  const itemContent = item.contents[0] as { text?: string };
  expect(JSON.parse(itemContent.text ?? '{}')).toMatchObject({ id: 'beta', known: true });

  const completion = await client.complete({
    ref: { type: 'ref/resource', uri: 'fixture://items/{id}' },
    argument: { name: 'id', value: 'al' },
  });
  expect(completion.completion.values).toEqual(['alpha', 'alpine']);

  const { prompts } = await client.listPrompts();
  const greet = prompts.find((p) => p.name === 'greet');
  expect(greet?.arguments).toEqual([
    expect.objectContaining({ name: 'name', required: true }),
    expect.objectContaining({ name: 'style', required: false }),
  ]);
  const nameCompletion = await client.complete({
    ref: { type: 'ref/prompt', name: 'greet' },
    argument: { name: 'name', value: 'A' },
  });
  expect(nameCompletion.completion.values).toEqual(['Ada', 'Alan']);

  const prompt = await client.getPrompt({ name: 'greet', arguments: { name: 'Grace', style: 'formal' } });
  expect(prompt.messages[0]).toMatchObject({ role: 'user', content: { type: 'text' } });
  expect((prompt.messages[0]!.content as { text: string }).text).toContain('Grace');
}

// ---------------------------------------------------------------------------
// stdio
// ---------------------------------------------------------------------------

describe('everything fixture over stdio', () => {
  it('auto negotiation against the default (both-era) stdio server selects the modern era', async () => {
    const { command, args } = stdioFixtureCommand();
    const transport = new StdioClientTransport({ command, args, stderr: 'ignore' });
    const client = newClient('auto');
    await client.connect(transport);
    try {
      expect(client.getProtocolEra()).toBe('modern');
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      expect(transport.pid).toBeGreaterThan(0);
      await exercise(client);
    } finally {
      await client.close();
    }
  });

  it('auto negotiation against --era legacy falls back to initialize (legacy era)', async () => {
    const { command, args } = stdioFixtureCommand(['--era', 'legacy']);
    const client = newClient('auto');
    await client.connect(new StdioClientTransport({ command, args, stderr: 'ignore' }));
    try {
      expect(client.getProtocolEra()).toBe('legacy');
      expect(client.getNegotiatedProtocolVersion()).toMatch(/^2025-/);
      await exercise(client);
    } finally {
      await client.close();
    }
  });

  it('--stderr-chatter lines are readable from the client transport stderr pipe', async () => {
    const { command, args } = stdioFixtureCommand(['--stderr-chatter']);
    const transport = new StdioClientTransport({ command, args, stderr: 'pipe' });
    let stderr = '';
    (transport.stderr as PassThrough).on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const client = newClient('auto');
    await client.connect(transport);
    try {
      await until(() => stderr.includes('everything: ready'));
      expect(stderr).toContain('everything: starting');
      const echo = await client.callTool({ name: 'echo', arguments: { text: 'x' } });
      expect(textOf(echo)).toBe('echo: x');
    } finally {
      await client.close();
    }
  });
});

// ---------------------------------------------------------------------------
// HTTP variants
// ---------------------------------------------------------------------------

function describeHttp(
  title: string,
  fixtureOptions: StartFixtureOptions,
  body: (ctx: { fixture: () => RunningFixture }) => void,
): void {
  describe(title, () => {
    let fixture: RunningFixture | undefined;
    beforeAll(async () => {
      fixture = await startFixture(fixtureOptions);
    });
    afterAll(async () => {
      await fixture?.close();
    });
    body({ fixture: () => fixture! });
  });
}

describeHttp('everything fixture: http --era legacy --sessions on', { transport: 'http', era: 'legacy', sessions: true }, ({ fixture }) => {
  it('negotiates legacy, gets a session id, opens the GET stream, and passes the tour', async () => {
    const log: RecordedExchange[] = [];
    const transport = new StreamableHTTPClientTransport(new URL(fixture().url), { fetch: recordingFetch(log) });
    const client = newClient('auto');
    await client.connect(transport);
    try {
      expect(fixture().url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      expect(client.getProtocolEra()).toBe('legacy');
      expect(transport.sessionId).toMatch(/[0-9a-f-]{36}/);

      // probe first (rejected by the legacy-only endpoint), then the 2025 handshake.
      expect(log[0]).toMatchObject({ method: 'POST', rpcMethod: 'server/discover', status: 400 });
      expect(log[0]!.headers['mcp-method']).toBe('server/discover');
      expect(log[1]).toMatchObject({ method: 'POST', rpcMethod: 'initialize', status: 200 });

      await exercise(client);

      await until(() => log.some((e) => e.method === 'GET'));
      const get = log.find((e) => e.method === 'GET')!;
      expect(get.status).toBe(200);
      expect(get.contentType).toContain('text/event-stream');
      expect(get.headers['mcp-session-id']).toBe(transport.sessionId);

      const toolsCall = log.find((e) => e.rpcMethod === 'tools/call')!;
      expect(toolsCall.headers['mcp-session-id']).toBe(transport.sessionId);
      expect(toolsCall.headers['mcp-protocol-version']).toBe(client.getNegotiatedProtocolVersion());
      expect(toolsCall.headers['mcp-method']).toBeUndefined();

      await transport.terminateSession();
      expect(log.at(-1)).toMatchObject({ method: 'DELETE', status: 200 });
    } finally {
      await client.close();
    }
  });
});

describeHttp(
  'everything fixture: http --era legacy --sessions on --json-response',
  { transport: 'http', era: 'legacy', sessions: true, jsonResponse: true },
  ({ fixture }) => {
    it('answers POSTs with application/json', async () => {
      const log: RecordedExchange[] = [];
      const transport = new StreamableHTTPClientTransport(new URL(fixture().url), { fetch: recordingFetch(log) });
      const client = newClient('auto');
      await client.connect(transport);
      try {
        expect(client.getProtocolEra()).toBe('legacy');
        const echo = await client.callTool({ name: 'echo', arguments: { text: 'json' } });
        expect(textOf(echo)).toBe('echo: json');
        const call = log.find((e) => e.rpcMethod === 'tools/call')!;
        expect(call.contentType).toContain('application/json');
      } finally {
        await client.close();
      }
    });

    it('raw protocol: initialize answered as JSON, GET stream opens, DELETE ends the session', async () => {
      const init = await fetch(fixture().url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
        }),
      });
      expect(init.status).toBe(200);
      expect(init.headers.get('content-type')).toContain('application/json');
      const sessionId = init.headers.get('mcp-session-id')!;
      expect(sessionId).toBeTruthy();
      expect(await init.json()).toMatchObject({ id: 1, result: { protocolVersion: '2025-11-25' } });

      const ac = new AbortController();
      const get = await fetch(fixture().url, {
        headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
        signal: ac.signal,
      });
      expect(get.status).toBe(200);
      expect(get.headers.get('content-type')).toContain('text/event-stream');
      ac.abort();

      const del = await fetch(fixture().url, { method: 'DELETE', headers: { 'mcp-session-id': sessionId } });
      expect(del.status).toBe(200);
      const after = await fetch(fixture().url, {
        headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId },
      });
      expect(after.status).toBe(404);
    });
  },
);

describeHttp(
  'everything fixture: http --era legacy --sessions on --retry-interval (SSE)',
  { transport: 'http', era: 'legacy', sessions: true, retryIntervalMs: 1234 },
  ({ fixture }) => {
    it('primes POST SSE streams with an event id and the retry interval', async () => {
      const init = await fetch(fixture().url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
        }),
      });
      expect(init.headers.get('content-type')).toContain('text/event-stream');
      const text = await init.text();
      expect(text).toMatch(/^id: \S+\nretry: 1234\ndata: \n/m);
      expect(text).toContain('"protocolVersion":"2025-11-25"');
      const sessionId = init.headers.get('mcp-session-id')!;
      await fetch(fixture().url, { method: 'DELETE', headers: { 'mcp-session-id': sessionId } });
    });
  },
);

describeHttp('everything fixture: http --era legacy --sessions off', { transport: 'http', era: 'legacy', sessions: false }, ({ fixture }) => {
  it('negotiates legacy without a session; GET is refused with 405', async () => {
    const log: RecordedExchange[] = [];
    const transport = new StreamableHTTPClientTransport(new URL(fixture().url), { fetch: recordingFetch(log) });
    const client = newClient('auto');
    await client.connect(transport);
    try {
      expect(client.getProtocolEra()).toBe('legacy');
      expect(transport.sessionId).toBeUndefined();
      await exercise(client);
      await until(() => log.some((e) => e.method === 'GET'));
      expect(log.find((e) => e.method === 'GET')!.status).toBe(405);
      expect(log.every((e) => e.headers['mcp-session-id'] === undefined)).toBe(true);
    } finally {
      await client.close();
    }
  });
});

describeHttp('everything fixture: http --era modern', { transport: 'http', era: 'modern' }, ({ fixture }) => {
  it('negotiates the modern era with server/discover; requests carry mcp-method / mcp-name', async () => {
    const log: RecordedExchange[] = [];
    const transport = new StreamableHTTPClientTransport(new URL(fixture().url), { fetch: recordingFetch(log) });
    const client = newClient('auto');
    await client.connect(transport);
    try {
      expect(client.getProtocolEra()).toBe('modern');
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      expect(client.getDiscoverResult()?.supportedVersions).toContain('2026-07-28');
      expect(transport.sessionId).toBeUndefined();
      expect(log[0]).toMatchObject({ method: 'POST', rpcMethod: 'server/discover', status: 200 });

      await exercise(client);

      expect(log.some((e) => e.rpcMethod === 'initialize')).toBe(false);
      expect(log.some((e) => e.method === 'GET' || e.method === 'DELETE')).toBe(false);
      const echoCall = log.find((e) => e.rpcMethod === 'tools/call')!;
      expect(echoCall.headers).toMatchObject({
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'echo',
      });
      // progress upgrades the modern per-request response to SSE; plain results are JSON.
      expect(echoCall.contentType).toContain('application/json');
    } finally {
      await client.close();
    }
  });

  it('a legacy-only client is rejected by the modern-only endpoint', async () => {
    const client = newClient('legacy');
    await expect(client.connect(new StreamableHTTPClientTransport(new URL(fixture().url)))).rejects.toThrow();
    await client.close();
  });
});

describeHttp('everything fixture: http --era both', { transport: 'http', era: 'both', sessions: true }, ({ fixture }) => {
  it('an auto client gets the modern era', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(fixture().url));
    const client = newClient('auto');
    await client.connect(transport);
    try {
      expect(client.getProtocolEra()).toBe('modern');
      await exercise(client);
    } finally {
      await client.close();
    }
  });

  it('a legacy (default-negotiation) client is routed to the sessionful legacy wiring', async () => {
    const log: RecordedExchange[] = [];
    const transport = new StreamableHTTPClientTransport(new URL(fixture().url), { fetch: recordingFetch(log) });
    const client = newClient('legacy');
    await client.connect(transport);
    try {
      expect(client.getProtocolEra()).toBe('legacy');
      expect(transport.sessionId).toBeTruthy();
      expect(log[0]).toMatchObject({ rpcMethod: 'initialize', status: 200 });
      await exercise(client);
      await until(() => log.some((e) => e.method === 'GET'));
      expect(log.find((e) => e.method === 'GET')!.status).toBe(200);
    } finally {
      await client.close();
    }
  });
});

describeHttp('everything fixture: http --era both --sessions off', { transport: 'http', era: 'both', sessions: false }, ({ fixture }) => {
  it('a legacy client is served statelessly', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(fixture().url));
    const client = newClient('legacy');
    await client.connect(transport);
    try {
      expect(client.getProtocolEra()).toBe('legacy');
      expect(transport.sessionId).toBeUndefined();
      await exercise(client);
    } finally {
      await client.close();
    }
  });
});

// ---------------------------------------------------------------------------
// legacy HTTP+SSE
// ---------------------------------------------------------------------------

describeHttp('everything fixture: sse (legacy HTTP+SSE transport)', { transport: 'sse' }, ({ fixture }) => {
  it('connects with SSEClientTransport, negotiates legacy, and passes the tour', async () => {
    const log: RecordedExchange[] = [];
    expect(fixture().url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/sse$/);
    const transport: Transport = new SSEClientTransport(new URL(fixture().url), { fetch: recordingFetch(log) });
    const client = newClient('auto');
    await client.connect(transport);
    try {
      expect(client.getProtocolEra()).toBe('legacy');
      await exercise(client);
      expect(log[0]).toMatchObject({ method: 'GET', path: '/sse', status: 200 });
      const posts = log.filter((e) => e.method === 'POST');
      expect(posts.length).toBeGreaterThan(0);
      expect(posts.every((e) => /^\/messages\?sessionId=/.test(e.path) && e.status === 202)).toBe(true);
    } finally {
      await client.close();
    }
  });
});
