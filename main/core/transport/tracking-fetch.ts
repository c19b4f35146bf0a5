/**
 * The tracking fetch: handed to the SDK's HTTP transports (and to OAuth's `auth()`), it sees
 * every request they make and records each exchange into the trace: the request, the response
 * headers, every SSE event of a streamed body, and how the exchange ended.
 *
 * It must disturb nothing. The SDK gets the original response's bytes through a pass-through
 * stream that enqueues each chunk before observing it; an observer failure is recorded as an
 * event and never thrown into the transport; errors of the real fetch propagate unchanged.
 */
import type { FetchLike } from '@modelcontextprotocol/client';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { Channel, RpcSummary, TraceEventInput } from '../../../contract/trace';
import type { Redactor } from '../trace/redact';
import { dropAnswered, forEachRpc, parseJsonLoose, summarizeBody, summarizeRpc, traceBody, type RecordEvent } from '../trace/rpc';
import { MAX_MESSAGE_BYTES, MessageTooLargeError, rpcIdFromHead, syntheticErrorResponse } from './limits';

export type HttpTransportKind = 'streamable-http' | 'sse';

export interface TrackingFetchOptions {
  server: string;
  /** The MCP endpoint: requests elsewhere are OAuth or discovery traffic. */
  endpoint: URL;
  transport: HttpTransportKind;
  record: RecordEvent;
  redactor: Redactor;
  /** Called when a response issues or changes the session id. */
  onSessionId?: (sessionId: string) => void;
  /** The clock of the trace store, so ttfb and durations line up with event times. */
  now?: () => number;
  base?: FetchLike;
  /** The largest response body (JSON) or SSE event read (default 64 MiB, docs/limits.md). */
  maxMessageBytes?: number;
  /**
   * A proxy's fetch (#12): a message over `maxMessageBytes` is still handed on whole (a proxy
   * forwards what the server sent); only the observer stops keeping it (the trace notes the cut,
   * and an SSE stream's later events are observed again). Default false: the limit is enforced.
   */
  forwardOversize?: boolean;
}

type RpcId = string | number;

let exchangeCounter = 0;

