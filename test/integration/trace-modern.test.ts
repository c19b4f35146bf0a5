/**
 * The trace of a modern-era (2026-07-28) Streamable HTTP connection, recorded by the real
 * tracking fetch under the real SDK client:
 *   - through the core against the "everything" fixture (separate process, `--era modern`):
 *     the discovery exchange, no session at all, `mcp-method` / `mcp-name` request headers,
 *     and the snapshot's counts;
 *   - a v2 `Client` driven directly with the tracking fetch (the core passes no progress
 *     callback and never listens): a `tools/call` whose response upgrades to SSE because the
 *     server streams progress first, and a `subscriptions/listen` stream (against an in-test
 *     server whose tool publishes a change) carrying the change event.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, type McpHttpHandler } from '@modelcontextprotocol/server';
import * as z from 'zod';

import type { MethodName, Result } from '../../contract';
import type { ServerSnapshot, TraceEvent } from '../../contract/trace';
import { createCore, type Core } from '../../main/core/app';
import { MemorySettingsStore } from '../../main/core/store/settings';
import { TraceHub } from '../../main/core/trace/hub';
import { Redactor } from '../../main/core/trace/redact';
import { createTrackingFetch } from '../../main/core/transport/tracking-fetch';
import { startFixture, type RunningFixture } from '../fixtures/everything/harness';
import { createEverythingServer } from '../fixtures/everything/server';
import { byExchange, waitFor } from './support/trace';

const MODERN = '2026-07-28';

async function call<M extends MethodName>(core: Core, method: M, args: unknown): Promise<Result<M>> {
  const envelope = await core.dispatch(method, args);
  if (!envelope.ok) throw new Error(`${method} failed: ${envelope.error.message}`);
  return envelope.result as Result<M>;
}


function openExchanges(events: TraceEvent[]): string[] {
  return [...byExchange(events)].filter(([, list]) => list.some((e) => e.kind === 'http-request') && !list.some((e) => e.kind === 'http-end')).map(([x]) => x);
}

function expectGaplessSeq(events: Iterable<TraceEvent>): void {
  let expected = 1;
  for (const event of events) expect(event.seq).toBe(expected++);
}

function expectEveryExchangeEndedOnce(events: TraceEvent[]): void {
  for (const [exchange, list] of byExchange(events)) {
    const requests = list.filter((e) => e.kind === 'http-request');
    if (requests.length === 0) continue;
    expect(requests, exchange).toHaveLength(1);
    expect(list.filter((e) => e.kind === 'http-end'), `http-end of ${exchange}`).toHaveLength(1);
  }
}

/** A v2 client over the tracking fetch, its events going to a trace hub of its own. */
function trackedClient(url: string, hub: TraceHub, server: string): { client: Client; transport: StreamableHTTPClientTransport } {
  const endpoint = new URL(url);
  const fetch = createTrackingFetch({ server, endpoint, transport: 'streamable-http', record: hub.record, redactor: new Redactor(), now: hub.now });
  const transport = new StreamableHTTPClientTransport(endpoint, { fetch });
  const client = new Client({ name: 'trace-modern-test', version: '1.0.0' }, { capabilities: {}, versionNegotiation: { mode: 'auto' } });
  return { client, transport };
}

function snapshot(hub: TraceHub, server: string): ServerSnapshot {
  const s = hub.snapshots.snapshot(server);
  if (!s) throw new Error(`no snapshot for ${server}`);
  return s;
}

// ---------------------------------------------------------------------------------------

