/**
 * The HTTP proxy (#12): `switchboard proxy --name N --upstream URL [--port P]`.
 *
 * A Node `http` server on 127.0.0.1 that forwards every request to `upstream.origin + req.url`
 * through the tracking fetch, so a proxied connection is recorded with the channels, SSE
 * observation and redaction of a connection of the app's own (one implementation). What goes
 * back to the client is the upstream's answer, streamed chunk by chunk with backpressure: status,
 * statusText, headers minus the hop-by-hop ones, the body untouched — except where a byte must
 * change for the client to keep talking to the proxy, and each such change is in the trace:
 *
 *   - legacy HTTP+SSE: an `endpoint` event naming an absolute URL on the upstream's origin is
 *     pointed at the proxy's origin (relative ones pass unchanged);
 *   - OAuth (docs/oauth.md): the protected resource metadata's `resource`, a `WWW-Authenticate`
 *     challenge's `resource_metadata`, and a same-origin `Location`, from the upstream's origin to
 *     the proxy's, so a spec-following client (which checks that the metadata names the URL it
 *     connects to) proceeds; `Authorization` passes through untouched.
 *
 * Faults (main/core/faults) act around the forward: `serveWithFaults` calls `route` below (the tracked
 * forward, an unreachable upstream answered 502); with none in force a plain pipe answers.
 */
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import type { Channel, TraceEventInput } from '../../../contract/trace';
import { BodyTooLargeError, SessionExpiry, describeRequest, parseJsonBody, readBody, serveWithFaults, toWebRequest, type AppliedFault } from '../faults';
import { createTrackingFetch, describeFetchError } from '../transport/tracking-fetch';
import { MAX_MESSAGE_BYTES } from '../transport/limits';
import type { ProxyRecorder } from './types';

export interface HttpProxyOptions {
  upstream: URL;
  /** 0: a free port. Always 127.0.0.1. */
  port: number;
  /** The upstream's transport: Streamable HTTP (both eras) or legacy HTTP+SSE. */
  transport: 'streamable-http' | 'sse';
  /** The proxy's trace; or made once the proxy listens, from the URL clients connect to (for the recording's meta). */
  recorder: ProxyRecorder | ((listen: string) => ProxyRecorder);
  /** The largest request body a client may send (default MAX_REQUEST_BODY_BYTES). */
  maxRequestBytes?: number;
  /** The proxy's own diagnostics (stderr, prefixed). */
  log?: (line: string) => void;
  /**
   * Set on every forwarded request, replacing the client's own of the same name (server
   * conformance: the suite's client cannot send a person's `Authorization`). Their values are
   * added to the recorder's redactor.
   */
  upstreamHeaders?: [string, string][];
}

export interface HttpProxy {
  /** What a client connects to: `http://127.0.0.1:PORT` + the upstream's path and query. */
  readonly url: string;
  readonly port: number;
  readonly recorder: ProxyRecorder;
  close(): Promise<void>;
}

/** A client's request body is buffered before it is forwarded (POST bodies are JSON-RPC messages): at most this. */
export const MAX_REQUEST_BODY_BYTES = MAX_MESSAGE_BYTES;
/** A protected resource metadata document read whole to rewrite its `resource`; a larger one passes untouched. */
export const MAX_PRM_BYTES = 1024 * 1024;
/** Of a legacy SSE stream, the bytes looked at for the `endpoint` event; after them the stream passes untouched. */
export const MAX_ENDPOINT_SCAN_BYTES = 64 * 1024;

/** RFC 9110 §7.6.1 hop-by-hop fields (plus the `Proxy-*` family), never forwarded. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'te', 'trailer', 'trailers', 'transfer-encoding', 'upgrade']);

/**
 * The upstream request, on node:http(s) rather than the global fetch: no idle timeout on a body
 * (fetch ends a stream quiet for 5 minutes, which a long-lived GET stream may well be), no
 * redirect following, no decompression (the bytes are the upstream's). The tracking fetch wraps
 * it (its `base`), so what is recorded is what this returns.
 */
