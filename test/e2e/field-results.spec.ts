/**
 * Issue #11, items 8, 19 and 20, against the published reference server (server-everything over
 * stdio) through the built browser mode in Chromium:
 *  8. resource links in a tool result are read in place (and errors show as errors), annotations
 *     show outside Raw, a text/plain blob gets a UTF-8 preview (in Resources and in a result);
 * 19. Resources (and Prompts) keep their selection across a switch to another view;
 * 20. a cut tool name shows whole on hover, the explorer is resized by its splitter (mouse and
 *     keyboard) and keeps its width across a reload.
 */
import { resolve } from 'node:path';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { JS_URL, hostileStdioCommand } from '../fixtures/hostile/harness';
import { openApp, startBrowserMode, type BrowserModeApp } from './support/browser-mode';
import { promptItem, resourceItem, serverId, showView, templateItem, waitConnected } from './support/resources';
import { bothThemes } from './support/screenshots';
import { addServer, callTool, shellQuote } from './support/ui';

const EVERYTHING = resolve(import.meta.dirname, '../../node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const NAME = 'everything';
const ANNOTATED = 'everything__get-annotated-message';

let app: BrowserModeApp;

test.beforeAll(async () => {
  app = await startBrowserMode();
});

test.afterAll(async () => {
  await app?.close();
});

test.describe.configure({ mode: 'serial' });

async function ready(page: Page): Promise<string> {
  await page.setViewportSize({ width: 1400, height: 900 });
  await openApp(page, app);
  const item = page.locator(`[data-testid="server-item"][data-server-name="${NAME}"]`);
  if ((await item.count()) === 0) await addServer(page, { name: NAME, command: shellQuote([process.execPath, EVERYTHING, 'stdio']) });
  await waitConnected(page, NAME);
  return serverId(page, NAME);
}


function link(result: Locator, name: string): Locator {
  return result.getByTestId('tool-result-link').filter({ has: result.page().getByTestId('resource-facts-name').filter({ hasText: name }) });
}

test('item 8: resource links from get-resource-links are read in place, through the same server', async ({ page }) => {
  await ready(page);
  const result = await callTool(page, 'everything__get-resource-links', { count: 3 });
  await expect(result.getByTestId('tool-result-link')).toHaveCount(3);

  // What the link says, before anything is read.
  const text = link(result, 'Text Resource 2');
  await expect(text.getByTestId('resource-facts-uri')).toHaveText('demo://resource/dynamic/text/2');
  await expect(text.getByTestId('resource-facts-mime')).toHaveText('text/plain');
  await expect(text).toContainText('Resource 2: plaintext resource');
  await expect(text.getByTestId('tool-result-link-content')).toHaveCount(0);

  // Read: resources/read on the server, shown under the link with the Resources view's content view.
  await text.getByTestId('tool-result-link-read').click();
  const textContent = text.getByTestId('tool-result-link-content');
  await expect(textContent.getByTestId('resource-result')).toBeVisible();
  await expect(textContent.getByTestId('resource-content')).toHaveAttribute('data-kind', 'text');
  await expect(textContent.getByTestId('content-text')).toContainText('Resource 2: This is a plaintext resource created at');
  await expect(textContent.getByTestId('content-uri')).toHaveText('demo://resource/dynamic/text/2');

  // A blob link: its text/plain blob is previewed as text, besides the download.
  const blob = link(result, 'Blob Resource 1');
  await blob.getByTestId('tool-result-link-read').click();
  const blobContent = blob.getByTestId('tool-result-link-content');
  await expect(blobContent.getByTestId('resource-content')).toHaveAttribute('data-kind', 'text-blob');
  await expect(blobContent.getByTestId('content-blob-text')).toContainText('Resource 1: This is a base64 blob created at');
  await expect(blobContent.getByTestId('content-blob-preview-note')).toContainText('all');
  await expect(blobContent.getByTestId('content-blob-preview')).toHaveAttribute('data-invalid-utf8', 'false');
  await expect(blobContent.getByTestId('content-download')).toBeVisible();

  // Hide and show again without another read.
  await blob.getByTestId('tool-result-link-toggle').click();
  await expect(blob.getByTestId('tool-result-link-content')).toHaveCount(0);
  await blob.getByTestId('tool-result-link-toggle').click();
  await expect(blob.getByTestId('content-blob-text')).toBeVisible();

  await result.getByTestId('tool-result-link').first().scrollIntoViewIfNeeded();
  await bothThemes(page, 'result-links', { pointer: { x: 0, y: 0 } });
});

test('item 8: a link the server cannot read (the hostile fixture\'s javascript: link) fails in place, as an error, and runs nothing', async ({ page }) => {
  await ready(page);
  const item = page.locator('[data-testid="server-item"][data-server-name="hostile"]');
  if ((await item.count()) === 0) {
    const { command, args } = hostileStdioCommand();
    await addServer(page, { name: 'hostile', command: shellQuote([command, ...args]) });
  }
  await waitConnected(page, 'hostile');
  await showView(page, 'tools');
  await page.getByTestId('tool-search').fill('render');
  const tool = await page.locator('[data-testid="tool-item"][data-tool-name^="hostile__render"]').first().getAttribute('data-tool-name');
  const result = await callTool(page, tool!, {});
  const js = result.getByTestId('tool-result-link').filter({ has: page.getByTestId('resource-facts-uri').filter({ hasText: JS_URL }) });
  await expect(js).toHaveCount(1);
  await js.getByTestId('tool-result-link-read').click();
  const error = js.getByTestId('resource-error');
  await expect(error).toBeVisible();
  await expect(error).toContainText('Read failed');
  await expect(error).toContainText(JS_URL);
  await expect(js.getByTestId('resource-result')).toHaveCount(0);
  expect(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).toBeUndefined();
  await expect(page).toHaveURL(new RegExp(`^${app.origin}`));
});

test('item 8: "Open in Resources" selects the linked resource there (unlisted: a template resource) and reads it', async ({ page }) => {
  await ready(page);
  const result = await callTool(page, 'everything__get-resource-links', { count: 2 });
  await link(result, 'Text Resource 2').getByTestId('tool-result-link-open').click();
  await expect(page.getByTestId('view-resources')).toHaveAttribute('aria-selected', 'true');
  const detail = page.getByTestId('resource-detail');
  await expect(detail.getByTestId('resource-uri')).toHaveText('demo://resource/dynamic/text/2');
  await expect(detail).toHaveAttribute('data-unlisted', 'true');
  await expect(detail.getByTestId('content-text')).toContainText('Resource 2: This is a plaintext resource');
});

test('item 8: annotations of get-annotated-message show in the rendered result, not only in Raw', async ({ page }) => {
  await ready(page);
  const result = await callTool(page, ANNOTATED, { messageType: 'success', includeImage: true });
  await expect(result.getByTestId('tool-result-mode').locator('input[value="rendered"]')).toBeChecked();
  const chips = result.getByTestId('tool-result-annotations');
  await expect(chips).toHaveCount(2);
  // The text block: priority 0.7, for the user.
  await expect(chips.nth(0).getByTestId('annotation-priority')).toHaveText('priority 0.7 (medium)');
  await expect(chips.nth(0).getByTestId('annotation-audience')).toHaveText('for user');
  // The image block has its own.
  await expect(result.getByTestId('tool-result-image').getByTestId('annotation-priority')).toHaveText('priority 0.5 (medium)');
  await expect(result.getByTestId('tool-result-image').getByTestId('annotation-audience')).toHaveText('for user');

  const error = await callTool(page, ANNOTATED, { messageType: 'error', includeImage: false });
  await expect(error.getByTestId('annotation-priority')).toHaveText('priority 1.0 (high)');
  await expect(error.getByTestId('annotation-audience')).toHaveText('for user + assistant');
  await expect(error.getByTestId('tool-result-text')).toHaveText('Error: Operation failed');

  await callTool(page, ANNOTATED, { messageType: 'success', includeImage: true });
  await expect(page.getByTestId('tool-result').getByTestId('tool-result-annotations')).toHaveCount(2);
  await bothThemes(page, 'result-annotations', { pointer: { x: 0, y: 0 } });
});

test('item 8: a text/plain blob resource gets a preview in Resources, and an embedded one in a result', async ({ page }) => {
  const id = await ready(page);
  await showView(page, 'resources');
  await templateItem(page, id, 'demo://resource/dynamic/blob/{resourceId}').click();
  const detail = page.getByTestId('template-detail');
  await detail.getByTestId('template-var-resourceId').fill('7');
  await expect(detail.getByTestId('template-expanded')).toHaveText('demo://resource/dynamic/blob/7');
  await detail.getByTestId('template-read').click();
  const content = detail.getByTestId('resource-content');
  await expect(content).toHaveAttribute('data-kind', 'text-blob');
  await expect(content.getByTestId('content-blob-text')).toContainText('Resource 7: This is a base64 blob created at');
  const preview = content.getByTestId('content-blob-preview');
  const total = Number(await preview.getAttribute('data-total-bytes'));
  expect(total).toBeGreaterThan(40);
  await expect(preview).toHaveAttribute('data-shown-bytes', String(total));
  await expect(content.getByTestId('content-download')).toBeVisible();
  await page.mouse.move(0, 0);
  await bothThemes(page, 'resources-blob-preview', { pointer: { x: 0, y: 0 } });

  // get-resource-reference embeds the blob resource in the result itself.
  const result = await callTool(page, 'everything__get-resource-reference', { resourceType: 'Blob', resourceId: 2 });
  const embedded = result.getByTestId('tool-result-resource');
  await expect(embedded.getByTestId('resource-facts-uri')).toHaveText('demo://resource/dynamic/blob/2');
  await expect(embedded.getByTestId('tool-result-resource-blob')).toHaveAttribute('data-kind', 'text-blob');
  await expect(embedded.getByTestId('content-blob-text')).toContainText('Resource 2: This is a base64 blob created at');
  await expect(embedded.getByTestId('tool-result-download')).toBeVisible();
});

test('item 19: Resources and Prompts keep their selection (and the read result) across a switch to Tools', async ({ page }) => {
  const id = await ready(page);
  const uri = 'demo://resource/static/document/features.md';
  await showView(page, 'resources');
  await resourceItem(page, id, uri).click();
  await page.getByTestId('resource-detail').getByTestId('resource-read').click();
  await expect(page.getByTestId('resource-detail').getByTestId('content-text')).toBeVisible();

  // Scrolled to the end of the list (a short window makes it scroll).
  await page.setViewportSize({ width: 1400, height: 600 });
  const list = page.getByTestId('resource-list');
  const scrolled = await list.evaluate((el) => {
    el.scrollTop = el.scrollHeight;
    return el.scrollTop;
  });
  expect(scrolled).toBeGreaterThan(0);
  await expect(page.getByTestId('list-group').first()).not.toBeInViewport();

  await showView(page, 'prompts');
  await promptItem(page, 'everything__simple-prompt').click();
  await expect(promptItem(page, 'everything__simple-prompt')).toHaveAttribute('aria-selected', 'true');

  await showView(page, 'tools');
  await expect(page.getByTestId('tools-view')).toBeVisible();
  await showView(page, 'resources');
  await expect(resourceItem(page, id, uri)).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByTestId('resource-detail').getByTestId('resource-uri')).toHaveText(uri);
  await expect(page.getByTestId('resource-detail').getByTestId('content-text')).toBeVisible();
  await expect(page.getByTestId('resource-detail').getByTestId('resource-read')).toHaveText('Read again');
  await expect.poll(() => page.getByTestId('resource-list').evaluate((el) => el.scrollTop)).toBe(scrolled);

  await showView(page, 'prompts');
  await expect(promptItem(page, 'everything__simple-prompt')).toHaveAttribute('aria-selected', 'true');
});

