/**
 * The real core for the fuzzer: the built browser-mode host (`out/main/web.js`, started as
 * test/e2e/support/browser-mode.ts does) driven over its WebSocket contract with the token
 * header and our Origin. One host per run; every reply has a deadline (a missing one is a hang).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import WebSocket from 'ws';
import type { Envelope } from '../../contract';
import { WS_PATH } from '../../contract/ws';

const ROOT = resolve(import.meta.dirname, '../..');
export const WEB_MAIN = join(ROOT, 'out/main/web.js');

export class HangError extends Error {
  constructor(method: string, ms: number) {
    super(`hang: no reply to ${method} within ${ms} ms`);
  }
}

export interface Host {
  process: ChildProcess;
  origin: string;
  alive(): boolean;
  output(): string;
  /** The reply envelope, or HangError after `deadlineMs`. */
  call<T = unknown>(method: string, args: unknown, deadlineMs?: number): Promise<Envelope & { result?: T }>;
  /** The result, or throws with the error envelope's message. */
  ok<T = unknown>(method: string, args: unknown, deadlineMs?: number): Promise<T>;
  close(): Promise<void>;
}

export async function startHost(): Promise<Host> {
  if (!existsSync(WEB_MAIN)) throw new Error(`${WEB_MAIN} is missing: run \`npx electron-vite build\` first`);
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-fuzz-'));
  const child = spawn(process.execPath, [WEB_MAIN, '--data-dir', dataDir], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (d: Buffer) => {
    output += d.toString();
    if (output.length > 200_000) output = output.slice(-100_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`browser mode did not start in time:\n${output}`)), 20_000);
    const check = () => {
      const match = /Open: (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        child.stdout!.off('data', check);
        resolveUrl(match[1]!);
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`browser mode exited (${code}):\n${output}`));
    });
  });
  const parsed = new URL(url);
  const token = parsed.searchParams.get('token')!;
  const origin = parsed.origin;
  const ws = new WebSocket(`${origin.replace(/^http/, 'ws')}${WS_PATH}`, { headers: { 'x-switchboard-token': token, origin }, maxPayload: 1024 * 1024 * 1024 });
  await new Promise<void>((done, fail) => {
    ws.once('open', () => done());
    ws.once('error', fail);
  });
  const pending = new Map<number, (reply: Envelope) => void>();
  const failing = new Map<number, (error: Error) => void>();
  const failAll = (why: string) => {
    for (const f of failing.values()) f(new Error(why));
    failing.clear();
    pending.clear();
  };
  child.on('exit', (code, signal) => failAll(`host died (exit ${code ?? signal}) while waiting for a reply`));
  ws.on('close', () => failAll('host WebSocket closed while waiting for a reply'));
  ws.on('message', (data) => {
    let frame: { type: string; id?: number; reply?: Envelope };
    try {
      frame = JSON.parse(String(data)) as typeof frame;
    } catch {
      return; // a frame that is not JSON is caught by the waiting call's deadline
    }
    if (frame.type !== 'reply' || typeof frame.id !== 'number') return;
    pending.get(frame.id)?.(frame.reply!);
    pending.delete(frame.id);
  });
  let nextId = 1;
  const alive = () => child.exitCode === null && child.signalCode === null;

  const call = <T>(method: string, args: unknown, deadlineMs = 30_000): Promise<Envelope & { result?: T }> =>
    new Promise((done, fail) => {
      if (!alive()) return fail(new Error(`host is dead (exit ${child.exitCode ?? child.signalCode}) before ${method}`));
      if (ws.readyState !== WebSocket.OPEN) return fail(new Error(`host WebSocket closed before ${method}`));
      const id = nextId++;
      const timer = setTimeout(() => {
        pending.delete(id);
        failing.delete(id);
        fail(new HangError(method, deadlineMs));
      }, deadlineMs);
      pending.set(id, (reply) => {
        clearTimeout(timer);
        failing.delete(id);
        done(reply as Envelope & { result?: T });
      });
      failing.set(id, (error) => {
        clearTimeout(timer);
        fail(error);
      });
      ws.send(JSON.stringify({ id, method, args }));
    });

  return {
    process: child,
    origin,
    alive,
    output: () => output,
    call,
    ok: async <T>(method: string, args: unknown, deadlineMs?: number) => {
      const reply = await call<T>(method, args, deadlineMs);
      if (!reply.ok) throw new Error(`${method} failed: ${reply.error.message}`);
      return reply.result as T;
    },
    close: async () => {
      ws.close();
      if (alive()) {
        const exited = new Promise((done) => child.once('exit', done));
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((done) => setTimeout(done, 5_000))]);
        if (alive()) child.kill('SIGKILL');
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