describe('trace: modern era', () => {
  let fixture: RunningFixture;

  beforeAll(async () => {
    fixture = await startFixture({ transport: 'http', era: 'modern' });
  });

  afterAll(async () => {
    await fixture?.close();
  });

  it('through the core: a discovery exchange, no session, mcp-method / mcp-name headers; the snapshot adds up', async () => {
    const core = createCore({ settings: new MemorySettingsStore(), carrier: 'browser', version: 't' });
    try {
      const { id } = await call(core, 'addServer', { name: 'modern', target: { type: 'http', url: fixture.url } });
      const status = await call(core, 'connectServer', { id });
      expect(status.state, status.error).toBe('connected');
      expect(status.era).toBe('modern');
      expect(status.protocolVersion).toBe(MODERN);
      await call(core, 'callTool', { tool: 'modern__echo', args: { text: 'hello' } });
      await call(core, 'callTool', { tool: 'modern__add', args: { a: 1, b: 2 } });
      const toolCalls = 2;

      // while connected, the only request in flight is the core's own listen subscription (if it opened one)
      const live = (await call(core, 'snapshots', { server: id }))[0] as ServerSnapshot;
      expect(live.inFlight.map((r) => r.method).filter((m) => m !== 'subscriptions/listen')).toEqual([]);

      await call(core, 'disconnectServer', { id });
      await waitFor('every exchange to end', () => openExchanges([...core.trace.store.all()]).length === 0);
      const events = [...core.trace.store.all()].filter((e) => e.server === id);
      const exchanges = byExchange(events);

      // no session: no session events, no mcp-session-id anywhere, no GET stream, no DELETE
      expect(events.filter((e) => e.kind === 'session')).toEqual([]);
      for (const e of events) {
        expect(e.session, `${e.seq} ${e.kind}`).toBeUndefined();
        expect(e.http?.headers?.['mcp-session-id'], `${e.seq} ${e.kind}`).toBeUndefined();
      }
      const channels = new Set([...exchanges.values()].map((list) => list[0]!.channel));
      expect([...channels].sort()).toEqual(['discovery', 'listen', 'post-json']);

      // the core's subscriptions/listen stream (ClientOptions.listChanged opens one in the modern era)
      const listens = [...exchanges.values()].filter((list) => list[0]!.channel === 'listen');
      expect(listens).toHaveLength(1);
      const listen = listens[0]!;
      expect(listen[0]).toMatchObject({ kind: 'http-request', rpc: { method: 'subscriptions/listen', kind: 'request' } });
      expect(listen[0]!.http?.headers?.['mcp-method']).toBe('subscriptions/listen');
      expect(listen.find((e) => e.kind === 'http-response')!.http?.contentType).toMatch(/^text\/event-stream/);
      expect(listen.find((e) => e.kind === 'sse-event')!.rpc?.method).toBe('notifications/subscriptions/acknowledged');
      expect(listen.at(-1)).toMatchObject({ kind: 'http-end', http: { end: 'client-aborted' } });

      // the discovery exchange: server/discover, answered in JSON with a result
      const discovery = [...exchanges.values()].filter((list) => list[0]!.channel === 'discovery');
      expect(discovery).toHaveLength(1);
      const [request, response, end] = discovery[0]!;
      expect(request).toMatchObject({ kind: 'http-request', rpc: { method: 'server/discover', kind: 'request' }, http: { method: 'POST' } });
      expect(request!.http?.headers?.['mcp-method']).toBe('server/discover');
      expect(request!.http?.headers?.['mcp-protocol-version']).toBe(MODERN);
      expect(response).toMatchObject({ kind: 'http-response', http: { status: 200 } });
      expect(response!.http?.contentType).toMatch(/^application\/json/);
      expect(end).toMatchObject({ kind: 'http-end', rpc: { kind: 'result', id: request!.rpc!.id }, http: { end: 'complete' } });
      // no initialize in the modern era
      expect(events.some((e) => e.rpc?.method === 'initialize')).toBe(false);

      // every POST names its method (and tools/call its tool) in headers
      const posts = events.filter((e) => e.kind === 'http-request' && e.rpc?.kind === 'request');
      const methods = posts.map((e) => e.rpc!.method);
      expect(methods[0]).toBe('server/discover');
      expect(methods).toEqual(expect.arrayContaining(['tools/list', 'subscriptions/listen']));
      expect(methods.filter((m) => m === 'tools/call')).toHaveLength(toolCalls);
      for (const post of posts) {
        expect(post.http?.headers?.['mcp-method']).toBe(post.rpc!.method);
        expect(post.http?.headers?.['mcp-protocol-version']).toBe(MODERN);
      }
      const names = posts.filter((e) => e.rpc!.method === 'tools/call').map((e) => e.http?.headers?.['mcp-name']);
      expect(names).toEqual(['echo', 'add']);
      expect(posts.find((e) => e.rpc!.method === 'tools/list')!.http?.headers?.['mcp-name']).toBeUndefined();
      for (const post of events.filter((e) => e.kind === 'http-request')) expect(post.http?.method).toBe('POST');

      expectGaplessSeq(core.trace.store.all());
      expectEveryExchangeEndedOnce(events);

      const snap = (await call(core, 'snapshots', { server: id }))[0] as ServerSnapshot;
      expect(snap.era).toBe('modern');
      expect(snap.protocolVersion).toBe(MODERN);
      expect(snap.sessions).toEqual([]);
      expect(snap.channels.discovery).toMatchObject({ requests: 1, responses: 1, errors: 0 });
      // requests made on post-json (the lists the core fetched and the tool calls), each answered once
      const postJson = posts.filter((e) => e.channel === 'post-json').length;
      expect(postJson).toBeGreaterThanOrEqual(1 + toolCalls);
      expect(snap.channels['post-json']).toMatchObject({ requests: postJson, responses: postJson, pings: 0, errors: 0 });
      expect(snap.channels.listen).toMatchObject({ requests: 1, responses: 0, openStreams: 0 });
      expect(snap.latency['tools/call']!.count).toBe(toolCalls);
      expect(snap.latency['server/discover']!.count).toBe(1);
      expect(snap.inFlight).toEqual([]);
      expect(snap.buckets.length).toBeGreaterThan(0);
      const notificationsOut = events.filter((e) => e.kind === 'http-request' && e.channel === 'post-json' && e.rpc?.kind === 'notification').length;
      expect(snap.buckets.reduce((sum, b) => sum + (b.messages['post-json'] ?? 0), 0)).toBe(2 * postJson + notificationsOut);
    } finally {
      await core.shutdown();
    }
  });

  it('a tools/call answered over SSE: progress notifications stream first, then the result', async () => {
    const hub = new TraceHub(undefined);
    const { client, transport } = trackedClient(fixture.url, hub, 'direct');
    try {
      await client.connect(transport);
      expect(client.getProtocolEra()).toBe('modern');
      const progress: number[] = [];
      const result = await client.callTool({ name: 'slow_count', arguments: { steps: 3, delayMs: 20 } }, { onprogress: (p) => progress.push(p.progress) });
      expect(JSON.stringify(result)).toContain('counted to 3');
      expect(progress).toEqual([1, 2, 3]);
      await waitFor('the stream to end', () => openExchanges([...hub.store.all()]).length === 0);

      const events = [...hub.store.all()];
      const call = events.find((e) => e.kind === 'http-request' && e.rpc?.method === 'tools/call')!;
      expect(call.http?.headers?.['mcp-method']).toBe('tools/call');
      expect(call.http?.headers?.['mcp-name']).toBe('slow_count');
      const token = call.rpc!.progressToken;
      expect(token).toBeDefined();
      const stream = events.filter((e) => e.exchange === call.exchange);
      expect(new Set(stream.map((e) => e.channel))).toEqual(new Set(['post-sse']));
      const response = stream.find((e) => e.kind === 'http-response')!;
      expect(response.http?.status).toBe(200);
      expect(response.http?.contentType).toMatch(/^text\/event-stream/);
      const sse = stream.filter((e) => e.kind === 'sse-event');
      expect(sse.map((e) => e.rpc?.method ?? e.rpc?.kind)).toEqual(['notifications/progress', 'notifications/progress', 'notifications/progress', 'result']);
      for (const e of sse.slice(0, 3)) expect(e.rpc?.progressToken).toBe(token);
      expect(sse.map((e) => (e.body as { params?: { progress?: number } }).params?.progress).slice(0, 3)).toEqual([1, 2, 3]);
      expect(sse[3]!.rpc?.id).toBe(call.rpc!.id);
      // the modern per-request stream keeps no event store: no priming, no ids
      for (const e of sse) expect(e.sse?.priming).toBeUndefined();
      expect(stream.at(-1)).toMatchObject({ kind: 'http-end', http: { end: 'server-closed' }, meta: { events: 4 } });
      expectGaplessSeq(hub.store.all());

      const snap = snapshot(hub, 'direct');
      expect(snap.channels['post-sse']).toMatchObject({ requests: 1, responses: 1, notifications: 3, openStreams: 0 });
      expect(snap.channels['post-json']).toBeUndefined(); // the provisional count moved to post-sse
      expect(snap.latency['tools/call']!.count).toBe(1);
      expect(snap.latency['tools/call']!.max).toBeGreaterThanOrEqual(3 * 20 * 0.8);
      expect(snap.inFlight).toEqual([]);
      expect(snap.buckets.reduce((sum, b) => sum + (b.messages['post-sse'] ?? 0), 0)).toBe(5);
    } finally {
      await client.close();
      hub.close();
    }
  });
});

