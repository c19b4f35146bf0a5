/**
 * The live trace on the renderer side: events arrive in batches (a few a second) and are kept
 * here, outside React state, in a bounded window of the newest WINDOW. Views read it on a
 * throttled tick, so a flood of 20,000 events is a handful of renders, not 20,000. Main is the
 * source of everything else: Traffic asks it for windows of rows (`traceWindow`, `traceQuery`
 * pages), the Timeline pages older events with `traceQuery`.
 */
import type { SwitchboardApi } from '../../../contract/client';
import type { TraceEvent } from '../../../contract/trace';
import { Signal } from './store';

export const WINDOW = 20_000;
const TICK_MS = 200;

/** Notifies on a throttled tick: many batches within TICK_MS are one notification. */
export class TraceBuffer extends Signal {
  /** Oldest first; at most WINDOW. */
  events: TraceEvent[] = [];
  /** Events main holds (the window may hold fewer). */
  total = 0;
  paused = false;
  private pendingWhilePaused: TraceEvent[] = [];

  constructor(private readonly api: SwitchboardApi) {
    super({ throttleMs: TICK_MS });
  }

  /** Loads the most recent window, then follows live batches. */
  async start(): Promise<() => void> {
    const off = this.api.on('traceBatch', ({ events, total }) => this.receive(events, total));
    await this.load();
    return off;
  }

  /**
   * After the link to main came back: main may be a new process whose sequence numbers start
   * again at 1, so what is held here is dropped and the recent window loaded again.
   */
  async resync(): Promise<void> {
    this.events = [];
    this.pendingWhilePaused = [];
    this.total = 0;
    await this.load();
  }

  private async load(): Promise<void> {
    const page = await this.api.traceQuery({ order: 'desc', limit: 5000 });
    const known = new Set(this.events.map((e) => e.seq));
    this.events = [...page.events.reverse().filter((e) => !known.has(e.seq)), ...this.events].sort((a, b) => a.seq - b.seq);
    this.total = Math.max(this.total, page.total);
    this.notify();
  }

  receive(events: TraceEvent[], total: number): void {
    this.total = Math.max(this.total, total);
    if (this.paused) {
      // Paused means the view holds still; nothing is lost, it is applied on resume.
      this.pendingWhilePaused.push(...events);
      return;
    }
    this.append(events);
  }

  setPaused(paused: boolean): void {
    this.paused = paused;
    if (!paused && this.pendingWhilePaused.length) {
      const pending = this.pendingWhilePaused;
      this.pendingWhilePaused = [];
      this.append(pending);
    } else if (paused) {
      // What arrived before the pause is on screen at once (not a tick later), and then it holds.
      this.notifyNow();
    } else this.notify();
  }

  get pendingCount(): number {
    return this.pendingWhilePaused.length;
  }

  /** Clears the view (not the trace in main). */
  reset(): void {
    this.events = [];
    this.pendingWhilePaused = [];
    this.notify();
  }

  private append(events: TraceEvent[]): void {
    // A push can repeat events the window already loaded (recorded just before the load, pushed after it).
    let last = this.events.length ? this.events[this.events.length - 1]!.seq : 0;
    for (const event of events) {
      if (event.seq <= last) continue;
      this.events.push(event);
      last = event.seq;
    }
    if (this.events.length > WINDOW) this.events.splice(0, this.events.length - WINDOW);
    this.notify();
  }
}
