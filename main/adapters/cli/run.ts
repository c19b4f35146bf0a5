/**
 * The headless CLI: the same core, no UI. `runCli` returns the exit code; it never calls
 * process.exit itself, so it can run inside tests too.
 *
 * Exit codes: 0 ok · 2 usage or config error · 3 auth required · 4 unreachable ·
 * 5 tool or JSON-RPC error · 6 timeout.
 */
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { ErrorKind, ServerStatus } from '../../../contract';
import { join } from 'node:path';
import { ClientFormat, ServerConfigInput } from '../../../contract';
import { FileAuditLog } from '../../core/audit/audit-log';
import { createCore, type Core } from '../../core/app';
import { exportServers } from '../../core/config/export';
import { MemorySettingsStore } from '../../core/store/settings';
import { buildHar } from '../../core/trace/export-har';
import { jsonlLines } from '../../core/trace/export-jsonl';
import { loadOtlpExport, loadOtlpSend } from '../../core/otlp/lazy';
import { OTLP_OPTIONS, liveOtlp, otlpEndpointFromFlags } from './otlp-flags';
import { readJsonlTrace } from '../../core/trace/import-jsonl';
import { HeadlessLogin, LoopbackLogin } from '../../core/auth/login';
import { FileSecretStore } from '../../core/auth/secret-store';
import type { ChunkSink } from '../../core/trace/bulk-io';
import { terminalSafe } from './terminal';
import { RECORDINGS_HELP, cliDataDir, libraryDir, recordingsCommand } from './recordings';
import { diffCommand } from './diff';
import { EXIT, SERVER_OPTIONS, UsageError, parseDuration, parseJsonObject, policiesFromFlags, serversFromFlags, withOAuthFlags } from './args';
import { replayCommand } from './replay';
import { proxyCommand, type ProxyIo } from './proxy';
import { captureCommand } from './capture';
import { CHECK_HELP, CONFORMANCE_HELP, DOCTOR_HELP } from './judge-help';

export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
  version: string;
  /** The real stdout, for output streamed with backpressure (`recordings export` without --out); absent: `out`. */
  stdout?: ChunkSink;
  /** The process's own streams, for `proxy` (the client's bytes in and out, untouched). */
  streams?: ProxyIo;
}

/** The commands' view of the terminal: `out`/`err` made safe for people, `json` exact. */
export interface Screen extends CliIo {
  json: (text: string) => void;
}

function screenOf(io: CliIo): Screen {
  return { version: io.version, stdout: io.stdout, streams: io.streams, out: (text) => io.out(terminalSafe(text)), err: (text) => io.err(terminalSafe(text)), json: (text) => io.out(text) };
}

const HELP = `switchboard — inspect MCP servers from the command line

Usage:
  switchboard tools  [server flags] [--json]
  switchboard call   <tool> [--args JSON] [--timeout MS] [server flags] [--json]
  switchboard record [--out FILE.jsonl] [--name NAME] [--for DURATION] [--call TOOL --args JSON]... [--otlp URL [--otlp-header "K: V"]...] [server flags]
                     (always kept in the recordings library under --data-dir too)
  switchboard export FILE.jsonl --format har|jsonl|otlp --out FILE
  switchboard export FILE.jsonl --otlp URL [--otlp-header "K: V"]...   (OpenTelemetry traces to a collector)
${RECORDINGS_HELP}
  switchboard servers [server flags] [--format mcpServers|vscode|switchboard]
  switchboard audit  [--data-dir DIR] [--limit N] [--json]
  switchboard diff   A B [--json] [--exit-code] [--data-dir DIR] [server flags]
                     A, B: rec:ID[:SERVER] | file:PATH[:SERVER] | baseline:SERVER | live:SERVER
  switchboard replay <recording id | FILE.jsonl> [server flags] [--only METHOD]... [--yes] [--timeout MS] [--json]
  switchboard proxy  --name NAME [--record FILE.jsonl] [--fault F]... [--data-dir DIR] -- CMD ARGS...
  switchboard proxy  --name NAME --upstream URL [--port N] [--transport http|sse] [--record FILE.jsonl] [--fault F]...
                     sits between a client and a server, recorded into the library (see README "Proxy")
  switchboard capture [--list] [--client NAME] [--server NAME]... [--restore] [--json]
                     rewrites a client's config so its servers go through the proxy; --restore undoes it
${CONFORMANCE_HELP}
${DOCTOR_HELP}
${CHECK_HELP}

Server flags:
  --config FILE        a server list (mcpServers, VS Code "servers", or Switchboard's own)
  --server NAME        only this server of --config (repeatable)
  --url URL            one HTTP server; --transport http|sse|auto (default http)
  --header "K: V"      an HTTP header for --url (repeatable)
  --stdio "CMD ARGS"   one stdio server

When a server asks (nobody is there to answer a dialog):
  --elicitation accept-defaults|decline|cancel|off   default: decline
  --elicitation-answer JSON   values merged over the form's defaults (with accept-defaults)
  --sampling reject|off                              default: reject
  --root PATH          a root the server may see (repeatable)

When a server asks for OAuth:
  --oauth-headless     follow the authorization redirects without a browser (servers that
                       approve on their own, e.g. in CI); otherwise the system browser opens
  --client-id ID, --client-secret SECRET   a pre-registered client
  --client-metadata-url URL                a Client ID Metadata Document (https)
  --scope "A B"        the scopes to ask for
  --data-dir DIR       where tokens (owner-only secrets.json), the audit and the recordings
                       library (recordings/) are kept; default: the config dir

Exit codes: 0 ok, 1 replayed responses differ (check: a check failed), 2 usage or config error, 3 auth required, 4 unreachable,
            5 tool or JSON-RPC error, 6 timeout.`;

