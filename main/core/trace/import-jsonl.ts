/**
 * Reads a JSONL trace back for offline viewing: the header and the events, validated line by
 * line, as a stream (a file of any size is read chunk by chunk and never held whole). Broken
 * lines are reported with their line numbers and the rest still loads; a file that is not a
 * trace at all (empty, binary, a HAR, a config file) is refused with words saying what it is.
 */
import { createReadStream } from 'node:fs';
import { z } from 'zod';
import { LIMITS, boundDepth, depthOf } from '../../../contract/bounded-json';
import { ServerConfig } from '../../../contract';
import { CHANNELS, EVENT_KINDS, type TraceEvent } from '../../../contract/trace';
import { TRACE_FORMAT, TRACE_FORMAT_VERSION, type TraceHeader } from './export-jsonl';
import { EVENT_DEPTH } from './store';

/** The named limits of an import (docs/trace-format.md, "Importing"). */
export const IMPORT_LIMITS = {
  /** One line of a trace; an exported event is far smaller (payloads over 256 KiB are previews). */
  lineBytes: 16 * 1024 * 1024,
  /** One file. */
  fileBytes: 1024 * 1024 * 1024,
  /** Problems listed one by one; the rest are counted in a last entry. */
  problems: 100,
  /**
   * A file with this many unreadable lines, and ten times as many of them as events, is mostly
   * not a trace: reading stops (each bad line costs the engine an exception).
   */
  hopelessProblems: 10_000,
} as const;

const HeaderSchema = z.object({
  format: z.literal(TRACE_FORMAT),
  version: z.number().int().min(1),
  app: z.object({ name: z.string(), version: z.string() }),
  startedAt: z.string(),
  exportedAt: z.string(),
  eventCount: z.number().int().min(0),
  servers: z.array(ServerConfig),
  redaction: z.literal('on'),
});

export const EventSchema = z
  .object({
    seq: z.number().int().min(1),
    ts: z.number(),
    server: z.string(),
    channel: z.enum(CHANNELS),
    kind: z.enum(EVENT_KINDS),
    dir: z.enum(['out', 'in', 'none']),
  })
  .passthrough();

export interface ImportProblem {
  line: number;
  message: string;
}

/** The file is not a trace (or is empty): nothing was opened. */
export class NotATraceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotATraceError';
  }
}

export interface ImportOptions {
  /** The file's name, for messages. */
  name: string;
  /** Each accepted event, in file order. */
  onEvent?: (event: TraceEvent) => void;
  maxLineBytes?: number;
  maxBytes?: number;
  maxProblems?: number;
  hopelessProblems?: number;
}

export interface ImportSummary {
  header: TraceHeader;
  /** Events accepted (handed to `onEvent`). */
  events: number;
  /** What was wrong, by line; at most `maxProblems` one by one, then one entry counting the rest. */
  problems: ImportProblem[];
  /** Lines read, the header's included. */
  lines: number;
  /** Bytes read. */
  bytes: number;
  /** Reading stopped at the size limit before the end of the input. */
  stoppedAtLimit: boolean;
  /** Reading stopped because the file is mostly unreadable lines. */
  gaveUp: boolean;
}

export interface ImportedTrace {
  header: TraceHeader;
  events: TraceEvent[];
  problems: ImportProblem[];
}

/** A whole trace file in memory (the CLI's export of a recorded file). */
export async function readJsonlTrace(path: string, onEvent?: (event: TraceEvent) => void): Promise<ImportedTrace> {
  return collect(createReadStream(path), path, onEvent);
}

/** The same from lines already in hand. */
export async function parseJsonlTrace(lines: AsyncIterable<string> | Iterable<string>, path: string, onEvent?: (event: TraceEvent) => void): Promise<ImportedTrace> {
  return collect(withNewlines(lines), path, onEvent);
}

async function collect(chunks: AsyncIterable<Uint8Array | string>, name: string, onEvent?: (event: TraceEvent) => void): Promise<ImportedTrace> {
  const events: TraceEvent[] = [];
  const summary = await importJsonl(chunks, {
    name,
    onEvent: (event) => {
      events.push(event);
      onEvent?.(event);
    },
  });
  return { header: summary.header, events, problems: summary.problems };
}

async function* withNewlines(lines: AsyncIterable<string> | Iterable<string>): AsyncGenerator<string> {
  for await (const line of lines) yield line + '\n';
}

/** A text already in memory, fed in pieces cut at line ends. */
export function* textChunks(text: string, size = 1 << 20): Generator<string> {
  let start = 0;
  while (start < text.length) {
    const nl = text.indexOf('\n', Math.min(start + size, text.length) - 1);
    const end = nl < 0 ? text.length : nl + 1;
    yield text.slice(start, end);
    start = end;
  }
}

