/**
 * Structured errors as a user meets them in browser mode: the renderer reads a failed call from
 * the error's detail (no message parsing). A `-32042` shows its link from the detail, is opened
 * after consent and called again; a JSON-RPC error names its code and jumps to its own request in
 * Traffic (the seq comes with the error, not from a second history query).
 */
import { expect, test } from '@playwright/test';
import { startAskingFixture, LINK_URL, type RunningAskingFixture } from '../fixtures/asking/harness';
import { startFixture, type RunningFixture } from '../fixtures/everything/harness';
import { openApp, startBrowserMode, type BrowserModeApp } from './support/browser-mode';
import { stubExternalPages } from './support/requests';
import { openTool, run, showJson, toolDetail } from './support/tools';
import { addServer } from './support/ui';

let app: BrowserModeApp;
let asking: RunningAskingFixture;
let everything: RunningFixture;

test.beforeAll(async () => {
  app = await startBrowserMode();
  asking = await startAskingFixture({ era: 'legacy', name: 'asking-legacy' });
  everything = await startFixture({ transport: 'http', era: 'legacy' });
});

test.afterAll(async () => {
  await app?.close();
  await asking?.close();
  await everything?.close();
});

test('-32042: the link from the error detail, opened after consent, then the call again succeeds', async ({ page }) => {
  const opened = await stubExternalPages(page);
  await openApp(page, app);
  await addServer(page, { name: 'linked', url: asking.url });
  await expect(page.locator('[data-testid="server-item"][data-server-name="linked"]')).toHaveAttribute('data-state', 'connected');

  await openTool(page, 'linked__needs_link');
  await (await showJson(page)).fill(JSON.stringify({ account: 'e2e' }));
  await run(page);
  const required = toolDetail(page).getByTestId('url-elicitation-required');
  await expect(required).toBeVisible();
  const link = required.getByTestId('url-elicitation-link');
  await expect(link).toHaveCount(1);
  await expect(link.getByTestId('url-display')).toHaveText(`${LINK_URL}?account=e2e`);
  await expect(link).toContainText('Link the account "e2e" before using this tool.');
  // The machine-readable part travels in the detail: nothing of it is shown as text.
  await expect(required).not.toContainText('elicitations:');

  const popup = page.waitForEvent('popup');
  await link.getByTestId('url-elicitation-open').click();
  await (await popup).close();
  expect(opened).toContain(`${LINK_URL}?account=e2e`);
  await expect(link.getByTestId('url-status')).toContainText('completed');

  await required.getByTestId('url-elicitation-retry').click();
  await expect(toolDetail(page).getByTestId('tool-result-structured')).toContainText('"linked": true');
});

test('a JSON-RPC error shows its code from the detail and opens its own request in Traffic', async ({ page }) => {
  await openApp(page, app);
  if ((await page.locator('[data-testid="server-item"][data-server-name="everything"]').count()) === 0) await addServer(page, { name: 'everything', url: everything.url });
  await expect(page.locator('[data-testid="server-item"][data-server-name="everything"]')).toHaveAttribute('data-state', 'connected');

  await openTool(page, 'everything__protocol_error');
  await (await showJson(page)).fill(JSON.stringify({ message: 'refused for the e2e test' }));
  await run(page);
  const error = toolDetail(page).getByTestId('tool-error');
  await expect(error).toHaveAttribute('data-kind', 'rpc');
  await expect(error).toContainText('JSON-RPC error -32602 (invalid params)');
  // The server's own words, without a code prefix to strip.
  await expect(error.getByTestId('tool-error-message')).toHaveText('refused for the e2e test');

  await error.getByTestId('tool-view-traffic').click();
  await expect(page.getByTestId('view-traffic')).toHaveAttribute('aria-selected', 'true');
  // The selected event is this call's request: a tools/call whose payload carries these arguments.
  const selected = page.locator('[data-testid="traffic-row"][aria-selected="true"]');
  await expect(selected).toHaveAttribute('data-kind', 'http-request');
  await expect(selected).toContainText('tools/call');
  const detail = page.getByTestId('traffic-detail');
  await expect(detail).toHaveAttribute('data-seq', (await selected.getAttribute('data-seq'))!);
  await detail.getByTestId('traffic-tab-payload').click();
  await expect(detail).toContainText('refused for the e2e test');
});
