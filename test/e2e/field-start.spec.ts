/**
 * Issue #11, what a new user met at the start, against the published reference servers in the
 * built browser mode: a refused connection and an unknown host read as sentences (item 4);
 * "Test connection" shows its result without a reload (item 5); the servers left connected come
 * back after a restart, "Connect at start" off keeps one down, Connect all / Disconnect all
 * (item 7); the command palette runs commands (item 9).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { freePort } from '../support/core-calls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { openApp, startBrowserMode, type BrowserModeApp } from './support/browser-mode';
import { bothThemes } from './support/screenshots';
import { addServer, shellQuote } from './support/ui';

const require = createRequire(import.meta.url);
const bin = (pkg: string) => require.resolve(`@modelcontextprotocol/${pkg}/dist/index.js`);
const everythingCommand = shellQuote([process.execPath, bin('server-everything'), 'stdio']);
const memoryCommand = shellQuote([process.execPath, bin('server-memory')]);

const item = (page: Page, name: string): Locator => page.locator(`[data-testid="server-item"][data-server-name="${name}"]`);



/** Stops browser mode as Ctrl+C does, keeping its data directory (close() would remove it). */
async function stop(app: BrowserModeApp): Promise<void> {
  if (app.process.exitCode !== null) return;
  const exited = new Promise((done) => app.process.once('exit', done));
  app.process.kill('SIGTERM');
  await exited;
}

async function serverMenu(page: Page, name: string, entry: string): Promise<void> {
  await item(page, name).getByTestId('server-menu').click();
  await page.getByRole('menuitem', { name: entry, exact: true }).click();
}

/** Opens the palette with its shortcut and types; with `first`, waits until that action is the one Enter runs. */
async function palette(page: Page, query: string, first?: RegExp): Promise<void> {
  // The shortcut works from anywhere but a text field (as in any app): leave the field first.
  await page.evaluate(() => (globalThis as unknown as { document: { activeElement: { blur?(): void } | null } }).document.activeElement?.blur?.());
  await page.keyboard.press('Control+K');
  const search = page.getByPlaceholder('Run a command, go to a view, server or tool…');
  await expect(search).toBeFocused();
  await search.fill(query);
  if (first) await expect(page.locator('[data-action][data-selected]')).toHaveText(first);
}

