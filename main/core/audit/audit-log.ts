/**
 * The call audit: every tool call with its server, tool, argument keys (values only when the
 * user turns that on), duration, outcome and error class. Persisted as JSONL beside the
 * settings, listable through the contract and the CLI. A call does not wait for the disk: records
 * are listed at once and appended to the file in batches, within a second, and on shutdown.
 */
import { existsSync, readFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import type { AuditRecord } from '../../../contract';
import { WriteBehind, type WriteTimers } from '../store/write-behind';

/** Records reach the file at most this long after they were made. */
export const AUDIT_FLUSH_MS = 1_000;

export interface AuditLog {
  append(record: AuditRecord): void;
  /** Writes the records not yet on disk; resolves when they are. */
  flush(): Promise<void>;
  /** Flushes; records appended later are written at once. */
  close(): Promise<void>;
  list(options?: { limit?: number; serverId?: string }): AuditRecord[];
  readonly location: string;
  /** Lines of the file that could not be read (torn by a crash mid-write), for the user. */
  readonly problems?: string[];
}

const KEEP_IN_MEMORY = 5_000;

export class MemoryAuditLog implements AuditLog {
  readonly location: string = '(memory)';
  protected readonly records: AuditRecord[] = [];

  append(record: AuditRecord): void {
    this.records.push(record);
    if (this.records.length > KEEP_IN_MEMORY) this.records.splice(0, this.records.length - KEEP_IN_MEMORY);
  }

  flush(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    return this.flush();
  }

  /** Newest first. */
  list(options: { limit?: number; serverId?: string } = {}): AuditRecord[] {
    const limit = options.limit ?? 200;
    const out: AuditRecord[] = [];
    for (let i = this.records.length - 1; i >= 0 && out.length < limit; i--) {
      const record = this.records[i]!;
      if (!options.serverId || record.serverId === options.serverId) out.push(record);
    }
    return out;
  }
}

export interface FileAuditLogOptions {
  /** Tests: when "later" is. */
  timers?: WriteTimers;
  /** A batch that could not be written (kept, and tried again with the next record or flush). */
  onError?: (error: unknown) => void;
}

export class FileAuditLog extends MemoryAuditLog {
  override readonly location: string;
  readonly problems: string[] = [];
  /** Lines made but not yet on disk, oldest first. */
  private unwritten: string[] = [];
  private readonly writer: WriteBehind;

  constructor(path: string, options: FileAuditLogOptions = {}) {
    super();
    this.location = path;
    this.writer = new WriteBehind(() => this.writeUnwritten(), { delayMs: AUDIT_FLUSH_MS, timers: options.timers, onError: options.onError });
    if (!existsSync(path)) return;
    const skipped: number[] = [];
    for (const [index, line] of readFileSync(path, 'utf8').split('\n').entries()) {
      if (!line.trim()) continue;
      try {
        super.append(JSON.parse(line) as AuditRecord);
      } catch {
        skipped.push(index + 1); // a torn line (crash mid-write) is skipped; the rest stays readable
      }
    }
    if (skipped.length) {
      this.problems.push(`The call audit ${path} has ${skipped.length === 1 ? 'an unreadable line' : `${skipped.length} unreadable lines`} (${skipped.slice(0, 10).join(', ')}${skipped.length > 10 ? ', …' : ''}), probably torn by a crash mid-write; skipped.`);
    }
  }

  override append(record: AuditRecord): void {
    super.append(record);
    this.unwritten.push(`${JSON.stringify(record)}\n`);
    this.writer.touch();
  }

  /** How many batches were written (tests, measurements). */
  get writes(): number {
    return this.writer.writes;
  }

  override flush(): Promise<void> {
    return this.writer.flush();
  }

  override close(): Promise<void> {
    return this.writer.close();
  }

  /** One line per record, always starting on a fresh line: a torn last line never swallows the next record. */
  private async writeUnwritten(): Promise<void> {
    const batch = this.unwritten.length;
    if (batch === 0) return;
    const file = await open(this.location, 'a+', 0o600);
    try {
      const { size } = await file.stat();
      let fresh = true;
      if (size > 0) {
        const last = Buffer.alloc(1);
        await file.read(last, 0, 1, size - 1);
        fresh = last[0] === 0x0a;
      }
      await file.write(`${fresh ? '' : '\n'}${this.unwritten.slice(0, batch).join('')}`);
    } finally {
      await file.close();
    }
    this.unwritten.splice(0, batch);
  }
}
