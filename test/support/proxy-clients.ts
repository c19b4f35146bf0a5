/**
 * MCP clients nobody here wrote, driven the same way for the proxy's field tests and benchmark:
 * the SDK's 1.x client (`@modelcontextprotocol/sdk`), the 2.x client (`@modelcontextprotocol/client`,
 * in the 2025 era or pinned to 2026-07-28) and the official Inspector's CLI mode
 * (`@modelcontextprotocol/inspector-cli`, one process per method, as a person runs it).
 *
 * `runSession(client, target, plan)` connects, runs the plan (tools/list, a tool call, resource
 * reads, prompts) and returns what the client got, as plain JSON, so that a run through a proxy
 * can be compared with a run without one.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport as V1SseTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport as V1StdioTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as V1HttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as V2Client, SSEClientTransport as V2SseTransport, StreamableHTTPClientTransport as V2HttpTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport as V2StdioTransport } from '@modelcontextprotocol/client/stdio';

const require = createRequire(import.meta.url);

/** The Inspector CLI's entry point (what `npx @modelcontextprotocol/inspector --cli` runs). */
export const INSPECTOR_CLI = require.resolve('@modelcontextprotocol/inspector-cli/build/cli.js');

export const MODERN_PROTOCOL = '2026-07-28';

export type FieldClient = 'sdk-v1' | 'sdk-v2' | 'sdk-v2-modern' | 'inspector-cli';

/** The name each client sends in `clientInfo` (the Inspector's is its package's name without the scope). */
export const CLIENT_NAMES: Record<FieldClient, string> = {
  'sdk-v1': 'field-sdk-v1',
  'sdk-v2': 'field-sdk-v2',
  'sdk-v2-modern': 'field-sdk-v2-modern',
  'inspector-cli': 'inspector-cli',
};

export type Target =
  | { type: 'stdio'; command: string; args: string[]; env?: Record<string, string> }
  | { type: 'http'; url: string }
  | { type: 'sse'; url: string };

export type Step =
  | { method: 'tools/list' }
  | { method: 'tools/call'; name: string; arguments: Record<string, string> }
  | { method: 'resources/read'; uri: string }
  | { method: 'prompts/get'; name: string; arguments?: Record<string, string> };

/** What the client got for each step, in order (`error` when the step failed). */
export type StepResult = { method: string; result?: unknown; error?: string };

const stepTimeoutMs = 30_000;

/** The SDK clients share a surface: one function runs the plan on either. */
interface SdkClient {
  connect(transport: unknown, options: { timeout: number }): Promise<void>;
  listTools(params?: undefined, options?: { timeout: number }): Promise<unknown>;
  callTool(params: { name: string; arguments: Record<string, string> }, resultSchema?: undefined, options?: { timeout: number }): Promise<unknown>;
  readResource(params: { uri: string }, options?: { timeout: number }): Promise<unknown>;
  getPrompt(params: { name: string; arguments?: Record<string, string> }, options?: { timeout: number }): Promise<unknown>;
  close(): Promise<void>;
}

async function runSdkPlan(client: SdkClient, plan: Step[]): Promise<StepResult[]> {
  const out: StepResult[] = [];
  const options = { timeout: stepTimeoutMs };
  for (const step of plan) {
    try {
      const result =
        step.method === 'tools/list'
          ? await client.listTools(undefined, options)
          : step.method === 'tools/call'
            ? await client.callTool({ name: step.name, arguments: step.arguments }, undefined, options)
            : step.method === 'resources/read'
              ? await client.readResource({ uri: step.uri }, options)
              : await client.getPrompt({ name: step.name, arguments: step.arguments }, options);
      out.push({ method: step.method, result: JSON.parse(JSON.stringify(result)) });
    } catch (error) {
      out.push({ method: step.method, error: error instanceof Error ? error.message : String(error) });
    }
  }
  return out;
}

function v1Transport(target: Target) {
  if (target.type === 'stdio') return new V1StdioTransport({ command: target.command, args: target.args, env: { ...(process.env as Record<string, string>), ...target.env }, stderr: 'pipe' });
  if (target.type === 'http') return new V1HttpTransport(new URL(target.url));
  return new V1SseTransport(new URL(target.url));
}

function v2Transport(target: Target) {
  if (target.type === 'stdio') return new V2StdioTransport({ command: target.command, args: target.args, env: { ...(process.env as Record<string, string>), ...target.env }, stderr: 'pipe' });
  if (target.type === 'http') return new V2HttpTransport(new URL(target.url));
  return new V2SseTransport(new URL(target.url));
}

/** Stderr of a stdio server (and of a proxy in front of it), kept for failure messages. */
function collectStderr(transport: { stderr?: NodeJS.ReadableStream | null }, into: string[]): void {
  transport.stderr?.on('data', (chunk: Buffer) => {
    if (into.join('').length < 64 * 1024) into.push(String(chunk));
  });
}

export interface SessionResult {
  steps: StepResult[];
  /** What the server (and a proxy) wrote to stderr (stdio only), for diagnostics. */
  stderr: string;
}

