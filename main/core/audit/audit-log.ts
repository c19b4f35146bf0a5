/**
 * The call audit: every tool call with its server, tool, argument keys (values only when the
 * user turns that on), duration, outcome and error class. Persisted as JSONL beside the
 * settings, listable through the contract and the CLI.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import type { AuditRecord } from '../../../contract';

export interface AuditLog {
  append(record: AuditRecord): void;
  list(options?: { limit?: number; serverId?: string }): AuditRecord[];
  readonly location: string;
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

  constructor(path: string) {
    super();
    this.location = path;
    if (!existsSync(path)) return;
    for (const line of readFileSync(path, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      try {
        super.append(JSON.parse(line) as AuditRecord);
      } catch {
        // a torn last line (crash mid-write) is skipped; the rest stays readable
      }
    }
  }

  override append(record: AuditRecord): void {
    super.append(record);
    appendFileSync(this.location, JSON.stringify(record) + '\n', { mode: 0o600 });
  }
}