// ---------------------------------------------------------------------------------------
// subscriptions/listen against a server whose `touch` tool publishes tools/list_changed

describe('trace: modern era listen stream', () => {
  let httpServer: http.Server | undefined;
  let handler: McpHttpHandler | undefined;

  afterEach(async () => {
    await handler?.close();
    httpServer?.closeAllConnections();
    await new Promise<void>((resolve) => (httpServer ? httpServer.close(() => resolve()) : resolve()));
  });

  it('records the listen exchange: acknowledged, then the change event, then the client closing it', async () => {
    const modern: McpHttpHandler = createMcpHandler(
      () => {
        const server = createEverythingServer({ name: 'listening' });
        server.registerTool('touch', { description: 'Publishes tools/list_changed to listeners.', inputSchema: z.object({}) }, () => {
          modern.notify.toolsChanged();
          return { content: [{ type: 'text', text: 'touched' }] };
        });
        return server;
      },
      { legacy: 'reject' },
    );
    handler = modern;
    const node = toNodeHandler(modern);
    httpServer = http.createServer((req, res) => {
      // flush SSE headers at once (as the fixture does), so the listen fetch resolves before the first event
      const writeHead = res.writeHead.bind(res) as (status: number, headers?: Record<string, string>) => http.ServerResponse;
      res.writeHead = ((status: number, headers?: Record<string, string>) => {
        writeHead(status, headers);
        if ((headers?.['content-type'] ?? '').includes('text/event-stream')) res.flushHeaders();
        return res;
      }) as typeof res.writeHead;
      void node(req, res);
    });
    await new Promise<void>((resolve) => httpServer!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}/mcp`;

    const hub = new TraceHub(undefined);
    const { client, transport } = trackedClient(url, hub, 'listener');
    try {
      await client.connect(transport);
      let changes = 0;
      client.setNotificationHandler('notifications/tools/list_changed', () => {
        changes++;
      });
      const subscription = await client.listen({ toolsListChanged: true });
      expect(subscription.honoredFilter).toMatchObject({ toolsListChanged: true });

      let events = [...hub.store.all()];
      const listen = events.find((e) => e.kind === 'http-request' && e.rpc?.method === 'subscriptions/listen')!;
      expect(listen.channel).toBe('listen');
      expect(listen.http?.headers?.['mcp-method']).toBe('subscriptions/listen');
      const listenResponse = events.find((e) => e.exchange === listen.exchange && e.kind === 'http-response')!;
      expect(listenResponse.http?.status).toBe(200);
      expect(listenResponse.http?.contentType).toMatch(/^text\/event-stream/);
      const listening = snapshot(hub, 'listener');
      expect(listening.channels.listen).toMatchObject({ state: 'open', openStreams: 1, requests: 1 });

      await client.callTool({ name: 'touch', arguments: {} });
      await waitFor('the change notification', () => changes > 0);
      const change = await waitFor('list_changed on the listen stream', () =>
        [...hub.store.all()].find((e) => e.exchange === listen.exchange && e.rpc?.method === 'notifications/tools/list_changed'),
      );
      expect(change.kind).toBe('sse-event');
      expect(change.channel).toBe('listen');
      // the touch call itself went its own way (a plain JSON POST)
      const touch = [...hub.store.all()].find((e) => e.kind === 'http-request' && e.http?.headers?.['mcp-name'] === 'touch')!;
      expect(touch.channel).toBe('post-json');
      expect(touch.exchange).not.toBe(listen.exchange);

      await subscription.close();
      expect(await subscription.closed).toBe('local');
      await waitFor('the listen stream to end', () => [...hub.store.all()].some((e) => e.exchange === listen.exchange && e.kind === 'http-end'));
      events = [...hub.store.all()];
      const listenStream = events.filter((e) => e.exchange === listen.exchange);
      expect(listenStream.filter((e) => e.kind === 'sse-event').map((e) => e.rpc?.method)).toEqual([
        'notifications/subscriptions/acknowledged',
        'notifications/tools/list_changed',
      ]);
      expect(listenStream.at(-1)).toMatchObject({ kind: 'http-end', http: { end: 'client-aborted' } });
      // the close also tells the server, by notifications/cancelled naming the listen request
      const cancelled = await waitFor('notifications/cancelled', () =>
        [...hub.store.all()].find((e) => e.kind === 'http-request' && e.rpc?.method === 'notifications/cancelled'),
      );
      expect((cancelled.body as { params?: { requestId?: unknown } }).params?.requestId).toBe(listen.rpc!.id);

      await waitFor('every exchange to end', () => openExchanges([...hub.store.all()]).length === 0);
      expectGaplessSeq(hub.store.all());
      expectEveryExchangeEndedOnce([...hub.store.all()]);
      const snap = snapshot(hub, 'listener');
      expect(snap.channels.listen).toMatchObject({ requests: 1, notifications: 2, openStreams: 0 });
      expect(snap.channels.listen!.state).not.toBe('open');
      expect(snap.inFlight).toEqual([]); // the cancelled listen request is no longer in flight
      expect(snap.sessions).toEqual([]);
    } finally {
      await client.close();
      hub.close();
    }
  });
});
