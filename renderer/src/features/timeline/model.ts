/**
 * The timeline's model: trace events folded, incrementally, into lanes per server (requests
 * each way, notifications, one lane per transport channel, lifecycle, errors). Requests are
 * spans from send to response, paired by server + id + direction as the core's snapshot
 * engine does; HTTP exchanges are spans from http-request to http-end (streams carry their
 * SSE events as ticks); the rest are ticks. Every list is kept sorted by time so the canvas
 * finds what is visible with a binary search; nothing here is React state.
 */
import { CHANNELS, type Channel, type RpcSummary, type TraceEvent } from '../../../../contract/trace';
import { appOf } from '../../components/app-tool';
import { afterSeq, lowerBound } from '../../state/seq-search';

export type LaneKind = 'rpc-out' | 'rpc-in' | 'notifications' | 'channel' | 'lifecycle' | 'errors';

export type SpanStatus = 'ok' | 'error' | 'tool-error' | 'pending' | 'abandoned' | 'cancelled';

export type TickStyle = 'out' | 'in' | 'muted' | 'life' | 'error';

export interface Span {
  lane: Lane;
  row: number;
  start: number;
  /** NaN while open. */
  end: number;
  open: boolean;
  type: 'rpc' | 'exchange' | 'process';
  /** Method, or "POST /mcp", or the command. */
  label: string;
  status: SpanStatus;
  /** The event that opened the span (a click shows it in Traffic). */
  seq: number;
  startEvent: TraceEvent;
  endEvent?: TraceEvent;
  /** HTTP status; stream (SSE response); SSE events seen. */
  httpStatus?: number;
  stream?: boolean;
  events: number;
  detail?: string;
}

export interface Tick {
  ts: number;
  style: TickStyle;
  event: TraceEvent;
  /** For a tick standing for one message of a batch/body. */
  rpc?: RpcSummary;
}

/** A key of numbers by themselves (`lowerBound` over a lane's times). */
const itself = (value: number): number => value;

/**
 * A lane's ticks, sorted by time, kept as parallel arrays rather than one object a tick: under a
 * flood the Timeline holds two ticks an event for every event of its window, and each tick as an
 * object (with its time as a heap number of its own) was garbage the page's young-generation GC
 * had to copy twice before it died old. Here a tick is a double in a packed array and three
 * references. `at(i)` makes the object for the few that are hovered, clicked or tested.
 */
export class Ticks {
  /** Ascending. */
  readonly ts: number[] = [];
  readonly events: TraceEvent[] = [];
  readonly styles: TickStyle[] = [];
  readonly rpcs: (RpcSummary | undefined)[] = [];

  get length(): number {
    return this.ts.length;
  }

  at(i: number): Tick | undefined {
    if (i < 0 || i >= this.ts.length) return undefined;
    return { ts: this.ts[i]!, style: this.styles[i]!, event: this.events[i]!, rpc: this.rpcs[i] };
  }

  /** Every tick as an object, in order (tests, small lanes). */
  list(): Tick[] {
    return this.ts.map((_, i) => this.at(i)!);
  }

  /** First index whose time is ≥ `ts`. */
  from(ts: number): number {
    return lowerBound(this.ts, ts, itself);
  }

  add(ts: number, style: TickStyle, event: TraceEvent, rpc: RpcSummary | undefined): void {
    const n = this.ts.length;
    if (n === 0 || this.ts[n - 1]! <= ts) {
      this.ts.push(ts);
      this.styles.push(style);
      this.events.push(event);
      this.rpcs.push(rpc);
      return;
    }
    // (late: before the ticks of its time)
    const at = this.from(ts);
    this.ts.splice(at, 0, ts);
    this.styles.splice(at, 0, style);
    this.events.splice(at, 0, event);
    this.rpcs.splice(at, 0, rpc);
  }

