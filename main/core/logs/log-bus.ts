/** Log lines from servers' stderr, their log notifications, and Switchboard itself. */
import type { LogLine } from '../../../contract';
import { Batcher, type EventHub } from '../events';

const MAX_LINE_CHARS = 16_384;

export class LogBus {
  private readonly batcher: Batcher<LogLine>;
  /** Recent lines, so a window that opens late still sees what happened. */
  private readonly recent: LogLine[] = [];

  constructor(
    hub: EventHub,
    private readonly keep = 2_000,
  ) {
    this.batcher = new Batcher((lines) => hub.emit('logBatch', { lines }));
  }

  write(line: Omit<LogLine, 'ts'> & { ts?: number }): void {
    const text = line.text.length > MAX_LINE_CHARS ? `${line.text.slice(0, MAX_LINE_CHARS)}… (${line.text.length} chars)` : line.text;
    const full: LogLine = { ...line, text, ts: line.ts ?? Date.now() };
    this.recent.push(full);
    // Trimmed in one go once it holds twice `keep`: a splice of the oldest line on every write
    // moved 2,000 references a line (a server's log flood: ~0.5 s of main's CPU for 20,000 lines).
    if (this.recent.length >= this.keep * 2) this.recent.splice(0, this.recent.length - this.keep);
    this.batcher.push(full);
  }

  app(level: LogLine['level'], text: string, serverId?: string): void {
    this.write({ source: 'app', level, text, serverId });
  }

  /** The newest `keep` lines, oldest first. */
  history(): LogLine[] {
    return this.recent.slice(-this.keep);
  }

  flush(): void {
    this.batcher.drain();
  }
}
