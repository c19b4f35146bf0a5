/**
 * The doctor for a stdio server: the command on PATH, executable, the process started, one
 * `initialize` written to its stdin with what comes back on stdout read line by line (a line that
 * is not JSON-RPC is named), whether it exits, its stderr's tail; then the protocol steps through
 * the app's tracked stdio transport (protocol.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import type { ServerTarget } from '../../../contract';
import { lines } from '../transport/stdio-lines';
import type { Redactor } from '../trace/redact';
import { protocolSteps } from './protocol';
import { cut, errorMessageOf, type StepRunner } from './steps';

type StdioTarget = Extract<ServerTarget, { type: 'stdio' }>;

export const STDIO_STEP_COUNT = 10;

const MAX_LINE = 64 * 1024;
const MAX_LINES = 200;
const STDERR_TAIL_LINES = 20;
/** After the answer, how long the process is watched for an exit (a server that quits right after initialize). */
const SETTLE_MS = 300;

export interface StdioDoctorOptions {
  stepTimeoutMs: number;
  protocolTimeoutMs: number;
}

interface Conversation {
  spawnError?: NodeJS.ErrnoException;
  pid?: number;
  answered?: { ms: number; error?: string; version?: string };
  badLines: string[];
  jsonLines: number;
  exit?: { code: number | null; signal: NodeJS.Signals | null; ms: number };
  stderr: string[];
}

async function findOnPath(command: string, env: Record<string, string | undefined>, cwd: string): Promise<{ path?: string; searched: string[] }> {
  if (command.includes('/') || isAbsolute(command)) {
    const path = resolve(cwd, command);
    return (await stat(path).then((s) => s.isFile()).catch(() => false)) ? { path, searched: [path] } : { searched: [path] };
  }
  const dirs = (env.PATH ?? '').split(delimiter).filter(Boolean).slice(0, 100);
  for (const dir of dirs) {
    const path = join(dir, command);
    if (await stat(path).then((s) => s.isFile()).catch(() => false)) return { path, searched: dirs };
  }
  return { searched: dirs };
}

export async function stdioSteps(runner: StepRunner, target: StdioTarget, redactor: Redactor, options: StdioDoctorOptions): Promise<void> {
  const t = options.stepTimeoutMs;
  const env = { ...getDefaultEnvironment(), ...target.env };
  const cwd = target.cwd ?? process.cwd();
  const later = ['stdio-executable', 'stdio-start', 'stdio-stdout', 'stdio-exit', 'stderr'] as const;
  const titles: Record<(typeof later)[number], string> = {
    'stdio-executable': 'Executable',
    'stdio-start': 'Process starts',
    'stdio-stdout': 'stdout carries only JSON-RPC',
    'stdio-exit': 'Process stays up',
    stderr: 'stderr (tail)',
  };
  const skipFrom = async (from: (typeof later)[number], why: string) => {
    for (const id of later.slice(later.indexOf(from))) runner.skip(id, titles[id], why);
    await protocolSteps(runner, target, redactor, options.protocolTimeoutMs, why);
  };
  await runner.run('config', 'Command and configuration', t, async () => {
    if (!target.command.trim()) return { verdict: 'failed', detail: 'The command is empty.' };
    return { verdict: 'ok', detail: `Runs "${target.command}" with ${target.args.length} argument(s)${target.cwd ? ` in ${target.cwd}` : ''}.`, facts: [{ label: 'env set', value: Object.keys(target.env).join(', ') || 'none' }] };
  });
  let found: string | undefined;
  await runner.run('stdio-command', 'Command found', t, async () => {
    const { path, searched } = await findOnPath(target.command, env, cwd);
    found = path;
    if (path) return { verdict: 'ok', detail: `Found: ${path}.` };
    const onPath = !target.command.includes('/');
    return {
      verdict: 'failed',
      detail: onPath ? `Command not found: "${target.command}" is on none of the ${searched.length} PATH directories.` : `Command not found: ${searched[0]} does not exist.`,
      hint: onPath ? 'Install it, or give its full path (a desktop app may see a shorter PATH than your shell).' : 'Check the path (a relative path is taken from the working directory).',
      facts: onPath ? [{ label: 'PATH', value: cut(searched.join(delimiter), 1500) }] : [],
    };
  });
  if (!found) return skipFrom('stdio-executable', 'The command was not found.');
  const path = found;
  let executable = false;
  await runner.run('stdio-executable', titles['stdio-executable'], t, async () => {
    try {
      await access(path, constants.X_OK);
      executable = true;
      return { verdict: 'ok', detail: `${path} may be executed.` };
    } catch {
      return { verdict: 'failed', detail: `${path} is not executable (permission denied).`, hint: `Make it executable (chmod +x ${path}) or run it through its interpreter (node, python …).` };
    }
  });
  if (!executable) return skipFrom('stdio-start', 'The command cannot be executed.');

  const talk = await converse(target, env, cwd, t);
  await runner.run('stdio-start', titles['stdio-start'], t, async () => {
    if (talk.spawnError) return { verdict: 'failed', detail: `The process did not start: ${errorMessageOf(talk.spawnError)}.`, hint: talk.spawnError.code === 'ENOENT' ? 'The command (or its interpreter on the #! line) is missing.' : undefined };
    return { verdict: 'ok', detail: `Started (pid ${talk.pid}).` };
  });
  if (talk.spawnError) return skipFrom('stdio-stdout', 'The process did not start.');
  await runner.run('stdio-stdout', titles['stdio-stdout'], t, async () => {
    const facts = [
      { label: 'JSON-RPC lines', value: String(talk.jsonLines) },
      { label: 'other lines', value: String(talk.badLines.length) },
    ];
    if (talk.badLines.length > 0) {
      return {
        verdict: 'failed',
        detail: `stdout carries log lines: ${talk.badLines.length} line(s) that are not JSON-RPC, the first: "${cut(talk.badLines[0]!, 300)}".`,
        hint: 'The server must log to stderr: stdout is the protocol channel, and a client may drop the connection on a line it cannot parse.',
        facts: [...facts, ...talk.badLines.slice(0, 5).map((line, i) => ({ label: `line ${i + 1}`, value: cut(line, 300) }))],
      };
    }
    if (!talk.answered) return { verdict: talk.jsonLines > 0 ? 'warning' : 'info', detail: talk.jsonLines > 0 ? 'JSON-RPC only, but no answer to initialize.' : 'Nothing on stdout (no answer to initialize).', facts };
    return { verdict: 'ok', detail: `Only JSON-RPC: initialize answered in ${Math.round(talk.answered.ms)} ms${talk.answered.version ? ` (protocol ${talk.answered.version})` : ''}.`, facts };
  });
  await runner.run('stdio-exit', titles['stdio-exit'], t, async () => {
    const exit = talk.exit;
    if (!exit) return talk.answered ? { verdict: 'ok', detail: 'Still running after answering initialize.' } : { verdict: 'failed', detail: `Running, but no answer to initialize within ${t / 1000} s.`, hint: 'The server may wait for something (a config file, a network), or it does not speak MCP on stdio.' };
    const how = exit.signal ? `killed by ${exit.signal}` : `with code ${exit.code}`;
    const tail = talk.stderr.at(-1);
    return {
      verdict: 'failed',
      detail: `The process exited ${how} after ${Math.round(exit.ms)} ms${talk.answered ? ', right after answering' : ', before answering initialize'}.`,
      hint: tail ? `Its stderr ends with: "${cut(tail, 300)}". Run the command in a terminal to see the whole of it.` : 'It wrote nothing to stderr: run the command in a terminal to see why it quits.',
      facts: [{ label: exit.signal ? 'signal' : 'exit code', value: String(exit.signal ?? exit.code) }],
    };
  });
  await runner.run('stderr', titles.stderr, t, async () => {
    if (talk.stderr.length === 0) return { verdict: 'info', detail: 'Nothing on stderr.' };
    return { verdict: 'info', detail: `${talk.stderr.length} line(s) on stderr; the last: "${cut(talk.stderr.at(-1)!, 300)}".`, facts: talk.stderr.slice(-STDERR_TAIL_LINES).map((line, i) => ({ label: `stderr ${i + 1}`, value: cut(line, 500) })) };
  });
  // The app's client would meet the same silence: its eras are tried only when initialize was answered.
  await protocolSteps(runner, target, redactor, options.protocolTimeoutMs, talk.answered ? undefined : talk.exit ? 'The process exits before answering.' : 'The process does not answer initialize.');
}

