/**
 * The real core for the fuzzer: the built browser-mode host (`out/main/web.js`, started by the
 * e2e support's `startBrowserMode`) driven over its WebSocket contract with the shared test
 * client (token header, our Origin). One host per run; every reply has a deadline (a missing one
 * is a hang), and a dead host fails what waits at once.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import type { Envelope } from '../../contract';
import { startBrowserMode } from '../e2e/support/browser-mode';
import { HangError, HostClient } from '../support/host-client';
import { exportOverHttp } from '../support/trace-export';

export { HangError };

const ROOT = resolve(import.meta.dirname, '../..');
export const WEB_MAIN = join(ROOT, 'out/main/web.js');

export interface Host {
  process: ChildProcess;
  origin: string;
  alive(): boolean;
  output(): string;
  /** The reply envelope, or HangError after `deadlineMs`. */
  call<T = unknown>(method: string, args: unknown, deadlineMs?: number): Promise<Envelope & { result?: T }>;
  /** The result, or throws with the error envelope's message. */
  ok<T = unknown>(method: string, args: unknown, deadlineMs?: number): Promise<T>;
  /** The live trace exported over the host's HTTP route (files do not travel the contract); throws on a failure or after `deadlineMs`. */
  exportText(format: 'jsonl' | 'har', deadlineMs: number): Promise<string>;
  close(): Promise<void>;
}

export async function startHost(): Promise<Host> {
  if (!existsSync(WEB_MAIN)) throw new Error(`${WEB_MAIN} is missing: run \`npx electron-vite build\` first`);
  const app = await startBrowserMode();
  const client = await HostClient.open(app);
  const child = app.process;
  const alive = () => child.exitCode === null && child.signalCode === null;
  const call = <T>(method: string, args: unknown, deadlineMs = 30_000): Promise<Envelope & { result?: T }> => {
    if (!alive()) return Promise.reject(new Error(`host is dead (exit ${child.exitCode ?? child.signalCode}) before ${method}`));
    return client.call(method, args, deadlineMs) as Promise<Envelope & { result?: T }>;
  };
  return {
    process: child,
    origin: app.origin,
    alive,
    output: () => app.output().slice(-100_000),
    call,
    ok: async <T>(method: string, args: unknown, deadlineMs?: number) => {
      const reply = await call<T>(method, args, deadlineMs);
      if (!reply.ok) throw new Error(`${method} failed: ${reply.error.message}`);
      return reply.result as T;
    },
    exportText: (format, deadlineMs) => {
      if (!alive()) return Promise.reject(new Error(`host is dead (exit ${child.exitCode ?? child.signalCode}) before the ${format} export`));
      return exportOverHttp(app, format, undefined, deadlineMs);
    },
    close: async () => {
      client.close();
      await app.close();
    },
  };
}
