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
import { dropAnswered } from '../trace/rpc';
import { ServerHandlingError } from './contained';
import { MAX_MESSAGE_BYTES, rpcIdFromHead, syntheticErrorResponse, type MessageTooLargeError } from './limits';
import { KILL_GRACE_MS, StdioTrace, describeEnv, lines } from './stdio-lines';

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
  private readonly trace: StdioTrace;

  constructor(
    private readonly params: StdioParams,
    private readonly options: TrackedStdioOptions,
  ) {
    this.trace = new StdioTrace((event) => options.record({ server: options.server, ...event }), options.redactor, this.maxLine);
  }

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
        this.trace.spawnFailed(command, error);
        if (!started) reject(error);
        else this.onerror?.(error);
      });
      child.once('spawn', () => {
        started = true;
        this.trace.spawned({ command, args, cwd: cwd ?? process.cwd(), pid: child.pid, env: describeEnv(this.params.env, this.params.nonSecretEnv) });
        resolve();
      });
      child.once('close', (code, signal) => {
        this.trace.exited(code, signal, this.closing);
        this.onclose?.();
      });

      // Whatever goes wrong handling one line is this server's error, never the process's: these
      // run in stream callbacks, where a throw would be uncaught.
      lines(child.stdout!, this.maxLine, (line, cut) => this.contained('a stdout line', () => this.onStdoutLine(line, cut)));
      lines(child.stderr!, this.maxLine, (line) =>
        this.contained('a stderr line', () => {
          this.trace.stderr(line);
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
    this.trace.sent(message, line);
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
      this.trace.contained(message);
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
  private onOverLimit(line: string, error: MessageTooLargeError): void {
    const id = rpcIdFromHead(line) ?? (this.outstanding.size === 1 ? [...this.outstanding][0] : undefined);
    if (id !== undefined && this.outstanding.delete(id)) {
      this.onmessage?.(syntheticErrorResponse(id, error.message) as JSONRPCMessage);
    } else this.onerror?.(error);
  }

  private onStdoutLine(line: string, cut: boolean): void {
    const seen = this.trace.serverLine(line, cut);
    if (seen.kind === 'blank') return;
    if (seen.kind === 'over-limit') return this.onOverLimit(line, seen.error);
    if (seen.kind === 'garbage') {
      this.onerror?.(new Error(`Server wrote a non-JSON-RPC line to stdout (protocol violation): ${seen.text.slice(0, 200)}`));
      return;
    }
    const { summary, value } = seen;
    dropAnswered(this.outstanding, summary);
    const messages = Array.isArray(value) ? value : [value];
    for (const message of messages) {
      try {
        this.onmessage?.(message as JSONRPCMessage);
      } catch (error) {
        this.onerror?.(error as Error);
      }
    }
  }
}