const MiB = 1024 * 1024;
const size = (bytes: number) => (bytes >= MiB ? `${(bytes / MiB).toFixed(bytes >= 10 * MiB ? 0 : 1)} MiB` : bytes >= 1024 ? `${(bytes / 1024).toFixed(0)} KiB` : `${bytes} bytes`);
const count = (n: number) => n.toLocaleString('en-US');
const clip = (text: string, max = 160) => (text.length > max ? `${text.slice(0, max)}…` : text);

interface RawLine {
  no: number;
  /** Undefined when the line was over the limit (its bytes were dropped as they came). */
  text: string | undefined;
  bytes: number;
  /** Ended by a newline (false only for the last line of a file). */
  terminated: boolean;
}

/**
 * Reads a JSONL trace from a stream of chunks. Memory is bounded by one line (at most
 * `maxLineBytes`) plus what `onEvent` keeps. Throws `NotATraceError` when the input is not a
 * trace; everything else is a problem on a line, and the events around it are kept.
 */
export async function importJsonl(chunks: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>, options: ImportOptions): Promise<ImportSummary> {
  const maxLine = options.maxLineBytes ?? IMPORT_LIMITS.lineBytes;
  const maxBytes = options.maxBytes ?? IMPORT_LIMITS.fileBytes;
  const maxProblems = options.maxProblems ?? IMPORT_LIMITS.problems;
  const hopelessAt = options.hopelessProblems ?? IMPORT_LIMITS.hopelessProblems;
  const name = options.name;

  let header: TraceHeader | undefined;
  let events = 0;
  const problems: ImportProblem[] = [];
  let omitted = 0;
  let omittedFrom = 0;
  let omittedTo = 0;
  const problem = (line: number, message: string) => {
    if (problems.length < maxProblems) problems.push({ line, message });
    else {
      if (omitted === 0) omittedFrom = line;
      omitted++;
      omittedTo = line;
    }
  };

  // The first bytes, to say what a file that is not a trace is instead.
  let sniff = Buffer.alloc(0);
  let bytes = 0;
  let stoppedAtLimit = false;

  const onLine = (raw: RawLine) => {
    if (raw.text === undefined) {
      if (!header) throw new NotATraceError(notATrace(name, sniff, { tooLong: raw.bytes }));
      problem(raw.no, `line is ${size(raw.bytes)} long, over the ${size(maxLine)} a trace line may have: skipped`);
      return;
    }
    const line = raw.text;
    if (line.trim() === '') return;
    const torn = () =>
      problem(raw.no, `the file ends in the middle of this line (${size(raw.bytes)} without a line end): it was cut off, by an unfinished copy or download or a full disk; the ${count(events)} events before it were kept`);
    // Every event is an object: anything else is refused without the cost of an exception.
    if (header && line.trimStart()[0] !== '{') {
      if (!raw.terminated) torn();
      else problem(raw.no, `not a JSON object ("${clip(line.trim(), 40)}"; an event is one {…} a line): skipped`);
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      if (!header) throw new NotATraceError(notATrace(name, sniff, { line }));
      if (!raw.terminated) torn();
      else problem(raw.no, `not JSON (${clip((error as Error).message, 100)}): skipped`);
      return;
    }
    if (!header) {
      const parsed = HeaderSchema.safeParse(value);
      if (!parsed.success) throw new NotATraceError(notATrace(name, sniff, { line, value, error: parsed.error }));
      if (parsed.data.version > TRACE_FORMAT_VERSION) {
        throw new NotATraceError(`${name}: trace format version ${parsed.data.version} is newer than this Switchboard understands (${TRACE_FORMAT_VERSION}). Update Switchboard to open it.`);
      }
      header = parsed.data as TraceHeader;
      return;
    }
    const parsed = EventSchema.safeParse(value);
    if (!parsed.success) {
      const issues = parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.') || '(event)'}: ${clip(i.message, 80)}`);
      problem(raw.no, `not a trace event (${issues.join('; ')}${parsed.error.issues.length > 3 ? '; …' : ''}): skipped`);
      return;
    }
    let event = parsed.data as TraceEvent;
    if (event.raw !== undefined && typeof event.raw !== 'string') delete (event as { raw?: unknown }).raw;
    // A hostile file can nest thousands of levels; every later walk (the contract, the views)
    // would overflow the stack. Cut as the live trace cuts: the body at the carried depth, its
    // text kept in `raw` for exports; then anything else at the event's depth.
    let cut = false;
    if (event.body !== undefined && depthOf(event.body, LIMITS.carriedDepth) > LIMITS.carriedDepth) {
      const text = event.raw ?? topLevelValue(line, 'body');
      event = { ...event, body: boundDepth(event.body, LIMITS.carriedDepth), ...(text !== undefined ? { raw: text } : {}) };
      cut = true;
    }
    if (depthOf(event, EVENT_DEPTH) > EVENT_DEPTH) {
      event = boundDepth(event, EVENT_DEPTH);
      cut = true;
    }
    if (cut) problem(raw.no, `nested deeper than ${LIMITS.carriedDepth} levels: the deeper part is shown as a marker (the file is unchanged${event.raw !== undefined ? ', and exports write the body whole' : ''})`);
    events++;
    options.onEvent?.(event);
  };

  let gaveUp = false;
  const hopeless = () => {
    const bad = problems.length + omitted;
    gaveUp = bad >= hopelessAt && bad > 10 * events;
    return gaveUp;
  };

  let parts: Buffer[] = [];
  let partBytes = 0;
  let over = false;
  let lineNo = 0;
  const finish = (terminated: boolean) => {
    lineNo++;
    let text: string | undefined;
    if (!over) {
      const joined = parts.length === 1 ? parts[0]! : Buffer.concat(parts, partBytes);
      text = joined.toString('utf8');
      if (text.endsWith('\r')) text = text.slice(0, -1);
    }
    const line: RawLine = { no: lineNo, text, bytes: partBytes, terminated };
    parts = [];
    partBytes = 0;
    over = false;
    onLine(line);
  };
  const take = (piece: Buffer) => {
    if (piece.length === 0) return;
    partBytes += piece.length;
    if (over) return;
    if (partBytes > maxLine) {
      over = true;
      parts = [];
      return;
    }
    parts.push(piece);
  };

  for await (const chunk of chunks) {
    let buffer = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (sniff.length < 4096) sniff = Buffer.concat([sniff, buffer.subarray(0, 4096 - sniff.length)]);
    if (bytes + buffer.length > maxBytes) {
      buffer = buffer.subarray(0, Math.max(0, maxBytes - bytes));
      stoppedAtLimit = true;
    }
    bytes += buffer.length;
    let start = 0;
    while (start < buffer.length) {
      const nl = buffer.indexOf(10, start);
      if (nl < 0) {
        // Copied: the chunk's memory may be reused by the stream.
        take(Buffer.from(buffer.subarray(start)));
        break;
      }
      take(buffer.subarray(start, nl));
      finish(true);
      start = nl + 1;
      if (hopeless()) break;
    }
    if (stoppedAtLimit || gaveUp) break;
  }
  const stopped = gaveUp || stoppedAtLimit;
  if (!stopped && (partBytes > 0 || over)) finish(false);
  if (!header) throw new NotATraceError(notATrace(name, sniff, {}));
  const bad = problems.length + omitted;
  if (omitted > 0) problems.push({ line: omittedFrom, message: `and ${count(omitted)} more problems (lines ${count(omittedFrom)}–${count(omittedTo)}) not listed` });
  // Where reading ended early, said last (never swallowed by the list's bound).
  const at = lineNo + 1;
  if (gaveUp) {
    problems.push({
      line: at,
      message: `${count(bad)} lines could not be read and only ${count(events)} events could: this file is mostly not a trace, so reading stopped at line ${count(at)}; the ${count(events)} events before it were kept`,
    });
  } else if (stoppedAtLimit) {
    problems.push({ line: at, message: `the file is larger than the ${size(maxBytes)} an import may have: reading stopped at line ${count(at)}; the ${count(events)} events before it were kept, the rest of the file was not opened` });
  } else if (header.eventCount !== events) {
    problems.push({ line: 1, message: `the header announces ${count(header.eventCount)} events; ${count(events)} were read${events < header.eventCount ? ' (the file may be cut off or damaged)' : ''}` });
  }
  return { header, events, problems, lines: lineNo, bytes, stoppedAtLimit, gaveUp };
}

