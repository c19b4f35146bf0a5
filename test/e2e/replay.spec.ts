/**
 * The Replay tab in a real browser against real servers (the everything fixture and its changed
 * variant, both over stdio): this session's requests picked by method, sent to the changed
 * server after a confirmation that names the tools, and the comparison with its differences
 * highlighted (pictures in both themes); without the confirmation, no tools/call is sent.
 */
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { stdioFixtureCommand } from '../fixtures/everything/harness';
import { tsxNodeArgs } from '../fixtures/spawn-listening';
import { mainCall, openApp, startBrowserMode, type BrowserModeApp } from './support/browser-mode';
import { bothThemes } from './support/screenshots';

let app: BrowserModeApp;
const ids = { fixture: '', changed: '' };
const CHANGED = join(import.meta.dirname, '../fixtures/replay/changed.ts');

async function ok<T>(method: string, args: unknown): Promise<T> {
  const reply = await mainCall(app, method, args);
  if (!reply.ok) throw new Error(`${method}: ${reply.error?.message}`);
  return reply.result as T;
}

async function addStdio(name: string, command: string, args: string[]): Promise<string> {
  const { id } = await ok<{ id: string }>('addServer', { name, target: { type: 'stdio', command, args }, pingIntervalSec: 0, retries: 0 });
  const status = await ok<{ state: string; error?: string }>('connectServer', { id });
  expect(status.state, status.error).toBe('connected');
  return id;
}

/** tools/call requests the live trace holds for a server (what went to its stdin). */
async function toolCallsSent(serverId: string): Promise<number> {
  const page = await ok<{ events: unknown[] }>('traceQuery', { servers: [serverId], kinds: ['jsonrpc-out'], methods: ['tools/call'], limit: 5000 });
  return page.events.length;
}

test.beforeAll(async () => {
  app = await startBrowserMode();
  const fixture = stdioFixtureCommand();
  ids.fixture = await addStdio('fixture', fixture.command, fixture.args);
  ids.changed = await addStdio('changed', process.execPath, tsxNodeArgs(CHANGED, []));
  // The session to replay.
  await ok('callTool', { tool: 'echo', serverId: ids.fixture, args: { text: 'hello' } });
  await ok('callTool', { tool: 'add', serverId: ids.fixture, args: { a: 2, b: 3 } });
  await ok('getPrompt', { name: 'greet', serverId: ids.fixture, args: { name: 'Ada' } });
});

test.afterAll(async () => {
  await app?.close();
});

test.describe.configure({ mode: 'serial' });

async function openReplay(page: Page): Promise<void> {
  await openApp(page, app);
  await page.getByTestId('view-recordings').click();
  await page.getByTestId('recordings-tab-replay').click();
  await expect(page.getByTestId('replay-panel')).toBeVisible();
  await expect(page.getByTestId('replay-candidate').first()).toBeVisible();
}

async function chooseTarget(page: Page, name: string): Promise<void> {
  await page.getByTestId('replay-target').click();
  await page.getByRole('option', { name, exact: true }).click();
  await expect(page.getByTestId('replay-target')).toHaveValue(name);
}

test('a replay to a changed server: the tools named before anything is sent, the differences highlighted side by side', async ({ page }) => {
  await page.setViewportSize({ width: 1400, height: 1000 });
  await openReplay(page);
  const candidates = page.getByTestId('replay-candidate');
  // This session's requests to the fixture (the recorded server picked first), never initialize.
  await expect(page.getByTestId('replay-recorded-server')).toHaveValue('fixture');
  await expect(candidates.filter({ has: page.locator('text=initialize') })).toHaveCount(0);
  await expect(page.locator('[data-testid="replay-candidate"][data-method="tools/call"]')).toHaveCount(2);
  // Tool calls are not selected until the person picks them; pick them by method.
  await expect(page.locator('[data-testid="replay-candidate"][data-method="tools/call"][data-selected="true"]')).toHaveCount(0);
  await page.getByTestId('replay-select-method').click();
  await page.getByTestId('replay-select-method-tools/call').click();
  await expect(page.locator('[data-testid="replay-candidate"][data-method="tools/call"][data-selected="true"]')).toHaveCount(2);
  await expect(page.getByTestId('replay-selection')).toContainText('calls 2 tools: add, echo');
  await chooseTarget(page, 'changed');

  const before = await toolCallsSent(ids.changed);
  await page.getByTestId('replay-run').click();
  const confirm = page.getByRole('dialog');
  await expect(confirm.getByTestId('replay-confirm-tools')).toHaveText(/•\s*add\s*•\s*echo/);
  await expect(confirm).toContainText('changed');
  // Nothing has been sent while the question is open.
  expect(await toolCallsSent(ids.changed)).toBe(before);
  await bothThemes(page, 'replay-confirm', { pointer: { x: 5, y: 5 } });
  await confirm.getByTestId('replay-confirm-yes').click();

  await expect(page.getByTestId('replay-summary')).toBeVisible({ timeout: 30_000 });
  expect(await toolCallsSent(ids.changed)).toBe(before + 2);
  const echo = page.locator('[data-testid="replay-item"]').filter({ hasText: 'echo({"text":"hello"})' });
  await expect(echo).toHaveAttribute('data-state', 'differs');
  await expect(echo.locator('[data-testid="replay-diff-row"][data-path="/content/0/text"]')).toContainText('"echo: hello"');
  await expect(echo.locator('[data-testid="replay-diff-row"][data-path="/content/0/text"]')).toContainText('"ECHO: hello"');
  // A short answer opens side by side, the changed line marked on both sides.
  await expect(echo.getByTestId('replay-answer-new').locator('[data-changed]')).toContainText(['"text": "ECHO: hello"']);
  await expect(echo.getByTestId('replay-answer-old').locator('[data-changed]')).toContainText(['"text": "echo: hello"']);
  const add = page.locator('[data-testid="replay-item"]').filter({ hasText: 'add({"a":2,"b":3})' });
  await expect(add.getByTestId('replay-schema-new')).toHaveAttribute('data-valid', 'false');
  await expect(add.getByTestId('replay-schema-old')).toHaveAttribute('data-valid', 'true');
  await expect(add.locator('[data-testid="replay-diff-row"][data-kind="schema"]')).toBeVisible();
  const greet = page.locator('[data-testid="replay-item"]').filter({ hasText: 'prompts/get' });
  await expect(greet.locator('[data-testid="replay-diff-row"][data-path="/messages/0/content/text"]')).toContainText('Hello, Ada.');

  await page.getByTestId('replay-only-differing').click({ force: true });
  const shown = page.getByTestId('replay-item');
  await expect(shown.first()).toBeVisible();
  for (const state of await shown.evaluateAll((items) => items.map((i) => i.getAttribute('data-same')))) expect(state).toBe('false');
  // The picture: the tool calls' comparison (the long tools/list above it opens on its differences only).
  await echo.evaluate((el) => el.scrollIntoView({ block: 'start' }));
  await bothThemes(page, 'replay-comparison', { pointer: { x: 5, y: 5 } });
});

