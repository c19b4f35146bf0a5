/**
 * The recording proxy in the app (#12), end to end: the built browser mode runs with a fresh
 * data dir; a client nobody here wrote (the SDK 1.x, test/e2e/support/proxy-client.mjs) launches
 * `switchboard proxy` in front of our everything fixture, recording into that data dir's library.
 * The session appears live in the sidebar with the proxied badge and the client's name, its
 * events in Traffic (with the px tag), Timeline and Logs; a fault switched on in the faults panel
 * is what the client's next call gets; Clear all lets calls through again; the client leaving
 * ends the session. Pictures of the sidebar, the faults panel and Traffic, light and dark.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { expect, test, type Page } from '@playwright/test';
import { stdioFixtureCommand } from '../fixtures/everything/harness';
import { openApp, startBrowserMode, type BrowserModeApp } from './support/browser-mode';
import { bothThemes } from './support/screenshots';

const NAME = 'Echo via proxy';
let app: BrowserModeApp;
let client: ChildProcess;
const replies: Record<string, unknown>[] = [];
let clientErr = '';

test.beforeAll(async () => {
  app = await startBrowserMode();
  const server = stdioFixtureCommand(['--stderr-chatter']);
  client = spawn(process.execPath, [join(import.meta.dirname, 'support/proxy-client.mjs'), app.dataDir, NAME, '--', server.command, ...server.args], { stdio: ['pipe', 'pipe', 'pipe'] });
  client.stderr!.on('data', (d: Buffer) => {
    clientErr = (clientErr + d.toString()).slice(-20_000);
  });
  createInterface({ input: client.stdout! }).on('line', (line) => replies.push(JSON.parse(line) as Record<string, unknown>));
  await expect.poll(() => replies[0], { timeout: 30_000, message: `the client did not start:\n${clientErr}` }).toMatchObject({ ready: true });
});

test.afterAll(async () => {
  if (client && client.exitCode === null) {
    const exited = new Promise((done) => client.once('exit', done));
    client.stdin!.end('quit\n');
    await Promise.race([exited, new Promise((done) => setTimeout(done, 5_000))]);
    if (client.exitCode === null) client.kill('SIGKILL');
  }
  await app?.close();
});

/** One call through the proxy; resolves with the client's report of it. */
async function call(text: string): Promise<Record<string, unknown>> {
  const at = replies.length;
  client.stdin!.write(`call ${text}\n`);
  await expect.poll(() => replies.length, { timeout: 30_000, message: `no answer from the client:\n${clientErr}` }).toBeGreaterThan(at);
  return replies[at]!;
}

const row = (page: Page) => page.locator(`[data-testid="proxy-session"]`).filter({ hasText: NAME });

async function sessionMenu(page: Page, item: string | RegExp): Promise<void> {
  await row(page).getByTestId('proxy-session-menu').click();
  if (typeof item === 'string') await page.getByTestId(item).click();
  else await page.getByRole('menuitem', { name: item }).click();
}

