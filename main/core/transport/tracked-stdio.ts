/**
 * A stdio transport that records what crosses the pipes: the spawn (command, args, cwd, pid,
 * env names — values never, unless marked non-secret), every JSON-RPC line each way, every
 * stderr line, stdout lines that are not JSON-RPC (flagged: a classic reason a server "won't
 * connect"), and how the process exited.
 *
 * It is our own Transport rather than the SDK's StdioClientTransport because that one parses
 * stdout itself and never shows the raw lines. It exposes `stderr` and `pid`, which is how the
 * SDK recognizes a stdio transport (probe timeouts then mean "legacy server").
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { PassThrough, type Readable } from 'node:stream';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import type { TraceEventInput } from '../../../contract/trace';
import type { Redactor } from '../trace/redact';
import { parseJsonLoose, summarizeBody, traceBody } from '../trace/rpc';
import { ServerHandlingError } from './contained';
import { MAX_MESSAGE_BYTES, MessageTooLargeError, rpcIdFromHead, syntheticErrorResponse } from './limits';

export interface StdioParams {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  /** Names of env entries whose values may be recorded. */
  nonSecretEnv?: string[];
}

export interface TrackedStdioOptions {
  server: string;
  record: (event: TraceEventInput) => void;
  redactor: Redactor;
  onStderrLine?: (line: string) => void;
  /**
   * The longest stdout line read (default 64 MiB, docs/limits.md). A longer one is cut: the
   * request it answers fails at once, what arrived is kept in the trace, the rest is skipped.
   */
  maxLineBytes?: number;
}

const KILL_GRACE_MS = 2_000;
/**
 * What the `stderr` stream may hold for a reader. Nobody reads it (the SDK only checks that it
 * exists); every line is in the trace and the logs already, so without a reader lines are
 * dropped rather than kept forever.
 */
const STDERR_STREAM_MAX_BYTES = 64 * 1024;

