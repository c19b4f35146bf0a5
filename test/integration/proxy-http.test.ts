/**
 * The HTTP proxy (main/core/proxy/http.ts) with real clients nobody here wrote (the v2 client and
 * the v1 SDK client) and real servers in separate processes (the everything fixture, both eras
 * and legacy HTTP+SSE; the flaky lab for resumption), over real HTTP on 127.0.0.1:
 *   - what the client gets through the proxy equals what it gets direct (the JSON-RPC results,
 *     and for a fixed raw request the body's bytes);
 *   - the proxy's trace has the channels a tracked connection of the app's own records;
 *   - the GET stream, DELETE, session ids, a notification stream, `Last-Event-ID` resumption;
 *   - legacy SSE: the endpoint event pointed at the proxy when it is absolute (and noted);
 *   - an unreachable upstream: 502 naming the error, recorded.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, SSEClientTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport as V1SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport as V1StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer as V1McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';

import type { TraceEvent } from '../../contract/trace';
import { parseFault, parseFaultArg } from '../../main/core/faults';
import { startHttpProxy, type HttpProxy } from '../../main/core/proxy/http';
import { createTrackingFetch } from '../../main/core/transport/tracking-fetch';
import { Redactor } from '../../main/core/trace/redact';
import { startFixture, type RunningFixture } from '../fixtures/everything/harness';
import { startFlaky, type RunningFlaky } from '../fixtures/flaky-server/harness';
import { memoryRecorder, shapes, until, type MemoryRecorder } from './support/proxy-http';

const LEGACY = '2025-11-25';

function textOf(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.map((c) => c.text ?? '').join('');
}

/** A direct connection recorded exactly as the app records its own (the tracking fetch). */
function trackedDirect(url: string, transport: 'streamable-http' | 'sse'): { fetch: ReturnType<typeof createTrackingFetch>; events: TraceEvent[] } {
  const events: TraceEvent[] = [];
  const fetch = createTrackingFetch({
    server: 'direct',
    endpoint: new URL(url),
    transport,
    record: (e) => events.push({ ...e, seq: events.length + 1, ts: e.ts ?? Date.now() }),
    redactor: new Redactor(),
  });
  return { fetch, events };
}

interface Session {
  tools: unknown;
  echo: unknown;
  logs: unknown[];
}

/** What a v2 client sees of a short session: tools/list, a call, a notification stream. */
async function v2Session(url: string, mode: 'auto' | 'legacy', fetch?: ReturnType<typeof createTrackingFetch>): Promise<Session> {
  const client = new Client({ name: 'proxy-test-v2', version: '1.2.3' }, { versionNegotiation: { mode } });
  const logs: unknown[] = [];
  client.setNotificationHandler('notifications/message', (n) => {
    logs.push(n.params);
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), fetch ? { fetch } : {}));
  try {
    const tools = (await client.listTools()).tools;
    const echo = await client.callTool({ name: 'echo', arguments: { text: 'through' } });
    await client.callTool({ name: 'flood', arguments: { count: 3 } });
    await until(() => logs.length >= 3, 'three log notifications');
    return { tools, echo, logs };
  } finally {
    await client.close();
  }
}