test('without the confirmation, no tools/call is sent: each is listed as skipped, with why', async ({ page }) => {
  await openReplay(page);
  await page.getByTestId('replay-select-all').click();
  await chooseTarget(page, 'changed');
  const before = await toolCallsSent(ids.changed);
  await page.getByTestId('replay-run').click();
  await page.getByRole('dialog').getByTestId('replay-confirm-skip').click();
  await expect(page.getByTestId('replay-summary')).toBeVisible({ timeout: 30_000 });
  const skipped = page.locator('[data-testid="replay-item"][data-state="skipped"]');
  await expect(skipped.first()).toBeVisible();
  await expect(skipped.getByTestId('replay-skipped').first()).toContainText('was not confirmed');
  expect(await skipped.count()).toBeGreaterThanOrEqual(2);
  expect(await toolCallsSent(ids.changed)).toBe(before);
});

test('a recording of the library, replayed from its row after a restart: the same server answers the same', async ({ page }) => {
  await page.setViewportSize({ width: 1400, height: 1000 });
  const listed = await ok<{ recordings: { id: string; live: boolean }[] }>('recordingsList', {});
  const previous = listed.recordings.find((r) => r.live)!.id;
  // Stopped cleanly, the data directory kept: the next start finds this session in its library.
  const exited = new Promise((done) => app.process.once('exit', done));
  app.process.kill('SIGTERM');
  await exited;
  app = await startBrowserMode([], { dataDir: app.dataDir });
  const status = await ok<{ state: string; error?: string }>('connectServer', { id: ids.fixture });
  expect(status.state, status.error).toBe('connected');

  await openApp(page, app);
  await page.getByTestId('view-recordings').click();
  await page.getByTestId('recordings-tab-library').click();
  await page.locator(`[data-testid="recording-row"][data-recording-id="${previous}"]`).getByTestId('recording-replay').click();
  const panel = page.getByTestId('replay-panel');
  await expect(panel).toHaveAttribute('data-source', `rec-${previous}`);
  await expect(page.getByTestId('replay-candidate').first()).toBeVisible();
  await expect(page.getByTestId('replay-recorded-server')).toHaveValue('fixture');
  await expect(page.getByTestId('replay-target')).toHaveValue('fixture');
  await page.getByTestId('replay-select-method').click();
  await page.getByTestId('replay-select-method-tools/call').click();
  await page.getByTestId('replay-run').click();
  await expect(page.getByRole('dialog').getByTestId('replay-confirm-tools')).toHaveText(/•\s*add\s*•\s*echo/);
  await page.getByRole('dialog').getByTestId('replay-confirm-yes').click();
  await expect(page.getByTestId('replay-summary')).toContainText('0 differ', { timeout: 30_000 });
  const items = page.getByTestId('replay-item');
  await expect(items.filter({ hasText: 'echo({"text":"hello"})' })).toHaveAttribute('data-state', 'same');
  for (const state of await items.evaluateAll((all) => all.map((i) => i.getAttribute('data-state')))) expect(state).toBe('same');
  await page.getByTestId('replay-summary').evaluate((el) => el.scrollIntoView({ block: 'start' }));
  await bothThemes(page, 'replay-recording-same', { pointer: { x: 5, y: 5 } });
});
