/**
 * Logs of a trace opened read-only (a recording of the library, an imported file): its own
 * log-like events, read from the trace with `traceQuery` — stderr lines, the servers' log
 * notifications (notifications/message, at their own level) and transport errors — as the
 * lines the live log would have shown. Bounded (KEEP lines, the first of the trace), no React.
 */
import { safeStringify } from '../../../../contract/bounded-json';
import { LogLevel, type LogLine } from '../../../../contract';
import type { SwitchboardApi } from '../../../../contract/client';
import type { TraceEvent } from '../../../../contract/trace';
import { Signal } from '../../state/store';
import { KEEP, type StoredLine } from './log-filter';

const LEVELS = new Set<string>(LogLevel.options);
const PAGE = 5_000;

/** One trace event as a log line, or undefined when it is not log-like. */
export function lineOfEvent(event: TraceEvent): LogLine | undefined {
  const serverId = event.server || undefined;
  if (event.kind === 'stderr') return { ts: event.ts, serverId, source: 'stderr', level: 'info', text: event.text ?? (typeof event.body === 'string' ? event.body : '') };
  if (event.kind === 'error') return { ts: event.ts, serverId, source: 'protocol', level: 'error', text: event.text ?? safeStringify(event.body) };
  if (event.rpc?.method === 'notifications/message' && event.dir === 'in') {
    const params = (event.body as { params?: { level?: unknown; logger?: unknown; data?: unknown } } | undefined)?.params ?? {};
    const known = typeof params.level === 'string' && LEVELS.has(params.level);
    const prefix = `${known ? '' : `[level ${safeStringify(params.level).slice(0, 40)}] `}${typeof params.logger === 'string' && params.logger ? `[${params.logger}] ` : ''}`;
    const data = typeof params.data === 'string' ? params.data : safeStringify(params.data);
    return { ts: event.ts, serverId, source: 'server', level: known ? (params.level as LogLine['level']) : 'info', text: `${prefix}${data}` };
  }
  return undefined;
}

/** The same shape the Logs view reads from the live store: lines, dropped, loaded. */
export class RecordedLogStore extends Signal {
  lines: StoredLine[] = [];
  /** Always 0: nothing is dropped from a trace opened read-only (see `cut`). */
  readonly dropped = 0;
  /** The trace holds more log-like events than the KEEP shown (its first ones). */
  cut = false;
  loaded = false;
  error?: string;
  private closed = false;

  constructor(
    private readonly api: SwitchboardApi,
    readonly source: string,
  ) {
    super();
    void this.load();
  }

  close(): void {
    this.closed = true;
  }

  private async load(): Promise<void> {
    try {
      const [stderr, messages] = await Promise.all([this.collect({ kinds: ['stderr', 'error'] }), this.collect({ methods: ['notifications/message'] })]);
      if (this.closed) return;
      const events = [...stderr.events, ...messages.events].sort((a, b) => a.seq - b.seq);
      const lines: StoredLine[] = [];
      for (const event of events) {
        if (lines.length === KEEP) break;
        const line = lineOfEvent(event);
        if (line) lines.push({ ...line, seq: event.seq, lower: line.text.toLowerCase() });
      }
      this.lines = lines;
      this.cut = events.length > lines.length || stderr.more || messages.more;
    } catch (error) {
      this.error = error instanceof Error ? error.message : String(error);
    }
    this.loaded = true;
    this.notify();
  }

  /** Pages through one query, at most KEEP events; `more`: the trace holds more of them. */
  private async collect(query: { kinds?: TraceEvent['kind'][]; methods?: string[] }): Promise<{ events: TraceEvent[]; more: boolean }> {
    const events: TraceEvent[] = [];
    let cursor: number | undefined;
    do {
      const page = await this.api.traceQuery({ ...query, source: this.source, order: 'asc', limit: Math.min(PAGE, KEEP - events.length), cursor });
      if (this.closed) break;
      events.push(...page.events);
      cursor = page.nextCursor;
    } while (cursor !== undefined && events.length < KEEP);
    return { events, more: cursor !== undefined };
  }
}
