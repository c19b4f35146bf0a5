/**
 * The renderer survives anything, and tells the truth when main is gone (issue #10), in the real
 * browser mode with the hostile fixture over stdio:
 * - a 5,000-deep result shows "… N more levels" and the page stays responsive;
 * - a 50 MB text result is cut, with Show all and Save to file (the saved file is whole);
 * - 5,000-deep arguments typed in the JSON tab get a clear message and are not sent;
 * - a self-referential input schema gets a (bounded) form and its validation ends;
 * - a view's render error stays in that view, and "Reload this view" brings it back;
 * - main SIGKILLed during a slow call: banner, grey dots, the call failed; main restarted on the
 *   same port and token: banner gone, dots back, calls work; restarted with a new token: said so.
 * Screenshots (light and dark) go to test-results/screenshots/.
 */
import { statSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { expect, test, type Page } from '@playwright/test';
import { DEEP_LEVELS, HOSTILE_TOOL_NAMES, HUGE_TEXT_CHARS, hostileStdioCommand } from '../fixtures/hostile/harness';
import { mainCall, openApp, startBrowserMode, type BrowserModeApp } from './support/browser-mode';
import { openTool, run, showJson, toolDetail } from './support/tools';
import { addServer, shellQuote } from './support/ui';
import { bothThemes } from './support/screenshots';

const tool = (bare: string) => `hostile__${bare}`;

async function addHostile(page: Page): Promise<void> {
  const { command, args } = hostileStdioCommand();
  await addServer(page, { name: 'hostile', command: shellQuote([command, ...args]) });
  await expect(page.locator('[data-testid="server-item"][data-server-name="hostile"]')).toHaveAttribute('data-state', 'connected', { timeout: 30_000 });
}

/** The page still answers: switching views works (what a hung main thread could not do). */
async function responsive(page: Page): Promise<void> {
  await page.getByTestId('view-logs').click({ timeout: 5_000 });
  await expect(page.getByTestId('logs-view')).toBeVisible({ timeout: 5_000 });
  await page.getByTestId('view-tools').click({ timeout: 5_000 });
  await expect(page.getByTestId('tools-view')).toBeVisible({ timeout: 5_000 });
}


test.describe('payloads and arguments', () => {
  let app: BrowserModeApp;
  test.beforeAll(async () => {
    app = await startBrowserMode();
  });
  test.afterAll(async () => {
    await app?.close();
  });

  test('deep and huge results, deep arguments, a self-referential schema, a failing view', async ({ page }) => {
    test.setTimeout(360_000);
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    const consoleErrors: string[] = [];
    page.on('console', (message) => message.type() === 'error' && consoleErrors.push(message.text()));
    await openApp(page, app);
    await addHostile(page);

    // 1. A result nested 5,000 levels deep: main cut it; the tree shows the cut as a row.
    const deep = await openTool(page, tool(HOSTILE_TOOL_NAMES.deepResult));
    await run(page);
    const structured = deep.getByTestId('tool-result-structured');
    await expect(structured).toBeVisible({ timeout: 30_000 });
    // The JSON view for a small value, the tree for a big one: ask for the tree.
    await deep.getByTestId('tool-result').getByText('Tree', { exact: true }).click();
    // Expand down to the cut (the tree opens two levels; each click opens one more).
    for (let i = 0; i < 80 && (await structured.getByTestId('json-truncated').count()) === 0; i++) {
      await structured.locator('button[aria-expanded="false"]').first().click();
    }
    const marker = structured.getByTestId('json-truncated');
    await expect(marker).toContainText(/… [\d,]+ more levels/);
    expect(Number(await marker.getAttribute('data-levels'))).toBeGreaterThan(DEEP_LEVELS - 100);
    await marker.scrollIntoViewIfNeeded();
    await bothThemes(page, 'deep-result', { pointer: { x: 0, y: 0 } });
    await responsive(page);
    await openTool(page, tool(HOSTILE_TOOL_NAMES.deepResult));
    // The Raw tab: the bytes as the server sent them, from the trace, not a re-serialization.
    await deep.getByTestId('tool-result-mode').getByText('Raw', { exact: true }).click();
    await deep.getByTestId('tool-raw-load').click();
    const rawText = deep.getByTestId('tool-raw-text');
    await expect(rawText).toContainText('{"d":{"d":{"d":');
    await expect(rawText).not.toContainText('$switchboard:truncated');
    await expect(deep.getByTestId('tool-raw-save')).toBeVisible();
    // Traffic: the answer's body is a cut tree that says so, and Raw is the bytes as received.
    const answers = await mainCall(app, 'traceQuery', { kinds: ['jsonrpc-in'], order: 'desc', limit: 200 });
    const answer = (answers.result as { events: { seq: number; raw?: string }[] }).events.find((e) => e.raw?.includes('"deep":{"d":'));
    expect(answer).toBeDefined();
    await deep.getByTestId('tool-view-traffic').click();
    await page.locator(`[data-testid="traffic-row"][data-seq="${answer!.seq}"]`).click();
    const body = page.getByTestId('traffic-body');
    await expect(body.getByTestId('traffic-body-cut')).toContainText('nested deeper than 64 levels');
    await expect(body.getByTestId('traffic-body-tree')).toBeVisible();
    await body.getByText('Raw', { exact: true }).click();
    await expect(body.getByTestId('traffic-body-raw')).toContainText('{"d":{"d":{"d":');
    await expect(body.getByTestId('traffic-body-raw')).not.toContainText('$switchboard:truncated');
    await page.getByTestId('view-tools').click();

    // 2. 50 MB of text: cut, with Show all and Save to file; the saved file is all of it.
    const huge = await openTool(page, tool(HOSTILE_TOOL_NAMES.hugeText));
    await run(page);
    const cut = huge.getByTestId('tool-result-truncated');
    // 50 MB through the server, main and the page: slow on a loaded machine, so a long wait.
    await expect(cut).toBeVisible({ timeout: 150_000 });
    await expect(cut).toContainText(`Truncated at 20 KB (of ${(HUGE_TEXT_CHARS / 1_000_000).toFixed(1)} MB)`);
    await expect(cut).toContainText(`of ${HUGE_TEXT_CHARS.toLocaleString('en-US')} characters`);
    await expect(huge.getByTestId('tool-result-show-all')).toBeVisible();
    const download = page.waitForEvent('download');
    await huge.getByTestId('tool-result-save').click();
    const saved = await (await download).path();
    expect(statSync(saved).size).toBe(HUGE_TEXT_CHARS);
    await responsive(page);
    await openTool(page, tool(HOSTILE_TOOL_NAMES.hugeText));
    await cut.scrollIntoViewIfNeeded();
    await bothThemes(page, 'huge-result', { pointer: { x: 0, y: 0 } });

    // 3. Arguments 5,000 levels deep typed in the JSON tab: said at once, never sent.
    const echo = await openTool(page, tool(HOSTILE_TOOL_NAMES.echo));
    const area = await showJson(page);
    await area.fill(`{"text": "deep", "d": ${'{"d":'.repeat(DEEP_LEVELS)}1${'}'.repeat(DEEP_LEVELS)}}`);
    const message = echo.getByTestId('tool-args-error');
    await expect(message).toContainText(`nested ${(DEEP_LEVELS + 1).toLocaleString('en-US')} levels deep`);
    await expect(message).toContainText('at most 64');
    await expect(echo.getByTestId('tool-call')).toBeDisabled();
    await area.press('Control+Enter');
    // Then a call that is sent: if the deep one had gone out, it would be in the trace before it.
    await area.fill('{"text": "after the deep one"}');
    await run(page);
    await expect(echo.getByTestId('tool-result-text')).toContainText('echo: after the deep one');
    const calls = await mainCall(app, 'traceQuery', { methods: ['tools/call'], kinds: ['jsonrpc-out'], limit: 5000 });
    expect(calls.ok).toBe(true);
    const echoCalls = (calls.result as { events: { body?: { params?: { name?: string; arguments?: Record<string, unknown> } } }[] }).events.filter((e) => e.body?.params?.name === HOSTILE_TOOL_NAMES.echo);
    expect(echoCalls.map((e) => e.body?.params?.arguments)).toEqual([{ text: 'after the deep one' }]);

    // 4. An input schema that refers to itself ($ref "#", recursive $defs): a form, bounded.
    const self = await openTool(page, tool(HOSTILE_TOOL_NAMES.selfSchema));
    await expect(self.getByTestId('tool-form')).toBeVisible();
    await self.locator('[data-field-path="name"]').fill('root');
    let path = '';
    for (let level = 0; level < 3; level++) {
      path = path ? `${path}.child` : 'child';
      // The live validation answers 150 ms after an edit and can add or remove a field's message
      // above the button: wait for its verdict, so the click is not aimed at where the button was.
      await expect(self.getByTestId('tool-args-valid')).toBeVisible();
      await self.locator(`[data-object-add="${path}"]`).click();
      // Said here, at once, if the click added nothing (CI once spent the test's whole budget waiting at this step).
      const added = self.locator(`[data-field-path="${path}.name"]`);
      await expect(added, `"Add ${path}" made a ${path}.name field (page errors: ${pageErrors.join(' | ').slice(0, 500) || 'none'})`).toBeVisible({ timeout: 20_000 });
      await added.fill(`level ${level + 1}`);
    }
    // The fourth "child" is where the recursion stops being a form: a JSON editor of its own.
    const rawChild = self.locator(`textarea[data-field-path="${path}.child"]`);
    await expect(rawChild).toBeVisible();
    await rawChild.fill('{"name": "level 4"}');
    await expect(self.getByTestId('tool-args-valid')).toBeVisible();
    await rawChild.fill('{"name": 4}');
    await expect(self.getByTestId('tool-args-invalid')).toBeVisible();
    // The form measures depth before sending too: 5,000 levels in the JSON editor of a field.
    await rawChild.fill(`{"name": ${'['.repeat(DEEP_LEVELS)}${']'.repeat(DEEP_LEVELS)}}`);
    await expect(self.getByTestId('tool-args-unchecked')).toContainText('deeper than 64 levels');
    await run(page);
    await expect(self.getByTestId('tool-args-too-deep')).toContainText('at most 64');
    await expect(self.getByTestId('tool-result')).toHaveCount(0);
    await rawChild.fill('{"name": "level 4"}');
    await expect(self.getByTestId('tool-args-valid')).toBeVisible();
    await run(page);
    await expect(self.getByTestId('tool-result-text')).toContainText('"level 4"');

    // 5. A view that fails to render stays in its box; the others work; "Reload this view" recovers it.
    await page.evaluate("sessionStorage.setItem('switchboard:fail-view', 'logs')");
    await page.getByTestId('view-logs').click();
    const failed = page.getByTestId('view-failed');
    await expect(failed).toContainText('This view failed: test hook');
    await expect(page.getByTestId('logs-view')).toHaveCount(0);
    await page.getByTestId('view-tools').click();
    await expect(page.getByTestId('tools-view')).toBeVisible();
    await page.getByTestId('view-logs').click();
    await expect(failed).toBeVisible();
    expect(consoleErrors.some((e) => e.includes('the logs view failed to render'))).toBe(true);
    await page.evaluate("sessionStorage.removeItem('switchboard:fail-view')");
    await page.getByTestId('view-reload').click();
    await expect(page.getByTestId('logs-view')).toBeVisible();
    await expect(failed).toHaveCount(0);

    expect(pageErrors).toEqual([]);
  });
});

test.describe('main process gone', () => {
  const token = randomBytes(32).toString('hex');
  let app: BrowserModeApp;
  test.afterAll(async () => {
    await app?.close();
  });

  test('killed during a slow call: banner, grey dots, failed call; back on the same port and token: everything again', async ({ page }) => {
    test.setTimeout(180_000);
    app = await startBrowserMode([], { env: { SWITCHBOARD_WEB_TOKEN: token } });
    const port = new URL(app.url).port;
    const dataDir = app.dataDir;
    await openApp(page, app);
    await addHostile(page);
    const server = page.locator('[data-testid="server-item"][data-server-name="hostile"]');

    const slow = await openTool(page, tool(HOSTILE_TOOL_NAMES.slow));
    await run(page);
    await expect(slow.getByTestId('tool-running')).toBeVisible();

    app.process.kill('SIGKILL');
    const banner = page.getByTestId('main-gone');
    await expect(banner).toContainText('Main process gone — reconnecting…');
    await expect(banner.getByTestId('main-gone-reconnect')).toBeVisible();
    await expect(server).toHaveAttribute('data-state', 'unknown');
    await expect(server.getByTestId('server-state-dot')).toHaveAttribute('data-state', 'unknown');
    await server.getByTestId('server-state-dot').hover();
    await expect(page.getByText("State unknown: Switchboard's main process is not reachable")).toBeVisible();
    await expect(slow.getByTestId('tool-error')).toContainText("Switchboard's main process is not reachable");
    await expect(slow.getByTestId('tool-running')).toHaveCount(0);
    // The attempts count up while main stays away.
    await expect(banner).toHaveAttribute('data-attempts', /^[2-9]|\d\d/);
    await bothThemes(page, 'main-gone', { pointer: { x: 0, y: 0 } });
    // "Reconnect now" tries at once instead of waiting out the backoff.
    const before = Number(await banner.getAttribute('data-attempts'));
    await banner.getByTestId('main-gone-reconnect').click();
    await expect.poll(async () => Number(await banner.getAttribute('data-attempts'))).toBeGreaterThan(before);

    // Back on the same port with the same token (settings kept): the page finds it again.
    app = await startBrowserMode(['--port', port], { dataDir, env: { SWITCHBOARD_WEB_TOKEN: token } });
    await expect(banner).toHaveCount(0, { timeout: 30_000 });
    // The dots tell the state of the new main again: the server it was connected to when it died
    // connects again by itself (Connect at start, on by default).
    await expect(server).toHaveAttribute('data-state', 'connected', { timeout: 30_000 });
    await openTool(page, tool(HOSTILE_TOOL_NAMES.echo));
    const area = await showJson(page);
    await area.fill('{"text": "after the restart"}');
    await run(page);
    await expect(toolDetail(page).getByTestId('tool-result-text')).toContainText('echo: after the restart');
    // Live updates resumed: the new call's events reach the Traffic view.
    await page.getByTestId('view-traffic').click();
    await expect(page.getByTestId('traffic-view')).toContainText('tools/call');

    // Back with a different token (a plain restart): the page cannot follow, and says why.
    app.process.kill('SIGKILL');
    await expect(banner).toHaveAttribute('data-status', 'lost');
    app = await startBrowserMode(['--port', port], { dataDir, env: { SWITCHBOARD_WEB_TOKEN: randomBytes(32).toString('hex') } });
    await expect(banner).toHaveAttribute('data-status', 'new-token', { timeout: 30_000 });
    await expect(banner).toContainText('Switchboard restarted with a new token: open the URL it printed');
  });
});