export function upstreamFetch(): { fetch: (url: string | URL, init?: RequestInit) => Promise<Response>; close(): void } {
  const agents = { 'http:': new http.Agent({ keepAlive: true }), 'https:': new https.Agent({ keepAlive: true }) };
  const fetch = (input: string | URL, init: RequestInit = {}): Promise<Response> =>
    new Promise((resolve, reject) => {
      const url = new URL(input);
      const protocol = url.protocol === 'https:' ? 'https:' : 'http:';
      const headers: Record<string, string[]> = {};
      new Headers(init.headers).forEach((value, name) => (headers[name] ??= []).push(value));
      for (const cookie of new Headers(init.headers).getSetCookie()) (headers['set-cookie'] ??= []).push(cookie);
      const signal = init.signal ?? undefined;
      if (signal?.aborted) return reject(abortError(signal));
      const body = typeof init.body === 'string' ? Buffer.from(init.body) : init.body instanceof Uint8Array ? init.body : undefined;
      if (body) headers['content-length'] = [String(body.byteLength)];
      const request = (protocol === 'https:' ? https : http).request(url, { method: init.method ?? 'GET', headers, agent: agents[protocol] });
      const onAbort = () => request.destroy(abortError(signal!));
      signal?.addEventListener('abort', onAbort, { once: true });
      request.once('error', (error) => {
        signal?.removeEventListener('abort', onAbort);
        reject(signal?.aborted ? abortError(signal) : new TypeError('fetch failed', { cause: error }));
      });
      request.once('response', (incoming) => {
        const responseHeaders = new Headers();
        const raw = incoming.rawHeaders;
        for (let i = 0; i + 1 < raw.length; i += 2) {
          try {
            responseHeaders.append(raw[i]!, raw[i + 1]!);
          } catch {
            // a header value Headers refuses is not forwarded
          }
        }
        const status = incoming.statusCode ?? 502;
        const empty = init.method === 'HEAD' || status === 204 || status === 205 || status === 304 || status < 200;
        incoming.once('close', () => signal?.removeEventListener('abort', onAbort));
        if (empty) incoming.resume();
        try {
          resolve(new Response(empty ? null : (Readable.toWeb(incoming) as ReadableStream<Uint8Array>), { status: status < 200 || status > 599 ? 502 : status, statusText: incoming.statusMessage ?? '', headers: responseHeaders }));
        } catch (error) {
          incoming.destroy();
          reject(error);
        }
      });
      request.end(body);
    });
  return {
    fetch,
    close() {
      agents['http:'].destroy();
      agents['https:'].destroy();
    },
  };
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error && signal.reason.name === 'AbortError' ? signal.reason : new DOMException('This operation was aborted', 'AbortError');
}

export class PortInUseError extends Error {
  constructor(readonly port: number) {
    super(`port ${port} on 127.0.0.1 is in use`);
    this.name = 'PortInUseError';
  }
}

/** Names a header must not be forwarded under: hop-by-hop, `Proxy-*`, and those the `Connection` header lists. */
function hopByHop(connection: string | null | undefined): (name: string) => boolean {
  const listed = new Set((connection ?? '').split(',').map((n) => n.trim().toLowerCase()).filter(Boolean));
  return (name) => HOP_BY_HOP.has(name) || name.startsWith('proxy-') || listed.has(name);
}

/**
 * The client's headers as the upstream gets them: hop-by-hop ones, Host, Content-Length and Expect
 * dropped (the request sets its own), and Accept-Encoding, so that the upstream answers in plain
 * bytes the trace can show (a client must accept an identity answer anyway).
 */
export function upstreamRequestHeaders(client: Headers): Headers {
  const skip = hopByHop(client.get('connection'));
  const headers = new Headers();
  for (const [name, value] of client) {
    if (skip(name) || name === 'host' || name === 'content-length' || name === 'expect' || name === 'accept-encoding') continue;
    headers.append(name, value);
  }
  return headers;
}