export function createTrackingFetch(options: TrackingFetchOptions): FetchLike {
  const base: FetchLike = options.base ?? ((url, init) => fetch(url, init));
  const now = options.now ?? (() => performance.timeOrigin + performance.now());
  const { server, record, redactor } = options;
  const endpointKey = urlKey(options.endpoint);
  const maxMessageBytes = options.maxMessageBytes ?? MAX_MESSAGE_BYTES;
  let currentSession: string | undefined;
  /** Requests sent and not yet answered, on any exchange (a legacy server answers on its GET stream). */
  const outstanding = new Set<RpcId>();
  const answered = (summary: { rpc?: RpcSummary; batch?: RpcSummary[] }) => dropAnswered(outstanding, summary);

  const safeRecord: RecordEvent = (event, bodyText) => {
    try {
      record(event, bodyText);
    } catch {
      // the trace must never break the connection
    }
  };

  return async (input, init) => {
    const started = now();
    const exchange = `x${++exchangeCounter}`;
    const url = typeof input === 'string' ? input : input.toString();
    const method = (init?.method ?? 'GET').toUpperCase();
    // The SDK hands a Headers of its own for each request: read it as it is, no copy.
    const requestHeaders = init?.headers instanceof Headers ? init.headers : new Headers(init?.headers);
    let channel: Channel = 'auth';
    let sessionSent: string | undefined;
    /** The JSON-RPC requests this exchange carries: whom an unreadable answer on it belongs to. */
    let requestIds: RpcId[] = [];

    // 1. The request. Anything thrown while observing it is recorded, not raised.
    try {
      sessionSent = requestHeaders.get('mcp-session-id') ?? undefined;
      const { body, raw, bytes, isJson } = readRequestBody(init?.body, redactor, isCredentialUrl(url, endpointKey));
      channel = classify({ url, method, endpointKey, transport: options.transport, body, headers: requestHeaders });
      const summary = isJson ? summarizeBody(body) : {};
      requestIds = requestIdsOf(summary);
      if (channel !== 'auth') for (const id of requestIds) outstanding.add(id);
      safeRecord({
        server,
        channel,
        kind: 'http-request',
        dir: 'out',
        exchange,
        session: sessionSent ?? currentSession,
        ts: started,
        http: { method, url: redactor.url(url), headers: redactor.headers(requestHeaders) },
        ...summary,
        body,
        ...(raw !== undefined ? { raw } : {}),
        bytes,
      });
    } catch (error) {
      safeRecord(observerError(server, channel, exchange, error));
    }

    // 2. The real request. Its failures are the SDK's to handle: rethrown unchanged.
    const link = exchangeSignal(init?.signal);
    let response: Response;
    try {
      response = await base(input, link ? { ...init, signal: link.signal } : init);
    } catch (error) {
      link?.release();
      const aborted = isAbort(error);
      safeRecord({
        server,
        channel,
        kind: 'http-end',
        dir: 'in',
        exchange,
        session: sessionSent ?? currentSession,
        durationMs: now() - started,
        http: { end: aborted ? 'client-aborted' : 'error' },
        text: describeFetchError(error),
      });
      throw error;
    }

    // 3. The response headers.
    const ttfbMs = now() - started;
    const contentType = response.headers.get('content-type') ?? undefined;
    const isSse = contentType?.toLowerCase().startsWith('text/event-stream') ?? false;
    if (channel === 'post-json' && isSse) channel = 'post-sse';
    const issued = response.headers.get('mcp-session-id') ?? undefined;
    try {
      safeRecord({
        server,
        channel,
        kind: 'http-response',
        dir: 'in',
        exchange,
        session: issued ?? sessionSent ?? currentSession,
        http: {
          method,
          status: response.status,
          statusText: response.statusText,
          headers: redactor.headers(response.headers),
          contentType,
          ttfbMs,
        },
        meta: channel === 'get' && response.status === 405 ? { disabled: true } : undefined,
      });
      recordSessionChange({ issued, sessionSent, status: response.status, method, channel, exchange });
    } catch (error) {
      safeRecord(observerError(server, channel, exchange, error));
    }

    // 4. The body, observed on its way to the SDK.
    if (!response.body) {
      link?.release();
      safeRecord({ server, channel, kind: 'http-end', dir: 'in', exchange, durationMs: now() - started, bytes: 0, http: { end: 'complete', status: response.status } });
      return response;
    }
    const observer = isSse
      ? sseObserver({ server, channel, exchange, record: safeRecord, redactor, answered, session: () => issued ?? sessionSent ?? currentSession })
      : bufferObserver(redactor, channel === 'auth', answered);
    const finish: Finish = (end, error, whole) => {
      link?.release();
      let summary: Partial<TraceEventInput> = {};
      try {
        summary = observer.finish(error instanceof MessageTooLargeError ? error : undefined, whole);
      } catch (e) {
        safeRecord(observerError(server, channel, exchange, e));
      }
      // An answer on this exchange, if any, has come by now (a legacy server's come on its stream).
      if (channel === 'post-json' || channel === 'post-sse') for (const id of requestIds) outstanding.delete(id);
      safeRecord({
        server,
        channel,
        kind: 'http-end',
        dir: 'in',
        exchange,
        session: issued ?? sessionSent ?? currentSession,
        durationMs: now() - started,
        bytes: observer.bytes(),
        http: { end: isSse && end === 'complete' ? 'server-closed' : end, status: response.status },
        ...summary,
        ...(error ? { text: describeFetchError(error) } : {}),
      });
    };
    /**
     * Past the size limit the rest of the message is not read. A JSON body fails the SDK's read
     * of it (the request fails at once). On a stream, the request the event answers gets a
     * JSON-RPC error in its place, so it fails at once too, and the stream ends.
     */
    const overflow = (): Overflow | undefined => {
      const pending = observer.pending();
      if (pending <= maxMessageBytes) return undefined;
      const error = new MessageTooLargeError(isSse ? 'event on the stream' : 'response body', pending, maxMessageBytes);
      if (options.forwardOversize) {
        observer.skip(error);
        return undefined;
      }
      if (!isSse) return { error };
      const mine = requestIds.filter((id) => outstanding.has(id));
      const id = rpcIdFromHead(observer.partialData()) ?? (mine.length === 1 ? mine[0] : outstanding.size === 1 ? [...outstanding][0] : undefined);
      if (id === undefined) return { error };
      outstanding.delete(id);
      // The blank line ends the cut event on the SDK's side; the next event is the answer.
      const replacement = new TextEncoder().encode(`\n\nevent: message\ndata: ${JSON.stringify(syntheticErrorResponse(id, error.message))}\n\n`);
      return { error, replacement };
    };
    // An error status: the SDK often never reads the body (a 401, a 404, a 5xx page), so it is
    // read from a copy, whole, whatever the SDK does; its exchange ends when the copy does.
    if (!isSse && response.status >= 300) {
      observeCopy(response.clone(), observer, finish, maxMessageBytes);
      return response;
    }
    const observe = (chunk: Uint8Array) => {
      try {
        observer.chunk(chunk);
      } catch (error) {
        safeRecord(observerError(server, channel, exchange, error));
      }
    };
    // A proxy streams every body on (chunk by chunk, backpressure): a pass-through stream in a new Response.
    if (options.forwardOversize) return new Response(passThrough(response.body, observe, once(finish), overflow), { status: response.status, statusText: response.statusText, headers: response.headers });
    return observeInPlace(response, response.body, observe, once(finish), overflow);
  };

  function recordSessionChange(args: { issued?: string; sessionSent?: string; status: number; method: string; channel: Channel; exchange: string }): void {
    const { issued, sessionSent, status, method, channel, exchange } = args;
    if (issued && issued !== currentSession) {
      const previous = currentSession;
      currentSession = issued;
      safeRecord({
        server,
        channel: 'lifecycle',
        kind: 'session',
        dir: 'in',
        exchange,
        session: issued,
        text: previous ? `session changed ${previous} → ${issued}` : `session issued ${issued}`,
        meta: { event: previous ? 'changed' : 'issued', sessionId: issued, previous },
      });
      options.onSessionId?.(issued);
    }
    if (sessionSent && status === 404 && channel !== 'auth') {
      safeRecord({
        server,
        channel: 'lifecycle',
        kind: 'session',
        dir: 'in',
        exchange,
        session: sessionSent,
        text: `session ${sessionSent} expired (HTTP 404)`,
        meta: { event: 'expired', sessionId: sessionSent },
      });
      if (currentSession === sessionSent) currentSession = undefined;
    }
    if (method === 'DELETE' && sessionSent) {
      safeRecord({
        server,
        channel: 'lifecycle',
        kind: 'session',
        dir: 'out',
        exchange,
        session: sessionSent,
        text: status === 405 ? `server does not allow ending session ${sessionSent} (HTTP 405)` : `session ${sessionSent} terminated (HTTP ${status})`,
        meta: { event: 'terminated', sessionId: sessionSent, status },
      });
      if (currentSession === sessionSent) currentSession = undefined;
    }
  }
}

