/**
 * One implementation of how a stdio conversation is cut into lines and recorded, shared by the
 * tracked stdio transport (our own connections) and the stdio proxy (#12, a real client's):
 * the line splitter, the spawn / exit / stderr events, a stdout line's classification
 * (JSON-RPC, garbage, over the limit) and a client's line. So a proxied session's trace equals
 * a tracked connection's for the same exchange, event for event.
 *
 * The splitter works on bytes: a line's bytes are kept as they arrived (the proxy forwards them
 * unchanged when faults hold lines), and decoded as UTF-8 for the trace. A newline byte never
 * occurs inside a multi-byte UTF-8 sequence, so splitting bytes first and decoding each line
 * gives the text a decoding stream would.
 */
import type { Readable } from 'node:stream';
import type { TraceEventInput } from '../../../contract/trace';
import type { Redactor } from '../trace/redact';
import { parseJsonLoose, summarizeBody, traceBody } from '../trace/rpc';
import { MAX_MESSAGE_BYTES, MessageTooLargeError } from './limits';

export interface LineSink {
  /**
   * One line without its `\n` (a `\r` before it is kept: `lineText` drops it). `cut`: longer
   * than the limit, what arrived so far (the rest goes to `skipped`). `terminated`: a `\n`
   * followed (false only for the last bytes before the stream ended).
   */
  line(raw: Buffer, cut: boolean, terminated: boolean): void;
  /** The rest of a cut line, up to and including its `\n`. */
  skipped?(raw: Buffer): void;
}

const NEWLINE = 0x0a;

/** After stdin is closed, a server gets this long to exit, then SIGTERM; as long again, then SIGKILL. */
export const KILL_GRACE_MS = 2_000;

/** Splits a byte stream into lines without losing a partial line at the end; linear in the input, bounded by `maxBytes` per line. */
export class LineSplitter {
  private pending: Buffer[] = [];
  private pendingLength = 0;
  /** The rest of a line already cut at the limit is not kept. */
  private skipping = false;

  constructor(
    private readonly sink: LineSink,
    private readonly maxBytes = MAX_MESSAGE_BYTES,
  ) {}

  /** Bytes of an unfinished line held now. */
  get held(): number {
    return this.pendingLength;
  }

  push(input: Buffer | string): void {
    const chunk = typeof input === 'string' ? Buffer.from(input, 'utf8') : input;
    let start = 0;
    let newline: number;
    while ((newline = chunk.indexOf(NEWLINE, start)) >= 0) {
      if (this.skipping) {
        this.skipping = false;
        this.sink.skipped?.(chunk.subarray(start, newline + 1));
      } else this.sink.line(this.take(chunk.subarray(start, newline)), false, true);
      start = newline + 1;
    }
    if (start >= chunk.length) return;
    if (this.skipping) {
      this.sink.skipped?.(chunk.subarray(start));
      return;
    }
    this.pending.push(chunk.subarray(start));
    this.pendingLength += chunk.length - start;
    if (this.pendingLength > this.maxBytes) {
      this.skipping = true;
      this.sink.line(this.take(Buffer.alloc(0)), true, false);
    }
  }

  end(): void {
    if (this.pendingLength > 0 && !this.skipping) this.sink.line(this.take(Buffer.alloc(0)), false, false);
  }

  private take(tail: Buffer): Buffer {
    const line = this.pending.length ? Buffer.concat([...this.pending, tail]) : tail;
    this.pending = [];
    this.pendingLength = 0;
    return line;
  }
}

/** A line's text for the trace: UTF-8 (invalid bytes as U+FFFD), a trailing `\r` dropped. */
export function lineText(raw: Buffer): string {
  const text = raw.toString('utf8');
  return text.endsWith('\r') ? text.slice(0, -1) : text;
}

/** Reads a stream line by line (text). The stream's encoding is left alone: it must yield bytes. */
export function lines(stream: Readable, maxBytes: number, onLine: (line: string, cut: boolean) => void): void {
  const splitter = new LineSplitter({ line: (raw, cut) => onLine(lineText(raw), cut) }, maxBytes);
  stream.on('data', (chunk: Buffer | string) => splitter.push(chunk));
  stream.on('end', () => splitter.end());
}

/** What a server's stdout line turned out to be (already recorded). */
export type ServerLine =
  | { kind: 'blank' }
  | { kind: 'over-limit'; error: MessageTooLargeError }
  | { kind: 'garbage'; text: string }
  | { kind: 'messages'; value: unknown; summary: ReturnType<typeof summarizeBody> };

export interface SpawnInfo {
  command: string;
  args: string[];
  cwd: string;
  pid: number | undefined;
  /** Env names → values shown (`[redacted]` unless marked non-secret). */
  env: Record<string, string>;
}

/** Garbage and over-limit text kept in the trace is cut here (the full line's length is in `bytes`). */
const GARBAGE_TEXT_CHARS = 4096;

/** The trace events of one stdio conversation, as both the tracked transport and the proxy record them. */
export class StdioTrace {
  constructor(
    private readonly sink: (event: Omit<TraceEventInput, 'server'>) => void,
    private readonly redactor: Redactor,
    private readonly maxLineBytes = MAX_MESSAGE_BYTES,
  ) {}

