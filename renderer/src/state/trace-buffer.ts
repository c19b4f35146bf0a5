/**
 * The live trace on the renderer side: events arrive in batches (a few a second) and are kept
 * here, outside React state. Views read it on a throttled tick, so a flood of 20,000 events is a
 * handful of renders, not 20,000. Main is the source of everything else: Traffic asks it for
 * windows of rows (`traceWindow`, `traceQuery` pages), the Timeline pages older events with
 * `traceQuery`.
 *
 * Two feeds (`traceFeed`). By default main pushes only the newest events (`partial` batches):
 * the buffer then holds the newest LEAN_WINDOW it was given, with gaps, which is what a table
 * following the newest rows shows; anything else is read from main. A view that draws every
 * event (the Timeline) takes a full-feed lease with `acquireFull()`: while one is held the buffer
 * starts over from the newest LOAD_FULL events loaded from main and every push carries every
 * event, up to WINDOW without a gap.
 */
import type { SwitchboardApi } from '../../../contract/client';
import { TRACE_FEED_LEASE_MS, type TraceEvent } from '../../../contract/trace';
import { FeedLease } from './feed-lease';
import { afterSeq } from './seq-search';
import { Signal } from './store';

export const WINDOW = 20_000;
/** Without a full feed: the newest events kept (many screens of rows). */
export const LEAN_WINDOW = 2_000;
const TICK_MS = 200;
/** Events loaded (newest first): one page of main's (its most) when a full feed begins, then the pushes fill the window; a few screens at start. */
const LOAD_FULL = 5_000;
const LOAD_LEAN = 500;

/** Notifies on a throttled tick: many batches within TICK_MS are one notification. */
export class TraceBuffer extends Signal {
  /** Oldest first; at most WINDOW. */
  events: TraceEvent[] = [];
  /** Events main holds (the window may hold fewer). */
  total = 0;
  paused = false;
  /** Every event of the window's span is here, no gap (a full-feed lease is held and the window was loaded from main). */
  full = false;
  private pendingWhilePaused: TraceEvent[] = [];
  /** The full-feed lease, held by the views that draw every event. */
  private readonly fullFeed: FeedLease;
  /** A switch to the full feed under way (one at a time). */
  private starting: Promise<void> | undefined;

  constructor(private readonly api: SwitchboardApi) {
    super({ throttleMs: TICK_MS });
    this.fullFeed = new FeedLease({
      ask: (lease, full) => api.traceFeed({ lease, full }),
      leaseMs: TRACE_FEED_LEASE_MS,
      what: 'the full trace feed',
      begin: () => void this.startFull(),
      end: () => this.stopFull(),
    });
  }

  /** This window's name for its full-feed lease. */
  get lease(): string {
    return this.fullFeed.name;
  }

  /** Loads the most recent window, then follows live batches. */
  async start(): Promise<() => void> {
    const off = this.api.on('traceBatch', ({ events, total, partial }) => this.receive(events, total, partial));
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
    // a new main process knows no lease
    if (this.fullFeed.held) await this.startFull();
    else await this.load();
  }

  /**
   * Every event in the pushes while the returned release is not called (the Timeline). Leases of
   * several views are one; the last release gives it back.
   */
  acquireFull(): () => void {
    return this.fullFeed.acquire();
  }

  /** The page is going away: its lease is given back now rather than running out (best effort; `pageshow` takes it again). */
  leave(): void {
    this.fullFeed.leave();
  }

  /** The page came back from the back/forward cache: a lease given up on leaving is taken again. */
  returned(): void {
    this.fullFeed.returned();
  }

  private startFull(): Promise<void> {
    this.starting ??= (async () => {
      try {
        await this.api.traceFeed({ lease: this.lease, full: true });
        if (!this.fullFeed.held) return;
        // What the buffer holds came in partial pushes: start over from main's newest, gapless. Every push
        // from now on is whole (it comes after main's answer on the same link), so what arrives
        // while the window loads, past its newest, is whole too.
        const page = await this.api.traceQuery({ order: 'desc', limit: LOAD_FULL });
        if (!this.fullFeed.held) return;
        const loaded = page.events.reverse();
        const newest = loaded.length ? loaded[loaded.length - 1]!.seq : 0;
        this.events = loaded.concat(this.events.slice(afterSeq(this.events, newest)));
        this.total = Math.max(this.total, page.total);
        this.full = true;
        this.trim();
        this.notify();
      } catch (error) {
        console.error('Switchboard: switching to the full trace feed failed', error);
      } finally {
        this.starting = undefined;
      }
    })();
    return this.starting;
  }

  private stopFull(): void {
    this.full = false;
    this.trim();
    this.notify();
  }

  private async load(): Promise<void> {
    const page = await this.api.traceQuery({ order: 'desc', limit: LOAD_LEAN });
    const known = new Set(this.events.map((e) => e.seq));
    this.events = [...page.events.reverse().filter((e) => !known.has(e.seq)), ...this.events].sort((a, b) => a.seq - b.seq);
    this.total = Math.max(this.total, page.total);
    this.notify();
  }

  receive(events: TraceEvent[], total: number, partial = false): void {
    this.total = Math.max(this.total, total);
    // A lease is wanted but the pushes are partial: it ran out under us (main was too busy to hear
    // a renewal) or taking it failed. Take it again (the window starts over from main).
    if (partial && this.fullFeed.held && !this.starting) {
      this.full = false;
      void this.startFull();
    }
    if (this.paused) {
      // Paused means the view holds still; nothing is lost, it is applied on resume.
      for (const event of events) this.pendingWhilePaused.push(event);
      // more than the window holds would be dropped on resume anyway (the newest are kept)
      const most = this.full ? WINDOW : LEAN_WINDOW;
      if (this.pendingWhilePaused.length > 2 * most) this.pendingWhilePaused.splice(0, this.pendingWhilePaused.length - most);
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
    this.trim();
    this.notify();
  }

  private trim(): void {
    const most = this.full ? WINDOW : LEAN_WINDOW;
    if (this.events.length > most) this.events.splice(0, this.events.length - most);
  }
}