// ---------------------------------------------------------------------------------------

/**
 * The ids of the JSON-RPC requests a body summary holds (no flatMap: it was a sixth of the
 * exchange closure's own time in a profile of the SSE workload, bench/run.ts).
 */
function requestIdsOf(summary: { rpc?: RpcSummary; batch?: RpcSummary[] }): RpcId[] {
  const ids: RpcId[] = [];
  forEachRpc(summary, (r) => {
    if (r.kind === 'request' && r.id !== undefined) ids.push(r.id);
  });
  return ids;
}

/** What classification needs of a URL: origin + path without trailing slash, origin, and whether it is under /.well-known. */
interface UrlFacts {
  key: string;
  origin: string;
  wellKnown: boolean;
}

/** Memoized by the URL's text, since an endpoint's URL repeats on every request; throws as `new URL` does. */
const urlFactsCache = new Map<string, UrlFacts>();
function urlFacts(url: URL | string): UrlFacts {
  const raw = typeof url === 'string' ? url : url.href;
  let facts = urlFactsCache.get(raw);
  if (facts === undefined) {
    const u = typeof url === 'string' ? new URL(url) : url;
    facts = { key: `${u.origin}${u.pathname.replace(/\/+$/, '')}`, origin: u.origin, wellKnown: u.pathname.startsWith('/.well-known') };
    if (urlFactsCache.size > 512) urlFactsCache.clear();
    urlFactsCache.set(raw, facts);
  }
  return facts;
}

const urlKey = (url: URL | string): string => urlFacts(url).key;

function isCredentialUrl(url: string, endpointKey: string): boolean {
  try {
    return urlKey(url) !== endpointKey;
  } catch {
    return true;
  }
}

interface ClassifyInput {
  url: string;
  method: string;
  endpointKey: string;
  transport: HttpTransportKind;
  body: unknown;
  headers: Headers;
}