export class TrackedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private child: ChildProcess | undefined;
  private readonly stderrStream = new PassThrough();
  private exited: Promise<void> | undefined;
  private closing = false;
  /** Requests sent and not yet answered: whom an unreadable answer belongs to. */
  private readonly outstanding = new Set<string | number>();

  constructor(
    private readonly params: StdioParams,
    private readonly options: TrackedStdioOptions,
  ) {}

  /** Present before start(), like the SDK's: the process's stderr, line by line also in the trace. */
  get stderr(): Readable {
    return this.stderrStream;
  }

  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  start(): Promise<void> {
    if (this.child) throw new Error('TrackedStdioTransport already started');
    const { command, args, env, cwd } = this.params;
    return new Promise<void>((resolve, reject) => {
      const child = spawn(command, args, { env, cwd, stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true, shell: false });
      this.child = child;
      let started = false;
      this.exited = new Promise((done) => child.once('close', () => done()));

      child.once('error', (error) => {
        this.record({ channel: 'stdio', kind: 'error', dir: 'none', text: `spawn ${command} failed: ${error.message}`, meta: { code: (error as NodeJS.ErrnoException).code } });
        if (!started) reject(error);
        else this.onerror?.(error);
      });
      child.once('spawn', () => {
        started = true;
        const shownArgs = this.options.redactor.args(args);
        this.record({
          channel: 'stdio',
          kind: 'spawn',
          dir: 'none',
          text: this.options.redactor.text(`${command} ${shownArgs.join(' ')}`.trim()),
          meta: { command, args: shownArgs, cwd: cwd ?? process.cwd(), pid: child.pid, env: this.describeEnv() },
        });
        resolve();
      });
      child.once('close', (code, signal) => {
        this.record({
          channel: 'stdio',
          kind: 'exit',
          dir: 'none',
          text: signal ? `exited on signal ${signal}` : `exited with code ${code}`,
          meta: { code, signal, expected: this.closing },
        });
        this.onclose?.();
      });

      // Whatever goes wrong handling one line is this server's error, never the process's: these
      // run in stream callbacks, where a throw would be uncaught.
      lines(child.stdout!, this.maxLine, (line, cut) => this.contained('a stdout line', () => this.onStdoutLine(line, cut)));
      lines(child.stderr!, this.maxLine, (line) =>
        this.contained('a stderr line', () => {
          this.record({ channel: 'stdio', kind: 'stderr', dir: 'in', text: this.options.redactor.text(line), bytes: line.length });
          this.forwardStderr(line);
          this.options.onStderrLine?.(line);
        }),
      );
      child.stdin!.on('error', (error) => this.onerror?.(error));
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || stdin.destroyed) throw new Error('Not connected: the server process is not running');
    const line = JSON.stringify(message);
    const sent = message as { id?: unknown; method?: unknown };
    if (typeof sent.method === 'string' && (typeof sent.id === 'string' || typeof sent.id === 'number')) this.outstanding.add(sent.id);
    this.record({
      channel: 'stdio',
      kind: 'jsonrpc-out',
      dir: 'out',
      ...summarizeBody(message),
      body: this.options.redactor.hasSecrets ? this.options.redactor.json(message, false) : message,
      bytes: line.length + 1,
    });
    if (!stdin.write(line + '\n')) await new Promise<void>((resolve) => stdin.once('drain', resolve));
  }

  async close(): Promise<void> {
    const child = this.child;
    if (!child || this.closing) return this.exited;
    this.closing = true;
    child.stdin?.end();
    if (child.exitCode === null && child.signalCode === null) {
      const term = setTimeout(() => child.kill('SIGTERM'), KILL_GRACE_MS);
      const kill = setTimeout(() => child.kill('SIGKILL'), KILL_GRACE_MS * 2);
      await this.exited;
      clearTimeout(term);
      clearTimeout(kill);
    }
    this.stderrStream.end();
  }

  /** Bounded: a line goes to the `stderr` stream only while its buffer has room (a reader drains it). */
  private forwardStderr(line: string): void {
    const stream = this.stderrStream;
    if (stream.destroyed || stream.writableEnded) return;
    if (stream.writableNeedDrain || stream.readableLength + stream.writableLength >= STDERR_STREAM_MAX_BYTES) return;
    stream.write(line.length > STDERR_STREAM_MAX_BYTES ? `${line.slice(0, STDERR_STREAM_MAX_BYTES)}…\n` : line + '\n');
  }

  private get maxLine(): number {
    return this.options.maxLineBytes ?? MAX_MESSAGE_BYTES;
  }

  private contained(what: string, run: () => void): void {
    try {
      run();
    } catch (error) {
      const message = `handling ${what} from the server failed: ${error instanceof Error ? error.message : String(error)}`;
      this.record({ channel: 'stdio', kind: 'error', dir: 'none', text: message, meta: { contained: true } });
      try {
        this.onerror?.(new ServerHandlingError(message));
      } catch {
        // the trace has it
      }
    }
  }

  /**
   * A line over the limit: what arrived is kept (flagged), and the request it answers (its id
   * at the start of the line, or the only one waiting) gets a JSON-RPC error now instead of
   * waiting out its timeout.
   */
  private onOverLimit(line: string): void {
    const error = new MessageTooLargeError('stdout line', line.length, this.maxLine);
    this.record({
      channel: 'stdio',
      kind: 'stdout-garbage',
      dir: 'in',
      text: error.message,
      body: this.options.redactor.text(line),
      bytes: line.length,
      meta: { reason: 'line too long', overLimit: { limit: error.limit, received: error.received } },
    });
    const id = rpcIdFromHead(line) ?? (this.outstanding.size === 1 ? [...this.outstanding][0] : undefined);
    if (id !== undefined && this.outstanding.delete(id)) {
      this.onmessage?.(syntheticErrorResponse(id, error.message) as JSONRPCMessage);
    } else this.onerror?.(error);
  }

  private onStdoutLine(line: string, cut: boolean): void {
    if (cut) return this.onOverLimit(line);
    if (line.trim() === '') return;
    const parsed = cut ? { ok: false as const } : parseJsonLoose(line);
    const summary = parsed.ok ? summarizeBody(parsed.value) : {};
    if (!parsed.ok || (!summary.rpc && !summary.batch)) {
      const text = this.options.redactor.text(line.length > 4096 ? `${line.slice(0, 4096)}…` : line);
      this.record({
        channel: 'stdio',
        kind: 'stdout-garbage',
        dir: 'in',
        text,
        bytes: line.length,
        meta: { reason: cut ? 'line too long' : parsed.ok ? 'JSON but not JSON-RPC' : 'not JSON' },
      });
      this.onerror?.(new Error(`Server wrote a non-JSON-RPC line to stdout (protocol violation): ${text.slice(0, 200)}`));
      return;
    }
    for (const rpc of summary.batch ?? (summary.rpc ? [summary.rpc] : [])) if ((rpc.kind === 'result' || rpc.kind === 'error') && rpc.id !== undefined) this.outstanding.delete(rpc.id);
    this.record({
      channel: 'stdio',
      kind: 'jsonrpc-in',
      dir: 'in',
      ...summary,
      ...traceBody(parsed.value, line, this.options.redactor, false),
      bytes: line.length + 1,
    });
    const messages = Array.isArray(parsed.value) ? parsed.value : [parsed.value];
    for (const message of messages) {
      try {
        this.onmessage?.(message as JSONRPCMessage);
      } catch (error) {
        this.onerror?.(error as Error);
      }
    }
  }

  private describeEnv(): Record<string, string> {
    const nonSecret = new Set(this.params.nonSecretEnv ?? []);
    const described: Record<string, string> = {};
    for (const key of Object.keys(this.params.env).sort()) described[key] = nonSecret.has(key) ? this.params.env[key]! : '[redacted]';
    return described;
  }

  private record(event: Omit<TraceEventInput, 'server'>): void {
    try {
      this.options.record({ server: this.options.server, ...event });
    } catch {
      // never let the trace break the connection
    }
  }
}

/** Splits a byte stream into lines without losing a partial line at the end; linear in the input. */
function lines(stream: Readable, maxBytes = 64 * 1024 * 1024, onLine: (line: string, cut: boolean) => void): void {
  stream.setEncoding('utf8');
  let pending: string[] = [];
  let pendingLength = 0;
  /** The rest of a line already cut at the limit is not kept. */
  let skipping = false;
  const take = (tail: string) => {
    const line = pending.length ? pending.join('') + tail : tail;
    pending = [];
    pendingLength = 0;
    return line;
  };
  stream.on('data', (chunk: string) => {
    let start = 0;
    let newline: number;
    while ((newline = chunk.indexOf('\n', start)) >= 0) {
      if (skipping) skipping = false;
      else onLine(take(chunk.slice(start, newline)).replace(/\r$/, ''), false);
      start = newline + 1;
    }
    if (start < chunk.length && !skipping) {
      pending.push(chunk.slice(start));
      pendingLength += chunk.length - start;
      if (pendingLength > maxBytes) {
        skipping = true;
        onLine(take(''), true);
      }
    }
  });
  stream.on('end', () => {
    if (pendingLength > 0 && !skipping) onLine(take(''), false);
  });
}
