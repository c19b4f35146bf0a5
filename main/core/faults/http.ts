/**
 * Faults on an HTTP exchange (#12): one function, `serveWithFaults`, that the fault lab
 * (test/fixtures/flaky-server/http.ts) and the HTTP recording proxy both call around their
 * `route(Request) → Response` (the lab: its MCP server; the proxy: the upstream, through the
 * tracking fetch). The node side is hand-written because most faults act on the raw socket:
 * partial bodies, resets, stalls, SSE surgery.
 *
 * Order: session expiry (proxy) → latency → terminal faults (http-error, unauthorized, forbidden,
 * malformed, stall: the route never runs) → route → reset | sse-cut | flood | pipe, with
 * drop-notifications filtering every SSE answer. A plain pipe keeps the bytes and honours
 * backpressure; with drop-notifications the SSE events that are kept are forwarded byte for byte.
 */
import type http from 'node:http';

import { MAX_MESSAGE_BYTES } from '../transport/limits';
import type { AppliedFault, FaultEngine, FaultOf, FaultPlan, FaultType, RequestInfo, ScopedFault } from './engine';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------
// Node <-> web plumbing
// ---------------------------------------------------------------------------

export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`request body larger than ${limit} bytes`);
    this.name = 'BodyTooLargeError';
  }
}

/** Reads a request body, at most `maxBytes` (default the one-message limit, docs/limits.md). */
export async function readBody(req: http.IncomingMessage, maxBytes = MAX_MESSAGE_BYTES): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      req.resume();
      throw new BodyTooLargeError(maxBytes);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** Parses a body as JSON, or undefined (empty, not JSON). */
export function parseJsonBody(body: Buffer | undefined): unknown {
  if (body === undefined || body.length === 0) return undefined;
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

export function toWebRequest(req: http.IncomingMessage, url: URL, body: Buffer | undefined, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [key, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) headers.append(key, v);
    else headers.set(key, value);
  }
  const method = req.method ?? 'GET';
  return new Request(url, {
    method,
    headers,
    signal,
    ...(body !== undefined && body.length > 0 && method !== 'GET' && method !== 'HEAD' && { body: new Uint8Array(body) }),
  });
}

/** Response headers as Node's `writeHead` takes them (Set-Cookie as a list). */
export type HeaderMap = Record<string, string | string[]>;

/** Hop-by-hop headers (RFC 9110 §7.6.1): never forwarded. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

/**
 * The headers of a web Response as they may be written to the client: without hop-by-hop headers
 * (and those `Connection` names), and, when the response was content-encoded, without
 * `content-encoding`/`content-length` (a fetch() body arrives decoded).
 */
export function forwardableHeaders(response: Response): HeaderMap {
  const out: HeaderMap = {};
  const named = new Set((response.headers.get('connection') ?? '').split(',').map((s) => s.trim().toLowerCase()).filter(Boolean));
  response.headers.forEach((value, key) => {
    if (HOP_BY_HOP.has(key) || named.has(key) || key === 'set-cookie') return;
    out[key] = value;
  });
  // Each Set-Cookie on its own (joined, they would not parse).
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) out['set-cookie'] = cookies;
  const encoding = out['content-encoding'];
  if (typeof encoding === 'string' && encoding.toLowerCase() !== 'identity') {
    delete out['content-encoding'];
    delete out['content-length'];
  }
  return out;
}

function isSse(response: Response): boolean {
  return (response.headers.get('content-type') ?? '').includes('text/event-stream');
}

function isJson(response: Response): boolean {
  return (response.headers.get('content-type') ?? '').includes('application/json');
}

