/**
 * Pinned baselines (#13): one interface snapshot per server, kept in `baselines.json` beside a
 * file-backed settings store (owner-only, written whole by an atomic rename), or in memory.
 * Read entry by entry: a bad entry costs only itself; an unreadable file is moved aside and
 * reported, never silently dropped.
 */
import { copyFileSync, existsSync, readFileSync, renameSync, statSync } from 'node:fs';
import { boundDepth } from '../../../contract/bounded-json';
import { Baseline } from '../../../contract';
import { backupPath } from '../store/backup';
import { writeFileAtomicSync } from '../store/atomic-file';
import { SNAPSHOT_LIMITS } from './interface';

export const BASELINES_FILE = 'baselines.json';
const BASELINES_VERSION = 1;
/** A baselines file larger than this is not read (moved aside). */
export const MAX_BASELINES_BYTES = 256 * 1024 ** 2;
/** Baselines kept (one a server). */
export const MAX_BASELINES = 1_000;

export class BaselineStore {
  private readonly baselines = new Map<string, Baseline>();
  readonly problems: string[] = [];

  /** `path` absent: in memory only. */
  constructor(readonly path?: string) {
    if (path) this.read(path);
  }

  get(serverId: string): Baseline | undefined {
    return this.baselines.get(serverId);
  }

  all(): Baseline[] {
    return [...this.baselines.values()];
  }

  /** Pins (replacing any earlier baseline of the server) and writes the file. */
  set(baseline: Baseline): void {
    if (!this.baselines.has(baseline.serverId) && this.baselines.size >= MAX_BASELINES) throw new Error(`Switchboard keeps at most ${MAX_BASELINES} baselines: clear some first.`);
    this.baselines.set(baseline.serverId, baseline);
    this.write();
  }

  delete(serverId: string): boolean {
    if (!this.baselines.delete(serverId)) return false;
    this.write();
    return true;
  }

  private write(): void {
    if (!this.path) return;
    writeFileAtomicSync(this.path, JSON.stringify({ version: BASELINES_VERSION, baselines: this.all() }));
  }

  private read(path: string): void {
    if (!existsSync(path)) return;
    let raw: unknown;
    try {
      const size = statSync(path).size;
      if (size > MAX_BASELINES_BYTES) throw new Error(`${size.toLocaleString('en-US')} bytes, more than the ${MAX_BASELINES_BYTES.toLocaleString('en-US')} Switchboard reads`);
      raw = JSON.parse(readFileSync(path, 'utf8'));
    } catch (error) {
      const backup = backupPath(path);
      renameSync(path, backup);
      this.problems.push(`The baselines in ${path} could not be read (${(error as Error).message}). The file was moved to ${backup}; no baseline is pinned until you pin one again.`);
      return;
    }
    const entries = raw && typeof raw === 'object' && Array.isArray((raw as { baselines?: unknown }).baselines) ? (raw as { baselines: unknown[] }).baselines : undefined;
    let skipped = entries ? 0 : 1;
    for (const entry of (entries ?? []).slice(0, MAX_BASELINES)) {
      const parsed = Baseline.safeParse(boundDepth(entry, SNAPSHOT_LIMITS.itemDepth + 4));
      if (parsed.success) this.baselines.set(parsed.data.serverId, parsed.data);
      else skipped++;
    }
    if (!skipped) return;
    const backup = backupPath(path);
    copyFileSync(path, backup);
    this.problems.push(`${skipped === 1 ? 'A baseline' : `${skipped} baselines`} in ${path} could not be read and ${skipped === 1 ? 'was' : 'were'} skipped (the original file is kept at ${backup}).`);
  }
}

/** Reads the baselines of a data directory without keeping a store (the CLI's `baseline:SERVER`). */
export function readBaselines(path: string): { baselines: Baseline[]; problems: string[] } {
  if (!existsSync(path)) return { baselines: [], problems: [] };
  const store = new BaselineStore(path);
  return { baselines: store.all(), problems: store.problems };
}
