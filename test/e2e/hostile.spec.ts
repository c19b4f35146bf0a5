/**
 * The hostile fixture (test/fixtures/hostile) over stdio: markup, `javascript:` URLs, SVG and
 * huge icons, ANSI escapes, bidi overrides, zero-width characters, a 1 MB string, 500-level
 * nesting and a catastrophic regular expression, in every place a server can put them. Every
 * panel that shows its data is opened; nothing may run, pop up, load or hang.
 */
import { expect, test, type Page } from '@playwright/test';
import { HOSTILE_TOOL_NAMES, hostileStdioCommand } from '../fixtures/hostile/harness';
import { openApp, startBrowserMode, type BrowserModeApp } from './support/browser-mode';
import { openTool, run, showJson, toolDetail } from './support/tools';
import { addServer, shellQuote } from './support/ui';
import { settled, shot } from './support/screenshots';

let app: BrowserModeApp;

test.beforeAll(async () => {
  app = await startBrowserMode();
});

test.afterAll(async () => {
  await app?.close();
});

/** The namespaced name the app gives a hostile tool (server "hostile"; long names are hashed). */
async function namespaced(page: Page, bare: string): Promise<string> {
  const names = await page.locator('[data-testid="tool-item"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-tool-name') ?? ''));
  const exact = names.find((n) => n === `hostile__${bare}`);
  if (exact) return exact;
  const prefix = names.find((n) => `hostile__${bare}`.startsWith(n.slice(0, 57)));
  if (!prefix) throw new Error(`no tool for ${bare} in ${names.join(', ')}`);
  return prefix;
}

/** The page still answers: switching to the Tools view works within 2 s. */
async function respondsQuickly(page: Page): Promise<void> {
  await page.getByTestId('view-tools').click({ timeout: 2_000 });
  await expect(page.getByTestId('tools-view')).toBeVisible({ timeout: 2_000 });
}

async function assertInert(page: Page): Promise<void> {
  expect(await page.evaluate('window.__pwned')).toBeUndefined();
  // A string expression: this file is type-checked without the DOM library.
  const dom = (await page.evaluate(`({
    handlers: document.querySelectorAll('[onerror], [onload], [onclick], [onmouseover]').length,
    scripts: [...document.querySelectorAll('script')].map((s) => s.getAttribute('src') ?? 'inline'),
    images: [...document.images].map((i) => i.getAttribute('src') ?? ''),
    media: [...document.querySelectorAll('audio, video, source')].map((m) => m.getAttribute('src') ?? ''),
    links: [...document.querySelectorAll('a[href]')].map((a) => a.getAttribute('href') ?? ''),
    frames: document.querySelectorAll('iframe, object, embed').length,
  })`)) as { handlers: number; scripts: string[]; images: string[]; media: string[]; links: string[]; frames: number };
  expect(dom.handlers).toBe(0);
  expect(dom.frames).toBe(0);
  for (const src of dom.scripts) expect(src).toMatch(/^\.?\/assets\/[\w.-]+\.js$/);
  for (const src of dom.images) expect(src).toMatch(/^data:image\/(png|jpeg|gif|webp);base64,/);
  for (const src of dom.media) expect(src).toMatch(/^data:audio\/[\w.+-]+;base64,/);
  for (const href of dom.links) expect(href).not.toMatch(/^\s*javascript:/i);
}

