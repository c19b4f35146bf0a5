/**
 * Which trace events are a request's own: the seq of the request as it is recorded, and the seq
 * of its response as the snapshot engine pairs them by JSON-RPC id. A handler runs its request
 * inside `trackRequest`; the tracked transports append the outgoing request synchronously within
 * that async context (the tracking fetch inside the SDK's `send`, the stdio transport's `send`),
 * so the store's listener reads the context at the moment the event is numbered. Two concurrent
 * calls to the same server have two contexts, and each learns its own seqs — no query after the
 * fact, no guessing by order.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { RpcSummary, TraceEvent } from '../../../contract/trace';
import type { TraceHub } from './hub';

export interface RequestSeqs {
  /** The `http-request` / `jsonrpc-out` event of the request (the last one, if it was sent again). */
  requestSeq?: number;
  /** The event carrying its JSON-RPC response. */
  responseSeq?: number;
  /** The response was a JSON-RPC error (else a result). */
  responseIsError?: boolean;
  /** The code of that JSON-RPC error, as the response event carries it. */
  responseErrorCode?: number;
}

interface Context {
  server: string;
  method: string;
  seqs: RequestSeqs;
  done: boolean;
}

const context = new AsyncLocalStorage<Context>();
/**
 * Requests running inside `context`. Node 20's AsyncLocalStorage keeps its promise hook on from
 * the first `run` (every promise main makes then pays it: ~0.6 KB and ~2 µs per notification of a
 * log flood); once no request has run for IDLE_OFF_MS it is turned off (`disable`) until the next
 * `run`. Not at once: calls one after another would switch V8's promise hook on and off each time.
 */
let running = 0;
let idleOff: NodeJS.Timeout | undefined;
const IDLE_OFF_MS = 1000;

class RequestSeqTracker {
  /** Requests sent and not yet answered, by request seq. */
  private readonly awaiting = new Map<number, Context>();

  constructor(hub: TraceHub) {
    hub.store.subscribe((event) => this.onAppended(event));
    hub.snapshots.onPaired((requestSeq, response, rpc) => this.onPaired(requestSeq, response, rpc));
  }

  async run<T>(server: string, method: string, fn: (seqs: RequestSeqs) => Promise<T>): Promise<T> {
    const ctx: Context = { server, method, seqs: {}, done: false };
    running++;
    clearTimeout(idleOff);
    try {
      return await context.run(ctx, () => fn(ctx.seqs));
    } finally {
      // Timers and streams started inside keep the context: it must not match anything later.
      ctx.done = true;
      if (ctx.seqs.requestSeq !== undefined) this.awaiting.delete(ctx.seqs.requestSeq);
      if (--running === 0) {
        idleOff = setTimeout(() => running === 0 && context.disable(), IDLE_OFF_MS);
        idleOff.unref();
      }
    }
  }

  private onAppended(event: TraceEvent): void {
    if (event.dir !== 'out' || (event.kind !== 'http-request' && event.kind !== 'jsonrpc-out')) return;
    const ctx = context.getStore();
    if (!ctx || ctx.done || event.server !== ctx.server) return;
    const rpcs = event.batch ?? (event.rpc ? [event.rpc] : []);
    if (!rpcs.some((r) => r.kind === 'request' && r.method === ctx.method)) return;
    if (ctx.seqs.requestSeq !== undefined) this.awaiting.delete(ctx.seqs.requestSeq);
    ctx.seqs.requestSeq = event.seq;
    ctx.seqs.responseSeq = undefined;
    ctx.seqs.responseIsError = undefined;
    ctx.seqs.responseErrorCode = undefined;
    this.awaiting.set(event.seq, ctx);
  }

  private onPaired(requestSeq: number, response: TraceEvent, rpc: RpcSummary): void {
    const ctx = this.awaiting.get(requestSeq);
    if (!ctx) return;
    this.awaiting.delete(requestSeq);
    ctx.seqs.responseSeq = response.seq;
    ctx.seqs.responseIsError = rpc.kind === 'error';
    ctx.seqs.responseErrorCode = rpc.kind === 'error' && typeof rpc.errorCode === 'number' ? rpc.errorCode : undefined;
  }
}

const trackers = new WeakMap<TraceHub, RequestSeqTracker>();

/** Runs `fn` (which sends one `method` request to `server`) and fills `seqs` as its events are recorded. */
export function trackRequest<T>(hub: TraceHub, server: string, method: string, fn: (seqs: RequestSeqs) => Promise<T>): Promise<T> {
  let tracker = trackers.get(hub);
  if (!tracker) {
    tracker = new RequestSeqTracker(hub);
    trackers.set(hub, tracker);
  }
  return tracker.run(server, method, fn);
}