test.describe('one app: sentences, tests, the palette', () => {
  test.describe.configure({ mode: 'serial' });
  let app: BrowserModeApp;
  let port: number;
  test.beforeAll(async () => {
    app = await startBrowserMode();
    port = await freePort();
  });
  test.afterAll(async () => {
    await app?.close();
  });

  test('item 4: a closed port reads "Connection refused at …", a bad host name the no-such-host sentence', async ({ page }) => {
    test.setTimeout(120_000);
    await openApp(page, app);
    const url = `http://127.0.0.1:${port}/mcp`;
    await addServer(page, { name: 'refused', url });
    // Retries first (1 s, 2 s, 4 s), the cause already in words while it waits.
    await expect(item(page, 'refused').getByTestId('server-reconnecting')).toContainText(`Connection refused at ${url}: nothing is listening there.`);
    await expect(item(page, 'refused').getByTestId('server-error')).toHaveText(`Connection refused at ${url}: nothing is listening there. Switchboard gave up after 4 attempts.`, { timeout: 20_000 });
    await addServer(page, { name: 'nohost', url: 'http://does-not-exist.invalid/mcp' });
    await expect(item(page, 'nohost').getByTestId('server-error')).toHaveText(
      'No such host: "does-not-exist.invalid" does not resolve (DNS lookup failed for http://does-not-exist.invalid/mcp). Check the host name. Switchboard did not retry, because the host name does not resolve.',
    );
    await expect(item(page, 'nohost')).toHaveAttribute('data-state', 'error');
  });

  test('item 5: Test connection against server-everything shows ok, tool count, era and duration without a reload; a failing one its sentence', async ({ page }) => {
    test.setTimeout(120_000);
    await openApp(page, app);
    await addServer(page, { name: 'everything', command: everythingCommand });
    await expect(item(page, 'everything')).toHaveAttribute('data-state', 'connected');
    await serverMenu(page, 'everything', 'Test connection');
    const check = item(page, 'everything').getByTestId('server-last-check');
    await expect(check).toHaveAttribute('data-ok', 'true');
    await expect(check).toHaveText(/^✓ Test passed [\d:]+(?: [AP]M)?: (\d+) tools, (modern|legacy) \S+ \(\d+ ms\)$/);
    const tools = Number(/: (\d+) tools/.exec((await check.textContent()) ?? '')![1]);
    expect(tools).toBeGreaterThan(5);

    await serverMenu(page, 'refused', 'Test connection');
    const failed = item(page, 'refused').getByTestId('server-last-check');
    await expect(failed).toHaveAttribute('data-ok', 'false');
    await expect(failed).toHaveText(new RegExp(`^✗ Test failed [\\d:]+(?: [AP]M)?: Connection refused at http://127\\.0\\.0\\.1:${port}/mcp: nothing is listening there\\.$`));
  });

  test('item 9: the palette finds and runs commands: theme, disconnect all, export, import, open trace, settings', async ({ page }) => {
    test.setTimeout(180_000);
    await page.emulateMedia({ colorScheme: 'light' });
    await openApp(page, app);
    if ((await item(page, 'everything').count()) === 0) await addServer(page, { name: 'everything', command: everythingCommand });
    await expect(item(page, 'everything')).toHaveAttribute('data-state', 'connected');

    // What the palette offers before anything is typed: the commands first.
    await palette(page, '');
    await expect(page.getByRole('button', { name: /Toggle theme/ })).toBeVisible();
    await bothThemes(page, 'palette-commands');
    await page.keyboard.press('Escape');

    // theme → Enter runs the first match; the theme flips, and back.
    const html = page.locator('html');
    await expect(html).toHaveAttribute('data-mantine-color-scheme', 'light');
    await palette(page, 'theme', /^Toggle theme/);
    await page.keyboard.press('Enter');
    await expect(html).toHaveAttribute('data-mantine-color-scheme', 'dark');
    await palette(page, 'theme', /^Toggle theme/);
    await page.keyboard.press('Enter');
    await expect(html).toHaveAttribute('data-mantine-color-scheme', 'light');

    // open trace → the Traffic view.
    await palette(page, 'open trace', /^Open trace/);
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('view-traffic')).toHaveAttribute('aria-selected', 'true');

    // export → the Traffic view's own export: a download of the whole trace.
    await palette(page, 'export', /^Export trace as JSONL/);
    const downloading = page.waitForEvent('download');
    await page.keyboard.press('Enter');
    const download = await downloading;
    expect(download.suggestedFilename()).toMatch(/\.jsonl$/);
    const saved = join(mkdtempSync(join(tmpdir(), 'sb-e2e-export-')), download.suggestedFilename());
    await download.saveAs(saved);
    const lines = readFileSync(saved, 'utf8').trim().split('\n');
    expect(lines.length).toBeGreaterThan(5);
    expect(lines.some((l) => l.includes('"tools/list"'))).toBe(true);

    // import → the file picker, then the trace opens read-only.
    await page.getByTestId('view-tools').click();
    await palette(page, 'import', /^Import a trace file/);
    const choosing = page.waitForEvent('filechooser');
    await page.keyboard.press('Enter');
    await (await choosing).setFiles(saved);
    await expect(page.getByTestId('imported-source')).toContainText(download.suggestedFilename());
    await expect(page.getByTestId('view-traffic')).toHaveAttribute('aria-selected', 'true');
    await palette(page, 'back to live', /^Back to live/);
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('imported-source')).toHaveCount(0);

    // settings → the Settings dialog; its switch is the setting main keeps.
    await palette(page, 'settings', /^Settings…/);
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Settings' });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByTestId('settings-remember-arguments')).not.toBeChecked();
    // The theme toggles chose a scheme; the dialog gives the OS its say back.
    await dialog.getByText('Follow the OS', { exact: true }).click();
    await bothThemes(page, 'settings-dialog');
    await dialog.getByRole('button', { name: 'Close' }).click();
    await expect(dialog).toHaveCount(0);

    // disconnect all → every server down.
    await palette(page, 'disconnect all', /^Disconnect all servers/);
    await page.keyboard.press('Enter');
    await expect(item(page, 'everything')).toHaveAttribute('data-state', 'disconnected');
    await expect(page.locator('[data-testid="server-item"]:not([data-state="disconnected"])')).toHaveCount(0);
    // connect all → back (the broken ones fail again, on their own).
    await palette(page, 'connect all', /^Connect all servers/);
    await page.keyboard.press('Enter');
    await expect(item(page, 'everything')).toHaveAttribute('data-state', 'connected');
    await expect(page.getByTestId('servers-bulk-notice').filter({ hasText: /Connected \d+ of/ })).toContainText(/Connected \d of \d\./);
  });
});

