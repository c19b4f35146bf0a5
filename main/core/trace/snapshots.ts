/**
 * Per-server snapshots, derived from trace events as they are appended: channel counts and
 * states, sessions, latency per method, requests in flight, ping RTT, and one-second buckets
 * for the charts. This is also the message layer: requests are matched to their responses by
 * id (and direction), progress notifications to their requests by token, pings by id.
 */
import type {
  Channel,
  ChannelStats,
  InFlightRequest,
  LatencyStats,
  ServerSnapshot,
  TimeBucket,
  TraceEvent,
} from '../../../contract/trace';
import type { RpcSummary } from '../../../contract/trace';

export interface SnapshotOptions {
  /** How many one-second buckets to keep (default 15 minutes). */
  bucketSeconds?: number;
  /** Latency samples kept per method for percentiles (default 512). */
  latencySamples?: number;
}

interface Pending {
  /** The request's trace event. */
  seq: number;
  /** Its JSON-RPC id (the map's key also names a direction, and an app instance for the `app` channel). */
  id: string;
  method: string;
  channel: Channel;
  since: number;
  ping: boolean;
  progressToken?: string | number;
  progress?: InFlightRequest['progress'];
}

/** A request the in-flight count includes, as the snapshot lists them: not a ping, not the long-lived listen request. */
const inFlight = (p: Pending): boolean => !p.ping && p.method !== 'subscriptions/listen';

/**
 * Requests waiting for an answer, with how many of them count as in flight kept as they come and
 * go: each event's bucket reads the count, which a walk of the map would make cost as many steps
 * as there are requests waiting (thousands, through a busy proxy) on every event.
 */
class PendingRequests extends Map<string, Pending> {
  inFlight = 0;

  override set(key: string, value: Pending): this {
    const previous = super.get(key);
    if (previous && inFlight(previous)) this.inFlight--;
    if (inFlight(value)) this.inFlight++;
    return super.set(key, value);
  }

  override delete(key: string): boolean {
    const previous = super.get(key);
    if (previous === undefined) return false;
    if (inFlight(previous)) this.inFlight--;
    return super.delete(key);
  }

  override clear(): void {
    this.inFlight = 0;
    super.clear();
  }
}

const LATENCY_SAMPLES_PER_BUCKET = 32;

class ServerState {
  totalEvents = 0;
  lastEventTs?: number;
  readonly channels = new Map<Channel, ChannelStats>();
  readonly sessions: ServerSnapshot['sessions'] = [];
  readonly latencies = new Map<string, { samples: number[]; next: number; count: number; max: number }>();
  /** key: `${requestDir}:${id}` */
  readonly pending = new PendingRequests();
  readonly progressTokens = new Map<string | number, string>();
  readonly openExchanges = new Map<string, Channel>();
  /** Pending keys of the requests each HTTP exchange carried, until the exchange ends. */
  readonly exchangeRequests = new Map<string, string[]>();
  /** Requests of an exchange counted under its provisional channel until the response names the real one. */
  readonly provisional = new Map<string, { channel: Channel; requests: number; notifications: number; pings: number; bytesOut: number; messages: number; bucketT: number }>();
  bytesIn = 0;
  bytesOut = 0;
  ping?: { last: number; sum: number; count: number };
  era?: string;
  protocolVersion?: string;
  readonly buckets: TimeBucket[] = [];

  constructor(
    readonly server: string,
    private readonly options: Required<SnapshotOptions>,
  ) {}

  channel(name: Channel): ChannelStats {
    let stats = this.channels.get(name);
    if (!stats) {
      stats = { requests: 0, responses: 0, notifications: 0, pings: 0, errors: 0, state: 'idle', bytesIn: 0, bytesOut: 0, openStreams: 0 };
      this.channels.set(name, stats);
    }
    return stats;
  }

  bucket(ts: number): TimeBucket {
    const t = Math.floor(ts / 1000) * 1000;
    const last = this.buckets.at(-1);
    if (last && last.t === t) return last;
    if (last && t < last.t) {
      // An event stamped earlier than the newest bucket (clock skew between sources): count it in place.
      return this.buckets.findLast((b) => b.t === t) ?? last;
    }
    const bucket: TimeBucket = { t, messages: {}, errors: { http4xx: 0, http5xx: 0, rpc: 0, transport: 0 }, bytes: 0, latency: {}, inFlight: this.pending.inFlight };
    this.buckets.push(bucket);
    if (this.buckets.length > this.options.bucketSeconds) this.buckets.splice(0, this.buckets.length - this.options.bucketSeconds);
    return bucket;
  }