async function write(res: http.ServerResponse, chunk: string | Uint8Array): Promise<void> {
  if (res.destroyed) return;
  if (res.write(chunk)) return;
  await new Promise<void>((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

function writeHead(res: http.ServerResponse, response: Response, headers: HeaderMap): void {
  if (response.statusText) res.writeHead(response.status, response.statusText, headers);
  else res.writeHead(response.status, headers);
}

/** Wait until what was written so far has been flushed to the kernel, plus a beat for the peer to read it. */
async function settle(res: http.ServerResponse): Promise<void> {
  if (!res.destroyed) await new Promise<void>((resolve) => res.write('', () => resolve()));
  await sleep(40);
}

function resetSocket(res: http.ServerResponse): void {
  const socket = res.socket;
  if (!socket) return;
  if (typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
  else socket.destroy();
}

/** Reads a web body chunk by chunk, cancelling it when the client goes away. */
async function* chunksOf(body: ReadableStream<Uint8Array>, res: http.ServerResponse): AsyncGenerator<Uint8Array> {
  const reader = body.getReader();
  const onClose = (): void => void reader.cancel().catch(() => {});
  res.once('close', onClose);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } catch {
    // upstream errored, or was cancelled because the client left
  } finally {
    res.off('close', onClose);
    void reader.cancel().catch(() => {});
  }
}

// ---------------------------------------------------------------------------
// SSE events, byte for byte
// ---------------------------------------------------------------------------

const LF = 0x0a;
const CR = 0x0d;

/**
 * Splits an SSE body into its raw blocks (an event with the blank line that ends it), without
 * touching a byte: LF, CRLF and CR line endings are all understood. A block over `maxBytes` is
 * yielded as it stands (and then the rest of it), never buffered without bound.
 */
export async function* sseRawBlocks(chunks: AsyncIterable<Uint8Array>, maxBytes = MAX_MESSAGE_BYTES): AsyncGenerator<Buffer> {
  let buf = Buffer.alloc(0);
  let lineStart = 0;
  let scan = 0;
  for await (const chunk of chunks) {
    buf = buf.length === 0 ? Buffer.from(chunk) : Buffer.concat([buf, chunk]);
    let i = scan;
    while (i < buf.length) {
      const b = buf[i]!;
      let next: number;
      if (b === LF) next = i + 1;
      else if (b === CR) {
        if (i + 1 >= buf.length) break; // CR LF may straddle chunks
        next = buf[i + 1] === LF ? i + 2 : i + 1;
      } else {
        i += 1;
        continue;
      }
      if (i === lineStart) {
        yield buf.subarray(0, next);
        buf = buf.subarray(next);
        i = 0;
        lineStart = 0;
        continue;
      }
      lineStart = next;
      i = next;
    }
    scan = i;
    if (buf.length > maxBytes) {
      yield buf;
      buf = Buffer.alloc(0);
      lineStart = 0;
      scan = 0;
    }
  }
  if (buf.length > 0) yield buf;
}

/** The text of a block with its line endings as LF. */
function blockText(block: Buffer): string {
  return block.toString('utf8').replace(/\r\n?/g, '\n');
}

function blockData(text: string): unknown {
  const data = text
    .split('\n')
    .filter((l) => l.startsWith('data:'))
    .map((l) => l.slice(5).replace(/^ /, ''))
    .join('\n');
  if (data.trim() === '') return undefined;
  try {
    return JSON.parse(data);
  } catch {
    return undefined;
  }
}

function isCommentBlock(text: string): boolean {
  return text
    .split('\n')
    .filter((l) => l.length > 0)
    .every((l) => l.startsWith(':'));
}

function isResponseBlock(text: string): boolean {
  const data = blockData(text);
  const messages = Array.isArray(data) ? data : [data];
  return messages.some((m) => m !== null && typeof m === 'object' && 'id' in m && ('result' in m || 'error' in m) && !('method' in m));
}

/** The method of the JSON-RPC notification a block carries (not a batch), if it carries one. */
function notificationOf(block: Buffer): string | undefined {
  if (block.length > MAX_MESSAGE_BYTES) return undefined;
  const data = blockData(blockText(block));
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return undefined;
  const m = data as { method?: unknown; id?: unknown };
  return typeof m.method === 'string' && m.id === undefined ? m.method : undefined;
}

/** Raw SSE blocks of a response (SSE as is; a JSON answer as one synthesized block), minus dropped notifications. */
async function* answerBlocks(response: Response, res: http.ServerResponse, drop: (block: Buffer) => boolean): AsyncGenerator<Buffer> {
  if (response.body === null) return;
  if (!isSse(response)) {
    const body = (await response.text()).replace(/\r\n/g, '\n');
    yield Buffer.from(`event: message\n${body.split('\n').map((line) => `data: ${line}`).join('\n')}\n\n`);
    return;
  }
  for await (const block of sseRawBlocks(chunksOf(response.body, res))) {
    if (!drop(block)) yield block;
  }
}

function sseHeaders(headers: HeaderMap): HeaderMap {
  const out = { ...headers };
  delete out['content-length'];
  out['content-type'] = 'text/event-stream';
  out['cache-control'] = 'no-cache';
  return out;
}

/** Is there an SSE (or SSE-able) body to operate on? */
function sseCapable(response: Response, info: RequestInfo): boolean {
  if (response.status !== 200 || response.body === null) return false;
  return isSse(response) || (isJson(response) && info.acceptsSse);
}

// ---------------------------------------------------------------------------
// Applying a plan
// ---------------------------------------------------------------------------

export interface ServeWithFaultsOptions {
  req: http.IncomingMessage;
  res: http.ServerResponse;
  /** The URL the web Request carries (the route maps it). */
  url: URL;
  /** The request body, already read (POST), or undefined. */
  body: Buffer | undefined;
  info: RequestInfo;
  plan: FaultPlan;
  /** The engine the plan came from (drop-notifications counts its hits there). */
  engine: FaultEngine;
  route: (request: Request) => Promise<Response>;
  /** The `logger` of flood notifications (`<name>/lab-flood`). */
  name: string;
  /** Who injected, in made-up bodies ("flaky-lab", "switchboard proxy"). */
  label?: string;
  /** Responses stalled open (the lab counts them). */
  stalled?: Set<http.ServerResponse>;
  /** The proxy's session expiry; absent in the lab (which expires its own sessions). */
  expiry?: SessionExpiry;
  /** After the latency, as the request is handled (the lab fires its storms here). */
  onHandled?: () => void;
  /** Every fault applied (once per request; drop-notifications once per notification dropped). */
  onApplied?: (applied: AppliedFault) => void;
  /** The response headers as written to the client (default forwardableHeaders). */
  responseHeaders?: (response: Response) => HeaderMap;
}

const TERMINAL: ReadonlySet<string> = new Set(['http-error', 'unauthorized', 'forbidden', 'malformed', 'stall']);

/**
 * Applies a plan to one exchange; resolves once the answer is written (or abandoned by a fault).
 * Rejects when the route does (an unreachable upstream): the caller answers that (the proxy: 502).
 */
export async function serveWithFaults(o: ServeWithFaultsOptions): Promise<void> {
  const { req, res, info, plan } = o;
  const label = o.label ?? 'flaky-lab';
  const applied = (a: Omit<AppliedFault, 'rpcId' | 'method' | 'sessionId'> & Partial<AppliedFault>): void => {
    try {
      o.onApplied?.({ rpcId: info.ids[0], method: info.methods[0], ...(info.sessionId !== undefined && { sessionId: info.sessionId }), ...a });
    } catch {
      // recording a fault never breaks the exchange
    }
  };
  if (o.expiry?.intercept(o, applied)) return;

  const idOf = (type: FaultType): number | undefined => plan.appliedIds[plan.applied.lastIndexOf(type)];
  if (plan.latencyMs > 0) {
    applied({ type: 'latency', faultId: idOf('latency'), detail: `delayed ${plan.latencyMs} ms` });
    await sleep(plan.latencyMs);
    if (res.destroyed) return;
  }
  o.onHandled?.();
  const action = plan.action;
  if (action) applied({ type: action.type, faultId: idOf(action.type), detail: describeAction(action) });
  if (action && TERMINAL.has(action.type)) {
    try {
      writeTerminal(res, action, info, label, o.stalled);
    } catch (error) {
      // A header value the fault spec made invalid (a control character, say): say so instead.
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end(`${label}: the ${action.type} fault could not be written: ${(error as Error).message}\n`);
      else res.destroy();
    }
    return;
  }

  const abort = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) abort.abort();
  });
  const response = await o.route(toWebRequest(req, o.url, o.body, abort.signal));
  if (res.destroyed) {
    void response.body?.cancel().catch(() => {});
    return;
  }
  const headers = (o.responseHeaders ?? forwardableHeaders)(response);
  if (isSse(response)) o.expiry?.watch(info.sessionId, res);

  const drop = (block: Buffer): boolean => {
    if (plan.dropNotifications.length === 0) return false;
    const method = notificationOf(block);
    if (method === undefined) return false;
    const id = o.engine.dropNotification(plan, method);
    if (id === undefined) return false;
    applied({ type: 'drop-notifications', faultId: id, method, detail: `dropped ${method.slice(0, 200)}` });
    return true;
  };

  const answer: Answer = { res, response, headers, drop, abortUpstream: () => abort.abort() };
  if (action?.type === 'reset') return writeReset(answer, action);
  if (action?.type === 'sse-cut' && sseCapable(response, info)) return writeSseCut(answer, action, info);
  if (action?.type === 'flood' && sseCapable(response, info)) return writeFlood(answer, action, o.name);
  if (plan.dropNotifications.length > 0 && isSse(response) && response.body !== null) return pipeSse(answer);
  return pipeResponse(res, response, headers);
}

