/**
 * The Tools view against the real "everything" fixture: a nested form (create_order) filled in
 * through the generated form and through JSON, kept in sync; progress and cancellation
 * (slow_count); structured results checked against the output schema (add); protocol errors
 * versus isError results; history, saved calls and remembered inputs; name collisions; and the
 * view's screenshots.
 */
import { expect, test, type Page } from '@playwright/test';
import { startFixture, stdioFixtureCommand, type RunningFixture } from '../fixtures/everything/harness';
import { openApp, startBrowserMode, type BrowserModeApp } from './support/browser-mode';
import { field, jsonArgs, openTool, pickOption, progressValue, run, showForm, showJson, toolDetail } from './support/tools';
import { addServer, callTool, shellQuote } from './support/ui';
import { bothThemes } from './support/screenshots';
import { apiCall } from './support/charts';

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

test.describe.configure({ mode: 'serial' });

async function ready(page: Page): Promise<void> {
  await openApp(page, app);
  const item = page.locator('[data-testid="server-item"][data-server-name="everything"]');
  if ((await item.count()) === 0) await addServer(page, { name: 'everything', url: http.url });
  await expect(item).toHaveAttribute('data-state', 'connected');
  await expect(page.locator('[data-tool-name="everything__create_order"]')).toBeVisible();
}

/** Fills create_order's nested form: customer, two items (one added), shipping, null notes, priority. */
async function fillOrderForm(page: Page): Promise<void> {
  await field(page, 'customer.name').fill('Ada Lovelace');
  await field(page, 'customer.email').fill('ada@example.com');
  // items has minItems 1: the form starts with one item.
  await field(page, 'items.0.sku').fill('WIDGET-1');
  await field(page, 'items.0.qty').fill('2');
  await toolDetail(page).locator('[data-array-add="items"]').click();
  await field(page, 'items.1.sku').fill('GADGET-7');
  await field(page, 'items.1.qty').fill('3');
  // shipping is an optional nested object: add it, then fill its own nested address.
  await toolDetail(page).locator('[data-object-add="shipping"]').click();
  await field(page, 'shipping.address.street').fill('12 Analytical Row');
  await field(page, 'shipping.address.city').fill('London');
  await field(page, 'shipping.address.zip').fill('N1 9GU');
  await field(page, 'shipping.express').check();
  await toolDetail(page).locator('[data-null-toggle="notes"]').check();
  await pickOption(page, 'priority', 'high');
}

const ORDER = {
  customer: { name: 'Ada Lovelace', email: 'ada@example.com' },
  items: [
    { sku: 'WIDGET-1', qty: 2 },
    { sku: 'GADGET-7', qty: 3 },
  ],
  shipping: { express: true, address: { street: '12 Analytical Row', city: 'London', zip: 'N1 9GU' } },
  notes: null,
  priority: 'high',
};

test('create_order through the generated form: nested fields, an added array item, the JSON tab in sync', async ({ page }) => {
  await ready(page);
  const detail = await openTool(page, 'everything__create_order');
  await showForm(page);
  // Defaults are pre-filled (priority "normal"; one item for minItems 1) and required fields are marked.
  await expect(field(page, 'priority')).toHaveValue('normal');
  await expect(detail.locator('[data-field="items.0"]')).toHaveCount(1);
  await fillOrderForm(page);
  await expect(detail.getByTestId('tool-args-valid')).toBeVisible();
  expect(await jsonArgs(page)).toEqual(ORDER);

  await run(page);
  const result = detail.getByTestId('tool-result');
  await expect(result.getByTestId('tool-result-text')).toHaveText(
    /order ord-\d{4} for Ada Lovelace <ada@example.com>: 2 line\(s\), 5 unit\(s\), express shipping, priority high/,
  );
  await expect(result.getByTestId('tool-output-valid')).toHaveText('matches output schema');
  await expect(result.getByTestId('tool-result-structured')).toContainText('totalQty');
});