export function classify({ url, method, endpointKey, transport, body, headers }: ClassifyInput): Channel {
  let parsed: UrlFacts;
  try {
    parsed = urlFacts(url);
  } catch {
    return 'auth';
  }
  const key = parsed.key;
  if (transport === 'sse') {
    if (key === endpointKey && method === 'GET') return 'legacy-sse';
    if (method === 'POST' && parsed.origin === urlFacts(endpointKey).origin && !parsed.wellKnown && isJsonRpc(body)) return 'legacy-post';
    return 'auth';
  }
  if (key !== endpointKey) return 'auth';
  if (method === 'GET') return headers.has('last-event-id') ? 'resumption' : 'get';
  if (method === 'DELETE') return 'delete';
  const rpcMethod = (!Array.isArray(body) && body && typeof body === 'object' ? (body as { method?: unknown }).method : undefined) ?? headers.get('mcp-method');
  if (rpcMethod === 'server/discover') return 'discovery';
  if (rpcMethod === 'subscriptions/listen') return 'listen';
  return 'post-json';
}

function isJsonRpc(body: unknown): boolean {
  const summary = summarizeBody(body);
  return summary.rpc !== undefined || summary.batch !== undefined;
}

function readRequestBody(body: RequestInit['body'] | undefined, redactor: Redactor, credential: boolean): { body?: unknown; raw?: string; bytes: number; isJson: boolean } {
  if (body === undefined || body === null) return { bytes: 0, isJson: false };
  if (typeof body === 'string') {
    const parsed = parseJsonLoose(body);
    if (parsed.ok) return { ...traceBody(parsed.value, body, redactor, credential), bytes: Buffer.byteLength(body), isJson: true };
    const looksLikeForm = /^[\w.%-]+=[^&]*(&[\w.%-]+=[^&]*)*$/.test(body);
    return { body: looksLikeForm ? redactor.form(body) : redactor.text(body), bytes: Buffer.byteLength(body), isJson: false };
  }
  if (body instanceof URLSearchParams) {
    const text = body.toString();
    return { body: redactor.form(text), bytes: Buffer.byteLength(text), isJson: false };
  }
  if (body instanceof Uint8Array || body instanceof ArrayBuffer) return { body: `(${body.byteLength} bytes of binary)`, bytes: body.byteLength, isJson: false };
  return { body: '(streamed body, not recorded)', bytes: 0, isJson: false };
}

interface BodyObserver {
  chunk(chunk: Uint8Array): void;
  bytes(): number;
  /** Bytes of the message being read: the whole body (buffered), the event not yet complete (streams). */
  pending(): number;
  /** The text of the message being read, as far as it came (for an SSE event, its data). */
  partialData(): string;
  /**
   * What the end event carries: the body (buffered responses) or nothing (streams); what arrived
   * of a message cut at the limit. `whole`: the body as the SDK's read of it decoded (and parsed), to share.
   */
  finish(overLimit?: MessageTooLargeError, whole?: Whole): Partial<TraceEventInput>;
  /** forwardOversize: the message being read is over the limit; stop keeping it (bytes are still counted). */
  skip(overLimit: MessageTooLargeError): void;
}

/** What an observer keeps of a message it stopped keeping at the limit (forwardOversize). */
const SKIPPED_HEAD_BYTES = 4096;

interface Overflow {
  error: MessageTooLargeError;
  /** Bytes handed to the SDK in place of the rest of the stream. */
  replacement?: Uint8Array;
}

const overLimitMeta = (error: MessageTooLargeError) => ({ overLimit: { limit: error.limit, received: error.received } });

function bufferObserver(redactor: Redactor, credential: boolean, answered: (summary: { rpc?: RpcSummary; batch?: RpcSummary[] }) => void): BodyObserver {
  let chunks: Uint8Array[] = [];
  let size = 0;
  let skipped: MessageTooLargeError | undefined;
  const text = () => Buffer.concat(chunks).toString('utf8');
  return {
    chunk(chunk) {
      size += chunk.byteLength;
      if (!skipped) chunks.push(chunk);
    },
    bytes: () => size,
    pending: () => (skipped ? 0 : size),
    partialData: text,
    skip(overLimit) {
      skipped = overLimit;
      chunks = [Buffer.concat(chunks).subarray(0, SKIPPED_HEAD_BYTES)];
    },
    finish(overLimit, shared) {
      if (size === 0) return {};
      if (skipped) return { body: redactor.text(text()), truncated: true, meta: { overLimit: { limit: skipped.limit, received: size } } };
      const whole = shared?.text ?? text();
      // Cut at the limit: what arrived, as text, flagged.
      if (overLimit) return { body: redactor.text(whole), meta: overLimitMeta(overLimit) };
      const parsed = shared?.json ?? parseJsonLoose(whole);
      if (!parsed.ok) return { body: redactor.text(whole) };
      const summary = summarizeBody(parsed.value);
      answered(summary);
      return { ...traceBody(parsed.value, whole, redactor, credential, shared?.json !== undefined ? 'shared' : 'large', shared?.bytes), ...summary };
    },
  };
}

