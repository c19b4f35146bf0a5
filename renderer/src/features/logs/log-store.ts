/**
 * Log lines on the renderer side, outside React state, for the window's life: main's recent
 * history, then every `logBatch`. Bounded (oldest dropped in chunks); views re-render on a
 * throttled tick, and filter incrementally (only new lines are scanned while the filter holds).
 */
import type { LogLevel, LogLine } from '../../../../contract';
import { KEEP, type StoredLine } from './log-filter';
import type { SwitchboardApi } from '../../../../contract/client';
import { perApi } from '../../state/per-api';
import { Signal } from '../../state/store';
import { useVersion } from '../../state/useStore';

const TRIM_SLACK = 5_000;
const TICK_MS = 150;

/** Notifies on a throttled tick (TICK_MS). */
export class LogStore extends Signal {
  lines: StoredLine[] = [];
  /** Lines dropped from the front to stay bounded, or cleared. */
  dropped = 0;
  loaded = false;
  /** The last `logging/setLevel` sent per server in this window. */
  readonly levels = new Map<string, { level: LogLevel; at: number }>();
  private nextSeq = 0;

  constructor(private readonly api: SwitchboardApi) {
    super({ throttleMs: TICK_MS });
    let early: LogLine[] = [];
    api.on('logBatch', ({ lines }) => {
      if (!this.loaded) early.push(...lines);
      else this.append(lines);
    });
    api.recentLogs().then(
      ({ lines: history }) => {
        // Batches that arrived while history was on its way may repeat its tail.
        const seen = new Set(history.map(lineKey));
        const fresh = early.filter((l) => !seen.has(lineKey(l)));
        early = [];
        this.loaded = true;
        this.append([...history, ...fresh]);
      },
      () => {
        this.loaded = true;
        this.append(early);
        early = [];
      },
    );
  }

  /** After the link to main came back: main's recent lines that are not here yet. */
  async resync(): Promise<void> {
    try {
      const { lines } = await this.api.recentLogs();
      const seen = new Set(this.lines.map(lineKey));
      this.append(lines.filter((l) => !seen.has(lineKey(l))));
    } catch {
      // still unreachable: the next reconnection tries again
    }
  }

  append(lines: LogLine[]): void {
    for (const line of lines) this.lines.push({ ...line, seq: this.nextSeq++, lower: line.text.toLowerCase() });
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
    this.notify();
  }

  setLevel(serverId: string, level: LogLevel): void {
    this.levels.set(serverId, { level, at: Date.now() });
    this.notify();
  }
}

function lineKey(l: LogLine): string {
  return `${l.ts}|${l.source}|${l.serverId ?? ''}|${l.level}|${l.text}`;
}

export const getLogStore = perApi((api) => new LogStore(api));

/** The store; the component re-renders on its tick. */
export function useLogStore(api: SwitchboardApi): LogStore {
  const store = getLogStore(api);
  useVersion(store);
  return store;
}

export { DEFAULT_SOURCES, FilteredLines, KEEP, LEVELS, LEVEL_RANK, LOG_SOURCES, SOURCE_LABEL, type LogFilter, type StoredLine } from './log-filter';