export async function runCli(argv: string[], rawIo: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  const io = screenOf(rawIo);
  try {
    switch (command) {
      case 'tools':
        return await toolsCommand(rest, io);
      case 'call':
        return await callCommand(rest, io);
      case 'record':
        return await recordCommand(rest, io);
      case 'export':
        return await exportCommand(rest, io);
      case 'servers':
        return await serversCommand(rest, io);
      case 'audit':
        return auditCommand(rest, io);
      case 'replay':
        return await replayCommand(rest, io);
      case 'recordings': {
        const { values, positionals } = parse(rest, { 'data-dir': { type: 'string' }, json: { type: 'boolean', default: false }, format: { type: 'string' }, out: { type: 'string' }, help: { type: 'boolean', short: 'h', default: false } }, true);
        if (values.help) return help(io);
        const [sub, ...args] = positionals;
        return await recordingsCommand(sub, values, args, io);
      }
      case 'proxy':
        return await proxyCommand(rest, io, io.streams);
      case 'capture':
        return await captureCommand(rest, io);
      case 'conformance':
        return await (await import('./conformance')).conformanceCommand(rest, io);
      case 'doctor':
        return await (await import('./doctor')).doctorCommand(rest, io);
      case 'check':
        return await (await import('./check')).checkCommand(rest, io, { parse: (a, o) => parse(a, o), connectAll: (flags, options) => connectAll(flags, io, options) });
      case 'diff':
        return await diffCommand(rest, io, { parse: (a, o) => parse(a, o, true), connectAll: (flags) => connectAll(flags, io) });
      case undefined:
      case '-h':
      case '--help':
      case 'help':
        io.out(HELP + '\n');
        return command === undefined ? EXIT.usage : EXIT.ok;
      case '--version':
        io.out(`${io.version}\n`);
        return EXIT.ok;
      default:
        throw new UsageError(`Unknown command "${command}". Run "switchboard --help".`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`switchboard: ${error.message}\n`);
      return EXIT.usage;
    }
    io.err(`switchboard: ${(error as Error).message}\n`);
    return EXIT.toolError;
  }
}

