/**
 * The trace of a legacy-era (2025 Streamable HTTP, sessionful) connection, recorded by the real
 * tracking fetch under the real SDK client, driven through the core:
 *   - against the "everything" fixture (a separate process): initialize, the session issued,
 *     POST-SSE responses with their priming events, the GET stream, a server notification
 *     on its request's stream, the DELETE at disconnect; sequence and exchange invariants;
 *     the snapshot's counts;
 *   - against a purpose-made in-test server (real HTTP on 127.0.0.1, v2 SDK server transport
 *     with an event store and `retryInterval`) that closes streams on purpose: the client
 *     resumes with GET + Last-Event-ID after the `retry:` delay, and the trace shows it.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { toNodeHandler } from '@modelcontextprotocol/node';
import {
  WebStandardStreamableHTTPServerTransport,
  isInitializeRequest,
  type EventStore,
  type JSONRPCMessage,
} from '@modelcontextprotocol/server';
import * as z from 'zod';

import type { MethodName, Result } from '../../contract';
import type { ServerSnapshot, TraceEvent } from '../../contract/trace';
import { createCore, type Core } from '../../main/core/app';
import { MemorySettingsStore } from '../../main/core/store/settings';
import { startFixture, type RunningFixture } from '../fixtures/everything/harness';
import { createEverythingServer, sleep } from '../fixtures/everything/server';
import { byExchange, waitFor } from './support/trace';

// ---------------------------------------------------------------------------------------
// helpers

async function call<M extends MethodName>(core: Core, method: M, args: unknown): Promise<Result<M>> {
  const envelope = await core.dispatch(method, args);
  if (!envelope.ok) throw new Error(`${method} failed: ${envelope.error.message}`);
  return envelope.result as Result<M>;
}

function serverEvents(core: Core, server: string): TraceEvent[] {
  return [...core.trace.store.all()].filter((e) => e.server === server);
}


async function snapshotOf(core: Core, server: string): Promise<ServerSnapshot> {
  const [snapshot] = await call(core, 'snapshots', { server });
  if (!snapshot) throw new Error(`no snapshot for ${server}`);
  return snapshot as ServerSnapshot;
}

/** Every seq follows the previous one: no gaps, no repeats, from 1. */
function expectGaplessSeq(core: Core): void {
  const all = [...core.trace.store.all()];
  expect(all.length).toBe(core.trace.store.size);
  all.forEach((event, index) => expect(event.seq).toBe(index + 1));
}

/** Exchanges that have a request but no end yet. */
function openExchanges(events: TraceEvent[]): string[] {
  return [...byExchange(events)].filter(([, list]) => list.some((e) => e.kind === 'http-request') && !list.some((e) => e.kind === 'http-end')).map(([x]) => x);
}

/** After everything settled: each exchange with a request has exactly one end, after its request. */
function expectEveryExchangeEndedOnce(events: TraceEvent[]): void {
  for (const [exchange, list] of byExchange(events)) {
    const requests = list.filter((e) => e.kind === 'http-request');
    if (requests.length === 0) continue;
    expect(requests, exchange).toHaveLength(1);
    const ends = list.filter((e) => e.kind === 'http-end');
    expect(ends, `http-end of ${exchange}`).toHaveLength(1);
    expect(ends[0]!.seq).toBeGreaterThan(requests[0]!.seq);
  }
}

/** The fixture's trick, for an in-test server: SSE headers go out at once, not with the first byte. */
function flushSseHeaders(res: http.ServerResponse): void {
  const writeHead = res.writeHead.bind(res) as (status: number, headers?: Record<string, string>) => http.ServerResponse;
  res.writeHead = ((status: number, headers?: Record<string, string>) => {
    writeHead(status, headers);
    const type = headers?.['content-type'] ?? headers?.['Content-Type'] ?? '';
    if (type.includes('text/event-stream')) res.flushHeaders();
    return res;
  }) as typeof res.writeHead;
}

// ---------------------------------------------------------------------------------------