  recordLatency(method: string, ms: number, bucket: TimeBucket): void {
    let entry = this.latencies.get(method);
    if (!entry) {
      entry = { samples: [], next: 0, count: 0, max: 0 };
      this.latencies.set(method, entry);
    }
    if (entry.samples.length < this.options.latencySamples) entry.samples.push(ms);
    else entry.samples[entry.next] = ms;
    entry.next = (entry.next + 1) % this.options.latencySamples;
    entry.count++;
    entry.max = Math.max(entry.max, ms);
    const sample = (bucket.latency[method] ??= []);
    if (sample.length < LATENCY_SAMPLES_PER_BUCKET) sample.push(ms);
  }
}

export class SnapshotEngine {
  private readonly servers = new Map<string, ServerState>();
  private readonly options: Required<SnapshotOptions>;
  private readonly dirty = new Set<string>();
  private readonly pairListeners = new Set<(requestSeq: number, response: TraceEvent, rpc: RpcSummary) => void>();

  constructor(options: SnapshotOptions = {}) {
    this.options = { bucketSeconds: options.bucketSeconds ?? 900, latencySamples: options.latencySamples ?? 512 };
  }

  /** Told of every response paired with its request by JSON-RPC id (the request's seq, the response's event). */
  onPaired(listener: (requestSeq: number, response: TraceEvent, rpc: RpcSummary) => void): () => void {
    this.pairListeners.add(listener);
    return () => this.pairListeners.delete(listener);
  }

  /** Servers changed since the last call (for throttled pushes). */
  takeDirty(): string[] {
    const list = [...this.dirty];
    this.dirty.clear();
    return list;
  }

  serverIds(): string[] {
    return [...this.servers.keys()];
  }

  forget(server: string): void {
    this.servers.delete(server);
  }