test('a proxied session appears live in the app, and a fault switched on in the UI is seen by the client', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await openApp(page, app);
  expect(await call('before any fault')).toMatchObject({ ok: true, text: 'echo: before any fault' });

  let id = '';
  await test.step('the session in the sidebar: proxied badge, the client by name, live', async () => {
    await expect(page.getByTestId('proxy-sessions')).toBeVisible({ timeout: 15_000 });
    await expect(row(page)).toHaveAttribute('data-client', 'E2E Client 1.2');
    await expect(row(page)).toHaveAttribute('data-state', 'live');
    await expect(row(page).getByTestId('proxy-badge')).toHaveText('proxied');
    await expect(row(page)).toContainText('stdio');
    id = (await row(page).getAttribute('data-proxy-id'))!;
    expect(id).toMatch(/^px-/);
    await bothThemes(page, 'proxy-sidebar', { pointer: { x: 900, y: 850 } });
  });

  await test.step('its events in Traffic, filtered to it, under its name with the px tag', async () => {
    await row(page).click();
    await expect(page.getByTestId('traffic-view')).toBeVisible();
    const rows = page.locator(`[data-testid="traffic-row"][data-server="${id}"]`);
    await expect(page.locator(`[data-testid="traffic-row"][data-server="${id}"][data-method="tools/call"]`).first()).toBeVisible({ timeout: 15_000 });
    await expect(rows.first()).toHaveAttribute('data-server-name', NAME);
    await expect(rows.first().getByTestId('traffic-proxy-tag')).toBeVisible();
    await expect(page.locator(`[data-testid="traffic-row"]:not([data-server="${id}"])`)).toHaveCount(0);
  });

  await test.step('Timeline and Logs show it by name', async () => {
    await sessionMenu(page, /^Timeline$/);
    await expect(page.locator(`[data-testid="timeline-server"][data-server-id="${id}"]`)).toHaveAttribute('data-server-name', NAME, { timeout: 15_000 });
    await sessionMenu(page, /^Logs$/);
    await expect(page.getByTestId('logs-view')).toBeVisible();
    await expect(page.getByTestId('log-filter-server')).toHaveValue(`${NAME} (proxied)`);
    await expect(page.getByTestId('log-line').filter({ hasText: 'everything: ready' }).first()).toBeVisible({ timeout: 15_000 });
  });

  await test.step('switch a fault on in the faults panel', async () => {
    await sessionMenu(page, 'proxy-faults-open');
    const panel = page.getByTestId('proxy-faults-panel');
    await expect(panel).toBeVisible();
    await expect(panel.getByTestId('proxy-faults-none')).toBeVisible();
    await panel.getByTestId('proxy-fault-add').click();
    await panel.getByTestId('proxy-fault-type').selectOption('jsonrpc-error');
    await expect(panel.getByTestId('proxy-fault-method')).toHaveValue('tools/call');
    // A rate out of range is refused in place, before anything is sent.
    await panel.getByTestId('proxy-fault-rate').fill('150');
    await panel.getByTestId('proxy-faults-apply').click();
    await expect(panel.getByText('A rate is a share from 0 to 100 %.')).toBeVisible();
    await panel.getByTestId('proxy-fault-rate').fill('100');
    await panel.getByTestId('proxy-fault-param-code').fill('-32042');
    await panel.getByTestId('proxy-fault-param-message').fill('switched on in the app');
    await bothThemes(page, 'proxy-faults-form', { pointer: { x: 5, y: 890 } });
    await panel.getByTestId('proxy-faults-apply').click();
    await expect(panel.locator('[data-testid="proxy-fault-row"][data-type="jsonrpc-error"]')).toBeVisible({ timeout: 15_000 });
  });

  await test.step('the client’s next call gets the injected error; the panel counts the hit', async () => {
    const reply = await call('during the fault');
    expect(reply).toMatchObject({ ok: false });
    expect(String(reply.error)).toContain('switched on in the app');
    const panel = page.getByTestId('proxy-faults-panel');
    await expect(panel.locator('[data-testid="proxy-fault-row"][data-type="jsonrpc-error"]')).toHaveAttribute('data-hits', '1', { timeout: 15_000 });
    await bothThemes(page, 'proxy-faults-panel', { pointer: { x: 5, y: 890 } });
  });

  await test.step('Clear all: calls go through again', async () => {
    const panel = page.getByTestId('proxy-faults-panel');
    await panel.getByTestId('proxy-faults-clear').click();
    await expect(panel.getByTestId('proxy-faults-none')).toBeVisible({ timeout: 15_000 });
    await page.keyboard.press('Escape');
    expect(await call('after the fault')).toMatchObject({ ok: true, text: 'echo: after the fault' });
  });

  await test.step('Traffic shows what was injected', async () => {
    await row(page).click();
    await expect(page.locator(`[data-testid="traffic-row"][data-server="${id}"][data-kind="fault"]`).first()).toBeVisible({ timeout: 15_000 });
    await bothThemes(page, 'proxy-traffic', { pointer: { x: 5, y: 890 } });
  });

  await test.step('the client leaves: the session ends, its events kept', async () => {
    client.stdin!.write('quit\n');
    await expect(row(page)).toHaveAttribute('data-state', 'ended', { timeout: 15_000 });
    await expect(page.locator(`[data-testid="traffic-row"][data-server="${id}"]`).first()).toBeVisible();
  });
});