describe('trace: legacy era with sessions (everything fixture, through the core)', () => {
  let fixture: RunningFixture;
  let core: Core;

  beforeAll(async () => {
    fixture = await startFixture({ transport: 'http', era: 'legacy', sessions: true });
  });

  afterAll(async () => {
    await core?.shutdown();
    await fixture?.close();
  });

  it('records initialize, the session, POST-SSE priming, the GET stream, a notification, the DELETE; the snapshot adds up', async () => {
    core = createCore({ settings: new MemorySettingsStore(), carrier: 'browser', version: 't' });
    // a 1 s heartbeat, so pings cross the wire during the test
    const { id } = await call(core, 'addServer', { name: 'legacy', target: { type: 'http', url: fixture.url }, pingIntervalSec: 1 });
    const status = await call(core, 'connectServer', { id });
    expect(status.state, status.error).toBe('connected');
    expect(status.era).toBe('legacy');

    const echo = await call(core, 'callTool', { tool: 'legacy__echo', args: { text: 'hi' } });
    expect(JSON.stringify(echo.result)).toContain('echo: hi');
    const log = await call(core, 'callTool', { tool: 'legacy__log', args: { level: 'warning', message: 'trace me please' } });
    expect(JSON.stringify(log.result)).toContain('ok');
    await call(core, 'callTool', { tool: 'legacy__add', args: { a: 2, b: 3 } });
    const toolCalls = 3;
    await waitFor('a heartbeat ping answered', () => {
      const all = serverEvents(core, id);
      const ping = all.find((e) => e.kind === 'http-request' && e.rpc?.method === 'ping');
      return ping && all.some((e) => e.exchange === ping.exchange && e.kind === 'http-end');
    });

    // --- while connected: the GET stream is the one exchange still open, and the snapshot says so
    // (read synchronously, so no event lands between the trace and the snapshot)
    const [open, live, atThatTime] = await waitFor('the GET stream to be the only open exchange', () => {
      const now = serverEvents(core, id);
      const stillOpen = openExchanges(now);
      const only = stillOpen.length === 1 && byExchange(now).get(stillOpen[0]!)![0]!.channel === 'get';
      return only && ([stillOpen, core.trace.snapshots.snapshot(id)!, now] as const);
    });
    const getExchange = open[0]!;
    const getEvents = byExchange(atThatTime).get(getExchange)!;
    expect(getEvents[0]!.channel).toBe('get');
    expect(live.channels.get?.openStreams).toBe(1);
    expect(live.channels.get?.state).toBe('open');
    const openStreams = Object.values(live.channels).reduce((sum, c) => sum + (c?.openStreams ?? 0), 0);
    expect(openStreams).toBe(open.length);
    // nothing in flight while connected: the discovery probe the legacy server rejected (HTTP 400,
    // error id null) is over, not pending for the life of the connection
    expect(live.inFlight).toEqual([]);

    await call(core, 'disconnectServer', { id });
    await waitFor('every exchange to end', () => openExchanges(serverEvents(core, id)).length === 0);
    const events = serverEvents(core, id);
    const exchanges = byExchange(events);

    // --- initialize: a POST whose response issues the session
    const init = events.find((e) => e.kind === 'http-request' && e.rpc?.method === 'initialize')!;
    expect(init).toBeDefined();
    expect(init.http?.method).toBe('POST');
    expect(init.http?.headers?.['mcp-session-id']).toBeUndefined();
    const initResponse = exchanges.get(init.exchange!)!.find((e) => e.kind === 'http-response')!;
    const sessionId = initResponse.http?.headers?.['mcp-session-id'];
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const issued = events.filter((e) => e.kind === 'session' && e.meta?.event === 'issued');
    expect(issued).toHaveLength(1);
    expect(issued[0]!.meta?.sessionId).toBe(sessionId);
    expect(issued[0]!.session).toBe(sessionId);
    expect(issued[0]!.seq).toBeGreaterThan(initResponse.seq);

    // every later request carries the session
    for (const request of events.filter((e) => e.kind === 'http-request' && e.seq > init.seq)) {
      expect(request.http?.headers?.['mcp-session-id'], `${request.http?.method} ${request.rpc?.method ?? ''}`).toBe(sessionId);
    }

    // --- POST-SSE responses: the first event primes (id, no data), the others carry ids
    const postSse = [...exchanges.values()].filter((list) => list[0]!.channel === 'post-sse');
    const postSseMethods = postSse.map((list) => list[0]!.rpc?.method);
    // initialize, the lists the core fetches, the tool calls, the heartbeat pings: all answered over SSE
    expect(postSseMethods.filter((m) => m === 'tools/call')).toHaveLength(toolCalls);
    expect(postSseMethods).toEqual(expect.arrayContaining(['initialize', 'tools/list', 'ping']));
    expect(postSseMethods.every((m) => m !== undefined)).toBe(true);
    for (const list of postSse) {
      const response = list.find((e) => e.kind === 'http-response')!;
      expect(response.http?.status).toBe(200);
      expect(response.http?.contentType).toMatch(/^text\/event-stream/);
      const sse = list.filter((e) => e.kind === 'sse-event');
      expect(sse.length).toBeGreaterThanOrEqual(2);
      expect(sse[0]!.sse?.priming).toBe(true);
      expect(sse[0]!.sse?.id).toBeTruthy();
      expect(sse[0]!.body).toBeUndefined();
      for (const event of sse.slice(1)) {
        expect(event.sse?.id).toBeTruthy();
        expect(event.sse?.priming).toBeUndefined();
        expect(event.rpc).toBeDefined();
      }
      // the response to the request is the last event, and the stream then ends server-side
      const request = list.find((e) => e.kind === 'http-request')!;
      expect(sse.at(-1)!.rpc).toMatchObject({ kind: 'result', id: request.rpc!.id });
      const end = list.find((e) => e.kind === 'http-end')!;
      expect(end.http?.end).toBe('server-closed');
      expect(end.meta?.events).toBe(sse.length);
    }
    // ids grow along the stream (the fixture's event store numbers them)
    const ids = postSse.flatMap((list) => list.filter((e) => e.kind === 'sse-event').map((e) => Number(e.sse!.id!.split('::')[1])));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));

    // --- the log notification: on the log call's own POST-SSE stream, before its result
    const logRequest = events.find((e) => e.kind === 'http-request' && e.rpc?.method === 'tools/call' && (e.body as { params?: { name?: string } } | undefined)?.params?.name === 'log')!;
    const logStream = exchanges.get(logRequest.exchange!)!.filter((e) => e.kind === 'sse-event');
    const notification = logStream.find((e) => e.rpc?.method === 'notifications/message')!;
    expect(notification).toBeDefined();
    expect(notification.channel).toBe('post-sse');
    expect(notification.rpc?.kind).toBe('notification');
    expect(notification.sse?.id).toBeTruthy();
    expect(notification.body).toMatchObject({ params: { level: 'warning', data: 'trace me please' } });
    expect(notification.seq).toBeLessThan(logStream.find((e) => e.rpc?.kind === 'result')!.seq);

    // --- the GET stream: 200, text/event-stream, opened after notifications/initialized
    const getRequest = getEvents.find((e) => e.kind === 'http-request')!;
    expect(getRequest.http?.method).toBe('GET');
    expect(getRequest.http?.headers?.accept).toContain('text/event-stream');
    const getResponse = exchanges.get(getExchange)!.find((e) => e.kind === 'http-response')!;
    expect(getResponse.http?.status).toBe(200);
    expect(getResponse.http?.contentType).toMatch(/^text\/event-stream/);
    const initialized = events.find((e) => e.kind === 'http-request' && e.rpc?.method === 'notifications/initialized')!;
    expect(initialized.channel).toBe('post-json');
    expect(getRequest.seq).toBeGreaterThan(initialized.seq);
    expect(exchanges.get(getExchange)!.find((e) => e.kind === 'http-end')!.http?.end).toMatch(/server-closed|client-aborted/);

    // --- the DELETE at disconnect ends the session
    const del = [...exchanges.values()].find((list) => list[0]!.channel === 'delete')!;
    expect(del).toBeDefined();
    const delRequest = del.find((e) => e.kind === 'http-request')!;
    expect(delRequest.http?.method).toBe('DELETE');
    expect(delRequest.http?.headers?.['mcp-session-id']).toBe(sessionId);
    expect(del.find((e) => e.kind === 'http-response')!.http?.status).toBe(200);
    const terminated = events.filter((e) => e.kind === 'session' && e.meta?.event === 'terminated');
    expect(terminated).toHaveLength(1);
    expect(terminated[0]!.meta).toMatchObject({ sessionId, status: 200 });

    // --- invariants
    expectGaplessSeq(core);
    expectEveryExchangeEndedOnce(events);

    // --- the snapshot agrees with what was done
    const snapshot = await snapshotOf(core, id);
    expect(snapshot.era).toBe('legacy');
    const pings = postSseMethods.filter((m) => m === 'ping').length;
    const requestsMade = postSse.length - pings;
    // pings are counted as pings (request and answer), never as requests or responses
    expect(snapshot.channels['post-sse']).toMatchObject({ requests: requestsMade, responses: requestsMade, pings: 2 * pings, openStreams: 0 });
    expect(snapshot.pingRtt?.count).toBe(pings);
    expect(snapshot.pingRtt!.last).toBeGreaterThan(0);
    expect(snapshot.latency.ping).toBeUndefined();
    expect(snapshot.channels['post-sse']!.notifications).toBeGreaterThanOrEqual(1); // the log message
    expect(snapshot.channels['post-json']).toMatchObject({ requests: 0, responses: 0, notifications: 1 });
    expect(snapshot.channels.get).toMatchObject({ requests: 0, responses: 0, openStreams: 0, lastStatus: 200 });
    expect(snapshot.channels.delete).toMatchObject({ lastStatus: 200 });
    expect(snapshot.latency['tools/call']!.count).toBe(toolCalls);
    expect(snapshot.latency.initialize!.count).toBe(1);
    expect(snapshot.latency['tools/call']!.max).toBeGreaterThan(0);
    expect(snapshot.inFlight).toEqual([]);
    expect(snapshot.sessions).toEqual([expect.objectContaining({ id: sessionId, endReason: 'terminated' })]);
    expect(snapshot.buckets.length).toBeGreaterThan(0);
    // the buckets count each message under the channel the stats name (a POST answered with SSE is post-sse)
    for (const channel of ['post-sse', 'post-json', 'get'] as const) {
      const stats = snapshot.channels[channel]!;
      const inBuckets = snapshot.buckets.reduce((sum, b) => sum + (b.messages[channel] ?? 0), 0);
      expect(inBuckets, channel).toBe(stats.requests + stats.responses + stats.notifications + stats.pings);
    }
    expect(snapshot.buckets.flatMap((b) => b.latency['tools/call'] ?? [])).toHaveLength(toolCalls);
  });
});

