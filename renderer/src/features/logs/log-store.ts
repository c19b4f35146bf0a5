/**
 * Log lines on the renderer side, outside React state, for the window's life. Bounded (oldest
 * dropped in chunks); views re-render on a throttled tick, and filter incrementally (only new
 * lines are scanned while the filter holds).
 *
 * Main keeps the recent lines (50,000) and pushes new ones (`logBatch`). While the Logs view is
 * open it holds a log-feed lease (`acquire`) and every line is pushed; otherwise a push carries
 * only its newest lines (`partial`), so a server's log flood is not carried into a window that
 * does not show it. Taking the lease reads main's recent lines (`recentLogs`) and fills what the
 * partial pushes left out: the view shows every line main still has, in main's order (`id`).
 * No React here (Node tests use it against the real core); the view's hook is `useLogStore`.
 */
import { LOG_FEED_LEASE_MS, type LogLevel, type LogLine } from '../../../../contract';
import { KEEP, type StoredLine } from './log-filter';
import type { SwitchboardApi } from '../../../../contract/client';
import { FeedLease } from '../../state/feed-lease';
import { perApi } from '../../state/per-api';
import { Signal } from '../../state/store';

const TRIM_SLACK = 5_000;
const TICK_MS = 150;

/** Notifies on a throttled tick (TICK_MS). */
export class LogStore extends Signal {
  lines: StoredLine[] = [];
  /** Lines dropped from the front to stay bounded, or cleared. */
  dropped = 0;
  /** Main's recent lines have been read (the Logs view opened once). */
  loaded = false;
  /** The last `logging/setLevel` sent per server in this window. */
  readonly levels = new Map<string, { level: LogLevel; at: number }>();
  private nextSeq = 0;
  /** Main's id of the newest line held: a line pushed again (or read again) is not added twice. */
  private lastId = -1;
  /** Lines up to this id were cleared: reading main's recent lines does not bring them back. */
  private clearedThrough = -1;
  private readonly feed: FeedLease;
  /** A read of main's recent lines under way (one at a time). */
  private loading: Promise<void> | undefined;

  constructor(private readonly api: SwitchboardApi) {
    super({ throttleMs: TICK_MS });
    this.feed = new FeedLease({
      ask: (lease, full) => api.logFeed({ lease, full }),
      leaseMs: LOG_FEED_LEASE_MS,
      what: 'the full log feed',
      begin: () => void this.load(),
      end: () => undefined,
    });
    api.on('logBatch', ({ lines, partial }) => {
      this.append(lines);
      // The lease is wanted but the pushes are partial: it ran out under us (main was too busy
      // to hear a renewal, or the page slept). Take it again and read what was left out.
      if (partial && this.feed.held && !this.loading) void this.load();
    });
  }

  /** Every line in the pushes, and main's recent lines read now, until the returned release is called (the Logs view). */
  acquire(): () => void {
    return this.feed.acquire();
  }

  /** The page is going away: the lease is given back now (`returned` takes it again). */
  leave(): void {
    this.feed.leave();
  }

  /** The page came back from the back/forward cache. */
  returned(): void {
    this.feed.returned();
  }

  /** After the link to main came back (main may be a new process, which knows no lease): read again what was missed. */
  async resync(): Promise<void> {
    if (this.feed.held) await this.load();
  }

  /** Takes the lease, then reads main's recent lines into the store. */
  private load(): Promise<void> {
    this.loading ??= (async () => {
      try {
        await this.api.logFeed({ lease: this.feed.name, full: true });
        const { lines } = await this.api.recentLogs();
        if (this.feed.held) this.merge(lines);
      } catch (error) {
        console.error('Switchboard: reading the recent log lines failed', error);
      } finally {
        this.loaded = true;
        this.loading = undefined;
        this.notify();
      }
    })();
    return this.loading;
  }

  /**
   * Main's recent lines in place of what is held from their span (which partial pushes left
   * gaps in); lines held from before it (an earlier main process, or lines main no longer
   * keeps) stay in front, and any held after it stay behind. Cleared lines stay out (`append`).
   */
  private merge(recent: LogLine[]): void {
    if (!recent.length) return;
    const first = recent[0]!.id ?? -1;
    const newest = recent[recent.length - 1]!.id ?? -1;
    const held = this.lines;
    const before = held.filter((l) => (l.id ?? -1) < first);
    const after = held.filter((l) => (l.id ?? -1) > newest);
    this.lines = [];
    this.lastId = -1;
    this.append([...before, ...recent, ...after]);
  }

  append(lines: LogLine[]): void {
    for (const line of lines) {
      if (line.id !== undefined) {
        if (line.id <= this.lastId || line.id <= this.clearedThrough) continue;
        this.lastId = line.id;
      }
      this.lines.push({ ...line, seq: this.nextSeq++, lower: line.text.toLowerCase() });
    }
    if (this.lines.length > KEEP + TRIM_SLACK) {
      const drop = this.lines.length - KEEP;
      this.lines.splice(0, drop);
      this.dropped += drop;
    }
    this.notify();
  }

  clear(): void {
    this.dropped += this.lines.length;
    this.lines = [];
    this.clearedThrough = Math.max(this.clearedThrough, this.lastId);
    this.notify();
  }

  setLevel(serverId: string, level: LogLevel): void {
    this.levels.set(serverId, { level, at: Date.now() });
    this.notify();
  }
}

export const getLogStore = perApi((api) => new LogStore(api));

export { DEFAULT_SOURCES, FilteredLines, KEEP, LEVELS, LEVEL_RANK, LOG_SOURCES, SOURCE_LABEL, lineCount, oneLine, type LogFilter, type StoredLine } from './log-filter';