  /** Keeps the ticks of events from `seq` on, in order. */
  keepFrom(seq: number): void {
    const { ts, styles, events, rpcs } = this;
    let kept = 0;
    for (let i = 0; i < ts.length; i++) {
      if (events[i]!.seq < seq) continue;
      if (kept !== i) {
        ts[kept] = ts[i]!;
        styles[kept] = styles[i]!;
        events[kept] = events[i]!;
        rpcs[kept] = rpcs[i];
      }
      kept++;
    }
    ts.length = styles.length = events.length = rpcs.length = kept;
  }
}

export interface Lane {
  id: string;
  server: string;
  kind: LaneKind;
  channel?: Channel;
  label: string;
  spans: Span[];
  ticks: Ticks;
  /** Open spans, drawn to the end of the data. */
  open: Set<Span>;
  /** Longest closed span, for the binary search's lower bound. */
  maxDur: number;
  rows: number;
  rowLast: (Span | undefined)[];
}

export const MAX_ROWS = 4;

const CHANNEL_LABELS: Record<Channel, string> = {
  'post-json': 'POST · JSON',
  'post-sse': 'POST · SSE stream',
  get: 'GET stream',
  resumption: 'Resumption (GET)',
  delete: 'DELETE',
  listen: 'Listen stream',
  discovery: 'Discovery',
  auth: 'Auth',
  'legacy-sse': 'Legacy SSE stream',
  'legacy-post': 'Legacy POST',
  stdio: 'stdio process',
  lifecycle: 'Lifecycle',
  app: 'MCP App bridge',
};

const KIND_ORDER: Record<LaneKind, number> = { 'rpc-out': 0, 'rpc-in': 1, notifications: 2, channel: 3, lifecycle: 4, errors: 5 };

export function laneOrder(lane: Lane): number {
  return KIND_ORDER[lane.kind] * 100 + (lane.channel ? CHANNELS.indexOf(lane.channel) : 0);
}

interface Exchange {
  span: Span;
  channel: Channel;
  /** Pending keys of the requests the exchange carried: a rejected exchange answers none of them. */
  requests?: string[];
}

export class TimelineModel {
  readonly lanes = new Map<string, Lane>();
  /** Server ids in order of first appearance. */
  readonly servers: string[] = [];
  minTs = Infinity;
  maxTs = -Infinity;
  firstSeq = 0;
  lastSeq = 0;
  count = 0;
  /** Bumped on every change; layout-affecting changes bump `layoutVersion` too. */
  version = 0;
  layoutVersion = 0;

  private readonly byServer = new Map<string, Map<string, Lane>>();
  private readonly pending = new Map<string, Span>();
  private readonly exchanges = new Map<string, Exchange>();
  private readonly processes = new Map<string, Span>();

  /**
   * Drops what lies wholly before `seq`: ticks of older events, closed spans that ended before it.
   * An open span stays (a stream or a process still running), and so does a span that ends at or
   * after `seq`, with its start. Lanes stay where they are. `ts`: the time of event `seq`; `count`:
   * the events from `seq` on that were folded already.
   */
  trim(seq: number, ts: number, count: number): void {
    let minTs = ts;
    for (const lane of this.lanes.values()) {
      lane.ticks.keepFrom(seq);
      lane.spans = lane.spans.filter((span) => span.open || (span.endEvent?.seq ?? span.seq) >= seq);
      if (lane.ticks.length) minTs = Math.min(minTs, lane.ticks.ts[0]!);
      if (lane.spans.length) minTs = Math.min(minTs, lane.spans[0]!.start);
    }
    this.firstSeq = seq;
    this.count = count;
    this.minTs = minTs;
    this.version++;
  }

  /** Folds events that follow the last one seen (`events` sorted by seq). */
  append(events: readonly TraceEvent[], fromIndex = 0): void {
    if (fromIndex >= events.length) return;
    for (let i = fromIndex; i < events.length; i++) this.apply(events[i]!);
    this.version++;
  }

