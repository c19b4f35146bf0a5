/**
 * A scripted stdio client for proxy tests: writes fixed lines to a real process, waits for the
 * answers it names, captures every stdout byte, then closes stdin and waits for the exit.
 */
import { spawn } from 'node:child_process';

export interface ScriptStep {
  /** Bytes written as they are (a line's `\n` included). */
  write: Buffer | string;
  /** Wait for a response line with this JSON-RPC id before the next step. */
  answer?: number | string;
}

export interface ScriptRun {
  stdout: Buffer;
  stderr: string;
  code: number | null;
  signal: NodeJS.Signals | null;
  pid: number | undefined;
}

/** The JSON-RPC messages of complete stdout lines (what is not JSON is skipped). */
export function stdoutMessages(stdout: Buffer): Record<string, unknown>[] {
  return stdout
    .toString('utf8')
    .split('\n')
    .flatMap((line) => {
      try {
        const value = JSON.parse(line) as unknown;
        return value && typeof value === 'object' && !Array.isArray(value) ? [value as Record<string, unknown>] : [];
      } catch {
        return [];
      }
    });
}

export async function runScript(command: string, args: string[], steps: ScriptStep[], options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number; keepOpen?: boolean } = {}): Promise<ScriptRun> {
  const child = spawn(command, args, { env: options.env ?? process.env, cwd: options.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  const out: Buffer[] = [];
  let stderr = '';
  let waiting: { id: number | string; done: () => void; fail: (error: Error) => void } | undefined;
  const answered = (id: number | string) => stdoutMessages(Buffer.concat(out)).some((m) => m.id === id && ('result' in m || 'error' in m));
  child.stdout.on('data', (chunk: Buffer) => {
    out.push(chunk);
    if (waiting && answered(waiting.id)) waiting.done();
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  let gone = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => {
      gone = true;
      waiting?.fail(new Error(`the process exited (${code ?? signal}) before answering; stderr: ${stderr.slice(-2000)}`));
      resolve({ code, signal });
    }),
  );
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  for (const step of steps) {
    child.stdin.write(step.write);
    if (step.answer === undefined) continue;
    const id = step.answer;
    if (answered(id)) continue;
    if (gone) throw new Error(`the process exited before answering ${id}; stderr: ${stderr.slice(-2000)}`);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer to ${id} within the deadline; stderr: ${stderr.slice(-2000)}`)), Math.max(1, deadline - Date.now()));
      waiting = {
        id,
        done: () => {
          clearTimeout(timer);
          waiting = undefined;
          resolve();
        },
        fail: (error) => {
          clearTimeout(timer);
          waiting = undefined;
          reject(error);
        },
      };
    });
  }
  if (!options.keepOpen) child.stdin.end();
  const { code, signal } = await exited;
  return { stdout: Buffer.concat(out), stderr, code, signal, pid: child.pid };
}

/** A request line (compact JSON, `\n`). */
export const request = (id: number, method: string, params?: unknown): string => JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }) + '\n';
export const notification = (method: string, params?: unknown): string => JSON.stringify({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) }) + '\n';

/** The 2025 handshake and a few calls, answered one by one. */
export function legacySteps(clientName = 'scripted'): ScriptStep[] {
  return [
    { write: request(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: clientName, version: '1.0.0' } }), answer: 1 },
    { write: notification('notifications/initialized') },
    { write: request(2, 'tools/list'), answer: 2 },
    { write: request(3, 'prompts/list'), answer: 3 },
    { write: request(4, 'tools/call', { name: 'echo', arguments: { message: 'hello', text: 'hello' } }), answer: 4 },
  ];
}

/** 2026-07-28 (stateless): every request carries its envelope in `_meta`, as the 2.x client sends it. */
export function modernSteps(clientName = 'scripted-modern'): ScriptStep[] {
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: clientName, version: '2.0.0' }, 'io.modelcontextprotocol/clientCapabilities': {} };
  return [
    { write: request(1, 'server/discover', { _meta: meta }), answer: 1 },
    { write: request(2, 'tools/list', { _meta: meta }), answer: 2 },
    { write: request(3, 'tools/call', { name: 'add', arguments: { a: 2, b: 3 }, _meta: meta }), answer: 3 },
  ];
}
