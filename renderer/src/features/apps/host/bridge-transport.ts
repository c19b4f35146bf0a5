/**
 * The AppBridge's transport: postMessage between Switchboard's page and the sandbox proxy frame,
 * with every message traced and the app's floods contained. Pure (no React, no DOM types beyond
 * the two small interfaces below), so Node tests drive it with a fake window pair.
 *
 * What it guarantees:
 * - a `message` event is taken only from the frame's own window (`event.source`) and the
 *   sandbox origin (`event.origin`); anything else from that window is refused and recorded;
 * - it sends only to the sandbox origin (`postMessage(msg, sandboxOrigin)`), never `*`;
 * - `switchboard/diagnostic` notifications (the proxy's console, error and CSP reports) go to
 *   the log sink and never reach the bridge;
 * - every message in both directions is queued for the trace sink, flushed every 100 ms or at
 *   500 queued, at most 1,000 a batch;
 * - a token bucket bounds what reaches the bridge: bursts of 1,000, 300 a second sustained (the
 *   sandbox proxy applies the same bucket in the sandbox's process first and reports what it
 *   drops with `switchboard/over-budget`, counted as drops here; a malformed report is refused). An
 *   honest app sends a few dozen messages at start (initialize, size changes, a call or two)
 *   and then at most tens a second (a ResizeObserver at 60 fps is 60/s), so neither limit is
 *   near what a real app does; a runaway loop hits the bucket after its first thousand
 *   messages and every message after that costs a counter increment. Dropped messages are
 *   summarised (one refused trace entry per 1,000, naming the first one's method; one `bridge`
 *   log line a second while it lasts), and after 5,000 dropped the transport closes and the
 *   host stops the app.
 * Nothing here updates React state per message: the Devtools strip reads `recent()` when
 * `changes` notifies, once per flush.
 */
import type { AppBridge } from '@modelcontextprotocol/ext-apps/app-bridge';
import type { AppBridgeMessage, AppLogEntry } from '../../../../../contract';
import { APP_BRIDGE_BUDGET, APP_DIAGNOSTIC_METHOD, APP_OVER_BUDGET_METHOD } from '../../../../../contract/app-sandbox';
import { Signal } from '../../../state/store';

/** The SDK's Transport interface, as AppBridge.connect takes it. */
export type Transport = Parameters<AppBridge['connect']>[0];
export type JsonRpcMessage = Parameters<Transport['send']>[0];

export interface MessageEventLike {
  data: unknown;
  origin: string;
  source: unknown;
}

/** The page we listen on (our own window). */
export interface MessageHost {
  addEventListener(type: 'message', listener: (event: MessageEventLike) => void): void;
  removeEventListener(type: 'message', listener: (event: MessageEventLike) => void): void;
}

/** The frame's window as far as we use it. */
export interface PostTarget {
  postMessage(message: unknown, targetOrigin: string): void;
}

export interface BridgeSink {
  /** A batch for `appTrace` (at most TRACE_BATCH_MAX messages). */
  trace(messages: AppBridgeMessage[]): void;
  /** A batch for `appLog`. */
  log(entries: AppLogEntry[]): void;
}

export const LIMITS = {
  /** Token bucket: this many messages at once… */
  burst: APP_BRIDGE_BUDGET.burst as number,
  /** …refilled at this many a second (the sandbox proxy applies the same bucket first). */
  perSecond: APP_BRIDGE_BUDGET.perSecond as number,
  /**
   * After this many dropped messages the app is stopped. An honest app drops none; 5,000 is a
   * few seconds of a runaway loop (its messages reach us at a few thousand a second at most).
   */
  stopAfter: 5_000,
  /** One refused summary per this many dropped. */
  summaryEvery: 1_000,
  /** The trace queue is flushed this often… */
  flushMs: 100,
  /** …or as soon as this many wait. */
  flushAt: 500,
  /** The most messages in one appTrace call (the contract's bound). */
  batchMax: 1_000,
  /** Queued trace messages beyond this are counted, not kept (main is not keeping up). */
  queueMax: 10_000,
  /** The Devtools strip's window. */
  recent: 200,
  /** A message from the app larger than this (as JSON) is refused. */
  maxMessageChars: 4 * 1024 * 1024,
  /** Diagnostic and log text kept per entry. */
  maxTextChars: 4_000,
};