  apply(event: TraceEvent): void {
    let state = this.servers.get(event.server);
    if (!state) {
      state = new ServerState(event.server, this.options);
      this.servers.set(event.server, state);
    }
    this.dirty.add(event.server);
    state.totalEvents++;
    state.lastEventTs = event.ts;
    const bucket = state.bucket(event.ts);
    const stats = event.channel === 'lifecycle' ? undefined : state.channel(event.channel);
    const bytes = event.bytes ?? 0;
    if (stats && bytes) {
      if (event.dir === 'out') {
        stats.bytesOut += bytes;
        state.bytesOut += bytes;
      } else {
        stats.bytesIn += bytes;
        state.bytesIn += bytes;
      }
      bucket.bytes += bytes;
    }
    if (stats) stats.lastActivity = event.ts;

    /** Requests of an exchange rejected at the HTTP level: never answered, so no longer in flight. */
    let rejected: string[] | undefined;
    switch (event.kind) {
      case 'http-request':
        if (event.exchange && stats) {
          const rpcs = event.batch ?? (event.rpc ? [event.rpc] : []);
          state.provisional.set(event.exchange, {
            channel: event.channel,
            ...countRpcs(rpcs),
            bytesOut: bytes,
            messages: rpcs.length,
            bucketT: bucket.t,
          });
          const sent = rpcs.filter((r) => r.kind === 'request' && r.id !== undefined).map((r) => `${event.dir === 'out' ? 'out' : 'in'}:${r.id}`);
          if (sent.length) state.exchangeRequests.set(event.exchange, sent);
        }
        break;
      case 'http-response': {
        if (!stats || !event.exchange) break;
        this.settleProvisional(state, event);
        const status = event.http?.status;
        stats.lastStatus = status;
        if (status === 405 && (event.channel === 'get' || event.channel === 'delete')) {
          stats.state = 'disabled';
        } else if (status !== undefined && status >= 400 && !isNegotiation(event)) {
          stats.errors++;
          stats.state = 'error';
          stats.lastError = `HTTP ${status}${event.http?.statusText ? ` ${event.http.statusText}` : ''}`;
          if (status >= 500) bucket.errors.http5xx++;
          else bucket.errors.http4xx++;
        } else {
          if (event.http?.contentType?.startsWith('text/event-stream')) {
            stats.openStreams++;
            stats.state = 'open';
            stats.connectedAt ??= event.ts;
            state.openExchanges.set(event.exchange, event.channel);
          } else if (stats.state !== 'open') stats.state = 'idle';
        }
        break;
      }
      case 'http-end': {
        if (!stats) break;
        if (event.exchange) this.settleProvisional(state, event);
        const wasOpen = event.exchange ? state.openExchanges.get(event.exchange) : undefined;
        if (event.exchange) {
          const sent = state.exchangeRequests.get(event.exchange);
          state.exchangeRequests.delete(event.exchange);
          const status = event.http?.status;
          const failed = (status !== undefined && status >= 400) || event.http?.end === 'error';
          // A plain (non-stream) answer is the only answer a Streamable HTTP POST gets: whatever it did not
          // answer (a body that is not JSON-RPC, a captive portal page) never will be. The legacy SSE
          // transport's POSTs are different: 202, the answer comes on the GET stream. And a stream the
          // client aborted (a timeout or cancellation in the modern era) is never resumed.
          const unanswerable = !wasOpen && event.channel !== 'legacy-post' && status !== 202;
          if (sent && ((!wasOpen && failed) || unanswerable || event.http?.end === 'client-aborted')) rejected = sent;
        }
        if (wasOpen && event.exchange) {
          state.openExchanges.delete(event.exchange);
          stats.openStreams = Math.max(0, stats.openStreams - 1);
          stats.disconnectedAt = event.ts;
        }
        if (event.http?.end === 'error') {
          stats.errors++;
          stats.state = 'error';
          stats.lastError = event.text ?? 'transport error';
          bucket.errors.transport++;
        } else if (stats.state !== 'disabled' && stats.state !== 'error') {
          stats.state = stats.openStreams > 0 ? 'open' : 'idle';
        } else if (stats.state === 'error' && event.http?.status !== undefined && event.http.status < 400) {
          stats.state = stats.openStreams > 0 ? 'open' : 'idle';
        }
        break;
      }
      case 'spawn':
        if (stats) {
          stats.state = 'open';
          stats.openStreams = 1;
          stats.connectedAt = event.ts;
        }
        break;
      case 'exit':
        if (stats) {
          stats.openStreams = 0;
          stats.disconnectedAt = event.ts;
          stats.state = event.meta?.expected === false && event.meta?.code !== 0 ? 'error' : 'off';
          if (stats.state === 'error') stats.lastError = event.text;
        }
        break;
      case 'stdout-garbage':
      case 'error':
        if (stats) {
          stats.errors++;
          stats.lastError = event.text;
        }
        // An MCP App's refused bridge message is the app channel's error, not a transport failure.
        if (event.channel !== 'app') bucket.errors.transport++;
        break;
      case 'session':
        this.applySession(state, event);
        break;
      case 'era':
        state.era = String(event.meta?.era ?? '');
        state.protocolVersion = event.meta?.protocolVersion as string | undefined;
        break;
      case 'state':
        if (event.meta?.state === 'disconnected' || event.meta?.state === 'error') {
          for (const s of state.channels.values()) {
            if (s.state === 'open') s.state = 'off';
            s.openStreams = 0;
          }
          state.openExchanges.clear();
          state.pending.clear();
          state.progressTokens.clear();
          state.exchangeRequests.clear();
          const current = state.sessions.at(-1);
          if (current && !current.endedAt) {
            current.endedAt = event.ts;
            current.endReason = 'disconnected';
          }
        }
        break;
      default:
        break;
    }

    // The message layer: every JSON-RPC message the event carries.
    // A bridge message the host refused (an MCP App's `error` event) carries its summary but is never answered: nothing waits for it.
    const refusedByHost = event.channel === 'app' && event.kind === 'error';
    if (event.rpc && !refusedByHost) this.applyRpc(state, event, event.rpc, stats, bucket);
    if (event.batch) for (const rpc of event.batch) this.applyRpc(state, event, rpc, stats, bucket);
    // after the body's own response (if any) was matched above
    for (const key of rejected ?? []) {
      const pending = state.pending.get(key);
      if (!pending) continue;
      state.pending.delete(key);
      if (pending.progressToken !== undefined) state.progressTokens.delete(pending.progressToken);
    }
    bucket.inFlight = state.pending.inFlight;
  }