function sseObserver(args: {
  server: string;
  channel: Channel;
  exchange: string;
  record: RecordEvent;
  redactor: Redactor;
  answered: (summary: { rpc?: RpcSummary; batch?: RpcSummary[] }) => void;
  session: () => string | undefined;
}): BodyObserver {
  const { server, channel, exchange, record, redactor } = args;
  const decoder = new TextDecoder();
  let size = 0;
  let events = 0;
  /** The text fed since the last complete event (what an event still arriving has sent so far). */
  let since: string[] = [];
  let sinceBytes = 0;
  let dispatched = false;
  /** forwardOversize: the event over the limit, skipped until its blank line; `tail` holds the last bytes seen, for a boundary across chunks. */
  let skipping: { error: MessageTooLargeError; tail: string } | undefined;
  const parser = createParser({
    onEvent(message: EventSourceMessage) {
      events++;
      dispatched = true;
      const priming = message.id !== undefined && message.data === '';
      const parsed = message.data ? parseJsonLoose(message.data) : { ok: false as const };
      const kept: { body: unknown; raw?: string; wire?: string } = parsed.ok ? traceBody(parsed.value, message.data, redactor, false, 'own') : { body: message.data ? redactor.text(message.data) : undefined };
      const summary = parsed.ok ? summarizeBody(parsed.value) : {};
      args.answered(summary);
      record(
        {
          server,
          channel,
          kind: 'sse-event',
          dir: 'in',
          exchange,
          session: args.session(),
          sse: { id: message.id, event: message.event, ...(priming ? { priming: true } : {}) },
          ...summary,
          body: kept.body,
          ...(kept.raw !== undefined ? { raw: kept.raw } : {}),
          bytes: Buffer.byteLength(message.data),
        },
        // the data as the body's text: the spill file writes it as it came (TraceStore.append)
        kept.wire,
      );
    },
    onRetry(retry: number) {
      dispatched = true;
      record({ server, channel, kind: 'sse-retry', dir: 'in', exchange, session: args.session(), sse: { retry }, text: `retry: ${retry} ms` });
    },
    onComment(comment: string) {
      // A keep-alive ends what came before it too: a quiet stream never adds up to the limit.
      dispatched = true;
      record({ server, channel, kind: 'sse-comment', dir: 'in', exchange, session: args.session(), text: comment, bytes: comment.length });
    },
    onError(error) {
      // The SSE spec says unknown fields and malformed retry values are ignored: note them, don't count them as errors.
      if (error.type === 'unknown-field' || error.type === 'invalid-retry') {
        record({ server, channel, kind: 'sse-comment', dir: 'in', exchange, session: args.session(), text: `(ignored) ${error.message}`, meta: { ignored: error.type } });
      } else {
        record({ server, channel, kind: 'error', dir: 'in', exchange, text: `SSE parse error: ${error.message}` });
      }
    },
  });
  const partial = () => since.join('');
  return {
    chunk(chunk) {
      size += chunk.byteLength;
      let text = decoder.decode(chunk, { stream: true });
      if (skipping) {
        const seen = skipping.tail + text;
        const end = /\r\n\r\n|\n\n|\r\r/.exec(seen);
        if (!end) {
          skipping.tail = seen.slice(-3);
          return;
        }
        // The skipped event ended: the stream is observed again from the next one.
        skipping = undefined;
        parser.reset({ consume: false });
        text = seen.slice(end.index + end[0].length);
      }
      dispatched = false;
      parser.feed(text);
      if (dispatched) {
        // An event ended in this chunk: what follows its blank line belongs to the next one.
        const boundary = Math.max(text.lastIndexOf('\n\n'), text.lastIndexOf('\r\n\r\n'));
        const rest = boundary >= 0 ? text.slice(boundary).replace(/^[\r\n]+/, '') : '';
        since = rest ? [rest] : [];
        sinceBytes = Buffer.byteLength(rest);
      } else {
        since.push(text);
        sinceBytes += chunk.byteLength;
      }
    },
    bytes: () => size,
    pending: () => sinceBytes,
    skip(error) {
      const head = partial().slice(0, SKIPPED_HEAD_BYTES);
      record({ server, channel, kind: 'sse-event', dir: 'in', exchange, session: args.session(), body: redactor.text(head), truncated: true, text: `event over ${error.limit} bytes: forwarded whole, not kept`, meta: overLimitMeta(error) });
      skipping = { error, tail: partial().slice(-3) };
      since = [];
      sinceBytes = 0;
    },
    partialData: () => {
      const text = partial();
      const data = /(?:^|\n)data: ?/.exec(text);
      return data ? text.slice(data.index + data[0].length) : '';
    },
    finish(overLimit) {
      if (overLimit) return { body: redactor.text(partial()), meta: { events, ...overLimitMeta(overLimit) } };
      parser.feed(decoder.decode());
      return { meta: { events } };
    },
  };
}