/** The upstream's headers as the client gets them (hop-by-hop ones dropped). */
function clientResponseHeaders(upstream: Headers, keepLength: boolean): Headers {
  const skip = hopByHop(upstream.get('connection'));
  const headers = new Headers();
  for (const [name, value] of upstream) {
    if (skip(name) || name === 'set-cookie') continue;
    if (name === 'content-length' && !keepLength) continue;
    headers.append(name, value);
  }
  for (const cookie of upstream.getSetCookie()) headers.append('set-cookie', cookie);
  return headers;
}

/** A URL string on `from`'s origin, moved to `to`'s origin (path, query and fragment kept); anything else: undefined. */
export function moveOrigin(value: string, from: string, to: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    return undefined;
  }
  if (parsed.origin !== from) return undefined;
  // Keep the value's own spelling after the origin (a URL object would normalize it).
  const rest = value.slice(value.toLowerCase().indexOf('//') + 2).replace(/^[^/?#]*/, '');
  return to + rest;
}

/** `resource_metadata="…"` (quoted or not) in a `WWW-Authenticate` value, pointed at the proxy. */
export function rewriteChallenge(header: string, from: string, to: string): string | undefined {
  let changed = false;
  const out = header.replace(/(resource_metadata\s*=\s*)(?:"([^"]*)"|([^\s,]+))/gi, (whole, lead: string, quoted?: string, bare?: string) => {
    const moved = moveOrigin(quoted ?? bare ?? '', from, to);
    if (moved === undefined) return whole;
    changed = true;
    return quoted !== undefined ? `${lead}"${moved}"` : `${lead}${moved}`;
  });
  return changed ? out : undefined;
}

/**
 * A protected resource metadata document with its `resource` moved to the proxy's origin. Only
 * that string's bytes change (the rest of the document is kept as it was sent), unless the value
 * cannot be found once as written, in which case the document is serialized again.
 */
export function rewritePrm(text: string, from: string, to: string): { text: string; resource: string; moved: string } | undefined {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return undefined;
  const resource = (doc as { resource?: unknown }).resource;
  if (typeof resource !== 'string') return undefined;
  const moved = moveOrigin(resource, from, to);
  if (moved === undefined) return undefined;
  const literal = JSON.stringify(resource);
  const at = text.indexOf(literal);
  if (at >= 0 && text.indexOf(literal, at + 1) < 0) return { text: text.slice(0, at) + JSON.stringify(moved) + text.slice(at + literal.length), resource, moved };
  return { text: JSON.stringify({ ...(doc as object), resource: moved }), resource, moved };
}

/** The `aud` of a JWT bearer token, when the token is one (its signature is not checked: this only explains a refusal). */
export function jwtAudience(authorization: string | null | undefined): string[] | undefined {
  const match = /^\s*(?:bearer|dpop)\s+([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)\.[A-Za-z0-9_-]*\s*$/i.exec(authorization ?? '');
  if (!match || match[2]!.length > 16_384) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(match[2]!, 'base64url').toString('utf8')) as { aud?: unknown };
    const aud = claims.aud;
    if (typeof aud === 'string') return [aud];
    if (Array.isArray(aud)) return aud.filter((a): a is string => typeof a === 'string').slice(0, 20);
  } catch {
    // not a JWT after all
  }
  return undefined;
}

/** True when the bytes are valid UTF-8 (so a string body carries them unchanged). */
function isUtf8(bytes: Buffer): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** The JSON-RPC messages of a client's body (a batch: each), for the recorder's client info. */
function clientMessages(parsed: unknown): unknown[] {
  if (parsed === undefined) return [];
  return Array.isArray(parsed) ? parsed.slice(0, 1000) : [parsed];
}

/**
 * The legacy SSE stream's `endpoint` event pointed at the proxy's origin. The stream is cut into
 * events at blank lines only until the endpoint event has passed (or MAX_ENDPOINT_SCAN_BYTES);
 * complete events go on at once, untouched unless they are that event; after it, chunks pass as
 * they come.
 */