export function parse<const O extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: O, allowPositionals = false) {
  try {
    return parseArgs({ args, options, allowPositionals, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** Connects every selected server in parallel; a server that fails is reported, the others carry on. */
export async function connectAll(flags: Record<string, unknown>, io: Screen, options: { quiet?: boolean; record?: { name?: string }; servers?: ServerConfigInput[] } = {}): Promise<{ core: Core; statuses: ServerStatus[] }> {
  const servers = withOAuthFlags(options.servers ?? serversFromFlags(flags), flags);
  if (servers.length === 0) throw new UsageError('No servers to connect to.');
  const { elicitationAnswers, ...policies } = policiesFromFlags(flags);
  const dataDir = cliDataDir(flags['data-dir'] as string | undefined);
  const core = createCore({
    settings: new MemorySettingsStore(),
    carrier: 'browser',
    version: io.version,
    elicitationAnswers,
    // `record`: the session is written into the library as it happens (crash-safe), like the app's.
    recordings: options.record ? { dir: libraryDir(dataDir), kind: 'cli', name: options.record.name ?? `record: ${servers.map((s) => s.name).join(', ')}` } : false,
    // Tokens outlive the run: the next command signs in without a browser.
    secrets: new FileSecretStore(join(dataDir, 'secrets.json'), 'The CLI has no access to an OS keychain.'),
    login: flags['oauth-headless'] ? new HeadlessLogin() : systemBrowserLogin(io),
  });
  // A form declined for want of an answer: say which fields, and how to supply them.
  core.events.subscribe((event, payload) => {
    const action = event === 'requestResolved' ? (payload as { action?: string }).action : undefined;
    if (action?.startsWith('decline: required field')) io.err(`switchboard: elicitation ${action}; supply ${/fields/.test(action) ? 'them' : 'it'} with --elicitation-answer '{"name": value}'\n`);
  });
  const ids: string[] = [];
  for (const server of servers) {
    // A one-shot command: no background retries or heartbeats.
    const reply = await core.dispatch('addServer', { ...server, retries: 0, pingIntervalSec: 0, ...policies });
    if (!reply.ok) {
      await core.shutdown();
      throw new UsageError(`server "${server.name}": ${reply.error.message}`);
    }
    ids.push((reply.result as ServerStatus).id);
  }
  await Promise.all(ids.map((id) => core.connections.get(id)!.connect().catch(() => undefined)));
  const statuses = ids.map((id) => core.connections.get(id)!.status());
  if (!options.quiet) for (const s of statuses) if (s.state === 'error') io.err(`switchboard: ${s.name}: ${s.error}\n`);
  return { core, statuses };
}

const EXIT_BY_KIND: Record<ErrorKind, number> = { config: EXIT.usage, auth: EXIT.auth, unreachable: EXIT.unreachable, timeout: EXIT.timeout, protocol: EXIT.toolError };

function failureExit(statuses: ServerStatus[]): number {
  const failed = statuses.find((s) => s.state === 'error');
  return failed ? EXIT_BY_KIND[failed.errorKind ?? 'protocol'] : EXIT.ok;
}

async function toolsCommand(args: string[], io: Screen): Promise<number> {
  const { values } = parse(args, SERVER_OPTIONS);
  if (values.help) return help(io);
  const { core, statuses } = await connectAll(values, io);
  try {
    const reply = await core.dispatch('listTools', {});
    const tools = reply.ok ? (reply.result as { name: string; serverName: string; description?: string }[]) : [];
    if (values.json) {
      io.json(JSON.stringify({ servers: statuses.map(statusJson), tools }, null, 2) + '\n');
    } else {
      const names = tools.map((t) => terminalSafe(t.name));
      const width = Math.min(60, Math.max(4, ...names.map((n) => n.length)));
      for (const [i, tool] of tools.entries()) io.out(`${names[i]!.padEnd(width)}  ${firstLine(tool.description)}\n`);
      if (tools.length === 0) io.err('switchboard: no tools.\n');
    }
    return failureExit(statuses);
  } finally {
    await core.shutdown();
  }
}

async function callCommand(args: string[], io: Screen): Promise<number> {
  const { values, positionals } = parse(args, { ...SERVER_OPTIONS, args: { type: 'string' }, timeout: { type: 'string' } }, true);
  if (values.help) return help(io);
  const tool = positionals[0];
  if (!tool || positionals.length > 1) throw new UsageError('call needs exactly one tool name: switchboard call <tool> [--args JSON].');
  const toolArgs = parseJsonObject(values.args as string | undefined, '--args');
  const timeoutMs = values.timeout === undefined ? undefined : parseDuration(values.timeout as string);
  const { core, statuses } = await connectAll(values, io);
  try {
    if (!statuses.some((s) => s.state === 'connected')) return failureExit(statuses);
    const reply = await core.dispatch('callTool', { tool, args: toolArgs, timeoutMs });
    if (!reply.ok) {
      const timedOut = reply.error.detail?.kind === 'timeout';
      io.err(`switchboard: ${tool}: ${reply.error.message}\n`);
      return timedOut ? EXIT.timeout : reply.error.code === 'not-found' || reply.error.code === 'conflict' ? EXIT.usage : EXIT.toolError;
    }
    const { result, durationMs, tool: resolved } = reply.result as { result: Record<string, unknown>; durationMs: number; tool: string };
    if (values.json) io.json(JSON.stringify({ tool: resolved, durationMs, result }, null, 2) + '\n');
    else io.out(renderResult(result));
    return result.isError === true ? EXIT.toolError : EXIT.ok;
  } finally {
    await core.shutdown();
  }
}

async function recordCommand(args: string[], io: Screen): Promise<number> {
  const options = { ...SERVER_OPTIONS, out: { type: 'string' }, name: { type: 'string' }, for: { type: 'string' }, call: { type: 'string', multiple: true }, args: { type: 'string', multiple: true }, ...OTLP_OPTIONS } as const;
  const { values } = parse(args, options);
  if (values.help) return help(io);
  const otlpEndpoint = otlpEndpointFromFlags(values);
  const name = values.name as string | undefined;
  if (name !== undefined && (name.trim() === '' || name.length > 200)) throw new UsageError('--name must be 1 to 200 characters.');
  const duration = values.for ? parseDuration(values.for as string) : 0;
  const calls = (values.call as string[] | undefined) ?? [];
  const callArgs = (values.args as string[] | undefined) ?? [];
  if (callArgs.length > calls.length) throw new UsageError('Each --args belongs to the --call before it; there are more --args than --call.');
  const plannedArgs = calls.map((_, i) => parseJsonObject(callArgs[i], `--args #${i + 1}`));
  const { core, statuses } = await connectAll(values, io, { record: { name: name?.trim() } });
  let exit = failureExit(statuses);
  const otlp = otlpEndpoint ? liveOtlp(core, otlpEndpoint, io) : undefined;
  try {
    for (const [i, tool] of calls.entries()) {
      const reply = await core.dispatch('callTool', { tool, args: plannedArgs[i] });
      if (!reply.ok) {
        io.err(`switchboard: ${tool}: ${reply.error.message}\n`);
        exit = EXIT.toolError;
      } else if (!values.json) io.err(`called ${tool}: ${(reply.result as { durationMs: number }).durationMs.toFixed(0)} ms\n`);
    }
    if (duration > 0) await new Promise((resolve) => setTimeout(resolve, duration));
    await core.connections.closeAll(); // the DELETEs and exits belong in the recording
    await otlp?.close();
    const out = values.out as string | undefined;
    if (out) {
      const lines = jsonlLines({
        app: { name: 'Switchboard', version: io.version },
        startedAt: core.trace.store.query({ limit: 1 }).events[0]?.ts ?? Date.now(),
        servers: core.connections.all().map((c) => c.config),
        events: core.trace.store.all(),
        eventCount: core.trace.store.size,
        redactors: core.connections.all().map((c) => c.redactor),
      });
      await writeLines(out, lines);
    }
    const recording = core.liveRecording?.id;
    const events = core.trace.store.size;
    if (values.json) io.json(JSON.stringify({ out, recording, events, servers: statuses.map(statusJson) }) + '\n');
    else io.err(`recorded ${events} events${out ? ` to ${out}` : ''}${recording ? `${out ? ' and' : ''} into the library as ${recording}` : ''}\n`);
    return exit;
  } finally {
    await core.shutdown();
  }
}

async function exportCommand(args: string[], io: Screen): Promise<number> {
  const { values, positionals } = parse(args, { format: { type: 'string' }, out: { type: 'string' }, help: { type: 'boolean', default: false }, ...OTLP_OPTIONS }, true);
  if (values.help) return help(io);
  const input = positionals[0];
  if (!input || positionals.length > 1) throw new UsageError('export needs one input trace: switchboard export FILE.jsonl --format har|jsonl|otlp --out FILE.');
  const endpoint = otlpEndpointFromFlags(values);
  const format = (values.format as string | undefined) ?? (endpoint && !values.out ? 'otlp' : undefined);
  if (format !== 'har' && format !== 'jsonl' && format !== 'otlp') throw new UsageError('--format must be har, jsonl or otlp.');
  if (endpoint && format !== 'otlp') throw new UsageError('--otlp sends OpenTelemetry traces: it goes with --format otlp (or no --format).');
  if (!values.out && !endpoint) throw new UsageError('export needs --out FILE (or --otlp URL).');
  let trace;
  try {
    trace = await readJsonlTrace(input);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  for (const problem of trace.problems) io.err(`warning: ${input}:${problem.line}: ${problem.message}\n`);
  if (format === 'jsonl') {
    await writeLines(
      values.out as string,
      jsonlLines({ app: trace.header.app, startedAt: Date.parse(trace.header.startedAt), servers: trace.header.servers, events: trace.events, eventCount: trace.events.length }),
    );
  } else if (format === 'otlp') {
    const input = { app: { name: 'Switchboard', version: io.version }, events: trace.events, serverNames: Object.fromEntries(trace.header.servers.map((s) => [s.id, s.name])), redactors: [] };
    const [{ otlpJsonChunks, otlpSpanBatches }, { sendSpanBatches }] = await Promise.all([loadOtlpExport(), loadOtlpSend()]);
    if (values.out) await writeLines(values.out as string, otlpJsonChunks(input));
    if (endpoint) {
      try {
        const sent = await sendSpanBatches(endpoint, otlpSpanBatches(input));
        io.err(`sent ${sent.spans} spans to ${sent.endpoint} in ${sent.requests} request${sent.requests === 1 ? '' : 's'}\n`);
      } catch (error) {
        io.err(`switchboard: ${(error as Error).message}\n`);
        return EXIT.unreachable;
      }
    }
    if (!values.out) return EXIT.ok;
  } else {
    const names = Object.fromEntries(trace.header.servers.map((s) => [s.id, s.name]));
    const har = buildHar({ app: { name: 'Switchboard', version: io.version }, events: trace.events, serverNames: names });
    await writeLines(values.out as string, [JSON.stringify(har, null, 2)]);
  }
  io.err(`wrote ${values.out}\n`);
  return EXIT.ok;
}

/** Prints server entries in another client's format (secrets included: this is the user's own config). */
async function serversCommand(args: string[], io: Screen): Promise<number> {
  const { values } = parse(args, { ...SERVER_OPTIONS, format: { type: 'string' } });
  if (values.help) return help(io);
  const format = (values.format as string | undefined) ?? 'mcpServers';
  const parsedFormat = ClientFormat.safeParse(format);
  if (!parsedFormat.success) throw new UsageError('--format must be mcpServers, vscode or switchboard.');
  const servers = serversFromFlags(values).map((s, i) => ({ ...ServerConfigInput.parse(s), id: `cli-${i}` }));
  io.json(exportServers(servers, parsedFormat.data)); // a config file's text: exact
  return EXIT.ok;
}

/** The app's call audit (every tool call made from the app), newest first. */
function auditCommand(args: string[], io: Screen): number {
  const { values } = parse(args, { 'data-dir': { type: 'string' }, limit: { type: 'string' }, json: { type: 'boolean', default: false }, help: { type: 'boolean', default: false } });
  if (values.help) return help(io);
  const dir = cliDataDir(values['data-dir'] as string | undefined);
  const limit = values.limit === undefined ? 50 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1) throw new UsageError('--limit must be a positive whole number.');
  const log = new FileAuditLog(join(dir, 'audit.jsonl'));
  for (const problem of log.problems) io.err(`warning: ${problem}\n`);
  const records = log.list({ limit });
  if (values.json) io.json(JSON.stringify(records, null, 2) + '\n');
  else if (records.length === 0) io.err(`switchboard: no tool calls recorded in ${join(dir, 'audit.jsonl')}.\n`);
  else {
    for (const r of records) {
      io.out(`${new Date(r.ts).toISOString()}  ${r.serverName}__${r.tool}  ${r.outcome}  ${r.durationMs.toFixed(0)} ms  args: ${r.argumentKeys.join(',') || '-'}${r.error ? `  ${r.error}` : ''}\n`);
    }
  }
  return EXIT.ok;
}

async function writeLines(path: string, lines: Iterable<string>): Promise<void> {
  const stream = createWriteStream(path, { encoding: 'utf8', mode: 0o600 });
  const failed = once(stream, 'error').then(([error]) => {
    throw new UsageError(`Cannot write ${path}: ${(error as Error).message}`);
  });
  for (const line of lines) {
    if (!stream.write(line)) await Promise.race([once(stream, 'drain'), failed]);
  }
  stream.end();
  await Promise.race([once(stream, 'finish'), failed]);
}

function renderResult(result: Record<string, unknown>): string {
  const parts: string[] = [];
  if (result.isError === true) parts.push('(the tool reported an error: isError)');
  for (const block of (result.content as { type?: string; text?: string }[] | undefined) ?? []) {
    parts.push(block.type === 'text' && typeof block.text === 'string' ? block.text : JSON.stringify(block));
  }
  if (result.structuredContent !== undefined) parts.push(JSON.stringify(result.structuredContent, null, 2));
  return parts.join('\n') + '\n';
}

export function statusJson(s: ServerStatus) {
  return { name: s.name, state: s.state, error: s.error, errorKind: s.errorKind, era: s.era, protocolVersion: s.protocolVersion, toolCount: s.toolCount };
}

function firstLine(text: string | undefined): string {
  return (text ?? '').split('\n')[0]!.slice(0, 100);
}

function help(io: Screen): number {
  io.out(HELP + '\n');
  return EXIT.ok;
}

/** Sign-in through the system browser: a loopback listener waits for the redirect back. */
function systemBrowserLogin(io: Screen): LoopbackLogin {
  return new LoopbackLogin('system browser', (url) => {
    io.err(`switchboard: sign in to continue — opening ${url.origin} in your browser. If nothing opens, visit:\n  ${url.href}\n`);
    const opener = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
    try {
      spawn(opener, [url.href], { stdio: 'ignore', detached: true }).on('error', () => undefined).unref();
    } catch {
      // The URL is printed above.
    }
  });
}