/** Reads a copy of a body to its end (or to the size limit) into the observer. */
function observeCopy(copy: Response, observer: BodyObserver, finish: Finish, maxMessageBytes: number): void {
  const reader = copy.body!.getReader();
  void (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        observer.chunk(value);
        const pending = observer.pending();
        if (pending > maxMessageBytes) {
          const error = new MessageTooLargeError('response body', pending, maxMessageBytes);
          reader.cancel(error).catch(() => undefined);
          finish('error', error);
          return;
        }
      }
      finish('complete');
    } catch (error) {
      finish(isAbort(error) ? 'client-aborted' : 'error', error);
    }
  })();
}

/** A body read whole, as the SDK's `text()` or `json()` decoded it: the observer takes the same text (and value) instead of decoding (and parsing) it again. */
interface Whole {
  text: string;
  /** `json()`: the parse, handed to the SDK as well when it succeeded. */
  json?: { ok: true; value: unknown } | { ok: false };
  /** The bytes `text` was decoded from. */
  bytes?: Uint8Array;
}

type Finish = (end: 'complete' | 'client-aborted' | 'error', error?: unknown, whole?: Whole) => void;

/** `finish` called at most once, however the body ends (read whole, cancelled, cut at the limit). */
function once(finish: Finish): Finish {
  let finished = false;
  return (how, error, whole) => {
    if (finished) return;
    finished = true;
    finish(how, error, whole);
  };
}

/**
 * The SDK gets the real response back, observed in place: no second stream, no copied headers,
 * no new Response, unless it asks for the body as a stream. Reading it whole (`text()`, `json()`,
 * `arrayBuffer()`: the JSON answers, the 202s) reads the real body's chunks straight into the
 * observer, limit checked on each; `body` (an SSE stream) is the pass-through stream, built on
 * first use. Either way the SDK receives exactly the bytes the server sent.
 *
 * The overrides are shared functions that find their response's state under a symbol, never
 * closures made per response. A per-response getter would cost every call dearly: V8 keeps an
 * accessor's function in the object's hidden class, so each response with a getter of its own
 * got a hidden class of its own (a new map per call, kept alive by the transition tree, every
 * access to a Response megamorphic); in-process that was ~27 µs of CPU a call, most of the
 * tracking's cost (bench/tracking-cost.ts). Data properties holding shared functions, and one
 * shared getter, give every observed response the same hidden class.
 */
function observeInPlace(response: Response, source: ReadableStream<Uint8Array>, observe: (chunk: Uint8Array) => void, finish: Finish, overflow: () => Overflow | undefined): Response {
  const state: InPlace = { source, observe, finish, overflow, stream: undefined, read: false };
  // Not enumerable: kept out of inspection and spreads (same attributes on every response, so the same map).
  Object.defineProperty(response, IN_PLACE, { value: state, configurable: true, writable: true });
  Object.defineProperty(response, 'body', BODY_DESCRIPTOR);
  for (const [name, fn] of IN_PLACE_METHODS) if (name !== 'bytes' || 'bytes' in response) Object.defineProperty(response, name, { value: fn, configurable: true, writable: true });
  return response;
}

const IN_PLACE = Symbol('switchboard.observedInPlace');

