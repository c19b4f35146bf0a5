/**
 * Trace events → OpenTelemetry spans (#16), one event at a time, so the same code serves a file
 * export (every event, then `finish`) and a live stream (`record`/`proxy --otlp`: spans handed on
 * as their requests complete).
 *
 * The names and attributes follow the OpenTelemetry semantic conventions for MCP (status:
 * Development; docs/gen-ai/mcp.md of open-telemetry/semantic-conventions-genai, "Spans"):
 * - one span per JSON-RPC request, from the request to its response (or to the end of the trace),
 *   named `{mcp.method.name} {target}` (target: the tool or prompt name), else `{mcp.method.name}`;
 *   kind CLIENT for a request Switchboard (or the client behind a proxy) sent the server, SERVER
 *   for one the server sent us (sampling, elicitation, roots);
 * - attributes `mcp.method.name`, `jsonrpc.request.id`, `mcp.session.id`, `mcp.protocol.version`,
 *   `network.transport` (`tcp` for HTTP, `pipe` for stdio), `network.protocol.name`,
 *   `server.address`/`server.port`, `gen_ai.tool.name` + `gen_ai.operation.name=execute_tool`
 *   (tools/call), `gen_ai.prompt.name` (prompts/get), `mcp.resource.uri` (resources/read,
 *   subscribe, unsubscribe); on a JSON-RPC error `error.type` and `rpc.response.status_code` (the
 *   code as a string: the convention's current name for what older drafts called
 *   `rpc.jsonrpc.error_code`) and status ERROR with the error's message; a tool result with
 *   `isError: true` is `error.type=tool_error`;
 * - context propagation: a request whose `params._meta.traceparent` (W3C) parses gets that trace
 *   id and that span as its remote parent (`tracestate` kept); otherwise every span of one
 *   connection to a server (from its `initialize` to the next; a 2026 server, which has none: the
 *   whole trace) shares a trace id, and a server→client request that arrives inside one of our
 *   requests' HTTP exchanges is a child of that request's span.
 *
 * Notifications are short spans (start = end, the convention's span for a notification), except
 * `notifications/progress` and `notifications/cancelled` naming a request still open: those are
 * events of that request's span. HTTP exchanges and SSE events are span events of the request
 * they carried (`http.request`, `http.response`, `http.end`, `sse.event`; a notification's span
 * has the event that carried it); an exchange that carried no JSON-RPC message (the GET/listen
 * stream, a DELETE, OAuth, metadata discovery) is a span of its own named after its HTTP method, per the HTTP client convention (`http.request.method`,
 * `url.full`, `http.response.status_code`). No message bodies: the JSONL export keeps those.
 *
 * Every string that leaves here went through the trace's redaction at the source and then
 * through `scrub` (the exports' last net over every server's secrets), so a protobuf payload,
 * which no text scrubber can see into, is as clean as the JSON file.
 */
