/**
 * Starts the real browser mode (`out/main/web.js`, as `npm run web` does) with its own
 * settings directory, and hands tests its URL. One per test file; closed afterwards.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Page } from '@playwright/test';

export interface BrowserModeApp {
  url: string;
  origin: string;
  dataDir: string;
  process: ChildProcess;
  output: () => string;
  close(): Promise<void>;
}

const ROOT = resolve(import.meta.dirname, '../../..');

/**
 * `dataDir`: reuse a settings directory (a restart of the same app); `env`: extra environment,
 * e.g. SWITCHBOARD_WEB_TOKEN (a fixed token, for tests only) with `--port` to come back on the
 * same URL.
 */
export async function startBrowserMode(extraArgs: string[] = [], options: { dataDir?: string; env?: Record<string, string> } = {}): Promise<BrowserModeApp> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'switchboard-e2e-'));
  const child = spawn(process.execPath, [join(ROOT, 'out/main/web.js'), '--data-dir', dataDir, ...extraArgs], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...options.env },
  });
  let output = '';
  // The newest output only: a long fuzz run must not keep every line the host ever wrote.
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
        resolveUrl(match[1]!);
      }
    };
    child.stdout!.on('data', check);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`browser mode exited (${code}):\n${output}`));
    });
  });
  return {
    url,
    origin: new URL(url).origin,
    dataDir,
    process: child,
    output: () => output,
    close: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((done) => child.once('exit', done));
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((done) => setTimeout(done, 5_000))]);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Opens the app with its token and waits until the UI says it is ready. */
export async function openApp(page: Page, app: BrowserModeApp): Promise<void> {
  await page.goto(app.url);
  await page.locator('body[data-app-state="ready"]').waitFor();
  // The server list has arrived: a test that counts servers counts the real ones.
  await page.locator('[data-testid="server-list"][data-loaded="true"]').waitFor();
}

/** One contract call straight to browser mode's WebSocket, as a non-browser client makes it (token header, our Origin). */
export async function mainCall(app: BrowserModeApp, method: string, args: unknown = {}): Promise<{ ok: boolean; result?: unknown; error?: { message: string } }> {
  const { WebSocket } = await import('ws');
  const token = new URL(app.url).searchParams.get('token') ?? '';
  const ws = new WebSocket(`${app.origin.replace(/^http/, 'ws')}/ws`, { headers: { origin: app.origin, 'x-switchboard-token': token } });
  try {
    await new Promise<void>((done, fail) => {
      ws.once('open', () => done());
      ws.once('error', fail);
    });
    return await new Promise((done, fail) => {
      ws.on('message', (data) => {
        const frame = JSON.parse(String(data)) as { type: string; id?: unknown; reply?: { ok: boolean; result?: unknown; error?: { message: string } } };
        if (frame.type === 'reply' && frame.id === 1) done(frame.reply!);
      });
      ws.once('error', fail);
      ws.send(JSON.stringify({ id: 1, method, args }));
    });
  } finally {
    ws.close();
  }
}