test('create_order through the JSON editor; the form follows; invalid input is caught before sending', async ({ page }) => {
  await ready(page);
  const detail = await openTool(page, 'everything__create_order');
  const area = await showJson(page);
  const order = { customer: { name: 'Grace Hopper', email: 'grace@example.com' }, items: [{ sku: 'COBOL-1', qty: 4 }], priority: 'low' };
  await area.fill(JSON.stringify(order, null, 2));
  await showForm(page);
  await expect(field(page, 'customer.name')).toHaveValue('Grace Hopper');
  await expect(field(page, 'items.0.qty')).toHaveValue('4');
  await expect(detail.locator('[data-object-add="shipping"]')).toBeVisible();

  // A bad e-mail and a zero quantity: shown on the fields, and Run does not send.
  await field(page, 'customer.email').fill('not-an-email');
  await field(page, 'items.0.qty').fill('0');
  await run(page);
  await expect(detail.getByTestId('tool-blocked')).toBeVisible();
  await expect(detail.locator('[data-field="customer.email"]')).toContainText('format');
  await expect(detail.locator('[data-field="items.0.qty"]')).toContainText('1');
  await expect(detail.getByTestId('tool-response')).toContainText('Not sent');
  await expect(detail.getByTestId('tool-result')).toHaveCount(0);

  // Fixed in JSON, sent.
  await (await showJson(page)).fill(JSON.stringify(order));
  await run(page);
  await expect(detail.getByTestId('tool-result-text')).toContainText('order ord-');
  await expect(detail.getByTestId('tool-result-text')).toContainText('for Grace Hopper <grace@example.com>: 1 line(s), 4 unit(s), standard shipping, priority low');
});

test('slow_count: the progress bar moves, and Cancel ends the call promptly', async ({ page }) => {
  await ready(page);
  const detail = await openTool(page, 'everything__slow_count');
  await (await showJson(page)).fill(JSON.stringify({ steps: 50, delayMs: 200 }));
  await run(page);
  const startedAt = Date.now();
  await expect(detail.getByTestId('tool-running')).toBeVisible();
  await expect.poll(() => progressValue(page), { timeout: 5_000 }).toBeGreaterThan(0);
  const first = await progressValue(page);
  // the bar moves: a later step's notification arrives and is shown
  await expect.poll(() => progressValue(page), { timeout: 5_000 }).toBeGreaterThan(first);
  await expect(detail.getByTestId('tool-progress-text')).toContainText('/ 50');
  await expect(detail.getByTestId('tool-progress-text')).toContainText(/step \d+\/50/);
  const elapsed = await detail.getByTestId('tool-elapsed').textContent();
  expect(elapsed).toMatch(/\d/);

  await detail.getByTestId('tool-cancel').click();
  const clickedAt = Date.now();
  await expect(detail.getByTestId('tool-cancelled')).toBeVisible({ timeout: 3_000 });
  // 50 steps × 200 ms would take 10 s; the call ended right after Cancel.
  expect(Date.now() - clickedAt).toBeLessThan(3_000);
  expect(Date.now() - startedAt).toBeLessThan(9_000);
  await expect(detail.getByTestId('tool-running')).toHaveCount(0);
  await expect(detail.getByTestId('tool-call')).toBeEnabled();
});

test('add: structured content checked against the output schema; isError and protocol errors look different', async ({ page }) => {
  await ready(page);
  const add = await callTool(page, 'everything__add', { a: 2, b: 40 });
  await expect(add.getByTestId('tool-result-structured')).toContainText('"sum": 42');
  await expect(add.getByTestId('tool-output-valid')).toHaveText('matches output schema');
  await expect(add).toHaveAttribute('data-is-error', 'false');
  // "View in Traffic" jumps to the Traffic view (which shows that exchange).
  await add.getByTestId('tool-view-traffic').click();
  await expect(page.getByTestId('view-traffic')).toHaveAttribute('aria-selected', 'true');
  await page.getByTestId('view-tools').click();
  await expect(toolDetail(page).getByTestId('tool-output-valid')).toBeVisible();

  const failing = await callTool(page, 'everything__fail', { message: 'it broke on purpose' });
  await expect(failing).toHaveAttribute('data-is-error', 'true');
  await expect(failing.getByTestId('tool-result-iserror')).toHaveText('tool reported an error');

  await openTool(page, 'everything__protocol_error');
  await (await showJson(page)).fill('{}');
  await run(page);
  const error = toolDetail(page).getByTestId('tool-error');
  await expect(error).toBeVisible();
  await expect(error).toHaveAttribute('data-kind', 'rpc');
  await expect(error).toContainText('JSON-RPC error -32602');
  await expect(toolDetail(page).getByTestId('tool-result')).toHaveCount(0);
});

