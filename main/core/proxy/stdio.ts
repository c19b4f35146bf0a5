/**
 * The stdio proxy (#12): `switchboard proxy --name N -- CMD ARGS…` is what a client launches
 * instead of its server. It spawns the server with the client's environment and is invisible:
 * the client's stdin bytes go to the server's stdin and the server's stdout bytes to the
 * client's stdout as the very chunks that arrived (no decoding, no re-framing), stderr passes
 * through, and it exits with the server's code (a signal: 128 + its number).
 *
 * Recording is off the byte path: each chunk is written on first, and a copy is then split into
 * lines and recorded exactly as a tracked stdio connection records its lines (stdio-lines.ts,
 * one implementation for both). Only while faults are in force are lines held: from the first
 * chunk after a fault is switched on, that direction goes line by line through the faults
 * (order kept; a line's bytes kept); it stays so for the rest of the session, so that a line
 * held back by a fault is never overtaken by a later chunk.
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import type { Readable, Writable } from 'node:stream';
import { ServerConfig } from '../../../contract';
import { configSecrets, isSecretName, redactArgs, type Redactor } from '../trace/redact';
import { KILL_GRACE_MS, LineSplitter, StdioTrace, describeEnv, lineText } from '../transport/stdio-lines';
import { MAX_MESSAGE_BYTES } from '../transport/limits';
import { parseJsonLoose, summarizeBody } from '../trace/rpc';
import { createStdioFaults, type AppliedFault } from '../faults';
import { proxyServerSlug } from './recorder';
import type { ProxyRecorder } from './types';

export interface StdioProxyOptions {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd?: string;
  /** The client's side: what it writes to us, and where the server's bytes go. */
  clientIn: Readable;
  clientOut: Writable;
  /** Where the server's stderr goes (passed through). */
  clientErr: Writable;
  recorder: ProxyRecorder;
  /** The proxy's own diagnostics (prefixed, on stderr; never stdout). */
  log?: (line: string) => void;
  /** SIGTERM, SIGINT and SIGHUP to this process are passed to the server (the CLI; not tests in-process). */
  forwardSignals?: boolean;
  /** The longest line recorded whole (default 64 MiB); longer ones are still forwarded whole. */
  maxLineBytes?: number;
}

/** The server as a config, for the recording's header: command, args (secrets removed) and env names only. */
export function stdioProxyConfig(name: string, command: string, args: string[], env: NodeJS.ProcessEnv, cwd: string | undefined): ServerConfig {
  const names = Object.fromEntries(
    Object.keys(env)
      .filter((key) => env[key] !== undefined)
      .sort()
      .map((key) => [key, '[redacted]']),
  );
  return ServerConfig.parse({ id: proxyServerSlug(name), name: name.slice(0, 120), target: { type: 'stdio', command, args: redactArgs(args), env: names, ...(cwd ? { cwd } : {}) } });
}

/**
 * Secrets the proxy knows of: values of env entries with secret-looking names (`*_TOKEN`,
 * `API_KEY`, …) and of secret options in the args (`--token X`). The client's environment is
 * the whole of its own (PATH, HOME, …), so not every value is taken for a secret: that would
 * blank every path in the trace.
 */
/** Names that look secret to the pattern (`…PWD`) but are the shell's working directories. */
const NOT_SECRET_ENV = new Set(['PWD', 'OLDPWD']);

export function addStdioSecrets(redactor: Redactor, args: string[], env: NodeJS.ProcessEnv): void {
  const secretEnv = Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => !!entry[1] && isSecretName(entry[0]) && !NOT_SECRET_ENV.has(entry[0])));
  for (const secret of configSecrets({ type: 'stdio', command: '', args, env: secretEnv, nonSecretEnv: [] })) redactor.addSecret(secret);
}

/** Exit codes of a server that could not be started, as a shell gives them. */
function spawnFailureCode(error: NodeJS.ErrnoException): number {
  return error.code === 'ENOENT' ? 127 : error.code === 'EACCES' || error.code === 'EPERM' ? 126 : 1;
}

