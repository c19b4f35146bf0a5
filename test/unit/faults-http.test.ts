/**
 * HTTP faults (main/core/faults/http.ts) in a proxy's position: a real Node http server runs
 * serveWithFaults with a route that forwards to a second real http server (the "upstream") with
 * fetch, and a real fetch is the client. drop-notifications keeps the other SSE events byte for
 * byte; the proxy's session-expiry answers 404, ends the session's streams and DELETEs upstream.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import {
  FaultEngine,
  SESSION_EXPIRED_BODY,
  SessionExpiry,
  describeRequest,
  forwardableHeaders,
  parseFault,
  parseJsonBody,
  readBody,
  serveWithFaults,
  sseRawBlocks,
  type AppliedFault,
  type FaultSpec,
} from '../../main/core/faults';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()!();
});

async function listen(handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The SSE answer the upstream writes to a tools/call: mixed line endings, ids, a comment, notifications, then the response. */
const UPSTREAM_EVENTS = [
  ': keep-alive comment\n\n',
  'id: 1\nevent: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}\n\n',
  'id: 2\r\nevent: message\r\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"é ✓"}}\r\n\r\n',
  'id: 3\nevent: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress",\ndata: "params":{"progressToken":1,"progress":2}}\n\n',
  'id: 4\nevent: message\ndata: {"jsonrpc":"2.0","id":7,"method":"notifications/progress"}\n\n', // has an id: not a notification
  'id: 5\nevent: message\ndata: {"jsonrpc":"2.0","id":1,"result":{"content":[]}}\n\n',
];

interface Upstream {
  url: string;
  requests: { method: string; session: string | undefined; authorization: string | undefined }[];
  /** GET streams open per session. */
  openStreams: () => number;
}

async function upstream(): Promise<Upstream> {
  const requests: Upstream['requests'] = [];
  let open = 0;
  let sessions = 0;
  const url = await listen(async (req, res) => {
    const session = req.headers['mcp-session-id'] as string | undefined;
    requests.push({ method: req.method!, session, authorization: req.headers.authorization });
    const body = parseJsonBody(await readBody(req)) as { method?: string } | undefined;
    if (req.method === 'DELETE') return void res.writeHead(200).end();
    if (req.method === 'GET') {
      open += 1;
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write('id: g1\ndata: {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n\n');
      res.once('close', () => (open -= 1));
      return; // stays open
    }
    if (body?.method === 'initialize') {
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': `sess-${++sessions}` });
      return void res.end('{"jsonrpc":"2.0","id":0,"result":{}}');
    }
    // Written in pieces, each event split across writes, to exercise the splitter on a real socket.
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const all = Buffer.from(UPSTREAM_EVENTS.join(''), 'utf8');
    for (let i = 0; i < all.length; i += 37) {
      res.write(all.subarray(i, i + 37));
      await new Promise((resolve) => setImmediate(resolve));
    }
    res.end();
  });
  return { url, requests, openStreams: () => open };
}

/** A proxy: plans each request on `engine` and serves it with faults, forwarding to `target` with fetch. */
async function proxy(target: string, faults: FaultSpec[]): Promise<{ url: string; engine: FaultEngine; applied: AppliedFault[] }> {
  const engine = new FaultEngine(faults.map((f) => parseFault(f)));
  const expiry = new SessionExpiry(engine);
  const applied: AppliedFault[] = [];
  const url = await listen((req, res) => {
    void (async () => {
      const method = req.method ?? 'GET';
      const body = method === 'POST' ? await readBody(req) : undefined;
      const session = req.headers['mcp-session-id'];
      const info = describeRequest(method, { accept: req.headers.accept, sessionId: typeof session === 'string' ? session : undefined }, parseJsonBody(body));
      await serveWithFaults({
        req,
        res,
        url: new URL(req.url ?? '/', target),
        body,
        info,
        plan: engine.plan(info),
        engine,
        expiry,
        route: async (request) => {
          const headers = new Headers(request.headers);
          headers.delete('host');
          headers.delete('connection');
          return fetch(request.url, { method: request.method, headers, body: request.body, signal: request.signal, duplex: 'half' } as RequestInit);
        },
        name: 'proxy-test',
        label: 'switchboard proxy',
        onApplied: (a) => applied.push(a),
      });
    })();
  });
  return { url, engine, applied };
}

const call = (id: number, method = 'tools/call') => JSON.stringify({ jsonrpc: '2.0', id, method, params: {} });
const post = (url: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body });

