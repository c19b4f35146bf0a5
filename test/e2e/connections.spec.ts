/**
 * Three servers at once — stdio, legacy Streamable HTTP, modern Streamable HTTP — and one of
 * them killed mid-test: the other two keep answering calls, and the killed one shows its
 * reconnect attempts, with growing delays, in the sidebar.
 */
import { expect, test, type Page } from '@playwright/test';
import { startFixture, stdioFixtureCommand, type RunningFixture } from '../fixtures/everything/harness';
import { openApp, startBrowserMode, type BrowserModeApp } from './support/browser-mode';
import { callTool, shellQuote } from './support/ui';
import { shot } from './support/screenshots';

let app: BrowserModeApp;
let legacy: RunningFixture;
let modern: RunningFixture;

test.beforeAll(async () => {
  app = await startBrowserMode();
  legacy = await startFixture({ transport: 'http', era: 'legacy', sessions: true });
  modern = await startFixture({ transport: 'http', era: 'modern' });
});

test.afterAll(async () => {
  await app?.close();
  await legacy?.close();
  await modern?.close();
});

async function addWithPolicy(page: Page, server: { name: string; url?: string; command?: string; pingIntervalSec?: number; retries?: number }) {
  await page.getByTestId('add-server-open').click();
  const form = page.getByTestId('add-server-form');
  await form.getByText(server.url ? 'URL (HTTP)' : 'stdio (command)', { exact: true }).click();
  await form.getByTestId('add-server-name').fill(server.name);
  if (server.url) await form.getByTestId('add-server-url').fill(server.url);
  else await form.getByTestId('add-server-command').fill(server.command!);
  if (server.pingIntervalSec !== undefined || server.retries !== undefined) {
    await form.getByTestId('server-advanced').click();
    if (server.pingIntervalSec !== undefined) await form.getByTestId('server-pingIntervalSec').fill(String(server.pingIntervalSec));
    if (server.retries !== undefined) await form.getByTestId('server-retries').fill(String(server.retries));
  }
  await form.getByTestId('add-server-submit').click();
  await expect(page.locator(`[data-testid="server-item"][data-server-name="${server.name}"]`)).toHaveAttribute('data-state', 'connected');
}

test('one server dies; the others keep answering; the dead one retries with growing delays', async ({ page }) => {
  test.setTimeout(90_000);
  await openApp(page, app);
  const { command, args } = stdioFixtureCommand();
  await addWithPolicy(page, { name: 'local', command: shellQuote([command, ...args]) });
  await addWithPolicy(page, { name: 'legacy', url: legacy.url, pingIntervalSec: 1, retries: 5 });
  await addWithPolicy(page, { name: 'modern', url: modern.url });
  await expect(page.locator('[data-testid="server-item"][data-server-name="legacy"] [data-testid="server-era"]')).toContainText('legacy 2025-11-25');
  await expect(page.locator('[data-testid="server-item"][data-server-name="modern"] [data-testid="server-era"]')).toContainText('modern 2026-07-28');

  await legacy.close(); // the server process is gone: pings go unanswered, reconnects are refused

  const dead = page.locator('[data-testid="server-item"][data-server-name="legacy"]');
  const reconnecting = dead.getByTestId('server-reconnecting');
  await expect(reconnecting).toBeVisible({ timeout: 20_000 });

  // Record the attempts the sidebar shows, and the delay each one announces.
  const seen = new Map<number, number>();
  const texts: string[] = [];
  /** Reads the sidebar once; resolves with how many attempts have been seen. */
  const record = async (): Promise<number> => {
    // One read of the element, all three at once: read one at a time, an attempt's number and the
    // next attempt's delay could come from two renders (attempt 3 "4000 ms" in a CI run).
    const [now] = await reconnecting.evaluateAll((els) =>
      els.map((el) => ({ attempt: Number(el.getAttribute('data-attempt')), delayMs: Number(el.getAttribute('data-delay-ms')), text: el.textContent ?? '' })),
    );
    if (now) {
      texts.push(now.text);
      if (now.attempt && now.delayMs && !seen.has(now.attempt)) seen.set(now.attempt, now.delayMs);
    }
    return seen.size;
  };
  await expect.poll(record, { timeout: 40_000, intervals: [200] }).toBeGreaterThanOrEqual(1);
  // Meanwhile the other two servers keep answering.
  const a = await callTool(page, 'local__echo', { text: 'still here' });
  await expect(a.getByTestId('tool-result-text')).toHaveText('echo: still here');
  const b = await callTool(page, 'modern__add', { a: 1, b: 2 });
  await expect(b.getByTestId('tool-result-structured')).toContainText('"sum": 3');
  await expect.poll(record, { timeout: 40_000, intervals: [200] }).toBeGreaterThanOrEqual(3);
  for (const text of texts) expect(text).toMatch(/reconnecting in \d+ s \(attempt \d+\)/);
  const attempts = [...seen.entries()].sort((x, y) => x[0] - y[0]);
  console.log('reconnect attempts seen in the UI (attempt → delay ms):', JSON.stringify(attempts));
  expect(attempts.length).toBeGreaterThanOrEqual(3);
  for (let i = 1; i < attempts.length; i++) expect(attempts[i]![1]).toBeGreaterThan(attempts[i - 1]![1]);
  await expect(dead.getByTestId('server-state-dot')).toBeVisible();
  await page.screenshot({ path: shot('reconnecting.png') });

  // After everything, the survivors still answer.
  const c = await callTool(page, 'local__echo', { text: 'after' });
  await expect(c.getByTestId('tool-result-text')).toHaveText('echo: after');
});
