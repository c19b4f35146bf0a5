/**
 * The first vertical slice, as a user does it: open browser mode in Chromium, add the fixture
 * server over stdio and over Streamable HTTP, see their tools, call one on each, read the
 * real results.
 */
import { expect, test } from '@playwright/test';
import { startFixture, stdioFixtureCommand, type RunningFixture } from '../fixtures/everything/harness';
import { openApp, startBrowserMode, type BrowserModeApp } from './support/browser-mode';
import { addServer, callTool, shellQuote } from './support/ui';

let app: BrowserModeApp;
let http: RunningFixture;

test.beforeAll(async () => {
  app = await startBrowserMode();
  http = await startFixture({ transport: 'http', era: 'both', sessions: true });
});

test.afterAll(async () => {
  await app?.close();
  await http?.close();
});

test('adds stdio and Streamable HTTP servers, lists their tools, calls one on each', async ({ page }, testInfo) => {
  await openApp(page, app);
  await expect(page.getByTestId('carrier')).toHaveText('browser mode');

  const { command, args } = stdioFixtureCommand();
  await addServer(page, { name: 'fixture stdio', command: shellQuote([command, ...args]) });
  await addServer(page, { name: 'fixture http', url: http.url });

  const stdioItem = page.locator('[data-testid="server-item"][data-server-name="fixture stdio"]');
  const httpItem = page.locator('[data-testid="server-item"][data-server-name="fixture http"]');
  await expect(stdioItem).toHaveAttribute('data-state', 'connected');
  await expect(httpItem).toHaveAttribute('data-state', 'connected');

  // Both servers' tools, namespaced.
  await expect(page.locator('[data-tool-name="fixture-stdio__echo"]')).toBeVisible();
  await expect(page.locator('[data-tool-name="fixture-http__add"]')).toBeVisible();
  await expect(page.locator('[data-tool-name="fixture-http__create_order"]')).toBeVisible();

  const echo = await callTool(page, 'fixture-stdio__echo', { text: 'hello from the e2e test' });
  await expect(echo.getByTestId('tool-result-text')).toHaveText('echo: hello from the e2e test');

  const add = await callTool(page, 'fixture-http__add', { a: 2, b: 40 });
  await expect(add.getByTestId('tool-result-structured')).toContainText('"sum": 42');

  const failing = await callTool(page, 'fixture-http__fail', { message: 'it broke on purpose' });
  await expect(failing).toHaveAttribute('data-is-error', 'true');
  await expect(failing.getByTestId('tool-result-text')).toContainText('it broke on purpose');

  await page.screenshot({ path: testInfo.outputPath('vertical-slice.png'), fullPage: true });
  await page.screenshot({ path: 'test-results/screenshots/vertical-slice.png', fullPage: true });
});

test('a server that cannot start shows a readable error and leaves the others alone', async ({ page }) => {
  await openApp(page, app);
  await addServer(page, { name: 'broken', command: 'definitely-not-a-command-xyz --flag' });
  const broken = page.locator('[data-testid="server-item"][data-server-name="broken"]');
  await expect(broken).toHaveAttribute('data-state', 'error');
  await expect(broken.getByTestId('server-error')).toContainText('definitely-not-a-command-xyz');
  // The servers added earlier in this file still answer.
  const echo = await callTool(page, 'fixture-stdio__echo', { text: 'still here' });
  await expect(echo.getByTestId('tool-result-text')).toHaveText('echo: still here');
});