  spawned(info: SpawnInfo): void {
    const shownArgs = this.redactor.args(info.args);
    this.record({
      channel: 'stdio',
      kind: 'spawn',
      dir: 'none',
      text: this.redactor.text(`${info.command} ${shownArgs.join(' ')}`.trim()),
      meta: { command: info.command, args: shownArgs, cwd: info.cwd, pid: info.pid, env: info.env },
    });
  }

  spawnFailed(command: string, error: Error): void {
    this.record({ channel: 'stdio', kind: 'error', dir: 'none', text: `spawn ${command} failed: ${error.message}`, meta: { code: (error as NodeJS.ErrnoException).code } });
  }

  exited(code: number | null, signal: NodeJS.Signals | null, expected: boolean): void {
    this.record({ channel: 'stdio', kind: 'exit', dir: 'none', text: signal ? `exited on signal ${signal}` : `exited with code ${code}`, meta: { code, signal, expected } });
  }

  stderr(line: string): void {
    this.record({ channel: 'stdio', kind: 'stderr', dir: 'in', text: this.redactor.text(line), bytes: line.length });
  }

  /** Something went wrong handling a line (contained: the conversation goes on). */
  contained(message: string): void {
    this.record({ channel: 'stdio', kind: 'error', dir: 'none', text: message, meta: { contained: true } });
  }

  /** A message we send (tracked-stdio's `send`), as the line `line` (without its `\n`). */
  sent(message: unknown, line: string): void {
    this.record({
      channel: 'stdio',
      kind: 'jsonrpc-out',
      dir: 'out',
      ...summarizeBody(message),
      body: this.redactor.hasSecrets ? this.redactor.json(message, false) : message,
      bytes: line.length + 1,
    });
  }

  /**
   * A line a client wrote to the server (the proxy). JSON-RPC: `jsonrpc-out` with the same
   * summary and body rules as `sent`; anything else: an `error` of direction out (forwarded all
   * the same: the proxy never judges the client's bytes). Returns the parsed value when JSON-RPC.
   */
  clientLine(line: string, cut: boolean): { value: unknown; summary: ReturnType<typeof summarizeBody> } | undefined {
    if (!cut && line.trim() === '') return undefined;
    const parsed = cut ? { ok: false as const } : parseJsonLoose(line);
    const summary = parsed.ok ? summarizeBody(parsed.value) : {};
    if (!parsed.ok || (!summary.rpc && !summary.batch)) {
      this.record({
        channel: 'stdio',
        kind: 'error',
        dir: 'out',
        text: `The client wrote a line that is not JSON-RPC: ${this.shortText(line)}`,
        bytes: line.length,
        meta: { reason: cut ? 'line too long' : parsed.ok ? 'JSON but not JSON-RPC' : 'not JSON', ...(cut ? { overLimit: { limit: this.maxLineBytes, received: line.length } } : {}) },
      });
      return undefined;
    }
    this.record({ channel: 'stdio', kind: 'jsonrpc-out', dir: 'out', ...summary, ...traceBody(parsed.value, line, this.redactor, false), bytes: line.length + 1 });
    return { value: parsed.value, summary };
  }

  /** A line the server wrote to stdout, recorded; what it was is returned for the caller to act on. */
  serverLine(line: string, cut: boolean): ServerLine {
    if (cut) {
      const error = new MessageTooLargeError('stdout line', line.length, this.maxLineBytes);
      this.record({
        channel: 'stdio',
        kind: 'stdout-garbage',
        dir: 'in',
        text: error.message,
        body: this.redactor.text(line),
        bytes: line.length,
        meta: { reason: 'line too long', overLimit: { limit: error.limit, received: error.received } },
      });
      return { kind: 'over-limit', error };
    }
    if (line.trim() === '') return { kind: 'blank' };
    const parsed = parseJsonLoose(line);
    const summary = parsed.ok ? summarizeBody(parsed.value) : {};
    if (!parsed.ok || (!summary.rpc && !summary.batch)) {
      const text = this.shortText(line);
      this.record({ channel: 'stdio', kind: 'stdout-garbage', dir: 'in', text, bytes: line.length, meta: { reason: parsed.ok ? 'JSON but not JSON-RPC' : 'not JSON' } });
      return { kind: 'garbage', text };
    }
    // The value is handed on (tracked-stdio gives it to the SDK): shared, so the trace writes the line's text.
    this.record({ channel: 'stdio', kind: 'jsonrpc-in', dir: 'in', ...summary, ...traceBody(parsed.value, line, this.redactor, false, 'shared'), bytes: line.length + 1 });
    return { kind: 'messages', value: parsed.value, summary };
  }

  private shortText(line: string): string {
    return this.redactor.text(line.length > GARBAGE_TEXT_CHARS ? `${line.slice(0, GARBAGE_TEXT_CHARS)}…` : line);
  }

  private record(event: Omit<TraceEventInput, 'server'>): void {
    try {
      this.sink(event);
    } catch {
      // never let the trace break the connection
    }
  }
}

/** Env names for the spawn event: values only for names marked non-secret. */
export function describeEnv(env: Record<string, string | undefined>, nonSecretEnv: readonly string[] = []): Record<string, string> {
  const nonSecret = new Set(nonSecretEnv);
  const described: Record<string, string> = {};
  for (const key of Object.keys(env).sort()) if (env[key] !== undefined) described[key] = nonSecret.has(key) ? env[key] : '[redacted]';
  return described;
}