describe('HTTP drop-notifications', () => {
  it('drops the matching notification events of an SSE answer and forwards every other event byte for byte', async () => {
    const up = await upstream();
    const p = await proxy(up.url, [{ type: 'drop-notifications', notification: 'notifications/progress', method: 'tools/call' }]);
    const response = await post(p.url, call(1));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const bytes = Buffer.from(await response.arrayBuffer());
    const kept = [UPSTREAM_EVENTS[0], UPSTREAM_EVENTS[2], UPSTREAM_EVENTS[4], UPSTREAM_EVENTS[5]].join('');
    expect(bytes.equals(Buffer.from(kept, 'utf8'))).toBe(true);
    expect(p.applied.map((a) => [a.type, a.method, a.rpcId])).toEqual([
      ['drop-notifications', 'notifications/progress', 1],
      ['drop-notifications', 'notifications/progress', 1],
    ]);
    expect(p.engine.list()[0]).toMatchObject({ seen: 1, hits: 2 });
  });

  it('out of scope (another method), the SSE answer passes through untouched', async () => {
    const up = await upstream();
    const p = await proxy(up.url, [{ type: 'drop-notifications', method: 'tools/list' }]);
    const bytes = Buffer.from(await (await post(p.url, call(1))).arrayBuffer());
    expect(bytes.equals(Buffer.from(UPSTREAM_EVENTS.join(''), 'utf8'))).toBe(true);
    expect(p.applied).toEqual([]);
  });

  it('on a GET stream, with a rate drawn per notification', async () => {
    const up = await upstream();
    const p = await proxy(up.url, [{ type: 'drop-notifications', rate: 1 }]);
    const controller = new AbortController();
    const response = await fetch(`${p.url}/mcp`, { headers: { accept: 'text/event-stream', 'mcp-session-id': 'x' }, signal: controller.signal });
    expect(response.status).toBe(200);
    // The only event of the GET stream is dropped: wait until the proxy reports it.
    await expect.poll(() => p.applied.length).toBe(1);
    expect(p.applied[0]).toMatchObject({ type: 'drop-notifications', method: 'notifications/tools/list_changed', sessionId: 'x' });
    controller.abort();
  });
});

describe('session-expiry in a proxy', () => {
  it('after N POSTs on a session: 404 with the JSON-RPC error, the session\'s streams end, a DELETE goes upstream; other sessions live on', async () => {
    const up = await upstream();
    const p = await proxy(up.url, [{ type: 'session-expiry', afterRequests: 2 }]);
    const init = await post(p.url, JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: {} }), { authorization: 'Bearer tok-1' });
    const session = init.headers.get('mcp-session-id')!;
    expect(session).toBe('sess-1');
    await init.arrayBuffer();
    const headers = { 'mcp-session-id': session, authorization: 'Bearer tok-1' };

    const stream = await fetch(`${p.url}/mcp`, { headers: { accept: 'text/event-stream', ...headers } });
    expect(stream.status).toBe(200);
    const streamDone = stream.arrayBuffer();
    await expect.poll(() => up.openStreams()).toBe(1);

    for (const id of [1, 2]) {
      const ok = await post(p.url, call(id), headers);
      expect(ok.status).toBe(200);
      await ok.arrayBuffer();
    }
    const expired = await post(p.url, call(3), headers);
    expect(expired.status).toBe(404);
    expect(await expired.text()).toBe(SESSION_EXPIRED_BODY);
    expect(JSON.parse(SESSION_EXPIRED_BODY)).toEqual({ jsonrpc: '2.0', error: { code: -32001, message: 'Session expired (injected by the proxy)' }, id: null });

    // The session's GET stream was ended by the proxy (the client sees EOF), and the upstream freed it.
    await streamDone;
    await expect.poll(() => up.requests.some((r) => r.method === 'DELETE')).toBe(true);
    expect(up.requests.filter((r) => r.method === 'DELETE')).toEqual([{ method: 'DELETE', session, authorization: 'Bearer tok-1' }]);
    await expect.poll(() => up.openStreams()).toBe(0);

    // From then on every request on that session id is 404, and never reaches the upstream.
    const before = up.requests.length;
    for (const attempt of [post(p.url, call(4), headers), fetch(`${p.url}/mcp`, { headers: { accept: 'text/event-stream', ...headers } })]) {
      const r = await attempt;
      expect(r.status).toBe(404);
      await r.arrayBuffer();
    }
    expect(up.requests.length).toBe(before);

    // A new session is fresh.
    const init2 = await post(p.url, JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: {} }));
    const session2 = init2.headers.get('mcp-session-id')!;
    await init2.arrayBuffer();
    const fresh = await post(p.url, call(5), { 'mcp-session-id': session2 });
    expect(fresh.status).toBe(200);
    await fresh.arrayBuffer();

    expect(p.engine.list()[0]).toMatchObject({ fault: { type: 'session-expiry' }, hits: 1 });
    expect(p.applied.map((a) => [a.type, a.sessionId])).toEqual([
      ['session-expiry', session],
      ['session-expiry', session],
      ['session-expiry', session],
    ]);
  });
});