describe('HTTP proxy: Streamable HTTP, both eras (everything fixture)', () => {
  let fixture: RunningFixture;
  beforeAll(async () => {
    fixture = await startFixture({ transport: 'http', era: 'both' });
  });
  afterAll(async () => {
    await fixture?.close();
  });

  for (const mode of ['auto', 'legacy'] as const) {
    it(`v2 client (${mode === 'auto' ? '2026 era' : '2025 era'}): the same answers as direct, and the trace of a tracked connection`, async () => {
      const recorder = memoryRecorder();
      const proxy = await startHttpProxy({ upstream: new URL(fixture.url), port: 0, transport: 'streamable-http', recorder });
      try {
        expect(proxy.url).toBe(`http://127.0.0.1:${proxy.port}/mcp`);
        const tracked = trackedDirect(fixture.url, 'streamable-http');
        const direct = await v2Session(fixture.url, mode, tracked.fetch);
        const proxied = await v2Session(proxy.url, mode);
        expect(proxied).toEqual(direct);
        expect(proxied.logs).toHaveLength(3);

        // the recorder saw the client's own messages (clientInfo for the meta)
        const infos = recorder.clientMessages.map((m) => JSON.stringify(m));
        expect(infos.some((m) => m.includes('proxy-test-v2'))).toBe(true);

        // the proxy's trace: the channels and kinds the app's own tracked connection records
        // (a direct client may leave a stream it has its answer from unread, so its exchange has no
        // end yet; the proxy reads every stream to its end, so it may have an http-end more)
        const directShapes = shapes(tracked.events);
        await until(() => [...directShapes].every((s) => shapes(recorder.events).has(s)), 'the proxy trace to settle');
        expect([...shapes(recorder.events)].filter((s) => !directShapes.has(s)).every((s) => s.endsWith('/http-end'))).toBe(true);
        const calls = recorder.events.filter((e) => e.rpc?.method === 'tools/call');
        expect(calls.map((e) => e.kind)).toEqual(['http-request', 'http-request']);
        expect(recorder.events.every((e) => e.server === 'proxied')).toBe(true);
        if (mode === 'legacy') {
          expect(recorder.events.some((e) => e.kind === 'session' && e.meta?.event === 'issued')).toBe(true);
          expect(recorder.events.some((e) => e.channel === 'get' && e.kind === 'http-response' && e.http?.status === 200)).toBe(true);
        }
      } finally {
        await proxy.close();
      }
    });
  }

  it('the v1 SDK client gets the same answers through the proxy', async () => {
    const recorder = memoryRecorder();
    const proxy = await startHttpProxy({ upstream: new URL(fixture.url), port: 0, transport: 'streamable-http', recorder });
    const run = async (url: string) => {
      const client = new V1Client({ name: 'proxy-test-v1', version: '0.1.0' });
      await client.connect(new V1StreamableHTTPClientTransport(new URL(url)));
      try {
        return { tools: (await client.listTools()).tools, echo: await client.callTool({ name: 'echo', arguments: { text: 'v1' } }) };
      } finally {
        await client.close();
      }
    };
    try {
      const direct = await run(fixture.url);
      const proxied = await run(proxy.url);
      expect(proxied).toEqual(direct);
      expect(textOf(proxied.echo)).toContain('v1');
      expect(recorder.events.some((e) => e.rpc?.method === 'initialize' && e.kind === 'http-request')).toBe(true);
    } finally {
      await proxy.close();
    }
  });

  it('a fixed raw request: the body bytes are the same through the proxy; session id both ways; GET stream; DELETE', async () => {
    const recorder = memoryRecorder();
    const proxy = await startHttpProxy({ upstream: new URL(fixture.url), port: 0, transport: 'streamable-http', recorder });
    const post = (url: string, body: unknown, session?: string) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': LEGACY, ...(session ? { 'mcp-session-id': session } : {}) },
        body: JSON.stringify(body),
      });
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'raw', version: '0' } } };
    try {
      const open = async (url: string) => {
        const response = await post(url, init);
        expect(response.status).toBe(200);
        const session = response.headers.get('mcp-session-id')!;
        expect(session).toBeTruthy();
        await response.arrayBuffer();
        expect((await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, session)).status).toBe(202);
        return session;
      };
      const directSession = await open(fixture.url);
      const proxySession = await open(proxy.url);
      const list = { jsonrpc: '2.0', id: 7, method: 'resources/read', params: { uri: 'fixture://readme' } };
      const directBytes = Buffer.from(await (await post(fixture.url, list, directSession)).arrayBuffer());
      const proxied = await post(proxy.url, list, proxySession);
      expect(proxied.headers.get('content-type')).toMatch(/text\/event-stream/);
      const proxyBytes = Buffer.from(await proxied.arrayBuffer());
      // SSE event ids name the session's stream; the rest is byte for byte the same
      const withoutIds = (b: Buffer) => b.toString('utf8').replace(/^id: .*$/gm, 'id: _');
      expect(withoutIds(proxyBytes)).toBe(withoutIds(directBytes));
      expect(proxyBytes.toString('utf8')).toContain('"id":7');

      // the GET stream through the proxy: headers at once, then a server event
      const get = await fetch(proxy.url, { headers: { accept: 'text/event-stream', 'mcp-session-id': proxySession, 'mcp-protocol-version': LEGACY } });
      expect(get.status).toBe(200);
      expect(get.headers.get('content-type')).toMatch(/text\/event-stream/);
      await until(() => recorder.events.some((e) => e.channel === 'get' && e.kind === 'http-response'), 'the GET stream recorded');
      await get.body!.cancel();
      await until(() => recorder.events.some((e) => e.channel === 'get' && e.kind === 'http-end'), 'the GET stream ended in the trace');

      // DELETE ends the session upstream
      const del = await fetch(proxy.url, { method: 'DELETE', headers: { 'mcp-session-id': proxySession, 'mcp-protocol-version': LEGACY } });
      expect(del.status).toBe(200);
      expect((await post(proxy.url, list, proxySession)).status).toBe(404);
      expect(recorder.events.some((e) => e.channel === 'delete' && e.kind === 'http-request')).toBe(true);
      expect(recorder.events.some((e) => e.kind === 'session' && e.meta?.event === 'terminated' && e.session === proxySession)).toBe(true);
      expect(recorder.events.some((e) => e.kind === 'session' && e.meta?.event === 'expired')).toBe(true);
    } finally {
      await proxy.close();
    }
  });
});