test('item 7: the servers left connected come back after a restart; "Connect at start" off stays down; Disconnect all / Connect all', async ({ page }) => {
  test.setTimeout(180_000);
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-e2e-restart-'));
  const first = await startBrowserMode([], { dataDir });
  let second: BrowserModeApp | undefined;
  try {
    await openApp(page, first);
    await addServer(page, { name: 'everything', command: everythingCommand });
    await addServer(page, { name: 'memory', command: memoryCommand });
    // A third with "Connect at start" switched off in the form.
    await page.getByTestId('add-server-open').click();
    const form = page.getByTestId('add-server-form');
    await form.getByTestId('add-server-name').fill('manual');
    await form.getByTestId('add-server-command').fill(memoryCommand);
    const atStart = form.getByTestId('server-connect-at-start');
    await expect(atStart).toBeChecked();
    await page.emulateMedia({ colorScheme: 'light' });
    await bothThemes(page, 'server-form-connect-at-start');
    await atStart.uncheck();
    await form.getByTestId('add-server-submit').click();
    for (const name of ['everything', 'memory', 'manual']) await expect(item(page, name)).toHaveAttribute('data-state', 'connected');

    await stop(first);
    second = await startBrowserMode([], { dataDir });
    await openApp(page, second);
    // Nobody clicked anything: the two come back by themselves.
    await expect(item(page, 'everything')).toHaveAttribute('data-state', 'connected', { timeout: 30_000 });
    await expect(item(page, 'memory')).toHaveAttribute('data-state', 'connected', { timeout: 30_000 });
    await expect(item(page, 'manual')).toHaveAttribute('data-state', 'disconnected');
    await expect(page.getByTestId('servers-connect-all')).toBeEnabled();
    await bothThemes(page, 'sidebar-connect-all');

    await page.getByTestId('servers-disconnect-all').click();
    for (const name of ['everything', 'memory', 'manual']) await expect(item(page, name)).toHaveAttribute('data-state', 'disconnected');
    await expect(page.getByTestId('servers-disconnect-all')).toBeDisabled();
    await page.getByTestId('servers-connect-all').click();
    for (const name of ['everything', 'memory', 'manual']) await expect(item(page, name)).toHaveAttribute('data-state', 'connected');
    await expect(page.getByTestId('servers-bulk-notice').filter({ hasText: /Connected \d+ of/ })).toContainText('Connected 3 of 3.');
    await expect(page.getByTestId('servers-connect-all')).toBeDisabled();
  } finally {
    await stop(first);
    // close() also removes the data directory.
    await (second ?? first).close();
  }
});