/** One session of `client` against `target`: connect, run the plan, close. */
export async function runSession(client: FieldClient, target: Target, plan: Step[]): Promise<SessionResult> {
  if (client === 'inspector-cli') return runInspector(target, plan);
  const stderr: string[] = [];
  const info = { name: CLIENT_NAMES[client], version: '1.0.0' };
  // The two SDKs' clients and transports have the same surface.
  const opened =
    client === 'sdk-v1'
      ? { sdk: new V1Client(info, { capabilities: {} }), transport: v1Transport(target) }
      : { sdk: new V2Client(info, { capabilities: {}, versionNegotiation: { mode: client === 'sdk-v2-modern' ? { pin: MODERN_PROTOCOL } : 'legacy' } }), transport: v2Transport(target) };
  const sdk = opened.sdk as unknown as SdkClient;
  collectStderr(opened.transport as { stderr?: NodeJS.ReadableStream | null }, stderr);
  await sdk.connect(opened.transport, { timeout: stepTimeoutMs });
  try {
    return { steps: await runSdkPlan(sdk, plan), stderr: stderr.join('') };
  } finally {
    await sdk.close();
  }
}

// ---------------------------------------------------------------------------------------
// The Inspector's CLI

/** The CLI's flags for one step. */
function inspectorMethodArgs(step: Step): string[] {
  const args = ['--method', step.method];
  if (step.method === 'tools/call') {
    args.push('--tool-name', step.name);
    for (const [key, value] of Object.entries(step.arguments)) args.push('--tool-arg', `${key}=${value}`);
  } else if (step.method === 'resources/read') {
    args.push('--uri', step.uri);
  } else if (step.method === 'prompts/get') {
    args.push('--prompt-name', step.name);
    for (const [key, value] of Object.entries(step.arguments ?? {})) args.push('--prompt-args', `${key}=${value}`);
  }
  return args;
}

/**
 * The Inspector CLI's command line for one step. Its two argv parsers (cli.js, then the
 * build/index.js it spawns) each split at the first `--` and drop it, and each parses options
 * only before it: a server command line that holds `--` itself (the proxy's
 * `proxy … -- CMD ARGS`) must come after `--method …` and reach the server with two more `--`.
 */
export function inspectorArgs(target: Target, step: Step): string[] {
  const method = inspectorMethodArgs(step);
  if (target.type !== 'stdio') return ['--cli', target.url, '--transport', target.type === 'sse' ? 'sse' : 'http', ...method];
  const separator = target.args.indexOf('--');
  if (separator < 0) return ['--cli', target.command, ...target.args, ...method];
  return ['--cli', target.command, ...target.args.slice(0, separator), ...method, '--', '--', ...target.args.slice(separator)];
}

function runInspectorOnce(target: Target, step: Step): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    // The CLI reads its own package.json relative to the working directory (`../package.json`):
    // it runs from its build directory, as from its own checkout.
    const child = spawn(process.execPath, [INSPECTOR_CLI, ...inspectorArgs(target, step)], {
      cwd: dirname(INSPECTOR_CLI),
      env: { ...process.env, ...(target.type === 'stdio' ? target.env : {}) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), stepTimeoutMs * 2);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Each step is its own CLI process (and connection); they run side by side, results in plan order. */
async function runInspector(target: Target, plan: Step[]): Promise<SessionResult> {
  const runs = await Promise.all(plan.map((step) => runInspectorOnce(target, step)));
  const steps = runs.map((run, i): StepResult => {
    const method = plan[i]!.method;
    if (run.code !== 0) return { method, error: `inspector-cli exited ${run.code}: ${run.stderr.trim().split('\n').slice(-3).join(' | ')}` };
    try {
      return { method, result: JSON.parse(run.stdout) };
    } catch {
      return { method, error: `inspector-cli printed no JSON: ${run.stdout.slice(0, 300)}` };
    }
  });
  return { steps, stderr: runs.map((run) => run.stderr).join('') };
}

// ---------------------------------------------------------------------------------------
// A raw stdio client: fixed lines in, every byte out

export interface RawStdioRun {
  /** Every byte the process wrote to stdout, as it came. */
  stdout: Buffer;
  stderr: string;
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * Spawns `command`, writes `messages` one line each, waiting after a request for the stdout line
 * answering it (by id) before the next, then ends stdin and waits for the exit. Nothing is parsed
 * but what is needed to wait: the bytes are returned as they came.
 */
export function rawStdioSession(command: string, args: string[], messages: { id?: number; method: string; params?: unknown }[], timeoutMs = 60_000): Promise<RawStdioRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    let stderr = '';
    let text = '';
    let waitingFor: number | undefined;
    let next = 0;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`raw stdio session: no answer to id ${waitingFor} within ${timeoutMs} ms\n--- stdout ---\n${text.slice(-2000)}\n--- stderr ---\n${stderr.slice(-2000)}`));
    }, timeoutMs);
    const answered = (id: number): boolean => text.split('\n').some((line) => {
      try {
        const message = JSON.parse(line) as { id?: unknown; method?: unknown };
        return message.id === id && message.method === undefined;
      } catch {
        return false;
      }
    });
    const pump = (): void => {
      while (waitingFor === undefined || answered(waitingFor)) {
        waitingFor = undefined;
        const message = messages[next++];
        if (!message) {
          child.stdin.end();
          return;
        }
        child.stdin.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\n');
        if (message.id !== undefined) waitingFor = message.id;
      }
    };
    child.stdout.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      text += chunk.toString('utf8');
      if (next <= messages.length) pump();
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ stdout: Buffer.concat(chunks), stderr, code, signal });
    });
    pump();
  });
}