  /** A POST is counted as post-json until its response says it is post-sse: move its counts. */
  private settleProvisional(state: ServerState, event: TraceEvent): void {
    const provisional = state.provisional.get(event.exchange!);
    if (!provisional) return;
    state.provisional.delete(event.exchange!);
    if (provisional.channel === event.channel) return;
    const from = state.channel(provisional.channel);
    const to = state.channel(event.channel);
    from.requests -= provisional.requests;
    from.notifications -= provisional.notifications;
    from.pings -= provisional.pings;
    from.bytesOut -= provisional.bytesOut;
    to.requests += provisional.requests;
    to.notifications += provisional.notifications;
    to.pings += provisional.pings;
    to.bytesOut += provisional.bytesOut;
    // the request's bucket counted its messages under the provisional channel too
    const bucket = provisional.messages ? state.buckets.findLast((b) => b.t === provisional.bucketT) : undefined;
    if (bucket) {
      const left = (bucket.messages[provisional.channel] ?? 0) - provisional.messages;
      if (left > 0) bucket.messages[provisional.channel] = left;
      else delete bucket.messages[provisional.channel];
      bucket.messages[event.channel] = (bucket.messages[event.channel] ?? 0) + provisional.messages;
    }
    for (const pending of state.pending.values()) if (pending.channel === provisional.channel) pending.channel = event.channel;
    if (from.requests === 0 && from.notifications === 0 && from.responses === 0 && from.pings === 0 && from.lastStatus === undefined) state.channels.delete(provisional.channel);
  }

  private applySession(state: ServerState, event: TraceEvent): void {
    const what = event.meta?.event;
    const id = String(event.meta?.sessionId ?? event.session ?? '');
    const current = state.sessions.at(-1);
    if (what === 'issued' || what === 'changed') {
      if (current && !current.endedAt) {
        current.endedAt = event.ts;
        current.endReason = 'changed';
      }
      state.sessions.push({ id, issuedAt: event.ts });
    } else if (what === 'expired' || what === 'terminated') {
      const record = state.sessions.findLast((s) => s.id === id);
      if (record && !record.endedAt) {
        record.endedAt = event.ts;
        record.endReason = what;
      }
    }
  }