  private lane(server: string, kind: LaneKind, channel?: Channel): Lane {
    let lanes = this.byServer.get(server);
    if (!lanes) {
      lanes = new Map();
      this.byServer.set(server, lanes);
      this.servers.push(server);
    }
    const key = kind === 'channel' ? channel! : kind;
    let lane = lanes.get(key);
    if (!lane) {
      const label =
        kind === 'rpc-out'
          ? 'Requests → server'
          : kind === 'rpc-in'
            ? 'Requests ← server'
            : kind === 'notifications'
              ? 'Notifications'
              : kind === 'lifecycle'
                ? 'Lifecycle'
                : kind === 'errors'
                  ? 'Errors'
                  : CHANNEL_LABELS[channel!];
      const id = `${server}\u0000${key}`;
      lane = { id, server, kind, channel, label, spans: [], ticks: new Ticks(), open: new Set(), maxDur: 0, rows: 1, rowLast: [] };
      lanes.set(key, lane);
      this.lanes.set(id, lane);
      this.layoutVersion++;
    }
    return lane;
  }

  private tick(lane: Lane, event: TraceEvent, style: TickStyle, rpc?: RpcSummary): void {
    lane.ticks.add(event.ts, style, event, rpc);
  }

  private openSpan(lane: Lane, event: TraceEvent, type: Span['type'], label: string): Span {
    const span: Span = { lane, row: 0, start: event.ts, end: NaN, open: true, type, label, status: 'pending', seq: event.seq, startEvent: event, events: 0 };
    this.place(lane, span);
    return span;
  }

  /** Puts a span in a lane: a free row (packing concurrent spans), sorted by start. */
  private place(lane: Lane, span: Span): void {
    span.lane = lane;
    let row = -1;
    for (let r = 0; r < MAX_ROWS; r++) {
      const last = lane.rowLast[r];
      if (!last || (!last.open && last.end <= span.start)) {
        row = r;
        break;
      }
    }
    if (row < 0) row = MAX_ROWS - 1;
    span.row = row;
    lane.rowLast[row] = span;
    if (row + 1 > lane.rows) {
      lane.rows = row + 1;
      this.layoutVersion++;
    }
    const spans = lane.spans;
    if (spans.length === 0 || spans[spans.length - 1]!.start <= span.start) spans.push(span);
    else spans.splice(lowerBound(spans, span.start, spanStart), 0, span);
    if (span.open) lane.open.add(span);
    else lane.maxDur = Math.max(lane.maxDur, span.end - span.start);
  }

  private unplace(span: Span): void {
    const lane = span.lane;
    const spans = lane.spans;
    for (let i = spans.length - 1; i >= 0; i--) {
      if (spans[i] === span) {
        spans.splice(i, 1);
        break;
      }
    }
    lane.open.delete(span);
    if (lane.rowLast[span.row] === span) lane.rowLast[span.row] = undefined;
    // A lane that only held these while they looked like another channel shrinks back (cheap while small).
    if (spans.length <= 256) {
      let rows = 1;
      for (const s of spans) rows = Math.max(rows, s.row + 1);
      if (rows !== lane.rows) {
        lane.rows = rows;
        this.layoutVersion++;
      }
    }
  }

  private close(span: Span, event: TraceEvent, status: SpanStatus): void {
    if (!span.open) return;
    span.open = false;
    span.end = Math.max(span.start, event.ts);
    span.endEvent = event;
    span.status = status;
    span.lane.open.delete(span);
    span.lane.maxDur = Math.max(span.lane.maxDur, span.end - span.start);
  }

  private error(event: TraceEvent, rpc?: RpcSummary): void {
    if (event.negotiation === 'answer') return; // the version probe's expected refusal is not an error (contract/trace.ts isErrorEvent)
    this.tick(this.lane(event.server, 'errors'), event, 'error', rpc);
  }