/** Resolves with the server's exit code (or 127/126/1 when it could not start; signal → 128 + n). */
export async function runStdioProxy(options: StdioProxyOptions): Promise<number> {
  const { command, args, env, cwd, clientIn, clientOut, clientErr, recorder } = options;
  const log = options.log ?? ((line: string) => clientErr.write(`switchboard proxy: ${line}\n`));
  const maxLine = options.maxLineBytes ?? MAX_MESSAGE_BYTES;
  const trace = new StdioTrace((event) => recorder.record(event), recorder.redactor, maxLine);
  const contained = (what: string, run: () => void) => {
    try {
      run();
    } catch (error) {
      trace.contained(`handling ${what} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  };

  const child = spawn(command, args, { env, cwd, stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true, shell: false });
  const stdin = child.stdin!;
  const stdout = child.stdout!;
  const stderr = child.stderr!;

  let clientClosed = false;
  let signalled = false;
  let spawned = false;
  let exited = false;
  const timers: NodeJS.Timeout[] = [];

  // Line mode (faults in force): per direction, sticky. A line begun before the switch was
  // already forwarded in part: its rest goes straight on.
  const mode = { client: false, server: false };
  const forwardedPart = { client: 0, server: 0 };
  const writeTo = (stream: Writable, bytes: Buffer): void => {
    if (stream.destroyed || stream.writableEnded) return;
    stream.write(bytes);
  };
  // Lines through the faults (line mode): forwarded (the same bytes), held, withheld or answered.
  const path = createStdioFaults<Buffer>(recorder.faults, {
    forwardToServer: (raw) => writeTo(stdin, raw),
    forwardToClient: (line) => {
      if (typeof line !== 'string') return writeTo(clientOut, line);
      // An answer the proxy made (jsonrpc-error): what the client receives, so it is in the trace too.
      writeTo(clientOut, Buffer.from(line, 'utf8'));
      contained('an injected answer', () => recordInjected(recorder, line));
    },
    onApplied: (applied) => recordApplied(recorder, applied),
  });

  /**
   * A line in line mode goes through the faults; the rest of a line half-forwarded at the switch,
   * and a line over the limit, go through them as not JSON-RPC (untouched, but in order behind a
   * held line). Should the faults fail, the bytes go on regardless.
   */
  const lineModeForward = (side: 'client' | 'server', raw: Buffer, cut: boolean, terminated: boolean, parsed: unknown) => {
    const bytes = terminated ? Buffer.concat([raw, NEWLINE_BYTES]) : raw;
    const part = forwardedPart[side];
    forwardedPart[side] = 0;
    throughFaults(side, part > 0 ? bytes.subarray(part) : bytes, part > 0 || cut ? undefined : parsed);
  };
  const throughFaults = (side: 'client' | 'server', bytes: Buffer, parsed: unknown) => {
    try {
      if (side === 'client') path.fromClient(bytes, parsed);
      else path.fromServer(bytes, parsed);
    } catch (error) {
      writeTo(side === 'client' ? stdin : clientOut, bytes);
      trace.contained(`applying faults to a line failed (forwarded as it was): ${error instanceof Error ? error.message : String(error)}`);
    }
  };

  const clientLines = new LineSplitter(
    {
      line: (raw, cut, terminated) => {
        let parsed: unknown;
        contained('a line from the client', () => {
          const seen = trace.clientLine(lineText(raw), cut);
          if (seen) {
            parsed = seen.value;
            recorder.observeClientMessage(seen.value);
          }
        });
        if (mode.client) lineModeForward('client', raw, cut, terminated, parsed);
      },
      skipped: (raw) => {
        if (mode.client) throughFaults('client', raw, undefined);
      },
    },
    maxLine,
  );
  const serverLines = new LineSplitter(
    {
      line: (raw, cut, terminated) => {
        let parsed: unknown;
        contained('a stdout line from the server', () => {
          const seen = trace.serverLine(lineText(raw), cut);
          if (seen.kind === 'messages') parsed = seen.value;
        });
        if (mode.server) lineModeForward('server', raw, cut, terminated, parsed);
      },
      skipped: (raw) => {
        if (mode.server) throughFaults('server', raw, undefined);
      },
    },
    maxLine,
  );
  const stderrLines = new LineSplitter({ line: (raw) => contained('a stderr line from the server', () => trace.stderr(lineText(raw))) }, maxLine);

  const faultsOn = () => {
    try {
      return recorder.faults.size > 0;
    } catch {
      return false;
    }
  };
  const enterLineMode = (side: 'client' | 'server', splitter: LineSplitter) => {
    if (mode[side] || !faultsOn()) return;
    mode[side] = true;
    forwardedPart[side] = splitter.held;
  };

  // client → server
  const onClientData = (chunk: Buffer) => {
    enterLineMode('client', clientLines);
    if (!mode.client && !stdin.destroyed && !stdin.write(chunk)) {
      clientIn.pause();
      stdin.once('drain', () => clientIn.resume());
    }
    clientLines.push(chunk);
  };
  const onClientEnd = () => {
    if (clientClosed) return;
    clientClosed = true;
    clientLines.end();
    // Lines held by a latency fault are still the client's: delivered before the end.
    void path.drain().then(() => {
      if (!stdin.destroyed) stdin.end();
      if (!spawned || exited) return;
      // The grace a tracked connection gives a server that is being closed.
      timers.push(setTimeout(() => child.exitCode === null && child.signalCode === null && child.kill('SIGTERM'), KILL_GRACE_MS));
      timers.push(setTimeout(() => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL'), KILL_GRACE_MS * 2));
    });
  };
  clientIn.on('data', onClientData);
  clientIn.once('end', onClientEnd);
  clientIn.once('error', onClientEnd);
  stdin.on('error', (error: NodeJS.ErrnoException) => {
    // The server closed its stdin (or exited): what the client still writes has nowhere to go.
    if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') log(`writing to the server failed: ${error.message}`);
  });

  // server → client
  stdout.on('data', (chunk: Buffer) => {
    enterLineMode('server', serverLines);
    if (!mode.server && !clientOut.destroyed && !clientOut.write(chunk)) {
      stdout.pause();
      clientOut.once('drain', () => stdout.resume());
    }
    serverLines.push(chunk);
  });
  stdout.once('end', () => serverLines.end());
  stderr.on('data', (chunk: Buffer) => {
    if (!clientErr.destroyed) clientErr.write(chunk);
    stderrLines.push(chunk);
  });
  stderr.once('end', () => stderrLines.end());
  // The client stopped reading (its end of our stdout is closed): as if it had closed stdin.
  const onClientOutError = () => onClientEnd();
  clientOut.on('error', onClientOutError);

  const signals: NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGHUP'];
  const onSignal = (signal: NodeJS.Signals) => {
    signalled = true;
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  if (options.forwardSignals) for (const signal of signals) process.on(signal, onSignal);

  const code = await new Promise<number>((resolve) => {
    child.once('error', (error: NodeJS.ErrnoException) => {
      if (spawned) {
        log(`the server: ${error.message}`);
        return;
      }
      trace.spawnFailed(command, error);
      log(`cannot start "${command}": ${error.code === 'ENOENT' ? 'no such command (not found on PATH)' : error.message}`);
      resolve(spawnFailureCode(error));
    });
    child.once('spawn', () => {
      spawned = true;
      trace.spawned({ command, args, cwd: cwd ?? process.cwd(), pid: child.pid, env: describeEnv(env) });
    });
    child.once('close', (exitCode, signal) => {
      exited = true;
      // What a fault still holds for the client is delivered (the server's last words).
      path.flush();
      trace.exited(exitCode, signal, clientClosed || signalled);
      resolve(signal ? 128 + (constants.signals[signal] ?? 0) : (exitCode ?? 1));
    });
  });

  for (const timer of timers) clearTimeout(timer);
  if (options.forwardSignals) for (const signal of signals) process.off(signal, onSignal);
  clientIn.off('data', onClientData);
  clientIn.pause();
  clientOut.off('error', onClientOutError);
  await drained(clientOut);
  await recorder.close();
  return code;
}

const NEWLINE_BYTES = Buffer.from('\n');

/** One fault applied to one message: a `fault` event, so a person sees in Traffic what was injected. */
function recordApplied(recorder: ProxyRecorder, applied: AppliedFault): void {
  const target = [applied.method, applied.rpcId !== undefined ? `#${applied.rpcId}` : undefined].filter(Boolean).join(' ');
  recorder.record({
    channel: 'lifecycle',
    kind: 'fault',
    dir: 'none',
    text: `fault ${applied.type}${target ? ` on ${target}` : ''}: ${applied.detail}`,
    meta: { fault: applied.type, ...(applied.faultId !== undefined ? { faultId: applied.faultId } : {}), ...(applied.rpcId !== undefined ? { rpcId: applied.rpcId } : {}), ...(applied.method ? { method: applied.method } : {}), detail: applied.detail },
  });
}

/** The proxy's own answer (jsonrpc-error) as the client received it, flagged as injected. */
function recordInjected(recorder: ProxyRecorder, line: string): void {
  const text = line.replace(/\r?\n$/, '');
  const parsed = parseJsonLoose(text);
  if (!parsed.ok) return;
  recorder.record({ channel: 'stdio', kind: 'jsonrpc-in', dir: 'in', ...summarizeBody(parsed.value), body: parsed.value, bytes: text.length + 1, meta: { injected: true } });
}

/** Waits until what was written to the client has left (a pipe's buffer), bounded. */
async function drained(stream: Writable): Promise<void> {
  if (stream.destroyed || !stream.writableNeedDrain) return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 5_000);
    stream.once('drain', () => {
      clearTimeout(timer);
      resolve();
    });
    stream.once('error', () => resolve());
  });
}
