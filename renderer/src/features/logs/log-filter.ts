/** The log view's filtering and level rules, without React (unit-tested under Node). */
import type { LogLine } from '../../../../contract';

/** The most lines a log window keeps (the live one drops the oldest; a recording's shows its first). */
export const KEEP = 50_000;

export interface StoredLine extends LogLine {
  /** Position in the stream (never reused), for keys and incremental filtering. */
  seq: number;
  /** Lower-cased text for the text filter. */
  lower: string;
}

/** MCP's eight syslog levels, lowest first (RFC 5424 severities, reversed). */
export const LEVEL_RANK: Record<LogLine['level'], number> = { debug: 0, info: 1, notice: 2, warning: 3, error: 4, critical: 5, alert: 6, emergency: 7 };
export const LEVELS = Object.keys(LEVEL_RANK) as LogLine['level'][];

/** The server sources of a line: everything but Switchboard's own lines names the server it is about. */
export const SOURCE_LABEL: Record<LogLine['source'], string> = { server: 'server', stderr: 'stderr', protocol: 'protocol', app: 'switchboard', 'mcp-app': 'MCP App' };

/** The source filter's chips, in order, each with what it covers; all of them are on at first. */
export const LOG_SOURCES: { value: LogLine['source']; label: string; hint: string }[] = [
  { value: 'server', label: SOURCE_LABEL.server, hint: 'notifications/message from servers' },
  { value: 'stderr', label: SOURCE_LABEL.stderr, hint: 'what stdio servers write to stderr' },
  { value: 'protocol', label: SOURCE_LABEL.protocol, hint: 'What went wrong with a server: its error answers (Method not found, a failed read), failed lists, broken messages, lost connections' },
  { value: 'mcp-app', label: SOURCE_LABEL['mcp-app'], hint: 'MCP Apps running in their sandbox: console errors and warnings, CSP violations, their log messages, what the host refused or contained' },
  { value: 'app', label: SOURCE_LABEL.app, hint: "Switchboard's own warnings and errors" },
];

export const DEFAULT_SOURCES: LogLine['source'][] = LOG_SOURCES.map((s) => s.value);

export interface LogFilter {
  minLevel: LogLine['level'];
  sources: LogLine['source'][];
  /** undefined: all; '' : Switchboard's own lines (no server); else a server id. */
  server?: string;
  text: string;
}

/**
 * Filters incrementally: while the filter is the same, only lines added since the last call
 * are scanned and lines dropped from the front are dropped from the result.
 */
export class FilteredLines {
  private key = '';
  private scannedSeq = -1;
  result: StoredLine[] = [];

  update(store: { lines: StoredLine[] }, filter: LogFilter): StoredLine[] {
    const key = JSON.stringify(filter);
    const first = store.lines[0]?.seq ?? Infinity;
    // A changed filter, or a clear that took lines we already scanned: start over.
    if (key !== this.key || (store.lines.length === 0 && this.result.length > 0)) {
      this.key = key;
      this.scannedSeq = -1;
      this.result = [];
    }
    const min = LEVEL_RANK[filter.minLevel];
    const sources = new Set(filter.sources);
    const text = filter.text.trim().toLowerCase();
    const matches = (l: StoredLine) =>
      LEVEL_RANK[l.level] >= min &&
      sources.has(l.source) &&
      (filter.server === undefined || (filter.server === '' ? !l.serverId : l.serverId === filter.server)) &&
      (!text || l.lower.includes(text));

    let dropFront = 0;
    while (dropFront < this.result.length && this.result[dropFront]!.seq < first) dropFront++;
    const added: StoredLine[] = [];
    // Lines are in seq order: find where the unscanned part starts.
    let start = store.lines.length;
    while (start > 0 && store.lines[start - 1]!.seq > this.scannedSeq) start--;
    for (let i = start; i < store.lines.length; i++) if (matches(store.lines[i]!)) added.push(store.lines[i]!);
    if (store.lines.length) this.scannedSeq = store.lines[store.lines.length - 1]!.seq;
    if (dropFront || added.length) this.result = [...this.result.slice(dropFront), ...added];
    return this.result;
  }
}

/** A row of the Logs view shows at most this much of its text (on one line; the rest is ellipsized). */
export const ROW_CHARS = 400;

/** Lines in a text (the first 100,000 characters are counted; a line break at the very end starts none). */
export function lineCount(text: string): number {
  let n = 1;
  const end = Math.min(text.length, 100_000);
  for (let i = 0; i < end; i++) if (text.charCodeAt(i) === 10 && i < text.length - 1) n++;
  return n;
}

/**
 * A row's text on one line: at most ROW_CHARS characters (not cutting a surrogate pair), line
 * breaks (CR LF, LF, a lone CR, U+2028/2029) as ⏎, other control characters as their visible
 * pictures (ESC as ␛): nothing in it breaks the row, and nothing in it is invisible.
 */
export function oneLine(text: string): { text: string; cut: boolean } {
  let end = Math.min(text.length, ROW_CHARS);
  if (end < text.length && end > 0 && (text.charCodeAt(end - 1) & 0xfc00) === 0xd800) end--;
  const part = end < text.length ? text.slice(0, end) : text;
  const shown = /[\u0000-\u0008\u000a-\u001f\u007f\u2028\u2029]/.test(part) ? part.replace(/\r\n|[\n\r\u2028\u2029]/g, ' ⏎ ').replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, (c) => String.fromCharCode(c === '\u007f' ? 0x2421 : 0x2400 + c.charCodeAt(0))) : part;
  return { text: shown, cut: end < text.length };
}
