/**
 * `switchboard proxy` (#12): stdio (`-- CMD ARGS…`) or HTTP (`--upstream URL`, proxy-http.ts).
 *
 * In stdio mode this process IS the server as far as the client knows: nothing but the server's
 * bytes may reach stdout, so every line of our own goes to stderr, prefixed `switchboard proxy:`.
 */
import type { Readable, Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import type { Fault } from '../../../contract/faults';
import { parseFaultArg, unsupportedReason } from '../../core/faults';
import { createProxyRecorder } from '../../core/proxy/recorder';
import { addStdioSecrets, runStdioProxy, stdioProxyConfig } from '../../core/proxy/stdio';
import { Redactor } from '../../core/trace/redact';
import { UsageError } from './args';
import { OTLP_OPTIONS, otlpEndpointFromFlags } from './otlp-flags';
import { httpProxyCommand } from './proxy-http';
import { cliDataDir, libraryDir } from './recordings';
import type { Screen } from './run';
import { terminalSafe } from './terminal';

export interface ProxyIo {
  /** The client's bytes (process.stdin). */
  stdin: Readable;
  /** Where the server's bytes go, untouched (process.stdout). */
  stdout: Writable;
  /** The server's stderr passes through here, and the proxy's own lines (process.stderr). */
  stderr: Writable;
}

export const PROXY_OPTIONS = {
  name: { type: 'string' },
  'data-dir': { type: 'string' },
  'no-library': { type: 'boolean', default: false },
  record: { type: 'string' },
  fault: { type: 'string', multiple: true },
  quiet: { type: 'boolean', default: false },
  upstream: { type: 'string' },
  port: { type: 'string' },
  transport: { type: 'string' },
  ...OTLP_OPTIONS,
  help: { type: 'boolean', short: 'h', default: false },
} as const;

/** The parsed flags, as both modes take them (`httpProxyCommand(values, io)` gets this object). */
export interface ProxyFlags {
  name?: string;
  'data-dir'?: string;
  'no-library': boolean;
  record?: string;
  fault?: string[];
  quiet: boolean;
  upstream?: string;
  port?: string;
  transport?: string;
  otlp?: string;
  'otlp-header'?: string[];
  help: boolean;
}

export const PROXY_HELP = `Usage:
  switchboard proxy --name NAME [options] -- CMD ARGS...      a stdio server (what a client launches instead of CMD)
  switchboard proxy --name NAME --upstream URL [--port N] [--transport http|sse] [options]

Options:
  --name NAME        the recording's name (required)
  --data-dir DIR     recorded into DIR/recordings (default: the config dir, as the app uses)
  --no-library       record nothing into the library
  --record FILE      also write the JSONL trace to FILE as it happens
  --fault F          a fault in force from the start (repeatable): JSON, or type:key=value,...
                     stdio: latency:ms=200,method=tools/call · stall · drop-notifications · jsonrpc-error
  --quiet            no informational lines on stderr (problems are still told)
  --otlp URL         also stream the session as OpenTelemetry traces to an OTLP/HTTP endpoint
  --otlp-header "K: V"  a header for it (repeatable); an endpoint that is down never stops the proxy

Everything after -- is the server's command line, untouched.`;

/** Parses argv into flags and, for stdio, the server's command line. Throws UsageError. */
export function parseProxyArgs(args: string[]): { flags: ProxyFlags; command: string[] | undefined } {
  const split = args.indexOf('--');
  const own = split >= 0 ? args.slice(0, split) : args;
  const command = split >= 0 ? args.slice(split + 1) : undefined;
  let parsed;
  try {
    parsed = parseArgs({ args: own, options: PROXY_OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(`proxy: ${(error as Error).message}`);
  }
  const { values, positionals } = parsed;
  const flags = values as ProxyFlags;
  if (flags.help) return { flags, command };
  if (positionals.length) throw new UsageError(`proxy: unexpected "${positionals[0]}" (the server's command goes after --: switchboard proxy --name NAME -- CMD ARGS...).`);
  if (!flags.name?.trim()) throw new UsageError('proxy: --name NAME is required (the name the recording and the app show).');
  if (flags.name.length > 200) throw new UsageError('proxy: --name is at most 200 characters.');
  if (command && flags.upstream) throw new UsageError('proxy: give either -- CMD ARGS... (stdio) or --upstream URL (HTTP), not both.');
  if (!command && !flags.upstream) throw new UsageError('proxy: give the server: -- CMD ARGS... (stdio) or --upstream URL (HTTP).');
  if (command && command.length === 0) throw new UsageError('proxy: nothing after --: give the server\'s command (-- CMD ARGS...).');
  if (command && command[0]!.trim() === '') throw new UsageError('proxy: the server\'s command is empty.');
  if (command && (flags.port !== undefined || flags.transport !== undefined)) throw new UsageError('proxy: --port and --transport are for --upstream (HTTP) only.');
  if (flags['no-library'] && flags['data-dir'] !== undefined) throw new UsageError('proxy: --no-library and --data-dir contradict each other.');
  otlpEndpointFromFlags(flags); // checked here, for both modes
  return { flags, command };
}

/** `--fault` flags as faults (JSON, or the shorthand `type:key=value,…`: the faults' own parser). */
export function faultsFromFlags(values: readonly string[] | undefined): Fault[] {
  return (values ?? []).map((value) => {
    try {
      return parseFaultArg(value);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
  });
}

export async function proxyCommand(args: string[], io: Screen, streams: ProxyIo | undefined): Promise<number> {
  const { flags, command } = parseProxyArgs(args);
  if (flags.help) {
    io.out(PROXY_HELP + '\n');
    return 0;
  }
  if (flags.upstream) return httpProxyCommand(flags as unknown as Record<string, unknown>, io);
  if (!streams) throw new UsageError('proxy: needs the process\'s own stdin and stdout.');
  const faults = faultsFromFlags(flags.fault);
  const refused = unsupportedReason(faults, 'stdio');
  if (refused) throw new UsageError(`proxy: ${refused}.`);

  const log = (line: string) => {
    try {
      streams.stderr.write(`switchboard proxy: ${terminalSafe(line)}\n`);
    } catch {
      // stderr is gone: nowhere to tell
    }
  };
  const otlp = otlpEndpointFromFlags(flags);
  const [cmd, ...cmdArgs] = command!;
  const env = process.env;
  const cwd = process.cwd();
  const redactor = new Redactor();
  addStdioSecrets(redactor, cmdArgs, env);
  const name = flags.name!.trim();
  const dir = flags['no-library'] ? false : libraryDir(cliDataDir(flags['data-dir']));
  const recorder = createProxyRecorder({
    name,
    transport: 'stdio',
    target: redactor.text([cmd!, ...redactor.args(cmdArgs)].join(' ')).slice(0, 8192),
    config: stdioProxyConfig(name, cmd!, cmdArgs, env, cwd),
    libraryDir: dir,
    ...(flags.record ? { recordFile: flags.record } : {}),
    version: io.version,
    redactor,
    faults,
    log,
    ...(otlp ? { otlp } : {}),
  });
  if (!flags.quiet && recorder.recordingDir) log(`recording "${name}" into ${recorder.recordingDir}`);
  const code = await runStdioProxy({ command: cmd!, args: cmdArgs, env, cwd, clientIn: streams.stdin, clientOut: streams.stdout, clientErr: streams.stderr, recorder, log, forwardSignals: true });
  // Nothing more is read from the client: let the process end.
  streams.stdin.destroy();
  return code;
}

/**
 * `switchboard proxy …` straight from the entry point (main/cli.ts), without loading the rest of
 * the CLI (the SDK's client, the app's core): a client waits for its server to start, and this
 * process is now in front of every one it launches. Exit codes and messages as `runCli` gives them.
 */
export async function runProxyCli(args: string[], io: { out: (text: string) => void; err: (text: string) => void; version: string; streams: ProxyIo }): Promise<number> {
  const screen: Screen = { ...io, out: (text) => io.out(terminalSafe(text)), err: (text) => io.err(terminalSafe(text)), json: (text) => io.out(text) };
  try {
    return await proxyCommand(args, screen, io.streams);
  } catch (error) {
    screen.err(`switchboard: ${(error as Error).message}\n`);
    return error instanceof UsageError ? error.exitCode : 5;
  }
}