test('history re-fills and re-runs; a saved call runs from its collection; inputs are remembered', async ({ page }) => {
  await ready(page);
  // Inputs are remembered only while argument values may be kept (#18): off until switched on.
  await page.getByTestId('tools-tab-history').click();
  const remember = page.getByTestId('remember-arguments');
  await expect(remember).not.toBeChecked();
  await remember.check({ force: true });
  await expect.poll(async () => (await apiCall<{ auditArgumentValues: boolean }>(page, 'getSettings', {})).auditArgumentValues).toBe(true);
  await page.getByTestId('tools-tab-tools').click();
  await callTool(page, 'everything__echo', { text: 'from history' });
  await openTool(page, 'everything__add');

  await page.getByTestId('tools-tab-history').click();
  const echoEntry = page.locator('[data-testid="history-item"][data-tool-name="everything__echo"]').first();
  await expect(echoEntry).toHaveAttribute('data-outcome', 'ok');
  await expect(echoEntry).toContainText('from history');
  const before = await page.getByTestId('history-item').count();
  await echoEntry.click();
  await expect(toolDetail(page)).toHaveAttribute('data-tool-name', 'everything__echo');
  await expect(toolDetail(page).getByTestId('tool-args-origin')).toHaveAttribute('data-origin', 'history');
  expect(await jsonArgs(page)).toEqual({ text: 'from history' });
  await page.locator('[data-testid="history-item"][data-tool-name="everything__echo"]').first().locator('xpath=..').getByTestId('history-run-again').click();
  await expect(toolDetail(page).getByTestId('tool-result-text')).toHaveText('echo: from history');
  await expect(page.getByTestId('history-item')).toHaveCount(before + 1);

  // Save add(1, 2) into the "everything" collection, then run it from there.
  await openTool(page, 'everything__add');
  await (await showJson(page)).fill(JSON.stringify({ a: 1, b: 2 }));
  await toolDetail(page).getByTestId('tool-save').click();
  await page.getByTestId('tool-save-name').fill('one plus two');
  await page.getByTestId('tool-save-confirm').click();
  await (await showJson(page)).fill(JSON.stringify({ a: 100, b: 100 }));
  await page.getByTestId('tools-tab-saved').click();
  const saved = page.locator('[data-testid="saved-collection"][data-server-name="everything"] [data-testid="saved-item"][data-saved-name="one plus two"]');
  await expect(saved).toBeVisible();
  await saved.getByTestId('saved-run').click();
  await expect(toolDetail(page).getByTestId('tool-result-structured')).toContainText('"sum": 3');

  // The last input of each tool comes back after a reload.
  await page.reload();
  await page.locator('body[data-app-state="ready"]').waitFor();
  await openTool(page, 'everything__add');
  await expect(toolDetail(page).getByTestId('tool-args-origin')).toHaveAttribute('data-origin', 'remembered');
  expect(await jsonArgs(page)).toEqual({ a: 1, b: 2 });

  await page.getByTestId('tools-tab-saved').click();
  await saved.getByTestId('saved-delete').click();
  await expect(saved).toHaveCount(0);
});

test('screenshots: a nested form and a structured result, light and dark', async ({ page }) => {
  await page.setViewportSize({ width: 1400, height: 900 });
  await ready(page);
  const detail = await openTool(page, 'everything__create_order');
  await showForm(page);
  await detail.getByTestId('tool-reset-args').click();
  await fillOrderForm(page);
  await run(page);
  await expect(detail.getByTestId('tool-output-valid')).toBeVisible();
  // The nested part of the form (items, shipping.address) in view; the response stays in view beside it.
  await detail.locator('[data-field="items"]').evaluate((el) => el.scrollIntoView({ block: 'start' }));
  await bothThemes(page, 'tools', { pointer: { x: 0, y: 0 } });
});

test('explorer: search, flat/grouped, collision badges listing the other servers', async ({ page }) => {
  await ready(page);
  const { command, args } = stdioFixtureCommand();
  await addServer(page, { name: 'everything local', command: shellQuote([command, ...args]) });
  await expect(page.locator('[data-testid="server-item"][data-server-name="everything local"]')).toHaveAttribute('data-state', 'connected');
  await page.getByTestId('tools-tab-tools').click();
  await expect(page.getByTestId('tool-count')).toContainText('16 tools from 2 connected servers');

  const echo = page.locator('[data-testid="tool-item"][data-tool-name="everything__echo"]');
  await echo.getByTestId('tool-collision').hover();
  await expect(page.getByRole('tooltip')).toContainText('everything-local__echo');

  await page.keyboard.press('Escape');
  await page.locator('body').click({ position: { x: 700, y: 20 } });
  await page.keyboard.press('/');
  await expect(page.getByTestId('tool-search')).toBeFocused();
  await page.keyboard.type('progress');
  await expect(page.getByTestId('tool-item')).toHaveCount(2);
  await expect(page.getByTestId('tool-count')).toContainText('2 of 16 tools');
  await page.getByTestId('tool-search').fill('');
  await page.getByTestId('tool-grouping').getByText('Flat').click();
  await expect(page.getByTestId('tool-group')).toHaveCount(0);
  await page.getByTestId('tool-grouping').getByText('By server').click();
  await expect(page.getByTestId('tool-group')).toHaveCount(2);
});