const MAGIC: [string, number[]][] = [
  ['a PNG image', [0x89, 0x50, 0x4e, 0x47]],
  ['a JPEG image', [0xff, 0xd8, 0xff]],
  ['a GIF image', [0x47, 0x49, 0x46, 0x38]],
  ['a PDF document', [0x25, 0x50, 0x44, 0x46]],
  ['a ZIP archive', [0x50, 0x4b, 0x03, 0x04]],
  ['gzip-compressed (decompress it first, e.g. with gunzip)', [0x1f, 0x8b]],
];

const OPEN_HINT = 'Open a .jsonl trace exported by Switchboard (Traffic → Export → JSONL) or written by `switchboard record`.';

/** What a file that is not a trace is, in words; "nothing was opened" is implied by the error. */
function notATrace(name: string, sniff: Buffer, first: { line?: string; value?: unknown; error?: z.ZodError; tooLong?: number }): string {
  const { value, error } = first;
  if (sniff.length === 0) return `${name} is empty (0 bytes): there is nothing to open. ${OPEN_HINT}`;
  for (const [what, magic] of MAGIC) {
    if (magic.every((b, i) => sniff[i] === b)) return `${name} is ${what}, not a Switchboard trace. ${OPEN_HINT}`;
  }
  // The sniff may end inside a character: only its complete part decides.
  const whole = sniff.length === 4096 ? sniff.subarray(0, sniff.length - 3) : sniff;
  if (sniff.includes(0) || /[\uFFFD\u0001-\u0008\u000e-\u001f\u007f-\u009f]/.test(whole.toString('utf8'))) return `${name} is binary data, not a Switchboard trace (JSON Lines text). ${OPEN_HINT}`;
  const text = sniff.toString('utf8');
  if (text.trim() === '') return `${name} holds only blank lines: there is nothing to open. ${OPEN_HINT}`;
  if (first.tooLong !== undefined) return `${name}: its first line is ${size(first.tooLong)} long, far longer than a trace header: not a Switchboard trace. ${OPEN_HINT}`;
  const looksHar = /"log"\s*:/.test(text) && /"(entries|creator|pages)"\s*:/.test(text);
  const looksConfig = /"(mcpServers|servers)"\s*:/.test(text);
  if (value !== undefined && typeof value === 'object' && value !== null) {
    const object = value as Record<string, unknown>;
    if (looksHar || (object.log && typeof object.log === 'object')) return harMessage(name);
    if (object.mcpServers !== undefined || (object.servers !== undefined && object.format === undefined)) return configMessage(name);
    if (EventSchema.safeParse(value).success) {
      return `${name}: line 1 is a trace event, not the trace header: the start of the file is missing (cut off at the front?), so it cannot be opened as a trace. ${OPEN_HINT}`;
    }
    if (object.format === TRACE_FORMAT) {
      const issue = error?.issues[0];
      return `${name}: line 1 is a Switchboard trace header, but a damaged one (${issue ? `${issue.path.join('.') || 'header'}: ${clip(issue.message, 120)}` : 'invalid'}).`;
    }
    const keys = Array.isArray(value) ? 'an array' : `keys ${clip(Object.keys(object).slice(0, 6).join(', '), 80) || '(none)'}`;
    return `${name}: line 1 is JSON (${keys}) but not a Switchboard trace header (it starts with "format": "${TRACE_FORMAT}"). ${OPEN_HINT}`;
  }
  if (value !== undefined) return `${name}: line 1 is a bare JSON value, not a Switchboard trace header. ${OPEN_HINT}`;
  const firstLine = (first.line ?? text.split('\n')[0] ?? '').trim();
  if (/^[[{]/.test(firstLine)) {
    if (looksHar) return harMessage(name);
    if (looksConfig) return configMessage(name);
    return `${name} is a JSON document spread over several lines, not JSON Lines (one header line, then one event a line). ${OPEN_HINT}`;
  }
  return `${name}: line 1 is not JSON ("${clip(firstLine, 60)}"): not a Switchboard trace. ${OPEN_HINT}`;
}

const harMessage = (name: string) =>
  `${name} looks like a HAR file. Switchboard exports HAR for other tools but opens only its own JSONL traces (they keep stdio traffic and everything else a HAR has no place for). ${OPEN_HINT}`;
const configMessage = (name: string) => `${name} looks like a server configuration file, not a trace: import it under Servers → Import. ${OPEN_HINT}`;

/**
 * The text of one top-level member's value in a JSON object's text, as written (found by
 * scanning, no recursion; the text already parsed as JSON). Undefined when it is not there.
 */
export function topLevelValue(json: string, key: string): string | undefined {
  let depth = 0;
  let start = -1;
  let expectKey = false;
  for (let i = 0; i < json.length; i++) {
    const ch = json.charCodeAt(i);
    if (ch === 0x22 /* " */) {
      const from = i;
      for (i++; i < json.length && json.charCodeAt(i) !== 0x22; i++) if (json.charCodeAt(i) === 0x5c /* \ */) i++;
      if (depth === 1 && expectKey && start < 0) {
        let j = i + 1;
        while (j < json.length && /\s/.test(json[j]!)) j++;
        if (json[j] === ':' && JSON.parse(json.slice(from, i + 1)) === key) {
          j++;
          while (j < json.length && /\s/.test(json[j]!)) j++;
          start = j;
          i = j - 1;
        }
        expectKey = false;
      }
      continue;
    }
    if (ch === 0x7b /* { */ || ch === 0x5b /* [ */) {
      depth++;
      if (depth === 1) expectKey = true;
    } else if (ch === 0x7d /* } */ || ch === 0x5d /* ] */) {
      depth--;
      if (depth === 0 && start >= 0) return json.slice(start, i).trimEnd();
    } else if (ch === 0x2c /* , */ && depth === 1) {
      if (start >= 0) return json.slice(start, i).trimEnd();
      expectKey = true;
    }
  }
  return undefined;
}