function describeAction(fault: ScopedFault): string {
  switch (fault.type) {
    case 'http-error':
      return `answered HTTP ${fault.status}`;
    case 'reset':
      return fault.phase === 'before-headers' ? 'connection reset before the headers' : `connection reset after ${fault.afterBytes} body bytes`;
    case 'sse-cut':
      return fault.afterEvents !== undefined ? `SSE stream cut after ${fault.afterEvents} events` : 'SSE stream cut before the response';
    case 'unauthorized':
      return 'answered 401';
    case 'forbidden':
      return `answered 403 (scope ${fault.scope})`;
    case 'malformed':
      return `malformed answer (${fault.variant})`;
    case 'stall':
      return fault.headers ? 'stalled after the headers' : 'stalled (nothing sent)';
    case 'flood':
      return `${fault.count} notifications/message before the answer`;
    default:
      return fault.type;
  }
}

/** Plain pass-through of a web Response, with backpressure; stops when the client goes away. */
async function pipeResponse(res: http.ServerResponse, response: Response, headers: HeaderMap): Promise<void> {
  writeHead(res, response, headers);
  if (isSse(response)) res.flushHeaders();
  if (response.body === null) {
    res.end();
    return;
  }
  for await (const chunk of chunksOf(response.body, res)) {
    await write(res, chunk);
    if (res.destroyed) break;
  }
  if (!res.destroyed) res.end();
}