test('item 20: the whole tool name on hover; the splitter widens the explorer (mouse and keyboard) until the name is whole; the width survives a reload', async ({ page }) => {
  await ready(page);
  await page.evaluate(() => (globalThis as unknown as { localStorage: { removeItem(key: string): void } }).localStorage.removeItem('switchboard.tools.explorerWidth'));
  await page.reload();
  await page.locator('body[data-app-state="ready"]').waitFor();
  await showView(page, 'tools');
  await page.getByTestId('tool-search').fill('');
  const row = page.locator(`[data-testid="tool-item"][data-tool-name="${ANNOTATED}"]`);
  await expect(row).toBeVisible();
  const name = row.getByTestId('tool-item-name').locator('span').first();
  const isCut = () => name.evaluate((el) => el.scrollWidth > el.clientWidth);

  // At the default width the name is cut: hovering shows it whole.
  expect(await isCut()).toBe(true);
  await row.hover();
  const tooltip = page.getByTestId('tool-name-tooltip');
  await expect(tooltip).toBeVisible();
  await expect(tooltip).toContainText(ANNOTATED);
  await expect(tooltip).toContainText('Get Annotated Message Tool');

  // Drag the splitter 220 px to the right.
  const pane = page.getByTestId('tool-explorer-pane');
  const splitter = page.getByTestId('tool-explorer-splitter');
  const before = (await pane.boundingBox())!.width;
  const box = (await splitter.boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width / 2 + 110, box.y + box.height / 2, { steps: 5 });
  await page.mouse.move(box.x + box.width / 2 + 220, box.y + box.height / 2, { steps: 5 });
  await page.mouse.up();
  await expect.poll(async () => (await pane.boundingBox())!.width).toBe(before + 220);
  expect(await isCut()).toBe(false);
  await expect(splitter).toHaveAttribute('aria-valuenow', String(before + 220));

  // The keyboard: → by 16, Shift+← by 64, bounded at both ends.
  await splitter.focus();
  await page.keyboard.press('ArrowRight');
  await expect(splitter).toHaveAttribute('aria-valuenow', String(before + 236));
  await page.keyboard.press('Shift+ArrowLeft');
  await expect(splitter).toHaveAttribute('aria-valuenow', String(before + 172));
  await page.keyboard.press('Home');
  await expect(splitter).toHaveAttribute('aria-valuenow', '240');
  await page.keyboard.press('End');
  const max = Number(await splitter.getAttribute('aria-valuemax'));
  await expect(splitter).toHaveAttribute('aria-valuenow', String(max));
  expect(max).toBeLessThanOrEqual(720);
  await page.keyboard.press('ArrowRight');
  await expect(splitter).toHaveAttribute('aria-valuenow', String(max));
  await page.keyboard.press('Home');
  for (let i = 0; i < 15; i++) await page.keyboard.press('ArrowRight');
  await expect(splitter).toHaveAttribute('aria-valuenow', String(240 + 15 * 16));
  await expect.poll(async () => (await pane.boundingBox())!.width).toBe(480);

  // A reload keeps it.
  await page.reload();
  await page.locator('body[data-app-state="ready"]').waitFor();
  await showView(page, 'tools');
  await expect(page.getByTestId('tool-explorer-splitter')).toHaveAttribute('aria-valuenow', '480');
  await expect.poll(async () => (await page.getByTestId('tool-explorer-pane').boundingBox())!.width).toBe(480);
  await expect(row).toBeVisible();
  expect(await isCut()).toBe(false);

  await row.click();
  await expect(page.getByTestId('tool-detail')).toHaveAttribute('data-tool-name', ANNOTATED);
  await page.mouse.move(0, 0);
  await bothThemes(page, 'tools-explorer-wide', { pointer: { x: 0, y: 0 } });
});
