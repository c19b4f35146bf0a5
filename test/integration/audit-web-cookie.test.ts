/**
 * #18 item 6: two browser-mode instances in one browser. Chromium sends a 127.0.0.1 cookie to
 * every port, so one shared cookie name meant the second launch logged the first one out. In
 * Debian's Chromium (one context, both hosts real), both stay signed in, page and WebSocket;
 * the cookies stay HttpOnly and SameSite=Strict.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCore, type Core } from '../../main/core/app';
import { startWebHost, type WebHost } from '../../main/adapters/web/host';
import { MemorySettingsStore } from '../../main/core/store/settings';
import { chromiumPath } from '../../playwright.config';

let dir: string;
let browser: Browser;
const cores: Core[] = [];
const hosts: WebHost[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sb-cookie-'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Switchboard</title><p>page</p>');
  for (let i = 0; i < 2; i++) {
    const core = createCore({ settings: new MemorySettingsStore(), carrier: 'browser', version: 'test' });
    cores.push(core);
    hosts.push(await startWebHost({ core, rendererDir: dir }));
  }
  browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox', '--disable-gpu', '--no-first-run'] });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  for (const host of hosts) await host.close();
  for (const core of cores) await core.shutdown();
  rmSync(dir, { recursive: true, force: true });
});

describe('browser mode: one token cookie per instance', () => {
  it('keeps two instances signed in in one browser context', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const [a, b] = hosts as [WebHost, WebHost];
    for (const host of [a, b]) {
      const response = await page.goto(host.url);
      expect(response?.status()).toBe(200);
      expect(page.url()).toBe(`http://127.0.0.1:${host.port}/`); // the token left the address bar
    }
    // Back to the first one without its token: its own cookie still signs it in.
    for (const host of [a, b]) {
      const response = await page.goto(`http://127.0.0.1:${host.port}/`);
      expect(response?.status(), `instance on port ${host.port}`).toBe(200);
      // The WebSocket too (the renderer's carrier): a contract call answers.
      const reply = await page.evaluate(
        (port) =>
          new Promise<string>((resolve) => {
            const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`);
            ws.onopen = () => ws.send(JSON.stringify({ id: 1, method: 'appInfo', args: {} }));
            ws.onmessage = (event) => resolve(String(event.data));
            ws.onerror = () => resolve('refused');
          }),
        host.port,
      );
      expect(reply).toContain('"ok":true');
    }
    const cookies = await context.cookies();
    expect(cookies).toHaveLength(2);
    expect(new Set(cookies.map((c) => c.name)).size).toBe(2);
    for (const cookie of cookies) {
      expect(cookie.httpOnly).toBe(true);
      expect(cookie.sameSite).toBe('Strict');
    }
    await context.close();
  }, 60_000);
});