describe('terminal faults through a proxy', () => {
  it('http-error answers without calling the upstream, with Retry-After for 503 and the proxy named in the body', async () => {
    const up = await upstream();
    const p = await proxy(up.url, [{ type: 'http-error', status: 503, times: 1 }]);
    const r = await post(p.url, call(1));
    expect(r.status).toBe(503);
    expect(r.headers.get('retry-after')).toBe('1');
    expect(await r.text()).toBe('switchboard proxy: injected HTTP 503\n');
    expect(up.requests).toEqual([]);
    const ok = await post(p.url, call(2));
    expect(ok.status).toBe(200);
    await ok.arrayBuffer();
    expect(up.requests).toHaveLength(1);
    expect(p.applied.map((a) => [a.type, a.faultId, a.rpcId, a.detail])).toEqual([['http-error', 1, 1, 'answered HTTP 503']]);
  });
});

describe('hostile fault specs', () => {
  it('a header value with a line break (realm) is not written as a header: 500 saying why, no injected header', async () => {
    const up = await upstream();
    const p = await proxy(up.url, [{ type: 'unauthorized', realm: 'x"\r\nx-injected: yes' }]);
    const r = await post(p.url, call(1));
    expect(r.status).toBe(500);
    expect(r.headers.get('x-injected')).toBeNull();
    expect(await r.text()).toMatch(/^switchboard proxy: the unauthorized fault could not be written: /);
    expect(up.requests).toEqual([]);
  });
});

describe('sseRawBlocks', () => {
  it('splits any chunking of an SSE body into the same raw blocks, losing no byte (LF, CRLF and CR endings)', async () => {
    const body = Buffer.from(UPSTREAM_EVENTS.join('') + 'data: cr\r\rdata: tail-without-end', 'utf8');
    const expected = [...UPSTREAM_EVENTS, 'data: cr\r\r', 'data: tail-without-end'];
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 1, max: body.length }), { maxLength: 12 }), async (cuts) => {
        const points = [...new Set(cuts)].sort((a, b) => a - b);
        async function* chunks(): AsyncGenerator<Uint8Array> {
          let from = 0;
          for (const at of [...points, body.length]) {
            if (at > from) yield body.subarray(from, at);
            from = at;
          }
        }
        const blocks: string[] = [];
        for await (const b of sseRawBlocks(chunks())) blocks.push(b.toString('utf8'));
        expect(blocks).toEqual(expected);
      }),
      { numRuns: 200 },
    );
  });

  it('yields an over-size block as it stands instead of buffering it', async () => {
    async function* chunks(): AsyncGenerator<Uint8Array> {
      yield Buffer.from('data: ' + 'x'.repeat(100));
      yield Buffer.from('y'.repeat(100) + '\n\n');
    }
    const blocks: Buffer[] = [];
    for await (const b of sseRawBlocks(chunks(), 64)) blocks.push(b);
    expect(blocks.length).toBeGreaterThan(1);
    expect(Buffer.concat(blocks).toString()).toBe('data: ' + 'x'.repeat(100) + 'y'.repeat(100) + '\n\n');
  });
});

describe('forwardableHeaders', () => {
  it('drops hop-by-hop headers and those Connection names; a decoded body loses content-encoding and length', () => {
    const response = new Response('x', {
      headers: { connection: 'keep-alive, x-hop', 'keep-alive': 'timeout=5', 'x-hop': '1', 'mcp-session-id': 's', 'content-encoding': 'gzip', 'content-length': '10', 'content-type': 'application/json' },
    });
    expect(forwardableHeaders(response)).toEqual({ 'mcp-session-id': 's', 'content-type': 'application/json' });
  });
});