// ---------------------------------------------------------------------------------------
// Resumption: a server that closes streams after `retry:`

const RETRY_MS = 700;

/** Events kept per stream, replayable after an id (the shape the SDK's server transport wants). */
class MemoryEventStore implements EventStore {
  private readonly events = new Map<string, { streamId: string; message: JSONRPCMessage }>();
  private counter = 0;

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const id = `${streamId}::${++this.counter}`;
    this.events.set(id, { streamId, message });
    return id;
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return this.events.get(eventId)?.streamId;
  }

  async replayEventsAfter(lastEventId: string, { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> }): Promise<string> {
    const last = this.events.get(lastEventId);
    if (!last) return '';
    let after = false;
    for (const [id, { streamId, message }] of this.events) {
      if (id === lastEventId) after = true;
      else if (after && streamId === last.streamId && 'jsonrpc' in message) await send(id, message);
    }
    return last.streamId;
  }
}

interface ResumableServer {
  url: string;
  close(): Promise<void>;
}

/**
 * A sessionful 2025-era server (same routing as the fixture's) with three extra tools:
 * `announce` (tools/list_changed, which goes out on the GET stream), `drop_get` (closes the GET
 * stream) and `pause` (logs, closes its own POST stream, answers later).
 */
async function startResumableServer(): Promise<ResumableServer> {
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const error = (status: number, code: number, message: string) => Response.json({ jsonrpc: '2.0', error: { code, message }, id: null }, { status });
  const handler = {
    async fetch(request: Request): Promise<Response> {
      const sessionId = request.headers.get('mcp-session-id');
      if (sessionId) {
        const transport = sessions.get(sessionId);
        return transport ? transport.handleRequest(request) : error(404, -32001, 'Session not found');
      }
      if (request.method !== 'POST') return error(400, -32000, 'Bad Request: Mcp-Session-Id header is required');
      const body: unknown = await request.clone().json();
      if (!isInitializeRequest(body)) return error(400, -32000, 'Bad Request: No valid session ID provided');

      const server = createEverythingServer({ name: 'resumable' });
      server.registerTool('announce', { description: 'Sends tools/list_changed (GET stream).', inputSchema: z.object({}) }, async () => {
        await server.sendToolListChanged();
        return { content: [{ type: 'text', text: 'announced' }] };
      });
      server.registerTool('drop_get', { description: 'Closes the GET stream.', inputSchema: z.object({}) }, async (_args, ctx) => {
        if (!ctx.http?.closeStandaloneSSE) throw new Error('closeStandaloneSSE unavailable');
        ctx.http.closeStandaloneSSE();
        return { content: [{ type: 'text', text: 'dropped' }] };
      });
      server.registerTool('pause', { description: 'Logs, closes its own stream, answers later.', inputSchema: z.object({}) }, async (_args, ctx) => {
        if (!ctx.http?.closeSSE) throw new Error('closeSSE unavailable');
        await ctx.mcpReq.log('info', 'before the break');
        await sleep(30);
        ctx.http.closeSSE();
        await sleep(150);
        return { content: [{ type: 'text', text: 'resumed' }] };
      });
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        eventStore: new MemoryEventStore(),
        retryInterval: RETRY_MS,
        onsessioninitialized: (id) => void sessions.set(id, transport),
        onsessionclosed: (id) => void sessions.delete(id),
      });
      await server.connect(transport);
      return transport.handleRequest(request, { parsedBody: body });
    },
  };
  const node = toNodeHandler(handler);
  const httpServer = http.createServer((req, res) => {
    flushSseHeaders(res);
    void node(req, res);
  });
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  const { port } = httpServer.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    async close() {
      await Promise.allSettled([...sessions.values()].map((t) => t.close()));
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}