describe('HTTP proxy: faults into a real server (core faults, the same as the lab)', () => {
  let fixture: RunningFixture;
  beforeAll(async () => {
    fixture = await startFixture({ transport: 'http', era: 'legacy' });
  });
  afterAll(async () => {
    await fixture?.close();
  });

  it('an http-error, dropped notifications and session expiry reach the v2 client, each application a fault event', async () => {
    const recorder = memoryRecorder();
    const proxy = await startHttpProxy({ upstream: new URL(fixture.url), port: 0, transport: 'streamable-http', recorder });
    const client = new Client({ name: 'proxy-test-faults', version: '0' }, { versionNegotiation: { mode: 'legacy' } });
    let logs = 0;
    client.setNotificationHandler('notifications/message', () => {
      logs += 1;
    });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(proxy.url)));
      recorder.faults.set([
        parseFaultArg('http-error:status=503,retryAfter=1,method=tools/call,times=1'),
        parseFault({ type: 'drop-notifications', notification: 'notifications/message', method: 'tools/call' }),
      ]);
      await expect(client.callTool({ name: 'echo', arguments: { text: 'first' } })).rejects.toThrow(/503/);
      const flooded = await client.callTool({ name: 'flood', arguments: { count: 3 } });
      expect(textOf(flooded)).toContain('3');
      expect(logs).toBe(0);

      const faults = recorder.events.filter((e) => e.kind === 'fault');
      const httpError = faults.find((e) => e.meta?.fault === 'http-error');
      expect(httpError).toMatchObject({ channel: 'lifecycle', meta: { method: 'tools/call' } });
      expect(httpError?.meta?.rpcId).toBeDefined();
      expect(faults.filter((e) => e.meta?.fault === 'drop-notifications')).toHaveLength(3);
      // the upstream never saw the call the 503 answered
      const upstreamCalls = recorder.events.filter((e) => e.kind === 'http-request' && e.rpc?.method === 'tools/call');
      expect(upstreamCalls).toHaveLength(1);
      expect(recorder.faults.list().find((a) => a.fault.type === 'http-error')).toMatchObject({ hits: 1, exhausted: true });

      // session expiry: the next POST on the session is answered 404 by the proxy, and the upstream gets a DELETE
      recorder.faults.set([parseFault({ type: 'session-expiry', afterRequests: 0 })]);
      await expect(client.listTools()).rejects.toThrow();
      await until(() => recorder.events.some((e) => e.channel === 'delete' && e.kind === 'http-response'), 'the DELETE upstream');
      expect(recorder.events.some((e) => e.kind === 'fault' && e.meta?.fault === 'session-expiry')).toBe(true);
    } finally {
      await client.close().catch(() => undefined);
      await proxy.close();
    }
  });
});