  private apply(event: TraceEvent): void {
    if (this.count === 0) this.firstSeq = event.seq;
    this.count++;
    this.lastSeq = event.seq;
    if (event.ts < this.minTs) this.minTs = event.ts;
    if (event.ts > this.maxTs) this.maxTs = event.ts;
    const server = event.server;

    switch (event.kind) {
      case 'http-request': {
        if (!event.exchange) break;
        const lane = this.lane(server, 'channel', event.channel);
        const url = event.http?.url;
        let path = '';
        if (url) {
          try {
            path = new URL(url).pathname;
          } catch {
            path = url;
          }
        }
        const span = this.openSpan(lane, event, 'exchange', `${event.http?.method ?? 'HTTP'} ${path}`.trim());
        this.exchanges.set(event.exchange, { span, channel: event.channel });
        break;
      }
      case 'http-response': {
        const exchange = this.exchangeOf(event);
        if (!exchange) break;
        const { span } = exchange;
        span.httpStatus = event.http?.status;
        span.stream = event.http?.contentType?.startsWith('text/event-stream') ?? false;
        const status = event.http?.status ?? 0;
        const disabled = status === 405 && (event.channel === 'get' || event.channel === 'delete');
        if (status >= 400 && !disabled && event.negotiation !== 'answer') {
          span.status = 'error';
          this.error(event);
        }
        break;
      }
      case 'http-end': {
        const exchange = this.exchangeOf(event);
        if (!exchange) break;
        const { span } = exchange;
        const failed = event.http?.end === 'error';
        if (failed) this.error(event);
        if (event.http?.status !== undefined) span.httpStatus ??= event.http.status;
        if (failed) span.detail = event.text;
        else if (event.http?.end && event.http.end !== 'complete') span.detail = event.http.end;
        this.close(span, event, failed || span.status === 'error' ? 'error' : 'ok');
        this.exchanges.delete(event.exchange!);
        // after the body's own response (if any) was matched: what is still waiting never will be answered
        if (failed || (event.http?.status ?? 0) >= 400) this.deferredReject = { exchange, event, why: failed ? (event.text ?? 'transport error') : `HTTP ${event.http?.status}` };
        break;
      }
      case 'sse-event':
      case 'sse-comment':
      case 'sse-retry': {
        const exchange = this.exchangeOf(event);
        const lane = exchange?.span.lane ?? this.lane(server, 'channel', event.channel);
        if (exchange) exchange.span.events++;
        this.tick(lane, event, event.kind === 'sse-event' ? (event.rpc?.kind === 'error' ? 'error' : 'in') : 'muted', event.rpc);
        break;
      }
      case 'spawn': {
        const lane = this.lane(server, 'channel', 'stdio');
        const command = typeof event.meta?.command === 'string' ? event.meta.command : 'process';
        const previous = this.processes.get(server);
        if (previous) this.close(previous, event, 'abandoned');
        this.processes.set(server, this.openSpan(lane, event, 'process', command.split('/').pop() ?? command));
        break;
      }
      case 'exit': {
        const span = this.processes.get(server);
        const unexpected = event.meta?.expected === false && event.meta?.code !== 0;
        if (unexpected) this.error(event);
        if (span) {
          span.detail = `exit ${event.meta?.code ?? ''}${event.meta?.signal ? ` (${String(event.meta.signal)})` : ''}`.trim();
          this.close(span, event, unexpected ? 'error' : 'ok');
          this.processes.delete(server);
        }
        this.tick(this.lane(server, 'channel', 'stdio'), event, unexpected ? 'error' : 'muted');
        break;
      }
      case 'stderr':
        this.tick(this.lane(server, 'channel', 'stdio'), event, 'muted');
        break;
      case 'stdout-garbage':
        this.tick(this.lane(server, 'channel', 'stdio'), event, 'error');
        this.error(event);
        break;
      case 'jsonrpc-out':
      case 'jsonrpc-in':
        this.tick(this.lane(server, 'channel', event.channel), event, event.rpc?.kind === 'error' && event.negotiation !== 'answer' ? 'error' : event.dir === 'out' ? 'out' : 'in', event.rpc);
        break;
      case 'session':
      case 'era':
      case 'reconnect':
        this.tick(this.lane(server, 'lifecycle'), event, 'life');
        break;
      case 'state': {
        this.tick(this.lane(server, 'lifecycle'), event, event.meta?.state === 'error' ? 'error' : 'life');
        if (event.meta?.state === 'disconnected' || event.meta?.state === 'error') {
          // Nothing is answered after this: what was waiting is abandoned, streams are gone.
          for (const [key, span] of this.pending) {
            if (span.startEvent.server !== server) continue;
            this.close(span, event, 'abandoned');
            this.pending.delete(key);
          }
          for (const [id, exchange] of this.exchanges) {
            if (exchange.span.startEvent.server !== server) continue;
            this.close(exchange.span, event, 'abandoned');
            this.exchanges.delete(id);
          }
        }
        if (event.meta?.state === 'error') this.error(event);
        break;
      }
      case 'error':
        this.error(event);
        break;
      default:
        break;
    }

    // The message layer: every JSON-RPC message the event carries (not a bridge message the host
    // refused or dropped: it was never delivered, so nothing waits for its answer).
    const undelivered = event.channel === 'app' && event.kind === 'error';
    if (!undelivered) {
      if (event.batch) for (const rpc of event.batch) this.applyRpc(event, rpc);
      else if (event.rpc) this.applyRpc(event, event.rpc);
    }
    if (this.deferredReject) {
      const { exchange, event: end, why } = this.deferredReject;
      this.deferredReject = undefined;
      this.reject(exchange, end, why);
    }
  }