  private applyRpc(state: ServerState, event: TraceEvent, rpc: RpcSummary, stats: ChannelStats | undefined, bucket: TimeBucket): void {
    if (event.kind === 'http-end' && rpc.kind === 'request') return; // a response body never carries requests
    if (stats) bucket.messages[event.channel] = (bucket.messages[event.channel] ?? 0) + 1;
    // An MCP App's bridge messages (channel `app`) have ids of their own, one space per app
    // instance: they never pair with the server's requests, nor with another app's.
    const direction = `${event.channel === 'app' ? `app:${String((event.meta?.app as { instanceId?: unknown } | undefined)?.instanceId ?? '')}:` : ''}${event.dir === 'out' ? 'out' : 'in'}`;
    const opposite = direction.endsWith('in') ? `${direction.slice(0, -2)}out` : `${direction.slice(0, -3)}in`;
    switch (rpc.kind) {
      case 'request': {
        const ping = rpc.method === 'ping';
        if (stats) {
          if (ping) stats.pings++;
          else stats.requests++;
        }
        if (rpc.id !== undefined) {
          state.pending.set(`${direction}:${rpc.id}`, {
            seq: event.seq,
            id: String(rpc.id),
            method: rpc.method ?? '?',
            channel: event.channel,
            since: event.ts,
            ping,
            progressToken: rpc.progressToken,
          });
          if (rpc.progressToken !== undefined) state.progressTokens.set(rpc.progressToken, `${direction}:${rpc.id}`);
        }
        break;
      }
      case 'notification': {
        if (stats) stats.notifications++;
        if (rpc.method === 'notifications/progress' && rpc.progressToken !== undefined) {
          const key = state.progressTokens.get(rpc.progressToken);
          const pending = key ? state.pending.get(key) : undefined;
          const params = (event.body as { params?: { progress?: number; total?: number; message?: string } } | undefined)?.params;
          if (pending && params && typeof params.progress === 'number') pending.progress = { progress: params.progress, total: params.total, message: params.message };
        }
        if (rpc.method === 'notifications/cancelled') {
          // The summary names the request (as the Timeline reads it); events recorded before it did, only their body.
          const requestId = rpc.cancels ?? (event.body as { params?: { requestId?: string | number } } | undefined)?.params?.requestId;
          if (requestId !== undefined) state.pending.delete(`${direction}:${requestId}`);
        }
        break;
      }
      case 'result':
      case 'error': {
        // A response travels the other way from its request.
        const key = `${opposite}:${rpc.id}`;
        const pending = state.pending.get(key);
        if (rpc.kind === 'error' && !isNegotiation(event)) {
          if (stats) {
            stats.errors++;
            stats.lastError = `JSON-RPC ${rpc.errorCode ?? ''} ${rpc.errorMessage ?? ''}`.trim();
          }
          bucket.errors.rpc++;
        }
        if (!pending) {
          if (stats && rpc.kind === 'result') stats.responses++;
          break;
        }
        state.pending.delete(key);
        if (pending.progressToken !== undefined) state.progressTokens.delete(pending.progressToken);
        for (const listener of this.pairListeners) listener(pending.seq, event, rpc);
        const latency = event.ts - pending.since;
        if (pending.ping) {
          if (stats) stats.pings++;
          state.ping = { last: latency, sum: (state.ping?.sum ?? 0) + latency, count: (state.ping?.count ?? 0) + 1 };
          bucket.pingRttMs = latency;
        } else {
          if (stats && rpc.kind === 'result') stats.responses++;
          state.recordLatency(pending.method, latency, bucket);
        }
        break;
      }
    }
  }

  /** The full snapshot (all buckets), or the recent part for a live push. */
  snapshot(server: string, recentBuckets?: number): ServerSnapshot | undefined {
    const state = this.servers.get(server);
    if (!state) return undefined;
    const latency: Record<string, LatencyStats> = {};
    for (const [method, entry] of state.latencies) latency[method] = { count: entry.count, max: entry.max, ...percentiles(entry.samples) };
    return {
      server,
      totalEvents: state.totalEvents,
      lastEventTs: state.lastEventTs,
      channels: Object.fromEntries(state.channels),
      sessions: state.sessions.map((s) => ({ ...s })),
      latency,
      inFlight: [...state.pending.entries()]
        .filter(([, p]) => inFlight(p))
        .slice(0, 100)
        .map(([, p]) => ({ id: p.id, method: p.method, channel: p.channel, since: p.since, progress: p.progress })),
      bytesIn: state.bytesIn,
      bytesOut: state.bytesOut,
      pingRtt: state.ping ? { last: state.ping.last, avg: state.ping.sum / state.ping.count, count: state.ping.count } : undefined,
      era: state.era,
      protocolVersion: state.protocolVersion,
      buckets: structuredClone(recentBuckets === undefined ? state.buckets : state.buckets.slice(-recentBuckets)),
    };
  }
}

/**
 * A legacy server's expected answer to the version probe (marked by the store, see
 * negotiation.ts): counted as a message, never as an error — the same rule as "Errors only".
 */
function isNegotiation(event: TraceEvent): boolean {
  return event.negotiation === 'answer';
}

/** Requests, notifications and pings in one pass. */
function countRpcs(rpcs: RpcSummary[]): { requests: number; notifications: number; pings: number } {
  const counts = { requests: 0, notifications: 0, pings: 0 };
  for (const r of rpcs) {
    if (r.kind === 'notification') counts.notifications++;
    else if (r.kind === 'request') {
      if (r.method === 'ping') counts.pings++;
      else counts.requests++;
    }
  }
  return counts;
}

function percentiles(samples: number[]): { p50: number; p95: number } {
  if (samples.length === 0) return { p50: 0, p95: 0 };
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { p50: at(0.5), p95: at(0.95) };
}

