/**
 * The events main pushes to every attached carrier. Carriers subscribe once and forward;
 * high-rate sources (log lines, trace events: `traceBatch`) are batched before they get here.
 */
import type { EventName, EventPayload } from '../../contract';

export type EventListener = <E extends EventName>(event: E, payload: EventPayload<E>) => void;

export class EventHub {
  private readonly listeners = new Set<EventListener>();
  private reporting = false;

  /**
   * @param onListenerError Told of every listener that threw (the core logs it as an app error);
   *   stderr always gets a line, so no event is lost without a trace of it.
   */
  constructor(private onListenerError?: (event: EventName, error: unknown) => void) {}

  /** Set once the log bus exists (it is itself built on this hub). */
  reportListenerErrors(report: (event: EventName, error: unknown) => void): void {
    this.onListenerError = report;
  }

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit<E extends EventName>(event: E, payload: EventPayload<E>): void {
    for (const listener of this.listeners) {
      try {
        listener(event, payload);
      } catch (error) {
        // A broken carrier (a closed socket, a destroyed window) must not stop the others.
        this.report(event, error);
      }
    }
  }

  private report(event: EventName, error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    console.error(`switchboard: a listener of the "${event}" event failed: ${message}`);
    // Reporting writes a log line, which is emitted in turn: a listener failing on log batches
    // is left to stderr, or each report would cause the next.
    if (this.reporting || !this.onListenerError || event === 'logBatch') return;
    this.reporting = true;
    try {
      this.onListenerError(event, error);
    } catch {
      // stderr has it
    } finally {
      this.reporting = false;
    }
  }
}

/**
 * Collects items and flushes them at most every `intervalMs`, so a flood becomes a few
 * messages per second instead of one message per item. With `maxItems`, a batch that reaches it
 * is flushed on the next turn of the event loop instead of waiting for the timer: under a flood
 * the receiver gets more, smaller messages (each one a short task to parse and apply) rather than
 * a few large ones that each stall it.
 */
export class Batcher<T> {
  private pending: T[] = [];
  private timer: NodeJS.Timeout | undefined;
  private soon: NodeJS.Immediate | undefined;

  constructor(
    private readonly flush: (items: T[]) => void,
    private readonly intervalMs = 100,
    private readonly maxItems = Infinity,
  ) {}

  push(item: T): void {
    this.pending.push(item);
    this.timer ??= setTimeout(() => this.drain(), this.intervalMs);
    if (this.pending.length >= this.maxItems) this.soon ??= setImmediate(() => this.drain());
  }

  drain(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.soon) clearImmediate(this.soon);
    this.soon = undefined;
    if (this.pending.length === 0) return;
    const items = this.pending;
    this.pending = [];
    this.flush(items);
  }
}