export function endpointRewriter(from: string, to: string, onRewrite: (was: string, now: string) => void): TransformStream<Uint8Array, Uint8Array> {
  let pending = Buffer.alloc(0);
  let scanned = 0;
  let done = false;
  const boundary = /\r\n\r\n|\n\n|\r\r/g;
  const rewriteEvent = (event: Buffer): Buffer => {
    const text = event.toString('utf8');
    const lines = text.split(/\r\n|\n|\r/);
    if (!lines.some((l) => /^event: ?endpoint$/.test(l))) return event;
    done = true;
    const dataLine = lines.findIndex((l) => l.startsWith('data:'));
    if (dataLine < 0) return event;
    const value = lines[dataLine]!.replace(/^data: ?/, '');
    const moved = moveOrigin(value, from, to);
    if (moved === undefined) return event;
    onRewrite(value, moved);
    return Buffer.from(text.replace(lines[dataLine]!, lines[dataLine]!.slice(0, lines[dataLine]!.length - value.length) + moved), 'utf8');
  };
  return new TransformStream({
    transform(chunk, controller) {
      if (done) {
        controller.enqueue(chunk);
        return;
      }
      pending = Buffer.concat([pending, chunk]);
      scanned += chunk.byteLength;
      const text = pending.toString('latin1'); // one char per byte: indexes are byte offsets
      let start = 0;
      boundary.lastIndex = 0;
      for (let m = boundary.exec(text); m && !done; m = boundary.exec(text)) {
        const end = m.index + m[0].length;
        const event = pending.subarray(start, end);
        controller.enqueue(rewriteEvent(event));
        start = end;
      }
      pending = pending.subarray(start);
      if (done || scanned > MAX_ENDPOINT_SCAN_BYTES) {
        done = true;
        if (pending.length) controller.enqueue(pending);
        pending = Buffer.alloc(0);
      }
    },
    flush(controller) {
      if (pending.length) controller.enqueue(pending);
    },
  });
}

/**
 * Writes a web Response to a Node response when no fault is in force: the headers (each
 * Set-Cookie on its own), at once for a stream, then the body chunk by chunk with backpressure;
 * an upstream body that breaks off breaks the client's off too (it does not end cleanly).
 *
 * What arrives from the upstream in one turn of the event loop leaves in one write: the socket
 * is corked while chunks come in and uncorked on the next turn (`setImmediate`) or at the end,
 * so a short answer is one write to the client (headers, its chunks, the chunked terminator)
 * instead of three or four. Each socket write wakes the client's process, and on a loaded
 * machine each wake-up costs scheduling time; nothing waits longer than the current turn.
 */
export async function pipeResponse(response: Response, res: http.ServerResponse): Promise<void> {
  res.writeHead(response.status, response.statusText || undefined, nodeHeaders(response));
  const stream = /^text\/event-stream/i.test(response.headers.get('content-type') ?? '');
  if (!response.body) {
    res.end();
    return;
  }
  let corked = false;
  let release: NodeJS.Immediate | undefined;
  const uncork = () => {
    if (release) clearImmediate(release);
    release = undefined;
    if (corked) {
      corked = false;
      res.uncork();
    }
  };
  const cork = () => {
    if (!corked) {
      corked = true;
      res.cork();
    }
    release ??= setImmediate(uncork);
  };
  // A stream's headers go at once (a quiet stream still answers), with whatever body came in this turn.
  if (stream) {
    cork();
    res.flushHeaders();
  }
  const reader = response.body.getReader();
  const closed = new Promise<void>((resolve) => res.once('close', resolve));
  try {
    for (;;) {
      const next = await Promise.race([reader.read(), closed.then(() => undefined)]);
      if (!next) {
        // the client went away: stop reading, which cancels the upstream fetch
        uncork();
        await reader.cancel().catch(() => undefined);
        return;
      }
      if (next.done) break;
      cork();
      if (!res.write(next.value)) {
        uncork();
        await Promise.race([new Promise((resolve) => res.once('drain', resolve)), closed]);
      }
    }
    if (release) clearImmediate(release);
    release = undefined;
    // end() writes what is corked, and the terminator, at once.
    res.end();
  } catch {
    uncork();
    // the upstream's body failed mid-way: the client sees the connection end early, as it would direct
    res.destroy();
  }
}