import { SpanKind, SpanStatusCode, TraceFlags, type Attributes, type Link, type SpanContext, type SpanStatus } from '@opentelemetry/api';
import { millisToHrTime, parseTraceParent, TraceState, type InstrumentationScope } from '@opentelemetry/core';
import { resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import { RandomIdGenerator, type ReadableSpan, type TimedEvent } from '@opentelemetry/sdk-trace';
import type { RpcSummary, TraceEvent } from '../../../contract/trace';

export interface SpanBuilderOptions {
  /** Server id → display name (`service.name` of its resource). */
  serverNames: Record<string, string>;
  app: { name: string; version: string };
  /** The last net over every string (the exports' scrubber); identity when there is nothing to scrub. */
  scrub?: (text: string) => string;
}

/** Span events kept per span (a long SSE stream): past it they are counted in `droppedEventsCount`. */
export const MAX_EVENTS_PER_SPAN = 128;
/** Attribute values are cut here (a header, a URL): OTLP has no limit of its own, collectors do. */
export const MAX_ATTRIBUTE_CHARS = 2048;
/** Requests kept open waiting for an answer; past it the oldest is closed as unanswered. */
export const MAX_OPEN_SPANS = 10_000;

interface OpenSpan {
  name: string;
  kind: SpanKind;
  context: SpanContext;
  parent?: SpanContext;
  server: string;
  start: number;
  attributes: Attributes;
  events: TimedEvent[];
  dropped: number;
  status: SpanStatus;
  /** JSON-RPC request key (`server|dir|id`), absent for an HTTP span. */
  key?: string;
  /** Its key in `open` (the request key, or the exchange's for an HTTP span). */
  tracked?: string;
  /** Exchanges whose events land on this span. */
  exchanges: string[];
  lastTs: number;
}

const ids = new RandomIdGenerator();

export class SpanBuilder {
  private readonly open = new Map<string, OpenSpan>();
  /** Exchange id → the spans its events belong to. */
  private readonly byExchange = new Map<string, OpenSpan[]>();
  /** server → the trace id every span of its current connection without a propagated parent shares. */
  private readonly traces = new Map<string, string>();
  private readonly resources = new Map<string, Resource>();
  /** Per server: what the latest `era` event said (protocol version). */
  private readonly protocol = new Map<string, string>();
  private readonly scope: InstrumentationScope;
  private readonly scrub: (text: string) => string;
  private lastTs = 0;
  /** Spans ended by something other than their own answer (an id reused, the open-span cap), handed out with the next push. */
  private readonly evicted: ReadableSpan[] = [];

  constructor(private readonly options: SpanBuilderOptions) {
    this.scope = { name: 'switchboard', version: options.app.version };
    this.scrub = options.scrub ?? ((t) => t);
  }

  /** One event in; the spans it completed out (oldest first). */
  push(event: TraceEvent): ReadableSpan[] {
    const done: ReadableSpan[] = [];
    this.lastTs = Math.max(this.lastTs, event.ts);
    if (event.kind === 'era' && typeof event.meta?.protocolVersion === 'string') this.protocol.set(event.server, event.meta.protocolVersion);
    if (event.channel === 'lifecycle') return done;

    const messages = event.batch ?? (event.rpc ? [event.rpc] : []);
    const bodies = Array.isArray(event.body) ? (event.body as unknown[]) : [event.body];
    // Requests first open their spans, so this very event (an http-request) is their first span event.
    const opened: OpenSpan[] = [];
    messages.forEach((rpc, i) => {
      if (rpc.kind === 'request' && rpc.id !== undefined && rpc.method) opened.push(this.openRequest(event, rpc, bodies[i]));
    });
    if (event.exchange && opened.length) this.link(event.exchange, opened);

    if (event.exchange) {
      // An exchange that carries no JSON-RPC message at all (GET/listen, DELETE, OAuth, metadata) is a span of its own.
      if (event.kind === 'http-request' && !messages.length && !this.byExchange.has(event.exchange)) this.openHttp(event);
      for (const span of this.byExchange.get(event.exchange) ?? []) this.addEvent(span, event);
    } else if (event.channel === 'stdio') {
      for (const span of opened) this.addEvent(span, event);
    }

    messages.forEach((rpc, i) => {
      if (rpc.kind === 'notification') {
        const span = this.notification(event, rpc);
        if (span) done.push(span);
      } else if (rpc.kind === 'result' || rpc.kind === 'error') {
        const span = this.answer(event, rpc, bodies[i]);
        if (span) done.push(span);
      }
    });

    if (event.kind === 'http-end' && event.exchange) {
      const spans = this.byExchange.get(event.exchange) ?? [];
      this.byExchange.delete(event.exchange);
      for (const span of spans) {
        span.exchanges = span.exchanges.filter((x) => x !== event.exchange);
        if (span.key) {
          if (this.open.get(span.key) !== span) continue;
          // A request whose exchange ended without its answer: a transport failure, an abort or an
          // HTTP error ends it (a 202 does not: a legacy server answers on its GET stream).
          const status = event.http?.status;
          const end = event.http?.end;
          if (end === 'error') this.setError(span, 'transport', event.text ?? 'the HTTP exchange failed');
          else if (end === 'client-aborted') this.setError(span, 'cancelled', 'the client aborted the request');
          else if (status !== undefined && status >= 400) {
            // The 2026 probe's refusal by an older server is negotiation, not a failure (trace/negotiation.ts).
            if (event.negotiation === 'answer') span.attributes['switchboard.negotiation'] = 'answer';
            else this.setError(span, String(status), `HTTP ${status}`);
          } else continue;
          done.push(this.close(span, event.ts));
        } else if (this.open.get(httpKey(event.exchange)) === span) {
          const status = span.attributes['http.response.status_code'];
          if (event.http?.end === 'error') this.setError(span, 'transport', event.text ?? 'the HTTP exchange failed');
          else if (typeof status === 'number' && status >= 400) this.setError(span, String(status), `HTTP ${status}`);
          done.push(this.close(span, event.ts));
        }
      }
    }
    if (this.evicted.length) done.unshift(...this.evicted.splice(0));
    if (event.kind === 'exit') {
      // A process that exits answers nothing more: its open requests end here.
      for (const span of [...this.open.values()]) {
        if (span.server !== event.server) continue;
        this.setError(span, 'process_exited', event.text ?? 'the server process exited');
        done.push(this.close(span, event.ts));
      }
    }
    return done;
  }

  /** The spans still open when the trace ends, closed at its last event and marked. */
  finish(): ReadableSpan[] {
    const done: ReadableSpan[] = [];
    for (const span of [...this.open.values()]) {
      span.attributes['switchboard.open_at_end'] = true;
      done.push(this.close(span, Math.max(span.lastTs, this.lastTs)));
    }
    this.byExchange.clear();
    return done;
  }

  private openRequest(event: TraceEvent, rpc: RpcSummary, body: unknown): OpenSpan {
    const method = rpc.method!;
    const params = paramsOf(body);
    const target = method === 'tools/call' || method === 'prompts/get' ? stringField(params, 'name') : undefined;
    const attributes = this.baseAttributes(event, method);
    attributes['jsonrpc.request.id'] = this.clip(String(rpc.id));
    if (method === 'tools/call' && target) {
      attributes['gen_ai.tool.name'] = this.clip(target);
      attributes['gen_ai.operation.name'] = 'execute_tool';
    }
    if (method === 'prompts/get' && target) attributes['gen_ai.prompt.name'] = this.clip(target);
    const uri = method.startsWith('resources/') ? stringField(params, 'uri') : undefined;
    if (uri) attributes['mcp.resource.uri'] = this.clip(uri);
    const token = (params?._meta as { progressToken?: unknown } | undefined)?.progressToken;
    if (typeof token === 'string' || typeof token === 'number') attributes['switchboard.progress_token'] = this.clip(String(token));

    // `initialize` starts a connection: a new trace for that server from here on.
    if (method === 'initialize' && event.dir === 'out') this.traces.delete(event.server);
    const propagated = propagatedParent(params);
    // A server's request inside one of our requests' exchanges belongs to it (elicitation during a tool call).
    const within = event.dir === 'in' && event.exchange ? this.byExchange.get(event.exchange)?.find((s) => s.key) : undefined;
    const parent = propagated ?? within?.context;
    const span = this.newSpan(event, target ? `${method} ${target}` : method, attributes, parent, propagated?.traceState);
    const key = rpcKey(event.server, event.dir, rpc.id!);
    span.key = key;
    const previous = this.open.get(key);
    if (previous) {
      // An id reused before its answer: the older request ends here, unanswered.
      previous.attributes['switchboard.unanswered'] = true;
      this.evicted.push(this.close(previous, event.ts));
    }
    this.track(key, span);
    return span;
  }

  /** An exchange that carried no request of its own: a span named after its HTTP method. */
  private openHttp(event: TraceEvent): void {
    const method = event.http?.method ?? 'HTTP';
    const attributes = this.baseAttributes(event, undefined);
    attributes['http.request.method'] = method;
    attributes['switchboard.channel'] = event.channel;
    if (event.http?.url) attributes['url.full'] = this.clip(event.http.url);
    const span = this.newSpan(event, method, attributes, undefined);
    span.kind = SpanKind.CLIENT; // ours, whichever way the exchange's messages went
    this.track(httpKey(event.exchange!), span);
    this.link(event.exchange!, [span]);
  }

  private notification(event: TraceEvent, rpc: RpcSummary): ReadableSpan | undefined {
    const method = rpc.method ?? 'notification';
    const body = Array.isArray(event.body) ? undefined : event.body;
    const params = paramsOf(body);
    // Progress and cancellation name a request: an event of its span while it is open.
    const about =
      method === 'notifications/progress' && rpc.progressToken !== undefined
        ? this.findByProgressToken(event.server, rpc.progressToken)
        : method === 'notifications/cancelled'
          ? this.findById(event.server, event.dir === 'out' ? 'out' : 'in', params?.requestId)
          : undefined;
    if (about) {
      this.pushEvent(about, method, event.ts, this.notificationAttributes(method, params));
      return undefined;
    }
    const attributes = this.baseAttributes(event, method);
    Object.assign(attributes, this.notificationAttributes(method, params));
    const within = event.exchange ? this.byExchange.get(event.exchange)?.find((s) => s.key) : undefined;
    const propagated = propagatedParent(params);
    const parent = propagated ?? within?.context;
    const span = this.newSpan(event, method, attributes, parent);
    this.addEvent(span, event); // the message that carried it (an HTTP request, an SSE event, a stdio line)
    return this.toReadable(span, event.ts);
  }

  /** A span starting at `event`: SERVER when the server sent it, CLIENT otherwise; in the parent's trace, else the connection's. */
  private newSpan(event: TraceEvent, name: string, attributes: Attributes, parent: SpanContext | undefined, traceState?: SpanContext['traceState']): OpenSpan {
    return {
      name: this.clip(name),
      kind: event.dir === 'in' ? SpanKind.SERVER : SpanKind.CLIENT,
      context: { traceId: parent?.traceId ?? this.sessionTrace(event), spanId: ids.generateSpanId(), traceFlags: TraceFlags.SAMPLED, ...(traceState ? { traceState } : {}) },
      ...(parent ? { parent } : {}),
      server: event.server,
      start: event.ts,
      attributes,
      events: [],
      dropped: 0,
      status: { code: SpanStatusCode.UNSET },
      exchanges: [],
      lastTs: event.ts,
    };
  }

  private answer(event: TraceEvent, rpc: RpcSummary, body: unknown): ReadableSpan | undefined {
    if (rpc.id === undefined) return undefined;
    // An answer travels the other way from its request.
    const key = rpcKey(event.server, event.dir === 'in' ? 'out' : 'in', rpc.id);
    const span = this.open.get(key);
    if (!span) return undefined;
    if (event.exchange && !span.exchanges.includes(event.exchange)) this.addEvent(span, event); // answered on another stream (legacy SSE, stdio)
    if (event.channel === 'stdio') this.addEvent(span, event);
    if (rpc.kind === 'error') {
      const code = rpc.errorCode !== undefined ? String(rpc.errorCode) : 'error';
      span.attributes['rpc.response.status_code'] = code;
      // An older server's "Method not found" to the 2026 probe is how negotiation goes, not a failure.
      if (event.negotiation === 'answer') span.attributes['switchboard.negotiation'] = 'answer';
      else this.setError(span, code, rpc.errorMessage ?? 'JSON-RPC error');
    } else if (isToolError(span, body)) {
      this.setError(span, 'tool_error', 'the tool returned isError: true');
    }
    return this.close(span, event.ts);
  }

  private baseAttributes(event: TraceEvent, method: string | undefined): Attributes {
    const a: Attributes = {};
    if (method) a['mcp.method.name'] = this.clip(method);
    if (event.session) a['mcp.session.id'] = this.clip(event.session);
    const version = this.protocol.get(event.server) ?? event.http?.headers?.['mcp-protocol-version'];
    if (version) a['mcp.protocol.version'] = this.clip(version);
    if (event.channel === 'stdio') {
      a['network.transport'] = 'pipe';
    } else {
      a['network.transport'] = 'tcp';
      a['network.protocol.name'] = 'http';
      const where = hostOf(event.http?.url);
      if (where) {
        a['server.address'] = where.address;
        if (where.port) a['server.port'] = where.port;
      }
    }
    a['switchboard.server.id'] = this.clip(event.server);
    return a;
  }

  private notificationAttributes(method: string, params: Record<string, unknown> | undefined): Attributes {
    const a: Attributes = {};
    const uri = method === 'notifications/resources/updated' ? stringField(params, 'uri') : undefined;
    if (uri) a['mcp.resource.uri'] = this.clip(uri);
    if (method === 'notifications/progress') {
      if (typeof params?.progress === 'number') a['mcp.progress'] = params.progress;
      if (typeof params?.total === 'number') a['mcp.progress.total'] = params.total;
    }
    if (method === 'notifications/cancelled') {
      const reason = stringField(params, 'reason');
      if (reason) a['mcp.cancelled.reason'] = this.clip(reason);
    }
    return a;
  }

  /** An event of the trace as a span event: what happened on the wire, without the payload. */
  private addEvent(span: OpenSpan, event: TraceEvent): void {
    const a: Attributes = { 'switchboard.seq': event.seq };
    if (event.exchange) a['switchboard.exchange'] = this.clip(event.exchange);
    if (event.bytes !== undefined) a['switchboard.bytes'] = event.bytes;
    const http = event.http;
    let name: string = event.kind;
    if (event.kind === 'http-request') {
      name = 'http.request';
      if (http?.method) a['http.request.method'] = http.method;
      if (http?.url) a['url.full'] = this.clip(http.url);
      this.headerAttributes(a, 'http.request.header', http?.headers);
      const where = hostOf(http?.url);
      if (where && !span.attributes['server.address']) {
        span.attributes['server.address'] = where.address;
        if (where.port) span.attributes['server.port'] = where.port;
      }
    } else if (event.kind === 'http-response') {
      name = 'http.response';
      if (http?.status !== undefined) {
        a['http.response.status_code'] = http.status;
        if (!span.key) span.attributes['http.response.status_code'] = http.status;
      }
      if (http?.contentType) a['http.response.header.content-type'] = this.clip(http.contentType);
      if (http?.ttfbMs !== undefined) a['switchboard.ttfb_ms'] = http.ttfbMs;
      this.headerAttributes(a, 'http.response.header', http?.headers);
    } else if (event.kind === 'http-end') {
      name = 'http.end';
      if (http?.end) a['switchboard.http.end'] = http.end;
      if (event.durationMs !== undefined) a['switchboard.duration_ms'] = event.durationMs;
      if (event.text) a['exception.message'] = this.clip(event.text);
    } else if (event.kind === 'sse-event') {
      name = 'sse.event';
      if (event.sse?.id) a['sse.id'] = this.clip(event.sse.id);
      if (event.sse?.event) a['sse.event'] = this.clip(event.sse.event);
      if (event.sse?.priming) a['sse.priming'] = true;
    } else if (event.kind === 'jsonrpc-out' || event.kind === 'jsonrpc-in') {
      name = event.kind === 'jsonrpc-out' ? 'stdio.write' : 'stdio.read';
    } else if (event.kind === 'error') {
      name = 'exception';
      if (event.text) a['exception.message'] = this.clip(event.text);
    } else if (event.text) {
      a['switchboard.text'] = this.clip(event.text);
    }
    const rpc = event.rpc;
    if (rpc) {
      a['switchboard.rpc.kind'] = rpc.kind;
      if (rpc.method) a['mcp.method.name'] = this.clip(rpc.method);
      if (rpc.id !== undefined) a['jsonrpc.request.id'] = this.clip(String(rpc.id));
    }
    this.pushEvent(span, name, event.ts, a);
  }

  private headerAttributes(a: Attributes, prefix: string, headers: Record<string, string> | undefined): void {
    // The HTTP convention's `http.request.header.<key>`: a string array per header.
    for (const [name, value] of Object.entries(headers ?? {})) a[`${prefix}.${name.toLowerCase()}`] = [this.clip(value)];
  }

  private pushEvent(span: OpenSpan, name: string, ts: number, attributes: Attributes): void {
    span.lastTs = Math.max(span.lastTs, ts);
    if (span.events.length >= MAX_EVENTS_PER_SPAN) {
      span.dropped++;
      return;
    }
    span.events.push({ name, time: millisToHrTime(ts), attributes });
  }

  private setError(span: OpenSpan, type: string, message: string): void {
    span.attributes['error.type'] = this.clip(type);
    span.status = { code: SpanStatusCode.ERROR, message: this.clip(message) };
  }

  private link(exchange: string, spans: OpenSpan[]): void {
    const list = this.byExchange.get(exchange) ?? [];
    for (const span of spans) {
      list.push(span);
      span.exchanges.push(exchange);
    }
    this.byExchange.set(exchange, list);
  }

  private track(key: string, span: OpenSpan): void {
    span.tracked = key;
    this.open.set(key, span);
    if (this.open.size > MAX_OPEN_SPANS) {
      const oldest = this.open.values().next().value!;
      oldest.attributes['switchboard.open_at_end'] = true;
      this.evicted.push(this.close(oldest, oldest.lastTs));
    }
  }

  private close(span: OpenSpan, end: number): ReadableSpan {
    if (span.tracked && this.open.get(span.tracked) === span) this.open.delete(span.tracked);
    for (const x of span.exchanges) {
      const list = this.byExchange.get(x)?.filter((s) => s !== span);
      if (list?.length) this.byExchange.set(x, list);
      else this.byExchange.delete(x);
    }
    span.exchanges = [];
    return this.toReadable(span, end);
  }

  private toReadable(span: OpenSpan, end: number): ReadableSpan {
    // The last net, in one place: every string of the span (name, attributes, events, status).
    span.name = this.scrub(span.name);
    this.scrubAttributes(span.attributes);
    for (const e of span.events) if (e.attributes) this.scrubAttributes(e.attributes);
    if (span.status.message) span.status = { ...span.status, message: this.scrub(span.status.message) };
    const startTime = millisToHrTime(span.start);
    const endTime = millisToHrTime(Math.max(span.start, end));
    const durationMs = Math.max(0, end - span.start);
    const links: Link[] = [];
    return {
      name: span.name,
      kind: span.kind,
      spanContext: () => span.context,
      ...(span.parent ? { parentSpanContext: span.parent } : {}),
      startTime,
      endTime,
      duration: millisToHrTime(durationMs),
      status: span.status,
      attributes: span.attributes,
      links,
      events: span.events,
      ended: true,
      resource: this.resourceOf(span.server),
      instrumentationScope: this.scope,
      droppedAttributesCount: 0,
      droppedEventsCount: span.dropped,
      droppedLinksCount: 0,
    };
  }

  private scrubAttributes(attributes: Attributes): void {
    for (const [key, value] of Object.entries(attributes)) {
      if (typeof value === 'string') attributes[key] = this.scrub(value);
      else if (Array.isArray(value)) attributes[key] = value.map((v) => (typeof v === 'string' ? this.scrub(v) : v)) as typeof value;
    }
  }

  private resourceOf(server: string): Resource {
    let resource = this.resources.get(server);
    if (!resource) {
      resource = resourceFromAttributes({
        'service.name': this.clip(this.options.serverNames[server] ?? server),
        'switchboard.server.id': this.clip(server),
        'telemetry.sdk.name': 'opentelemetry',
        'telemetry.sdk.language': 'nodejs',
        'switchboard.version': this.options.app.version,
      });
      this.resources.set(server, resource);
    }
    return resource;
  }

  /** The trace of the server's current connection (a new one from each `initialize`). */
  private sessionTrace(event: TraceEvent): string {
    let id = this.traces.get(event.server);
    if (!id) {
      id = ids.generateTraceId();
      this.traces.set(event.server, id);
    }
    return id;
  }

  private findByProgressToken(server: string, token: string | number): OpenSpan | undefined {
    const wanted = this.clip(String(token));
    for (const span of this.open.values()) if (span.server === server && span.key && span.attributes['switchboard.progress_token'] === wanted) return span;
    return undefined;
  }

  private findById(server: string, dir: 'out' | 'in', id: unknown): OpenSpan | undefined {
    if (typeof id !== 'string' && typeof id !== 'number') return undefined;
    return this.open.get(rpcKey(server, dir, id));
  }

  /** Scrubbed, then cut to MAX_ATTRIBUTE_CHARS (in that order: a cut never leaves half a secret behind). */
  private clip(text: string): string {
    const clean = this.scrub(text);
    return clean.length > MAX_ATTRIBUTE_CHARS ? `${clean.slice(0, MAX_ATTRIBUTE_CHARS)}…` : clean;
  }
}

function rpcKey(server: string, dir: string, id: string | number): string {
  return `${server}|${dir}|${typeof id}:${id}`;
}

function httpKey(exchange: string): string {
  return `http|${exchange}`;
}

function paramsOf(body: unknown): Record<string, unknown> | undefined {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const params = (body as { params?: unknown }).params;
  return params && typeof params === 'object' && !Array.isArray(params) ? (params as Record<string, unknown>) : undefined;
}

function stringField(record: Record<string, unknown> | undefined, name: string): string | undefined {
  const value = record?.[name];
  return typeof value === 'string' && value ? value : undefined;
}

/** `params._meta.traceparent` (W3C Trace Context, unprefixed as SEP-414 says) as a remote parent. */
function propagatedParent(params: Record<string, unknown> | undefined): SpanContext | undefined {
  const meta = params?._meta;
  if (!meta || typeof meta !== 'object') return undefined;
  const header = (meta as Record<string, unknown>).traceparent;
  if (typeof header !== 'string' || header.length > 256) return undefined;
  const parsed = parseTraceParent(header.trim());
  if (!parsed) return undefined;
  const state = (meta as Record<string, unknown>).tracestate;
  return { ...parsed, isRemote: true, ...(typeof state === 'string' && state.length <= 512 ? { traceState: new TraceState(state) } : {}) };
}

function hostOf(url: string | undefined): { address: string; port?: number } | undefined {
  if (!url) return undefined;
  try {
    const u = new URL(url);
    const port = u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : u.protocol === 'http:' ? 80 : undefined;
    return { address: u.hostname.replace(/^\[|\]$/g, ''), ...(port ? { port } : {}) };
  } catch {
    return undefined;
  }
}

function isToolError(span: OpenSpan, body: unknown): boolean {
  if (span.attributes['mcp.method.name'] !== 'tools/call' || !body || typeof body !== 'object') return false;
  const result = (body as { result?: unknown }).result;
  return !!result && typeof result === 'object' && (result as { isError?: unknown }).isError === true;
}