/** The proxy's over-budget report, or null when the message is not one (a count that is not a positive safe integer is not one). */
function overBudgetReport(data: unknown): { dropped: number; first: string } | null {
  if (typeof data !== 'object' || data === null) return null;
  const m = data as Record<string, unknown>;
  if (m.jsonrpc !== '2.0' || m.method !== APP_OVER_BUDGET_METHOD || 'id' in m) return null;
  const params = m.params as Record<string, unknown> | undefined;
  if (typeof params !== 'object' || params === null) return null;
  const { dropped, first } = params;
  if (typeof dropped !== 'number' || !Number.isSafeInteger(dropped) || dropped < 1) return null;
  return { dropped, first: typeof first === 'string' && first.length > 0 ? first.slice(0, 200) : 'message' };
}

export interface RecentMessage {
  dir: 'in' | 'out';
  ts: number;
  /** `tools/call`, `ui/initialize`, `response #3`, `error #3`, … */
  label: string;
  message: unknown;
  refused?: string;
}

export interface BridgeTransportOptions {
  host: MessageHost;
  /** The frame's current window (null before it exists). */
  frame(): PostTarget | null | undefined;
  sandboxOrigin: string;
  sink: BridgeSink;
  /** Called once when the flood limit is reached; the transport has closed itself. */
  onFlooded?(dropped: number): void;
  now?(): number;
  setTimer?(fn: () => void, ms: number): unknown;
  clearTimer?(handle: unknown): void;
  limits?: Partial<typeof LIMITS>;
}

/**
 * What the host records in place of a message it refused or dropped: no `jsonrpc` and no `id`
 * (it is not a message anyone sent; main records it as an `error` event), with the method it
 * was about when there is one.
 */
export type RefusalRecord = { summary: 'refused'; method: string } | { summary: 'flood'; dropped: number; firstMethod: string } | { summary: 'trace-overflow'; untraced: number };

/** A short name for a JSON-RPC message or a refusal record (for the strip and the summaries). */
export function messageLabel(message: unknown): string {
  if (typeof message !== 'object' || message === null) return typeof message;
  const m = message as Record<string, unknown>;
  if (m.summary === 'refused') return `refused: ${String(m.method).slice(0, 120)}`;
  if (m.summary === 'flood') return `flood: ${Number(m.dropped).toLocaleString('en')} dropped (first ${String(m.firstMethod).slice(0, 80)})`;
  if (m.summary === 'trace-overflow') return 'not traced (main did not keep up)';
  if (typeof m.method === 'string') return m.method.slice(0, 120);
  const id = typeof m.id === 'string' || typeof m.id === 'number' ? ` #${String(m.id).slice(0, 40)}` : '';
  if ('error' in m) return `error${id}`;
  if ('result' in m) return `response${id}`;
  return 'message';
}

/** A JSON-RPC 2.0 message in shape (the SDK checks each kind's fields itself). */
function isJsonRpc(data: unknown): data is JsonRpcMessage {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return false;
  const m = data as Record<string, unknown>;
  if (m.jsonrpc !== '2.0') return false;
  if (typeof m.method === 'string') return m.method.length > 0 && m.method.length <= 200;
  return (typeof m.id === 'string' || typeof m.id === 'number') && ('result' in m || 'error' in m);
}

const DIAGNOSTIC_KINDS = new Set(['console', 'csp']);

/** The proxy's report as a log entry, or null when it is not one. */
export function diagnosticEntry(params: unknown, ts: number, maxChars = LIMITS.maxTextChars): AppLogEntry | null {
  if (typeof params !== 'object' || params === null) return null;
  const p = params as Record<string, unknown>;
  if (typeof p.kind !== 'string' || !DIAGNOSTIC_KINDS.has(p.kind) || typeof p.text !== 'string') return null;
  const level = p.level === 'error' ? 'error' : 'warning';
  return { ts, level, kind: p.kind as 'console' | 'csp', text: clip(p.text, maxChars) };
}

