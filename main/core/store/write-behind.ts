/**
 * Writing behind: many changes, one write. A store calls `touch()` on every change; the write
 * runs `delayMs` after the last change, and never later than `maxDelayMs` after the first one
 * waiting (so a steady stream of changes cannot put it off forever). Writes never overlap;
 * `flush()` writes what waits now, `close()` does so and writes every later change at once.
 * A failed write is reported and tried again on the next change or flush, never dropped.
 */

/** setTimeout/clearTimeout, replaceable so a test decides when "later" is. */
export interface WriteTimers {
  set(run: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

/** Real timers that do not keep the process alive. */
export const realTimers: WriteTimers = {
  set: (run, ms) => setTimeout(run, ms).unref(),
  clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export interface WriteBehindOptions {
  delayMs: number;
  /** Default: `delayMs` (the first change's deadline is never moved). */
  maxDelayMs?: number;
  timers?: WriteTimers;
  /** A write that failed; it is tried again on the next change or flush. */
  onError?: (error: unknown) => void;
}

export class WriteBehind {
  private readonly delayMs: number;
  private readonly maxDelayMs: number;
  private readonly timers: WriteTimers;
  private trailing: unknown;
  private deadline: unknown;
  private pending = false;
  private closed = false;
  private queue: Promise<void> = Promise.resolve();
  /** How many writes ran (tests and the report measure it). */
  writes = 0;

  constructor(
    private readonly write: () => Promise<void>,
    private readonly options: WriteBehindOptions,
  ) {
    this.delayMs = options.delayMs;
    this.maxDelayMs = Math.max(options.delayMs, options.maxDelayMs ?? options.delayMs);
    this.timers = options.timers ?? realTimers;
  }

  /** Something changed: write it soon (at once after `close()`). */
  touch(): void {
    this.pending = true;
    if (this.closed) {
      void this.flush();
      return;
    }
    if (this.deadline === undefined) this.deadline = this.timers.set(() => void this.flush(), this.maxDelayMs);
    if (this.delayMs < this.maxDelayMs) {
      if (this.trailing !== undefined) this.timers.clear(this.trailing);
      this.trailing = this.timers.set(() => void this.flush(), this.delayMs);
    }
  }

  /** Writes what waits, after any write already running; resolves when it is on disk (or reported). */
  flush(): Promise<void> {
    this.cancelTimers();
    if (!this.pending) return this.queue;
    this.pending = false;
    this.queue = this.queue.then(async () => {
      try {
        this.writes++;
        await this.write();
      } catch (error) {
        this.options.onError?.(error);
        this.pending = true; // kept: the next change or flush tries again
      }
    });
    return this.queue;
  }

  /** Flushes; from now on every change is written at once. */
  close(): Promise<void> {
    this.closed = true;
    return this.flush();
  }

  private cancelTimers(): void {
    for (const handle of [this.trailing, this.deadline]) if (handle !== undefined) this.timers.clear(handle);
    this.trailing = this.deadline = undefined;
  }
}