  private deferredReject: { exchange: Exchange; event: TraceEvent; why: string } | undefined;

  /** Requests an exchange carried that were refused at the HTTP level (or lost with it): errors, not waiting. */
  private reject(exchange: Exchange, event: TraceEvent, why: string): void {
    if (exchange.span.stream) return;
    for (const key of exchange.requests ?? []) {
      const span = this.pending.get(key);
      if (!span) continue;
      this.pending.delete(key);
      span.detail = why;
      this.close(span, event, event.negotiation === 'answer' ? 'ok' : 'error'); // the version probe's expected refusal is not an error
    }
    exchange.requests = undefined;
  }

  /** The exchange an event belongs to; moves the span when the exchange turned out to be another channel (post-json → post-sse). */
  private exchangeOf(event: TraceEvent): Exchange | undefined {
    if (!event.exchange) return undefined;
    const exchange = this.exchanges.get(event.exchange);
    if (!exchange) return undefined;
    if (event.channel !== exchange.channel && event.channel !== 'lifecycle') {
      const span = exchange.span;
      this.unplace(span);
      this.place(this.lane(event.server, 'channel', event.channel), span);
      exchange.channel = event.channel;
      if (span.lane.spans.length === 1) this.layoutVersion++;
    }
    return exchange;
  }