interface InPlace {
  source: ReadableStream<Uint8Array>;
  observe: (chunk: Uint8Array) => void;
  finish: Finish;
  overflow: () => Overflow | undefined;
  /** The pass-through stream, once `body` was asked for. */
  stream: ReadableStream<Uint8Array> | undefined;
  /** Whether the body was read whole. */
  read: boolean;
}

/** The state of a response observed in place; a method called on anything else fails as a Response's would. */
function inPlaceOf(response: unknown): InPlace {
  const state = (response as { [IN_PLACE]?: InPlace } | null | undefined)?.[IN_PLACE];
  if (!state) throw new TypeError('Illegal invocation');
  return state;
}

function bodyOf(state: InPlace): ReadableStream<Uint8Array> {
  if (state.stream) return state.stream;
  if (state.read) return state.source;
  return (state.stream = passThrough(state.source, state.observe, state.finish, state.overflow));
}

async function wholeOf(response: unknown): Promise<Uint8Array> {
  const state = readOnce(response);
  const bytes = await readThrough(state);
  state.finish('complete');
  return bytes;
}

/**
 * `text()` and `json()`: the body decoded (and parsed) once, for the SDK and the observer both.
 * UTF-8 with a leading BOM dropped, as Response.text() does; a body that starts with one is left
 * to the observer's own decoding, which keeps the BOM as the trace always has.
 */
async function wholeTextOf(response: unknown, parse: boolean): Promise<{ text: string; value?: unknown }> {
  const state = readOnce(response);
  const bytes = await readThrough(state);
  let text: string;
  try {
    text = new TextDecoder().decode(bytes);
  } catch (error) {
    // (a body past the engine's longest string: only with a limit raised far above the default)
    state.finish('error', error);
    throw error;
  }
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  const complete = (json?: Whole['json']) => state.finish('complete', undefined, bom ? undefined : { text, json, bytes });
  if (!parse) {
    complete();
    return { text };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    complete({ ok: false });
    throw error;
  }
  complete({ ok: true, value });
  return { text, value };
}

function readOnce(response: unknown): InPlace {
  const state = inPlaceOf(response);
  if (state.stream || state.read) throw new TypeError('Body is unusable: Body has already been read');
  state.read = true;
  return state;
}

const BODY_DESCRIPTOR: PropertyDescriptor = {
  get(this: Response) {
    return bodyOf(inPlaceOf(this));
  },
  configurable: true,
};

/** A Response of the pass-through stream, for the rarer readers. */
function streamed(response: Response): Response {
  return new Response(bodyOf(inPlaceOf(response)), { status: response.status, statusText: response.statusText, headers: response.headers });
}

const IN_PLACE_METHODS: [string, (this: Response) => unknown][] = [
  [
    'arrayBuffer',
    async function (this: Response) {
      const bytes = await wholeOf(this);
      return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes.buffer : bytes.slice().buffer;
    },
  ],
  [
    'bytes',
    function (this: Response) {
      return wholeOf(this);
    },
  ],
  [
    'text',
    async function (this: Response) {
      return (await wholeTextOf(this, false)).text;
    },
  ],
  [
    'json',
    async function (this: Response) {
      return (await wholeTextOf(this, true)).value;
    },
  ],
  // Rarer readers go through the pass-through stream.
  [
    'blob',
    async function (this: Response) {
      return streamed(this).blob();
    },
  ],
  [
    'formData',
    async function (this: Response) {
      return streamed(this).formData();
    },
  ],
];

/** A body read whole, each chunk observed as it arrives; a body over the limit fails the read. The caller finishes a read that succeeded. */
async function readThrough({ source, observe, finish, overflow }: InPlace): Promise<Uint8Array> {
  const reader = source.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    let result: Awaited<ReturnType<typeof reader.read>>;
    try {
      result = await reader.read();
    } catch (error) {
      finish(isAbort(error) ? 'client-aborted' : 'error', error);
      throw error;
    }
    if (result.done) break;
    chunks.push(result.value);
    size += result.value.byteLength;
    observe(result.value);
    const over = overflowOf(overflow);
    if (over) {
      finish('error', over.error);
      reader.cancel(over.error).catch(() => undefined);
      throw over.error;
    }
  }
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}

/** The observer's overflow verdict; an observer that throws counts as no overflow. */
function overflowOf(overflow: () => Overflow | undefined): Overflow | undefined {
  try {
    return overflow();
  } catch {
    return undefined;
  }
}