/**
 * A client-bound response's headers for Node's writeHead: as they are (the hop-by-hop ones are
 * gone already, and nothing was decoded), each Set-Cookie kept on its own.
 */
function nodeHeaders(response: Response): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of response.headers) if (name !== 'set-cookie') headers[name] = value;
  const cookies = response.headers.getSetCookie();
  if (cookies.length) headers['set-cookie'] = cookies;
  return headers;
}

export async function startHttpProxy(options: HttpProxyOptions): Promise<HttpProxy> {
  const { upstream } = options;
  const server = http.createServer();
  server.on('clientError', (_error, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(error.code === 'EADDRINUSE' ? new PortInUseError(options.port) : error));
    server.listen(options.port, '127.0.0.1', () => resolve());
  });
  // No request is handled before this synchronous stretch ends: the listener is added below.
  const port = (server.address() as AddressInfo).port;
  const proxyOrigin = `http://127.0.0.1:${port}`;
  const proxyUrl = proxyOrigin + upstream.pathname + upstream.search;
  let recorder: ProxyRecorder;
  try {
    recorder = typeof options.recorder === 'function' ? options.recorder(proxyUrl) : options.recorder;
  } catch (error) {
    server.close();
    throw error;
  }
  const base = upstreamFetch();
  server.on('request', proxyHandler(options, recorder, proxyOrigin, proxyUrl, base));

  let closing: Promise<void> | undefined;
  return {
    url: proxyUrl,
    port,
    recorder,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        base.close();
      });
      return closing;
    },
  };
}