describe('HTTP proxy: legacy HTTP+SSE', () => {
  it('the v1 SDK client through the proxy to the SDK 1.x SSE server (relative endpoint: unchanged)', async () => {
    const fixture = await startFixture({ transport: 'sse' });
    const recorder = memoryRecorder();
    const proxy = await startHttpProxy({ upstream: new URL(fixture.url), port: 0, transport: 'sse', recorder });
    try {
      expect(proxy.url).toBe(`http://127.0.0.1:${proxy.port}/sse`);
      const client = new V1Client({ name: 'proxy-test-v1-sse', version: '0' });
      await client.connect(new V1SSEClientTransport(new URL(proxy.url)));
      const tools = (await client.listTools()).tools;
      expect(tools.map((t) => t.name)).toContain('echo');
      expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'legacy' } }))).toContain('legacy');
      await client.close();
      const endpoint = recorder.events.find((e) => e.kind === 'sse-event' && e.sse?.event === 'endpoint');
      expect(endpoint?.body).toMatch(/^\/messages\?sessionId=/);
      expect(recorder.events.some((e) => e.meta?.proxy === 'rewrite')).toBe(false);
      const channels = new Set(recorder.events.map((e) => e.channel));
      expect(channels.has('legacy-sse') && channels.has('legacy-post')).toBe(true);
      expect([...channels].every((c) => c === 'legacy-sse' || c === 'legacy-post' || c === 'lifecycle')).toBe(true);
      expect(recorder.events.some((e) => e.channel === 'legacy-post' && e.rpc?.method === 'tools/call')).toBe(true);
      expect(recorder.events.some((e) => e.channel === 'legacy-sse' && e.kind === 'sse-event' && e.rpc?.kind === 'result')).toBe(true);
    } finally {
      await proxy.close();
      await fixture.close();
    }
  });

  it('an absolute endpoint on the upstream origin is pointed at the proxy, and the rewrite is in the trace', async () => {
    // An SDK 1.x SSE server whose endpoint event names an absolute URL (as some servers do).
    const transports = new Map<string, SSEServerTransport>();
    let origin = '';
    const server = http.createServer((req, res) => {
      void (async () => {
        const url = new URL(req.url ?? '/', 'http://x');
        if (req.method === 'GET' && url.pathname === '/sse') {
          const write = res.write.bind(res) as (chunk: string) => boolean;
          res.write = ((chunk: string) => write(typeof chunk === 'string' ? chunk.replace(/^data: \/messages/m, `data: ${origin}/messages`) : chunk)) as typeof res.write;
          const transport = new SSEServerTransport('/messages', res);
          transports.set(transport.sessionId, transport);
          const mcp = new V1McpServer({ name: 'absolute-endpoint', version: '1' });
          mcp.registerTool('ping_back', { description: 'answers pong' }, () => ({ content: [{ type: 'text', text: 'pong' }] }));
          await mcp.connect(transport);
          return;
        }
        const transport = transports.get(url.searchParams.get('sessionId') ?? '');
        if (req.method === 'POST' && transport) return transport.handlePostMessage(req, res);
        res.writeHead(404).end();
      })();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const recorder = memoryRecorder();
    const proxy = await startHttpProxy({ upstream: new URL(`${origin}/sse`), port: 0, transport: 'sse', recorder });
    try {
      const client = new Client({ name: 'proxy-test-v2-sse', version: '0' }, { versionNegotiation: { mode: 'legacy' } });
      await client.connect(new SSEClientTransport(new URL(proxy.url)));
      expect(textOf(await client.callTool({ name: 'ping_back', arguments: {} }))).toBe('pong');
      await client.close();
      // the upstream's event is recorded as it was sent, and the rewrite is noted next to it
      const endpoint = recorder.events.find((e) => e.kind === 'sse-event' && e.sse?.event === 'endpoint');
      expect(endpoint?.body).toMatch(new RegExp(`^${origin}/messages\\?sessionId=`));
      const note = recorder.events.find((e) => e.meta?.proxy === 'rewrite');
      expect(note).toMatchObject({ channel: 'legacy-sse', meta: { what: 'the endpoint event' } });
      expect(String(note?.meta?.to)).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${proxy.port}/messages\\?sessionId=`));
      // and the client's POSTs came through the proxy
      expect(recorder.events.some((e) => e.channel === 'legacy-post' && e.rpc?.method === 'tools/call')).toBe(true);
    } finally {
      await proxy.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('HTTP proxy: resumption through the proxy (flaky lab, legacy era)', () => {
  let lab: RunningFlaky;
  beforeAll(async () => {
    lab = await startFlaky({ era: 'legacy', faults: [{ type: 'sse-cut', method: 'tools/call', retryMs: 50, times: 1 }] });
  });
  afterAll(async () => {
    await lab?.close();
  });

  it('the upstream cuts the POST stream with retry:, the client resumes with Last-Event-ID through the proxy, the call completes', async () => {
    const recorder = memoryRecorder();
    const proxy = await startHttpProxy({ upstream: new URL(lab.url), port: 0, transport: 'streamable-http', recorder });
    const client = new Client({ name: 'proxy-test-resume', version: '0' }, { versionNegotiation: { mode: 'legacy' } });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(proxy.url)));
      const result = await client.callTool({ name: 'echo', arguments: { text: 'resumed' } });
      expect(textOf(result)).toContain('resumed');

      const call = recorder.events.find((e) => e.kind === 'http-request' && e.rpc?.method === 'tools/call')!;
      const cut = recorder.events.filter((e) => e.exchange === call.exchange);
      expect(cut.find((e) => e.kind === 'http-response')?.channel).toBe('post-sse');
      expect(cut.some((e) => e.kind === 'sse-retry' && e.sse?.retry === 50)).toBe(true);
      expect(cut.find((e) => e.kind === 'http-end')?.http?.end).toBe('server-closed');
      const lastId = cut.filter((e) => e.kind === 'sse-event' && e.sse?.id).at(-1)?.sse?.id;
      expect(lastId).toBeTruthy();

      const resumed = recorder.events.find((e) => e.channel === 'resumption' && e.kind === 'http-request');
      expect(resumed?.http?.headers?.['last-event-id']).toBe(lastId);
      const answer = recorder.events.find((e) => e.exchange === resumed!.exchange && e.kind === 'sse-event' && e.rpc?.kind === 'result');
      expect(answer?.rpc?.id).toBe(call.rpc?.id);
    } finally {
      await client.close();
      await proxy.close();
    }
  });
});

describe('HTTP proxy: streaming', () => {
  it('SSE goes through event by event (no buffering), headers untouched but hop-by-hop, and a client that leaves aborts the upstream request', async () => {
    let next: (() => void) | undefined;
    let upstreamClosed = false;
    const server = http.createServer((req, res) => {
      if (req.url === '/cookies') {
        res.setHeader('set-cookie', ['a=1; Path=/', 'b=2; Path=/']);
        res.setHeader('x-custom', 'kept');
        res.setHeader('connection', 'x-hop');
        res.setHeader('x-hop', 'only for the next hop');
        res.end('{"ok":true}');
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.flushHeaders();
      let n = 0;
      const send = () => res.write(`id: ${++n}\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"n":${n}}}\n\n`);
      send();
      next = send;
      req.on('close', () => {
        upstreamClosed = true;
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const recorder = memoryRecorder();
    const proxy = await startHttpProxy({ upstream: new URL(`${origin}/mcp`), port: 0, transport: 'streamable-http', recorder });
    try {
      const plain = await fetch(`http://127.0.0.1:${proxy.port}/cookies`);
      expect(plain.headers.getSetCookie()).toEqual(['a=1; Path=/', 'b=2; Path=/']);
      expect(plain.headers.get('x-custom')).toBe('kept');
      expect(plain.headers.get('x-hop')).toBeNull();
      expect(await plain.text()).toBe('{"ok":true}');

      const aborter = new AbortController();
      const response = await fetch(proxy.url, { headers: { accept: 'text/event-stream' }, signal: aborter.signal });
      expect(response.headers.get('content-type')).toBe('text/event-stream');
      const reader = response.body!.getReader();
      const decoder = new TextDecoder();
      // each event arrives before the upstream sends the next: nothing waits for more bytes
      for (let n = 1; n <= 3; n++) {
        let text = '';
        while (!text.includes(`"n":${n}}`)) text += decoder.decode((await reader.read()).value, { stream: true });
        expect(text).toBe(`id: ${n}\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"n":${n}}}\n\n`);
        next!();
      }
      aborter.abort();
      await until(() => upstreamClosed, 'the upstream request to be aborted');
      await until(() => recorder.events.some((e) => e.kind === 'http-end' && e.channel === 'get'), 'the stream end recorded');
      expect(recorder.events.filter((e) => e.kind === 'sse-event').length).toBeGreaterThanOrEqual(3);
    } finally {
      await proxy.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('HTTP proxy: failures', () => {
  let proxy: HttpProxy | undefined;
  let recorder: MemoryRecorder;
  afterAll(async () => {
    await proxy?.close();
  });

  it('an unreachable upstream: 502 with a JSON body naming the error, recorded', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    recorder = memoryRecorder();
    proxy = await startHttpProxy({ upstream: new URL(`http://127.0.0.1:${port}/mcp`), port: 0, transport: 'streamable-http', recorder });
    const response = await fetch(proxy.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' });
    expect(response.status).toBe(502);
    const body = (await response.json()) as { error: string; upstream: string; message: string };
    expect(body.upstream).toBe(`http://127.0.0.1:${port}`);
    expect(body.message).toMatch(/ECONNREFUSED/);
    expect(recorder.events.some((e) => e.kind === 'http-end' && e.http?.end === 'error' && /ECONNREFUSED/.test(e.text ?? ''))).toBe(true);
    expect(recorder.events.some((e) => e.kind === 'error' && e.meta?.proxy === 'bad-gateway')).toBe(true);
  });

  it('a request body over the bound is refused with 413 and not forwarded', async () => {
    const small = await startHttpProxy({ upstream: new URL('http://127.0.0.1:9/mcp'), port: 0, transport: 'streamable-http', recorder: memoryRecorder(), maxRequestBytes: 1024 });
    try {
      const response = await fetch(small.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: 'x'.repeat(4096) });
      expect(response.status).toBe(413);
    } finally {
      await small.close();
    }
  });

  it('a port in use is a PortInUseError', async () => {
    await expect(startHttpProxy({ upstream: new URL('http://127.0.0.1:9/mcp'), port: proxy!.port, transport: 'streamable-http', recorder: memoryRecorder() })).rejects.toThrow(/in use/);
  });
});