/** The route's answer on its way to the client. */
interface Answer {
  res: http.ServerResponse;
  response: Response;
  /** The headers to write (forwardable). */
  headers: HeaderMap;
  /** true: this SSE block is a notification drop-notifications takes out. */
  drop: (block: Buffer) => boolean;
  /**
   * Ends the request upstream (the route's signal). A cut stream must end there too: a server
   * that still holds the stream open refuses the client's resumption ("Stream already has an
   * active connection") until its answer is done, and the recording's reader would keep it open.
   */
  abortUpstream: () => void;
}

/** An SSE answer event by event, the kept ones byte for byte. */
async function pipeSse({ res, response, headers, drop }: Answer): Promise<void> {
  writeHead(res, response, headers);
  res.flushHeaders();
  for await (const block of answerBlocks(response, res, drop)) {
    await write(res, block);
    if (res.destroyed) return;
  }
  if (!res.destroyed) res.end();
}

let syntheticEventId = 0;

async function writeSseCut({ res, response, headers, drop, abortUpstream }: Answer, fault: FaultOf<'sse-cut'>, info: RequestInfo): Promise<void> {
  res.writeHead(200, sseHeaders(headers));
  res.flushHeaders();
  // GET streams carry no response: cut after the first event unless told otherwise.
  const afterEvents = fault.afterEvents ?? (info.http === 'GET' ? 1 : undefined);
  const blocks = answerBlocks(response, res, drop);
  let forwarded = 0;
  let next: string | undefined;
  let cut = false;
  try {
    for (;;) {
      if (afterEvents !== undefined && forwarded >= afterEvents) {
        cut = true;
        if (fault.partial) {
          const step = await blocks.next();
          next = step.done ? undefined : blockText(step.value);
        }
        break;
      }
      const step = await blocks.next();
      if (step.done) break;
      const text = blockText(step.value);
      if (isCommentBlock(text)) {
        await write(res, step.value);
        continue;
      }
      if (afterEvents === undefined && isResponseBlock(text)) {
        cut = true;
        next = text;
        break;
      }
      let out = text;
      if (!fault.eventIds) out = text.replace(/^id:.*\n/gm, '');
      else if (!/^id:/m.test(text)) out = `id: lab-${++syntheticEventId}\n${text}`;
      await write(res, out);
      forwarded += 1;
    }
  } finally {
    void blocks.return(undefined);
  }
  if (res.destroyed) return;
  if (!cut) {
    res.end();
    return;
  }
  // Before the client hears the stream end (and comes back for the rest).
  abortUpstream();
  if (fault.retryMs !== undefined) await write(res, `retry: ${fault.retryMs}\n\n`);
  if (fault.partial && next !== undefined) {
    const partial = fault.eventIds ? next : next.replace(/^id:.*\n/gm, '');
    await write(res, partial.slice(0, Math.max(1, Math.floor(partial.length / 2))));
  }
  if (fault.how === 'reset') {
    await settle(res);
    resetSocket(res);
  } else {
    res.end();
  }
}

