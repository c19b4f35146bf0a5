/**
 * The call audit: every tool call with its server, tool, argument keys (values only when the
 * user turns that on), duration, outcome and error class. Persisted as JSONL beside the
 * settings, listable through the contract and the CLI.
 */
import { closeSync, existsSync, fstatSync, openSync, readFileSync, readSync, writeSync } from 'node:fs';
import type { AuditRecord } from '../../../contract';

export interface AuditLog {
  append(record: AuditRecord): void;
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

export class FileAuditLog extends MemoryAuditLog {
  override readonly location: string;
  readonly problems: string[] = [];

  constructor(path: string) {
    super();
    this.location = path;
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

  /** One line per record, always starting on a fresh line: a torn last line never swallows the next record. */
  override append(record: AuditRecord): void {
    super.append(record);
    const fd = openSync(this.location, 'a+', 0o600);
    try {
      const size = fstatSync(fd).size;
      let fresh = true;
      if (size > 0) {
        const last = Buffer.alloc(1);
        readSync(fd, last, 0, 1, size - 1);
        fresh = last[0] === 0x0a;
      }
      writeSync(fd, `${fresh ? '' : '\n'}${JSON.stringify(record)}\n`);
    } finally {
      closeSync(fd);
    }
  }
}