export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}… (${(text.length - max).toLocaleString('en')} more characters)` : text;
}

export class BridgeTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];

  /** Notifies (once per flush, at most) when `recent()` or the counters changed. */
  readonly changes = new Signal();

  readonly #o: BridgeTransportOptions;
  readonly #limits: typeof LIMITS;
  readonly #now: () => number;
  #tokens: number;
  #refilledAt: number;
  #queue: AppBridgeMessage[] = [];
  #logs: AppLogEntry[] = [];
  #recent: RecentMessage[] = [];
  #recentChanged = false;
  #timer: unknown = undefined;
  #started = false;
  #closed = false;
  #received = 0;
  #sent = 0;
  #dropped = 0;
  #queueDropped = 0;
  /** The flood group being counted: its first method and how many it holds. */
  #group: { first: string; count: number; since: number } | null = null;
  #droppedSinceFlush = 0;
  #lastFloodLog = -Infinity;

  constructor(options: BridgeTransportOptions) {
    this.#o = options;
    this.#limits = { ...LIMITS, ...options.limits };
    this.#now = options.now ?? Date.now;
    this.#tokens = this.#limits.burst;
    this.#refilledAt = this.#now();
  }

  get stats(): { received: number; sent: number; dropped: number; traceDropped: number } {
    return { received: this.#received, sent: this.#sent, dropped: this.#dropped, traceDropped: this.#queueDropped };
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** The last messages both ways, oldest first (a copy). */
  recent(): RecentMessage[] {
    return this.#recent.slice();
  }

  async start(): Promise<void> {
    if (this.#started || this.#closed) return;
    this.#started = true;
    this.#o.host.addEventListener('message', this.#onEvent);
  }

  async send(message: JsonRpcMessage): Promise<void> {
    if (this.#closed) throw new Error('The app was closed.');
    const target = this.#o.frame();
    if (!target) throw new Error('The app frame is gone.');
    this.#record({ dir: 'out', ts: this.#now(), message });
    this.#sent++;
    target.postMessage(message, this.#o.sandboxOrigin);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#o.host.removeEventListener('message', this.#onEvent);
    this.#closeGroup();
    this.flush();
    this.onclose?.();
  }

  /** Records something the host refused or contained (`method`: what it was about; a refused tool call, a refused link…). */
  refuse(dir: 'in' | 'out', method: string, reason: string, log = true): void {
    const ts = this.#now();
    const message: RefusalRecord = { summary: 'refused', method: method.slice(0, 200) };
    this.#record({ dir, ts, message, refused: clip(reason, 2_000) });
    if (log) this.log({ ts, level: 'warning', kind: 'bridge', text: clip(reason, this.#limits.maxTextChars) });
  }

  /** Queues a log entry for `appLog`. */
  log(entry: AppLogEntry): void {
    if (this.#logs.length >= this.#limits.batchMax) return; // bounded: the bucket makes this rare
    this.#logs.push(entry);
    this.#schedule();
  }

  /** Sends what waits to the sinks now (also called by the timer). */
  flush(): void {
    if (this.#timer !== undefined) {
      (this.#o.clearTimer ?? clearTimeout)(this.#timer as ReturnType<typeof setTimeout>);
      this.#timer = undefined;
    }
    // A flood that stopped since the last flush: its last, partial group is summarised now.
    if (this.#group && this.#droppedSinceFlush === 0) this.#closeGroup();
    this.#droppedSinceFlush = 0;
    if (this.#queueDropped > 0 && this.#queue.length < this.#limits.queueMax) {
      // (said once per overflow, in the trace itself)
      const record: RefusalRecord = { summary: 'trace-overflow', untraced: this.#queueDropped };
      this.#queue.push({ dir: 'in', ts: this.#now(), message: record, refused: `${this.#queueDropped.toLocaleString('en')} bridge messages were not traced: Switchboard's main process did not keep up.` });
      this.#queueDropped = 0;
    }
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0, this.#limits.batchMax);
      this.#o.sink.trace(batch);
    }
    if (this.#logs.length > 0) {
      const entries = this.#logs;
      this.#logs = [];
      this.#o.sink.log(entries);
    }
    if (this.#recentChanged) {
      this.#recentChanged = false;
      this.changes.notify();
    }
    // A group still open (the flood goes on) is looked at again by the next flush.
    if (this.#group && !this.#closed) this.#schedule();
  }

  readonly #onEvent = (event: MessageEventLike): void => {
    if (this.#closed) return;
    const frame = this.#o.frame();
    // Another frame's (or our own page's) messages are not this app's: not even counted.
    if (!frame || event.source !== frame) return;
    // What the proxy dropped in the sandbox's process: counted as if dropped here (the proxy never
    // relays an app message with this method, and sends at most one per reportEvery or reportMs).
    const report = event.origin === this.#o.sandboxOrigin ? overBudgetReport(event.data) : null;
    if (report) return this.#drop(report.first, report.dropped);
    // (A malformed one takes the bucket's path and is refused below.)
    if (!this.#take()) return this.#drop(messageLabel(event.data), 1);
    this.#received++;
    const ts = this.#now();
    if (event.origin !== this.#o.sandboxOrigin) {
      this.refuse('in', messageLabel(event.data), `Refused a message from ${clip(String(event.origin), 200)}: the app frame's messages must come from the sandbox origin ${this.#o.sandboxOrigin}.`);
      return;
    }
    const data = event.data;
    if (!isJsonRpc(data)) {
      this.refuse('in', messageLabel(data), 'Refused a message that is not JSON-RPC 2.0.');
      return;
    }
    if ('method' in data && data.method === APP_OVER_BUDGET_METHOD) {
      this.refuse('in', APP_OVER_BUDGET_METHOD, `Refused a malformed ${APP_OVER_BUDGET_METHOD} report (it needs params.dropped, a positive whole number).`);
      return;
    }
    let size: number;
    try {
      size = JSON.stringify(data).length;
    } catch {
      this.refuse('in', messageLabel(data), 'Refused a message that cannot be written as JSON (a cycle, or a value JSON has no form for).');
      return;
    }
    if (size > this.#limits.maxMessageChars) {
      this.refuse('in', messageLabel(data), `Refused a ${size.toLocaleString('en')}-character message: the bridge takes at most ${this.#limits.maxMessageChars.toLocaleString('en')}.`);
      return;
    }
    this.#record({ dir: 'in', ts, message: data });
    if ('method' in data && data.method === APP_DIAGNOSTIC_METHOD) {
      const entry = diagnosticEntry((data as { params?: unknown }).params, ts, this.#limits.maxTextChars);
      if (entry) this.log(entry);
      return;
    }
    try {
      this.onmessage?.(data);
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    }
  };

  #take(): boolean {
    const now = this.#now();
    const elapsed = now - this.#refilledAt;
    if (elapsed > 0) {
      this.#tokens = Math.min(this.#limits.burst, this.#tokens + (elapsed * this.#limits.perSecond) / 1000);
      this.#refilledAt = now;
    }
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }

  /** `count` messages dropped, the first of them `label`: by this bucket (one) or the proxy's (a report). */
  #drop(label: string, count: number): void {
    this.#dropped += count;
    this.#droppedSinceFlush += count;
    const now = this.#now();
    if (!this.#group) this.#group = { first: label, count: 0, since: now };
    this.#group.count += count;
    if (this.#group.count >= this.#limits.summaryEvery) this.#closeGroup();
    if (now - this.#lastFloodLog >= 1000) {
      this.#lastFloodLog = now;
      this.log({
        ts: now,
        level: 'warning',
        kind: 'bridge',
        text: `The app is flooding the bridge: ${this.#dropped.toLocaleString('en')} ${this.#dropped === 1 ? 'message' : 'messages'} dropped so far (the budget is ${this.#limits.burst.toLocaleString('en')} at once, ${this.#limits.perSecond} a second). It is stopped after ${this.#limits.stopAfter.toLocaleString('en')}.`,
      });
    }
    if (this.#dropped >= this.#limits.stopAfter) {
      const dropped = this.#dropped;
      this.log({ ts: now, level: 'error', kind: 'bridge', text: `Stopped the app: it flooded the bridge with ${dropped.toLocaleString('en')} messages over its budget.` });
      void this.close();
      this.#o.onFlooded?.(dropped);
      return;
    }
    this.#schedule();
  }

  #closeGroup(): void {
    const group = this.#group;
    if (!group) return;
    this.#group = null;
    const message: RefusalRecord = { summary: 'flood', dropped: group.count, firstMethod: group.first };
    this.#record({
      dir: 'in',
      ts: group.since,
      message,
      refused: `Dropped ${group.count.toLocaleString('en')} ${group.count === 1 ? 'message' : 'messages'} over the bridge's budget (${this.#limits.burst.toLocaleString('en')} at once, ${this.#limits.perSecond} a second); the first was ${group.first}.`,
    });
  }

  #record(entry: AppBridgeMessage): void {
    if (this.#queue.length >= this.#limits.queueMax) this.#queueDropped++;
    else this.#queue.push(entry);
    this.#recent.push({ dir: entry.dir, ts: entry.ts, label: messageLabel(entry.message), message: entry.message, ...(entry.refused ? { refused: entry.refused } : {}) });
    if (this.#recent.length > this.#limits.recent) this.#recent.splice(0, this.#recent.length - this.#limits.recent);
    this.#recentChanged = true;
    if (this.#queue.length >= this.#limits.flushAt) this.flush();
    else this.#schedule();
  }

  #schedule(): void {
    if (this.#timer !== undefined) return;
    this.#timer = (this.#o.setTimer ?? setTimeout)(() => {
      this.#timer = undefined;
      this.flush();
    }, this.#limits.flushMs);
  }
}