async function writeFlood({ res, response, headers, drop }: Answer, fault: FaultOf<'flood'>, name: string): Promise<void> {
  res.writeHead(200, sseHeaders(headers));
  res.flushHeaders();
  for (let i = 1; i <= fault.count; i++) {
    const notification = {
      jsonrpc: '2.0',
      method: 'notifications/message',
      params: { level: fault.level, logger: `${name}/lab-flood`, data: `flood ${i}/${fault.count}` },
    };
    await write(res, `event: message\ndata: ${JSON.stringify(notification)}\n\n`);
    if (res.destroyed) {
      void response.body?.cancel().catch(() => {});
      return;
    }
  }
  for await (const block of answerBlocks(response, res, drop)) {
    await write(res, block);
    if (res.destroyed) return;
  }
  res.end();
}

async function writeReset({ res, response, headers }: Answer, fault: FaultOf<'reset'>): Promise<void> {
  if (fault.phase === 'before-headers') {
    void response.body?.cancel().catch(() => {});
    resetSocket(res);
    return;
  }
  const out = { ...headers };
  delete out['content-length'];
  writeHead(res, response, out);
  res.flushHeaders();
  let written = 0;
  if (response.body !== null && fault.afterBytes > 0) {
    for await (const value of chunksOf(response.body, res)) {
      const slice = value.subarray(0, fault.afterBytes - written);
      await write(res, slice);
      written += slice.length;
      if (written >= fault.afterBytes) break;
    }
  } else {
    void response.body?.cancel().catch(() => {});
  }
  await settle(res);
  resetSocket(res);
}

// ---------------------------------------------------------------------------
// Terminal faults (the route never sees the request)
// ---------------------------------------------------------------------------

function writeTerminal(res: http.ServerResponse, fault: ScopedFault, info: RequestInfo, label: string, stalled: Set<http.ServerResponse> | undefined): void {
  switch (fault.type) {
    case 'http-error': {
      const headers: Record<string, string> = { 'content-type': fault.contentType };
      const retryAfter = fault.retryAfter ?? (fault.status === 503 || fault.status === 429 ? 1 : undefined);
      if (retryAfter !== undefined) headers['retry-after'] = String(retryAfter);
      res.writeHead(fault.status, headers).end(fault.body ?? `${label}: injected HTTP ${fault.status}\n`);
      return;
    }
    case 'unauthorized': {
      let challenge = `Bearer realm="${fault.realm}", error="${fault.error}", error_description="${fault.errorDescription}"`;
      if (fault.resourceMetadata !== undefined) challenge += `, resource_metadata="${fault.resourceMetadata}"`;
      res
        .writeHead(401, { 'content-type': 'application/json', 'www-authenticate': challenge })
        .end(JSON.stringify({ error: fault.error, error_description: fault.errorDescription }));
      return;
    }
    case 'forbidden': {
      const challenge = `Bearer error="insufficient_scope", scope="${fault.scope}", error_description="The request requires scope ${fault.scope}"`;
      res
        .writeHead(403, { 'content-type': 'application/json', 'www-authenticate': challenge })
        .end(JSON.stringify({ error: 'insufficient_scope', scope: fault.scope }));
      return;
    }
    case 'malformed': {
      const id = JSON.stringify(info.ids[0] ?? null);
      switch (fault.variant) {
        case 'invalid-json':
          res.writeHead(200, { 'content-type': 'application/json' }).end(`{"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"te`);
          return;
        case 'invalid-json-sse':
          res
            .writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
            .end(`event: message\ndata: {"jsonrpc":"2.0","id":${id},"result":{oops: not json}\n\n`);
          return;
        case 'not-jsonrpc':
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'ok', message: 'this is not JSON-RPC', requestId: info.ids[0] ?? null }));
          return;
        case 'wrong-content-type':
          res
            .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
            .end('<!doctype html>\n<html><head><title>Sign in</title></head><body><h1>Captive portal</h1><p>Please sign in to continue.</p></body></html>\n');
          return;
      }
      return;
    }
    case 'stall': {
      stalled?.add(res);
      res.once('close', () => stalled?.delete(res));
      if (fault.headers) {
        res.writeHead(200, { 'content-type': fault.contentType, 'cache-control': 'no-cache' });
        res.flushHeaders();
        if (fault.body !== undefined) res.write(fault.body);
      }
      return; // never ends
    }
    default:
      return;
  }
}

// ---------------------------------------------------------------------------
// Session expiry in a proxy
// ---------------------------------------------------------------------------