function proxyHandler(options: HttpProxyOptions, recorder: ProxyRecorder, proxyOrigin: string, proxyUrl: string, base: ReturnType<typeof upstreamFetch>): http.RequestListener {
  const { upstream, transport } = options;
  const maxRequestBytes = options.maxRequestBytes ?? MAX_REQUEST_BODY_BYTES;
  const upstreamOrigin = upstream.origin;

  const note = (event: Omit<TraceEventInput, 'server'>) => {
    try {
      recorder.record(event);
    } catch {
      // recording never breaks forwarding
    }
  };
  for (const [, value] of options.upstreamHeaders ?? []) recorder.redactor.addSecret(value);
  const rewriteNote = (channel: Channel, what: string, was: string, now: string) =>
    note({ channel, kind: channel === 'auth' ? 'auth-step' : 'state', dir: 'none', text: `proxy rewrote ${what}: ${recorder.redactor.url(was)} → ${recorder.redactor.url(now)}`, meta: { proxy: 'rewrite', what, from: recorder.redactor.url(was), to: recorder.redactor.url(now) } });

  const trackedFetch = createTrackingFetch({
    server: recorder.serverId,
    endpoint: upstream,
    transport,
    record: ({ server: _server, ...event }) => recorder.record(event),
    redactor: recorder.redactor,
    now: () => recorder.now(),
    forwardOversize: true,
    base: base.fetch,
  });

  let challengeNoted = false;

  /**
   * The tracked forward of one request (the client's, or one the faults make, such as the DELETE
   * of an expired session), answered as the client will get it. `request.url` is the upstream URL.
   */
  const forward = async (request: Request): Promise<Response> => {
    const method = request.method.toUpperCase();
    const headers = upstreamRequestHeaders(request.headers);
    for (const [name, value] of options.upstreamHeaders ?? []) headers.set(name, value);
    const authorization = headers.get('authorization');
    const bearer = /^\s*\S+\s+(\S+)\s*$/.exec(authorization ?? '')?.[1];
    if (bearer) recorder.redactor.addSecret(bearer);
    const init: RequestInit = { method, headers, signal: request.signal };
    if (request.body && method !== 'GET' && method !== 'HEAD') {
      const body = Buffer.from(await request.arrayBuffer());
      // A text body goes as a string so that the trace shows it (the tracking fetch reads strings); its bytes are the same.
      if (body.length > 0) init.body = headers.has('content-type') && isUtf8(body) ? body.toString('utf8') : new Uint8Array(body);
    }
    const upstreamResponse = await trackedFetch(request.url, init);
    return clientResponse(new URL(request.url).pathname, method, upstreamResponse, authorization);
  };

  const clientResponse = async (path: string, method: string, response: Response, authorization: string | null): Promise<Response> => {
    let body: ReadableStream<Uint8Array> | null = response.body;
    let untouched = true;

    const challenge = response.headers.get('www-authenticate');
    const movedChallenge = challenge ? rewriteChallenge(challenge, upstreamOrigin, proxyOrigin) : undefined;
    if (challenge && response.status === 401) {
      if (!challengeNoted) {
        challengeNoted = true;
        options.log?.(`the upstream asks for OAuth (401). Tokens are audience-bound: an upstream that checks the audience refuses tokens minted for ${proxyUrl}, and the authorization server is not proxied (docs/oauth.md)`);
      }
      const aud = jwtAudience(authorization);
      if (authorization && aud) {
        const forProxy = aud.some((a) => moveOrigin(a, proxyOrigin, upstreamOrigin) !== undefined);
        note({
          channel: 'auth',
          kind: 'auth-step',
          dir: 'none',
          text: forProxy
            ? `the upstream refused a token minted for the proxy's address (aud ${aud.join(', ')}): tokens are audience-bound (RFC 8707), so an upstream that checks the audience cannot be used through the proxy with them`
            : `the upstream refused the client's token (aud ${aud.join(', ')})`,
          meta: { proxy: 'token-refused', aud, audienceIsProxy: forProxy },
        });
      }
    }

    if (method === 'GET' && path.startsWith('/.well-known/oauth-protected-resource') && response.status === 200 && body) {
      const read = await readBounded(body, MAX_PRM_BYTES);
      const moved = read.text === undefined ? undefined : rewritePrm(read.text, upstreamOrigin, proxyOrigin);
      if (moved) {
        rewriteNote('auth', 'the protected resource metadata resource', moved.resource, moved.moved);
        untouched = false;
        body = new Response(moved.text).body;
      } else body = read.whole;
    }

    const contentType = response.headers.get('content-type') ?? '';
    if (transport === 'sse' && method === 'GET' && /^text\/event-stream/i.test(contentType) && body) {
      body = body.pipeThrough(endpointRewriter(upstreamOrigin, proxyOrigin, (was, now) => rewriteNote('legacy-sse', 'the endpoint event', was, now)));
      untouched = false;
    }

    const headers = clientResponseHeaders(response.headers, untouched);
    if (movedChallenge) {
      headers.set('www-authenticate', movedChallenge);
      rewriteNote('auth', 'the challenge resource_metadata', challenge!, movedChallenge);
    }
    const location = response.headers.get('location');
    const movedLocation = location ? moveOrigin(location, upstreamOrigin, proxyOrigin) : undefined;
    if (movedLocation) {
      headers.set('location', movedLocation);
      rewriteNote('lifecycle', 'the redirect location', location!, movedLocation);
    }
    const nullBody = response.status === 101 || response.status === 204 || response.status === 205 || response.status === 304;
    return new Response(nullBody ? null : body, { status: response.status, statusText: response.statusText, headers });
  };

  const badGateway = (error: unknown): Response => {
    const message = recorder.redactor.text(describeFetchError(error));
    note({ channel: 'lifecycle', kind: 'error', dir: 'none', text: `upstream ${upstreamOrigin} unreachable: ${message}; the client was answered 502`, meta: { proxy: 'bad-gateway', upstream: upstreamOrigin } });
    return Response.json({ error: 'bad gateway', upstream: upstreamOrigin, message }, { status: 502 });
  };

  /** The route the faults call: the forward, an unreachable upstream answered 502. */
  const route = async (request: Request): Promise<Response> => {
    try {
      return await forward(request);
    } catch (error) {
      if (request.signal.aborted) throw error;
      return badGateway(error);
    }
  };

  const recordApplied = (applied: AppliedFault) =>
    note({
      channel: 'lifecycle',
      kind: 'fault',
      dir: 'none',
      session: applied.sessionId,
      text: `fault ${applied.type}${applied.method ? ` on ${applied.method}` : ''}${applied.rpcId !== undefined ? ` (id ${applied.rpcId})` : ''}: ${applied.detail}`,
      meta: { fault: applied.type, faultId: applied.faultId, rpcId: applied.rpcId, method: applied.method, detail: applied.detail },
    });
  const expiry = new SessionExpiry(recorder.faults);
  // serveWithFaults' default drops Content-Encoding (it expects a decoded fetch body); the proxy's
  // upstream request decodes nothing, so its headers go on as they are.
  const responseHeaders = nodeHeaders;

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    let body: Buffer;
    try {
      body = await readBody(req, maxRequestBytes);
    } catch (error) {
      if (error instanceof BodyTooLargeError) {
        note({ channel: 'lifecycle', kind: 'error', dir: 'out', text: `client request body over ${maxRequestBytes} bytes: answered 413, not forwarded`, meta: { proxy: 'too-large', limit: maxRequestBytes } });
        sendJson(res, 413, { error: 'request body too large', limit: maxRequestBytes });
      } else res.destroy();
      return;
    }
    const url = new URL(upstreamOrigin + (req.url ?? '/'));
    const parsed = parseJsonBody(body);
    for (const message of clientMessages(parsed)) recorder.observeClientMessage(message);
    const method = (req.method ?? 'GET').toUpperCase();
    const sessionId = req.headers['mcp-session-id'];
    const info = describeRequest(method, { accept: req.headers.accept, sessionId: typeof sessionId === 'string' ? sessionId : undefined }, parsed);

    if (recorder.faults.size > 0 || expiry.isExpired(info.sessionId ?? '')) {
      const plan = recorder.faults.plan(info);
      try {
        await serveWithFaults({ req, res, url, body, info, plan, engine: recorder.faults, route, name: recorder.serverId, label: 'switchboard proxy', expiry, onApplied: recordApplied, responseHeaders });
      } catch (error) {
        if (!res.destroyed) throw error; // else: the client went away, and the upstream request with it
      }
      return;
    }
    const aborter = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) aborter.abort();
    });
    let response: Response;
    try {
      response = await route(toWebRequest(req, url, body, aborter.signal));
    } catch {
      return; // the client went away
    }
    await pipeResponse(response, res);
  };

  return (req, res) => {
    handle(req, res).catch((error: unknown) => {
      options.log?.(`internal error: ${describeFetchError(error)}`);
      if (!res.headersSent) sendJson(res, 500, { error: 'proxy internal error' });
      else res.destroy();
    });
  };
}

/** A body read whole when it is at most `limit` bytes (`text`); `whole` gives its bytes again either way (what was read, then the rest). */
async function readBounded(body: ReadableStream<Uint8Array>, limit: number): Promise<{ text?: string; whole: ReadableStream<Uint8Array> }> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) {
      const bytes = Buffer.concat(chunks);
      return { text: bytes.toString('utf8'), whole: new Response(bytes).body! };
    }
    size += value.byteLength;
    chunks.push(value);
    if (size > limit) break;
  }
  const whole = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const head = chunks.shift();
      if (head) return controller.enqueue(head);
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return { whole };
}

function sendJson(res: http.ServerResponse, status: number, value: unknown): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const text = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