test('hostile server data is shown as inert text in every panel', async ({ page }) => {
  test.setTimeout(180_000);
  const dialogs: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));

  await openApp(page, app);
  const { command, args } = hostileStdioCommand();
  await addServer(page, { name: 'hostile', command: shellQuote([command, ...args]) });
  await expect(page.locator('[data-testid="server-item"][data-server-name="hostile"]')).toHaveAttribute('data-state', 'connected', { timeout: 30_000 });
  await expect(page.getByTestId('tool-count')).toContainText(`${Object.keys(HOSTILE_TOOL_NAMES).length} tools`);

  // Icons: the one real PNG renders; SVG, javascript:, remote, HTML and 2 MB data URIs do not.
  await expect(page.getByTestId('tool-icon')).toHaveCount(1);
  expect(await page.getByTestId('tool-icon-blocked').count()).toBeGreaterThanOrEqual(4);

  // Hidden characters in names and titles are visible tokens.
  await expect(page.getByTestId('tool-list')).toContainText('RLO');
  await expect(page.getByTestId('tool-list')).toContainText('ZWSP');

  // Every tool: its detail, and (where it takes no arguments) a call and its response.
  const noArgs = [HOSTILE_TOOL_NAMES.renderAll, HOSTILE_TOOL_NAMES.toolError, HOSTILE_TOOL_NAMES.rpcError, HOSTILE_TOOL_NAMES.separator, HOSTILE_TOOL_NAMES.dots, HOSTILE_TOOL_NAMES.logBomb, HOSTILE_TOOL_NAMES.schemaMismatch, HOSTILE_TOOL_NAMES.mega];
  for (const bare of noArgs) {
    const name = await namespaced(page, bare);
    const detail = await openTool(page, name);
    await expect(detail.getByTestId('tool-description').or(detail.getByText('No description.'))).toBeVisible();
    await run(page);
    await expect(detail.getByTestId('tool-result').or(detail.getByTestId('tool-error'))).toBeVisible({ timeout: 20_000 });
    await assertInert(page);
  }

  // The 1 MB result is clipped, with Show all and Save to file.
  await openTool(page, await namespaced(page, HOSTILE_TOOL_NAMES.mega));
  await expect(toolDetail(page).getByTestId('tool-result-truncated')).toContainText('Showing the first 20,000 of 1,048,576 characters');
  await expect(toolDetail(page).getByTestId('tool-result-save')).toBeVisible();
  await expect(toolDetail(page).getByTestId('tool-description')).toContainText('more characters');

  // The JSON-RPC error with a hostile message is a red protocol error, shown as text.
  await openTool(page, await namespaced(page, HOSTILE_TOOL_NAMES.rpcError));
  await expect(toolDetail(page).getByTestId('tool-error')).toHaveAttribute('data-kind', 'rpc');
  await expect(toolDetail(page).getByTestId('tool-error-message')).toContainText('<script>window.__pwned=1</script>');

  // Structured content that breaks the declared output schema: shown, with the mismatch flagged (not hidden, not refused).
  await openTool(page, await namespaced(page, HOSTILE_TOOL_NAMES.schemaMismatch));
  await expect(toolDetail(page).getByTestId('tool-output-mismatch').first()).toContainText('integer');
  await expect(toolDetail(page).getByTestId('tool-result')).toBeVisible();

  // A 500-level input schema: no form, a clear message, the JSON editor instead.
  const deep = await openTool(page, await namespaced(page, HOSTILE_TOOL_NAMES.deepSchema));
  await expect(deep.getByTestId('tool-schema-refused')).toContainText('nests');
  await expect(deep.getByTestId('tool-args')).toBeVisible();
  await deep.getByTestId('tool-input-schema-toggle').click();
  await expect(deep.getByTestId('tool-input-schema')).toBeVisible();
  await run(page);
  await expect(deep.getByTestId('tool-result-text')).toContainText('{"d":{"d":');

  // Markup in property names, enum values and defaults; a catastrophic pattern whose default
  // backtracks: validation is stopped in its worker and the page keeps answering.
  const nasty = await openTool(page, await namespaced(page, HOSTILE_TOOL_NAMES.nastyArgs));
  await expect(nasty.getByTestId('tool-form')).toContainText('<script>window.__pwned=1</script>');
  await respondsQuickly(page);
  await expect(nasty.getByTestId('tool-args-unchecked')).toContainText('stopped', { timeout: 8_000 });
  await respondsQuickly(page);
  await (await showJson(page)).fill('{"<script>window.__pwned=1</script>": "<img src=x onerror=\\"window.__pwned=1\\">"}');
  await run(page);
  await expect(nasty.getByTestId('tool-result-text')).toContainText('onerror');

  // Every content type at once: text, SVG/HTML "images" (not rendered), a PNG, audio, links, embedded resources, 500-level structured content.
  const all = await openTool(page, await namespaced(page, HOSTILE_TOOL_NAMES.renderAll));
  await run(page);
  const result = all.getByTestId('tool-result');
  await expect(result).toBeVisible();
  await expect(result.getByTestId('tool-result-media-blocked')).toHaveCount(2);
  await expect(result.getByTestId('tool-result-img')).toHaveCount(1);
  await expect(result.getByTestId('tool-result-audio-player')).toHaveCount(1);
  await expect(result.getByTestId('tool-result-link')).toHaveCount(2);
  await expect(result.getByTestId('tool-result-resource-text')).toContainText('<html><body><script>');
  await expect(result.getByTestId('tool-result-download')).toBeVisible();
  await expect(result.getByTestId('tool-result-structured')).toBeVisible();
  await expect(result.getByTestId('tool-result-text').first()).toContainText('ESC[31m');
  await assertInert(page);
  await all.getByTestId('tool-response').evaluate((el) => (el.scrollTop = 0));
  await page.mouse.move(0, 0);
  await settled(page);
  await page.screenshot({ path: shot('hostile.png') });

  // The other views that show server data.
  // Each shows the hostile server's data (its resource, its prompt, the log lines of log_bomb) before it is checked.
  const shown: Record<string, string> = { resources: 'resource-item', prompts: 'prompt-item', logs: 'log-line' };
  for (const view of ['resources', 'prompts', 'logs']) {
    const tab = page.getByTestId(`view-${view}`);
    if ((await tab.count()) === 0) continue;
    await tab.click();
    await expect(page.getByTestId(shown[view]!).first()).toBeVisible({ timeout: 10_000 });
    await assertInert(page);
    await respondsQuickly(page);
  }

  expect(dialogs).toEqual([]);
  expect(await page.evaluate('window.__pwned')).toBeUndefined();
  expect(pageErrors).toEqual([]);
  await respondsQuickly(page);
});
