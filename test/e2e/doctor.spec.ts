/**
 * The connection doctor (#16) in the built browser mode: a server in error (a 401 without any
 * OAuth metadata, made here) → Diagnose under it → the Checks view's Doctor tab runs at once and
 * names the failing step with what to try; a healthy server (our fixture) diagnosed from its menu
 * passes every step. Pictures in light and dark.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test, type Page } from '@playwright/test';
import { startFixture, type RunningFixture } from '../fixtures/everything/harness';
import { openApp, startBrowserMode, type BrowserModeApp } from './support/browser-mode';
import { waitConnected } from './support/resources';
import { bothThemes } from './support/screenshots';
import { addServer } from './support/ui';

let app: BrowserModeApp;
let fixture: RunningFixture;
let locked: http.Server;
let lockedUrl: string;

test.beforeAll(async () => {
  app = await startBrowserMode();
  fixture = await startFixture({ transport: 'http', era: 'legacy' });
  locked = http.createServer((req, res) => {
    res.writeHead(req.url?.startsWith('/.well-known') ? 404 : 401, { 'www-authenticate': 'Bearer realm="internal"' });
    res.end();
  });
  await new Promise<void>((done) => locked.listen(0, '127.0.0.1', done));
  lockedUrl = `http://127.0.0.1:${(locked.address() as AddressInfo).port}/mcp`;
});

test.afterAll(async () => {
  await app?.close();
  await fixture?.close();
  locked?.closeAllConnections();
  await new Promise<void>((done) => (locked ? locked.close(() => done()) : done()));
});

const item = (page: Page, name: string) => page.locator(`[data-testid="server-item"][data-server-name="${name}"]`);
const stepRow = (page: Page, id: string) => page.locator(`[data-testid="doctor-step"][data-step-id="${id}"]`);

test('a server in error: Diagnose runs the doctor, which names the failing step and what to try', async ({ page }) => {
  await openApp(page, app);
  await addServer(page, { name: 'internal api', url: lockedUrl });
  await expect(item(page, 'internal api')).toHaveAttribute('data-state', 'error', { timeout: 20_000 });
  await item(page, 'internal api').getByTestId('server-diagnose').click();

  await expect(page.getByTestId('checks-view')).toBeVisible();
  await expect(page.getByTestId('checks-tab-doctor')).toHaveAttribute('aria-selected', 'true');
  const summary = page.getByTestId('doctor-summary');
  await expect(summary).toBeVisible({ timeout: 30_000 });
  await expect(summary).toHaveAttribute('data-first-failure', 'prm');
  await expect(summary).toContainText('publishes no protected resource metadata');
  await expect(page.getByTestId('doctor-summary-hint')).toContainText('Authorization: Bearer');
  await expect(stepRow(page, 'tcp')).toHaveAttribute('data-verdict', 'ok');
  await expect(stepRow(page, 'prm')).toHaveAttribute('data-verdict', 'failed');
  await expect(stepRow(page, 'prm')).toHaveAttribute('data-first', 'true');
  await expect(stepRow(page, 'initialize-2025')).toHaveAttribute('data-verdict', 'skipped');
  await expect(stepRow(page, 'tcp').getByTestId('doctor-step-ms')).toHaveText(/\d+(\.\d)? ms/);
  await bothThemes(page, 'doctor-failing', { pointer: { x: 5, y: 700 } });
});

test('a healthy server from its menu: every step passes', async ({ page }) => {
  await openApp(page, app);
  await addServer(page, { name: 'orders', url: fixture.url });
  await waitConnected(page, 'orders');
  await item(page, 'orders').getByTestId('server-menu').click();
  await page.getByTestId('server-doctor').click();
  const summary = page.getByTestId('doctor-summary');
  await expect(summary).toBeVisible({ timeout: 30_000 });
  await expect(summary).toContainText('Fine: every step passed');
  await expect(summary).not.toHaveAttribute('data-first-failure');
  await expect(page.locator('[data-testid="doctor-step"][data-verdict="failed"]')).toHaveCount(0);
  await expect(stepRow(page, 'initialize-2025')).toHaveAttribute('data-verdict', 'ok');
  await expect(stepRow(page, 'list')).toContainText('tools/list 8 item(s)');
  await expect(stepRow(page, 'listen')).toHaveAttribute('data-verdict', 'ok');
  // A step's facts open on a click.
  await stepRow(page, 'dns').locator('button').first().click();
  await expect(stepRow(page, 'dns').getByTestId('doctor-step-facts')).toContainText('127.0.0.1');
  await bothThemes(page, 'doctor-healthy', { pointer: { x: 5, y: 700 } });
  // The protocol steps, further down.
  await stepRow(page, 'listen').scrollIntoViewIfNeeded();
  await bothThemes(page, 'doctor-healthy-eras', { pointer: { x: 5, y: 700 } });
});
