/**
 * Log lines from servers' stderr, their log notifications, and Switchboard itself.
 *
 * Main keeps the newest lines (`history`, what `recentLogs` answers) and pushes new ones in
 * batches (`logBatch`). A push carries every line only while a window shows them (`logFeed`: the
 * Logs view, on a lease it renews); otherwise its newest LOG_FEED_TAIL, marked `partial`. A
 * server's log flood (thousands of lines a second) is then not serialized, carried and parsed for
 * windows that do not show it; the Logs view reads what it missed from `recentLogs` when it opens.
 */
import { LOG_FEED_LEASE_MS, LOG_FEED_TAIL, LogLevel, LogLine } from '../../../contract';
import { Batcher, type EventHub } from '../events';
import { Leases } from '../leases';

const MAX_LINE_CHARS = 16_384;
/** Lines main keeps (as many as a Logs view does: KEEP in the renderer)… */
export const LOG_HISTORY_LINES = 50_000;
/** …and at most this much of their text (UTF-16 units): a log of long lines stays a few MB. */
export const LOG_HISTORY_CHARS = 8 * 1024 * 1024;

export interface LogBusOptions {
  keep?: number;
  keepChars?: number;
  /** Without a lease, a push carries at most this many of its newest lines (default LOG_FEED_TAIL). */
  tail?: number;
}

export class LogBus {
  private readonly batcher: Batcher<LogLine>;
  /** Recent lines, so a window that opens late still sees what happened. */
  private readonly recent: History;
  /** Main's start in µs: ids of a restarted main follow the last one's. */
  private nextId = Date.now() * 1000;
  /** Windows that show every line (`logFeed`). */
  private readonly leases = new Leases(LOG_FEED_LEASE_MS);

  constructor(hub: EventHub, options: LogBusOptions = {}) {
    this.recent = new History(options.keep ?? LOG_HISTORY_LINES, options.keepChars ?? LOG_HISTORY_CHARS);
    const tail = options.tail ?? LOG_FEED_TAIL;
    this.batcher = new Batcher((lines) => {
      if (this.leases.held || lines.length <= tail) hub.emit('logBatch', { lines });
      else hub.emit('logBatch', { lines: lines.slice(-tail), partial: true });
    });
  }

  write(line: Omit<LogLine, 'ts' | 'id'> & { ts?: number }): void {
    const text = line.text.length > MAX_LINE_CHARS ? `${line.text.slice(0, MAX_LINE_CHARS)}… (${line.text.length} chars)` : line.text;
    const full: LogLine = { ...line, text, ts: line.ts ?? Date.now(), id: this.nextId++ };
    this.recent.push(full);
    this.batcher.push(full);
  }

  app(level: LogLine['level'], text: string, serverId?: string): void {
    this.write({ source: 'app', level, text, serverId });
  }

  /** The newest lines within the bounds (`keep` lines, `keepChars` of text), oldest first. */
  history(): LogLine[] {
    return this.recent.lines(this.nextId - 1);
  }

  /**
   * `logFeed`: every line in the pushes while any window's lease runs (each lasts
   * LOG_FEED_LEASE_MS from its last renewal), the newest of each push only otherwise.
   */
  feed(lease: string, full: boolean): { full: boolean; leaseMs: number } {
    return { full: this.leases.set(lease, full), leaseMs: full ? LOG_FEED_LEASE_MS : 0 };
  }

  flush(): void {
    this.batcher.drain();
  }
}

const LEVELS = LogLevel.options;
const SOURCES = LogLine.shape.source.options;
const LEVEL_AT = new Map(LEVELS.map((level, i) => [level, i]));
const SOURCE_AT = new Map(SOURCES.map((source, i) => [source, i]));

/**
 * Main's recent lines as columns in a ring, not an object a line: held by the tens of thousands
 * through a server's log flood, objects were ~480 bytes a line of old-generation heap (and main's
 * RSS under a 60 s flood grew by ~190 MiB more than with 2,000 of them, test/integration/
 * ws-backpressure.test.ts); here a line is its text and a few bytes. Ids are consecutive, so the
 * ring does not keep them: the newest is main's last.
 */
class History {
  private readonly texts: (string | undefined)[];
  private readonly servers: (string | undefined)[];
  private readonly times: Float64Array;
  private readonly levels: Uint8Array;
  private readonly sources: Uint8Array;
  /** Where the oldest line is. */
  private start = 0;
  private size = 0;
  private chars = 0;

  constructor(
    private readonly capacity: number,
    private readonly maxChars: number,
  ) {
    this.texts = new Array<string | undefined>(capacity).fill(undefined);
    this.servers = new Array<string | undefined>(capacity).fill(undefined);
    this.times = new Float64Array(capacity);
    this.levels = new Uint8Array(capacity);
    this.sources = new Uint8Array(capacity);
  }

  push(line: LogLine): void {
    if (this.size === this.capacity) this.dropOldest();
    const at = (this.start + this.size) % this.capacity;
    this.texts[at] = line.text;
    this.servers[at] = line.serverId;
    this.times[at] = line.ts;
    this.levels[at] = LEVEL_AT.get(line.level) ?? 0;
    this.sources[at] = SOURCE_AT.get(line.source) ?? 0;
    this.size++;
    this.chars += line.text.length;
    while (this.chars > this.maxChars && this.size > 1) this.dropOldest();
  }

  /** Every line held, oldest first; `newestId` is the newest one's id. */
  lines(newestId: number): LogLine[] {
    const lines: LogLine[] = [];
    for (let i = 0; i < this.size; i++) {
      const at = (this.start + i) % this.capacity;
      const serverId = this.servers[at];
      lines.push({
        ts: this.times[at]!,
        ...(serverId !== undefined ? { serverId } : {}),
        source: SOURCES[this.sources[at]!]!,
        level: LEVELS[this.levels[at]!]!,
        text: this.texts[at]!,
        id: newestId - this.size + 1 + i,
      });
    }
    return lines;
  }

  private dropOldest(): void {
    this.chars -= this.texts[this.start]!.length;
    this.texts[this.start] = undefined;
    this.servers[this.start] = undefined;
    this.start = (this.start + 1) % this.capacity;
    this.size--;
  }
}