describe('trace: legacy era resumption (in-test server closing streams after retry:)', () => {
  let server: ResumableServer | undefined;
  let core: Core | undefined;

  afterEach(async () => {
    await core?.shutdown();
    await server?.close();
  });

  it('reconnects GET + Last-Event-ID after the retry delay, for the GET stream and for a POST stream', async () => {
    server = await startResumableServer();
    core = createCore({ settings: new MemorySettingsStore(), carrier: 'browser', version: 't' });
    const c = core;
    const { id } = await call(c, 'addServer', { name: 'resumable', target: { type: 'http', url: server.url } });
    expect((await call(c, 'connectServer', { id })).state).toBe('connected');

    // 1. A notification on the GET stream, event by event, with its id
    await call(c, 'callTool', { tool: 'resumable__announce', args: {} });
    const listChanged = await waitFor('list_changed on the GET stream', () =>
      serverEvents(c, id).find((e) => e.kind === 'sse-event' && e.rpc?.method === 'notifications/tools/list_changed'),
    );
    expect(listChanged.channel).toBe('get');
    expect(listChanged.rpc?.kind).toBe('notification');
    expect(listChanged.sse?.id).toBeTruthy();
    const getExchange = listChanged.exchange!;

    // 2. The server drops the GET stream: the client resumes it with the last id it saw there
    await call(c, 'callTool', { tool: 'resumable__drop_get', args: {} });
    const getResume = await waitFor('GET resumption', () =>
      serverEvents(c, id).find((e) => e.kind === 'http-response' && e.channel === 'resumption'),
    );
    let events = serverEvents(c, id);
    const getEnd = events.find((e) => e.exchange === getExchange && e.kind === 'http-end')!;
    expect(getEnd.http?.end).toBe('server-closed');
    const lastOnGet = events.filter((e) => e.exchange === getExchange && e.sse?.id).at(-1)!.sse!.id;
    const getResumeRequest = events.find((e) => e.exchange === getResume.exchange && e.kind === 'http-request')!;
    expect(getResumeRequest.http?.method).toBe('GET');
    expect(getResumeRequest.http?.headers?.['last-event-id']).toBe(lastOnGet);
    expect(getResume.http?.status).toBe(200);
    expect(getResume.http?.contentType).toMatch(/^text\/event-stream/);
    const getGap = getResumeRequest.ts - getEnd.ts;
    expect(getGap).toBeGreaterThanOrEqual(0.8 * RETRY_MS);
    expect(getGap).toBeLessThan(RETRY_MS + 1500);

    // the resumed stream goes on carrying notifications
    await call(c, 'callTool', { tool: 'resumable__announce', args: {} });
    const second = await waitFor('list_changed on the resumed stream', () =>
      serverEvents(c, id).find((e) => e.exchange === getResume.exchange && e.rpc?.method === 'notifications/tools/list_changed'),
    );
    expect(second.channel).toBe('resumption');

    // 3. A POST stream closed after its priming event (with retry:) and a log notification
    const pause = await call(c, 'callTool', { tool: 'resumable__pause', args: {} });
    expect(JSON.stringify(pause.result)).toContain('resumed');
    events = serverEvents(c, id);
    const pauseRequest = events.find((e) => e.kind === 'http-request' && (e.body as { params?: { name?: string } } | undefined)?.params?.name === 'pause')!;
    const pauseStream = events.filter((e) => e.exchange === pauseRequest.exchange);
    expect(pauseStream[0]!.channel).toBe('post-sse');
    expect(pauseStream.find((e) => e.kind === 'sse-retry')!.sse?.retry).toBe(RETRY_MS);
    const pauseSse = pauseStream.filter((e) => e.kind === 'sse-event');
    expect(pauseSse[0]!.sse?.priming).toBe(true);
    expect(pauseSse.map((e) => e.rpc?.method ?? e.rpc?.kind ?? 'priming')).toEqual(['priming', 'notifications/message']);
    const pauseEnd = pauseStream.find((e) => e.kind === 'http-end')!;
    expect(pauseEnd.http?.end).toBe('server-closed');
    const lastOnPost = pauseSse.at(-1)!.sse!.id!;

    const resumptions = [...byExchange(events).values()].filter((list) => list[0]!.channel === 'resumption');
    expect(resumptions).toHaveLength(2);
    const postResume = resumptions.find((list) => list[0]!.http?.headers?.['last-event-id'] === lastOnPost)!;
    expect(postResume, `a resumption with Last-Event-ID ${lastOnPost}`).toBeDefined();
    const postResumeRequest = postResume.find((e) => e.kind === 'http-request')!;
    expect(postResumeRequest.http?.method).toBe('GET');
    expect(postResumeRequest.seq).toBeGreaterThan(pauseEnd.seq);
    const postGap = postResumeRequest.ts - pauseEnd.ts;
    expect(postGap).toBeGreaterThanOrEqual(0.8 * RETRY_MS);
    expect(postGap).toBeLessThan(RETRY_MS + 1500);
    // the answer to the paused call arrives on the resumed stream, with the original id
    const result = postResume.find((e) => e.kind === 'sse-event' && e.rpc?.kind === 'result')!;
    expect(result.rpc?.id).toBe(pauseRequest.rpc?.id);
    expect(result.body).toMatchObject({ result: { content: [{ text: 'resumed' }] } });

    // the snapshot: every request answered, the paused one on the resumption channel
    const live = await snapshotOf(c, id);
    expect(live.inFlight).toEqual([]);
    expect(live.channels.resumption).toMatchObject({ responses: 1, requests: 0 });
    const requests = Object.values(live.channels).reduce((sum, ch) => sum + (ch?.requests ?? 0), 0);
    const responses = Object.values(live.channels).reduce((sum, ch) => sum + (ch?.responses ?? 0), 0);
    // the discovery probe is answered with an error, not a result: everything else has its response
    expect(live.channels.discovery).toMatchObject({ requests: 1, responses: 0 });
    expect(responses).toBe(requests - 1);
    expect(live.latency['tools/call']!.count).toBe(4);
    expect(live.latency['tools/call']!.max).toBeGreaterThanOrEqual(0.8 * RETRY_MS);

    await call(c, 'disconnectServer', { id });
    await waitFor('every exchange to end', () => openExchanges(serverEvents(c, id)).length === 0);
    expectGaplessSeq(c);
    expectEveryExchangeEndedOnce(serverEvents(c, id));
    expect(serverEvents(c, id).filter((e) => e.kind === 'session').map((e) => e.meta?.event)).toEqual(['issued', 'terminated']);
  });
});