/**
 * Hands the SDK every chunk first, then lets the observer see it. Cancellation by the SDK
 * cancels the source (unlike `tee()`, whose other branch would keep the connection open).
 */
function passThrough(source: ReadableStream<Uint8Array>, observe: (chunk: Uint8Array) => void, end: Finish, overflow: () => Overflow | undefined): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let result: Awaited<ReturnType<typeof reader.read>>;
      try {
        result = await reader.read();
      } catch (error) {
        end(isAbort(error) ? 'client-aborted' : 'error', error);
        controller.error(error);
        return;
      }
      if (result.done) {
        controller.close();
        end('complete');
        return;
      }
      controller.enqueue(result.value);
      observe(result.value);
      const over = overflowOf(overflow);
      if (!over) return;
      if (over.replacement) {
        controller.enqueue(over.replacement);
        controller.close();
      } else controller.error(over.error);
      end('error', over.error);
      reader.cancel(over.error).catch(() => undefined);
    },
    cancel(reason) {
      end('client-aborted');
      return reader.cancel(reason);
    },
  });
}

/**
 * The signal the base fetch gets for an exchange, following the caller's. The SDK hands every
 * request its transport's one long-lived signal; undici adds an abort listener to a request's
 * signal and drops it only when the Request is garbage-collected, and Node's EventTarget walks
 * every listener on each add: on that one signal, each request costs more than the last until a
 * GC. So the base fetch gets a signal of ours, a fresh one every EXCHANGES_PER_SIGNAL exchanges:
 * its listener list stays short, and an AbortController (~4.5 µs and ~1.2 KB to make on Node 20)
 * is not made for every exchange. The caller's signal holds one listener of ours however many
 * exchanges it carries; when it aborts, every signal of ours with an exchange under way aborts
 * too, with the caller's reason. An exchange leaves its signal when it ends (its body read,
 * cancelled or failed).
 */
function exchangeSignal(outer: AbortSignal | null | undefined): ExchangeLink | undefined {
  if (!outer || outer.aborted) return undefined;
  let signals = following.get(outer);
  if (!signals) {
    const created: Following = { current: undefined, uses: 0, live: new Map() };
    signals = created;
    following.set(outer, created);
    outer.addEventListener(
      'abort',
      () => {
        following.delete(outer);
        for (const controller of created.live.keys()) controller.abort(outer.reason);
        created.live.clear();
      },
      { once: true },
    );
  }
  if (!signals.current || signals.uses >= EXCHANGES_PER_SIGNAL) {
    // (the one it replaces stays only while exchanges are under way on it)
    if (signals.current && !signals.live.get(signals.current)) signals.live.delete(signals.current);
    signals.current = new AbortController();
    signals.uses = 0;
  }
  const controller = signals.current;
  signals.uses++;
  signals.live.set(controller, (signals.live.get(controller) ?? 0) + 1);
  return new ExchangeLink(signals, controller);
}

/** Exchanges that share one signal of ours before the next is made. */
const EXCHANGES_PER_SIGNAL = 32;

/** A caller's signal: the one of ours new exchanges get, how many have had it, and how many exchanges are under way on each. */
interface Following {
  current: AbortController | undefined;
  uses: number;
  live: Map<AbortController, number>;
}

const following = new WeakMap<AbortSignal, Following>();

class ExchangeLink {
  private released = false;
  constructor(
    private readonly signals: Following,
    private readonly controller: AbortController,
  ) {}

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The exchange ended (once; again is nothing). */
  release(): void {
    if (this.released) return;
    this.released = true;
    const left = (this.signals.live.get(this.controller) ?? 1) - 1;
    if (left > 0 || this.controller === this.signals.current) this.signals.live.set(this.controller, left);
    else this.signals.live.delete(this.controller);
  }
}

function isAbort(error: unknown): boolean {
  const name = (error as { name?: unknown })?.name;
  return name === 'AbortError' || name === 'TimeoutError';
}

export function describeFetchError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ? `${error.message} (${cause.code}: ${cause.message ?? ''})` : error.message;
}

function observerError(server: string, channel: Channel, exchange: string, error: unknown): TraceEventInput {
  return { server, channel, kind: 'error', dir: 'none', exchange, text: `trace observer failed: ${error instanceof Error ? error.message : String(error)}`, meta: { observer: true } };
}

export { summarizeRpc };