/** Sessions a proxy's expiry remembers (counts and expired ids, oldest forgotten first; docs/limits.md). */
export const MAX_EXPIRY_SESSIONS = 10_000;

export const SESSION_EXPIRED_BODY = JSON.stringify({
  jsonrpc: '2.0',
  error: { code: -32001, message: 'Session expired (injected by the proxy)' },
  id: null,
});

/** Headers of the client's request carried on the DELETE a proxy sends upstream when it expires a session. */
const DELETE_HEADERS = ['authorization', 'mcp-session-id', 'mcp-protocol-version', 'cookie', 'user-agent'];

/**
 * `session-expiry` in a proxy, which has no server sessions of its own to kill: once a session id
 * has carried `afterRequests` POSTs (the initialize that created it is not on it), the next POST
 * on it and every request after, on that session id, is answered 404 with a JSON-RPC error
 * (SESSION_EXPIRED_BODY). At that moment the proxy also ends the session's open SSE answers (as a
 * server that drops a session does) and sends the upstream a DELETE for it with the client's
 * credentials, so the real server frees it and the trace shows the end of the session.
 */
export class SessionExpiry {
  private readonly counts = new Map<string, number>();
  private readonly expired = new Set<string>();
  private readonly streams = new Map<string, Set<http.ServerResponse>>();
  private limitId: number | undefined;

  constructor(private readonly engine: FaultEngine) {}

  /** Has this session id been expired? */
  isExpired(sessionId: string): boolean {
    return this.expired.has(sessionId);
  }

  /** true: the request was answered (404) and must not go further. */
  intercept(o: Pick<ServeWithFaultsOptions, 'req' | 'res' | 'info' | 'url' | 'route'>, applied: (a: AppliedFault) => void): boolean {
    const sessionId = o.info.sessionId;
    if (sessionId === undefined) return false;
    if (this.expired.has(sessionId)) {
      this.answer(o.res);
      applied({ type: 'session-expiry', sessionId, detail: 'answered 404: the session was expired' });
      return true;
    }
    const limit = this.engine.sessionExpiry;
    if (limit === undefined || o.info.http !== 'POST') return false;
    if (limit.id !== this.limitId) {
      this.limitId = limit.id;
      this.counts.clear();
    }
    const served = this.counts.get(sessionId) ?? 0;
    if (served < limit.afterRequests) {
      remember(this.counts, sessionId, served + 1);
      return false;
    }
    this.counts.delete(sessionId);
    this.expired.add(sessionId);
    if (this.expired.size > MAX_EXPIRY_SESSIONS) this.expired.delete(this.expired.values().next().value!);
    this.engine.noteHit(limit.id);
    for (const stream of this.streams.get(sessionId) ?? []) if (!stream.destroyed) stream.end();
    this.streams.delete(sessionId);
    this.deleteUpstream(o, sessionId);
    this.answer(o.res);
    applied({ type: 'session-expiry', sessionId, detail: `session expired after ${limit.afterRequests} requests (404; DELETE sent upstream)` });
    return true;
  }

  /** An open SSE answer on a session, ended when the session expires. */
  watch(sessionId: string | undefined, res: http.ServerResponse): void {
    if (sessionId === undefined || this.engine.sessionExpiry === undefined) return;
    let set = this.streams.get(sessionId);
    if (!set) {
      set = new Set();
      this.streams.set(sessionId, set);
      if (this.streams.size > MAX_EXPIRY_SESSIONS) this.streams.delete(this.streams.keys().next().value!);
    }
    set.add(res);
    res.once('close', () => {
      set.delete(res);
      if (set.size === 0 && this.streams.get(sessionId) === set) this.streams.delete(sessionId);
    });
  }

  private answer(res: http.ServerResponse): void {
    res.writeHead(404, { 'content-type': 'application/json' }).end(SESSION_EXPIRED_BODY);
  }

  private deleteUpstream(o: Pick<ServeWithFaultsOptions, 'req' | 'url' | 'route'>, sessionId: string): void {
    const headers = new Headers();
    for (const name of DELETE_HEADERS) {
      const value = o.req.headers[name];
      if (typeof value === 'string') headers.set(name, value);
    }
    headers.set('mcp-session-id', sessionId);
    o.route(new Request(o.url, { method: 'DELETE', headers }))
      .then((response) => void response.body?.cancel().catch(() => {}))
      .catch(() => {});
  }
}

function remember(map: Map<string, number>, key: string, value: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > MAX_EXPIRY_SESSIONS) map.delete(map.keys().next().value!);
}