/** One conversation by hand: spawn, write `initialize`, read stdout and stderr, watch for an exit. Always ends the process. */
function converse(target: StdioTarget, env: Record<string, string | undefined>, cwd: string, timeoutMs: number): Promise<Conversation> {
  const talk: Conversation = { badLines: [], jsonLines: 0, stderr: [] };
  const started = performance.now();
  return new Promise((resolveTalk) => {
    let child: ChildProcess;
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (child && child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        setTimeout(() => {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        }, 2_000).unref();
      }
      resolveTalk(talk);
    };
    try {
      child = spawn(target.command, target.args, { env, cwd, shell: false, stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true });
    } catch (error) {
      talk.spawnError = error as NodeJS.ErrnoException;
      resolveTalk(talk);
      return;
    }
    child.on('error', (error: NodeJS.ErrnoException) => {
      if (!talk.pid) talk.spawnError = error;
      finish();
    });
    child.once('spawn', () => {
      talk.pid = child.pid;
      child.stdin?.on('error', () => undefined);
      child.stdin?.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'switchboard-doctor', version: '0.1.0' } } })}\n`);
    });
    lines(child.stdout!, MAX_LINE, (line) => {
      if (!line.trim()) return;
      let message: { jsonrpc?: unknown; id?: unknown; result?: { protocolVersion?: unknown }; error?: { message?: unknown } } | undefined;
      try {
        message = JSON.parse(line) as typeof message;
      } catch {
        message = undefined;
      }
      if (!message || typeof message !== 'object' || message.jsonrpc !== '2.0') {
        if (talk.badLines.length < MAX_LINES) talk.badLines.push(line);
        return;
      }
      talk.jsonLines++;
      if (message.id === 1 && !talk.answered) {
        talk.answered = { ms: performance.now() - started, version: typeof message.result?.protocolVersion === 'string' ? message.result.protocolVersion : undefined, error: message.error ? String(message.error.message ?? '') : undefined };
        clearTimeout(timer);
        timer = setTimeout(finish, SETTLE_MS);
      }
    });
    lines(child.stderr!, MAX_LINE, (line) => {
      talk.stderr.push(line);
      if (talk.stderr.length > STDERR_TAIL_LINES) talk.stderr.shift();
    });
    child.once('exit', (code, signal) => {
      if (!settled) talk.exit = { code, signal, ms: performance.now() - started };
      // Let the last stdout/stderr chunks arrive.
      setTimeout(finish, 50);
    });
    timer = setTimeout(finish, timeoutMs);
  });
}