  private applyRpc(event: TraceEvent, rpc: RpcSummary): void {
    if (event.kind === 'http-end' && rpc.kind === 'request') return; // a response body never carries requests
    const dir = event.dir === 'out' ? 'out' : 'in';
    const server = event.server;
    // An MCP App's bridge has JSON-RPC ids of its own (one space per app instance): its requests
    // are paired within the instance and drawn in the server's app lane, not among its requests.
    const bridge = event.channel === 'app';
    const scope = bridge ? `${server}\u0000app:${appOf(event)?.instanceId ?? ''}` : server;
    switch (rpc.kind) {
      case 'request': {
        const span = this.openSpan(bridge ? this.lane(server, 'channel', 'app') : this.lane(server, dir === 'out' ? 'rpc-out' : 'rpc-in'), event, 'rpc', rpc.method ?? '?');
        if (rpc.id !== undefined) {
          const key = `${scope}\u0000${dir}:${rpc.id}`;
          const previous = this.pending.get(key);
          if (previous) this.close(previous, event, 'abandoned');
          this.pending.set(key, span);
          if (event.kind === 'http-request' && event.exchange) {
            const exchange = this.exchanges.get(event.exchange);
            if (exchange) (exchange.requests ??= []).push(key);
          }
        }
        break;
      }
      case 'notification': {
        if (!bridge) this.tick(this.lane(server, 'notifications'), event, dir, rpc); // the bridge's are ticks of its own lane already
        if (rpc.method === 'notifications/cancelled') {
          // Pushed events carry no body (main's summary names the request); older recordings' events only their body.
          const requestId = rpc.cancels ?? (event.body as { params?: { requestId?: string | number } } | undefined)?.params?.requestId;
          const key = `${scope}\u0000${dir}:${requestId}`;
          const span = requestId !== undefined ? this.pending.get(key) : undefined;
          if (span) {
            this.close(span, event, 'cancelled');
            this.pending.delete(key);
          }
        }
        break;
      }
      case 'result':
      case 'error': {
        // A response travels the other way from its request.
        const key = `${scope}\u0000${dir === 'in' ? 'out' : 'in'}:${rpc.id}`;
        const span = this.pending.get(key);
        if (rpc.kind === 'error') this.error(event, rpc);
        if (!span) break;
        this.pending.delete(key);
        let status: SpanStatus = rpc.kind === 'error' && event.negotiation !== 'answer' ? 'error' : 'ok';
        if (rpc.kind === 'error') span.detail = `${rpc.errorCode ?? ''} ${rpc.errorMessage ?? ''}`.trim();
        else if (rpc.isError === true || (!event.batch && (event.body as { result?: { isError?: unknown } } | undefined)?.result?.isError === true)) {
          status = 'tool-error';
          span.detail = 'isError: true';
        }
        this.close(span, event, status);
        break;
      }
    }
  }
}

// ---------------------------------------------------------------------------------------
// Sorted-array search

export const spanStart = (s: Span): number => s.start;

/** The renderer's one binary search (`state/seq-search.ts`), as this model's users know it. */
export { afterSeq, lowerBound };

/**
 * How far the live list's front may run ahead of the model's first event before the model drops
 * what lies before it. Small, so the model holds about the list's window (20,000) and not up to
 * 50,000 events more than it: each trim filters the lanes once (a few ms at this size), and a
 * 100,000-notification flood left a smaller page heap at its peak (76 MB against 88, medians of
 * six runs each, noted on #15).
 */
const TRIM_AFTER = 5_000;

/**
 * Keeps a model in step with a growing event list: appends what is new, rebuilds when the
 * list was reset or filled in before its start, and trims the model in place when the list's
 * front has moved TRIM_AFTER events past the model's first.
 */
export class ModelSync {
  model = new TimelineModel();

  sync(events: readonly TraceEvent[]): TimelineModel {
    const model = this.model;
    const first = events[0];
    if (!first) {
      if (model.count > 0) this.model = new TimelineModel();
      return this.model;
    }
    const last = events[events.length - 1]!;
    // a list whose newest event is older than the model's was replaced (main restarted: seqs begin again)
    const rebuild = model.count > 0 && (first.seq < model.firstSeq || first.seq > model.lastSeq || last.seq < model.lastSeq);
    if (rebuild) {
      this.model = new TimelineModel();
      this.model.append(events);
      return this.model;
    }
    const from = model.count === 0 ? 0 : afterSeq(events, model.lastSeq);
    // The list's front slid far past the model's: what lies before it goes, in place. (Folding the
    // whole list again took a long task of 60-90 ms on the page each time.)
    if (model.count > 0 && first.seq > model.firstSeq + TRIM_AFTER) model.trim(first.seq, first.ts, from);
    model.append(events, from);
    return model;
  }
}
