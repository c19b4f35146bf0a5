/**
 * MCP tasks against the published reference server (server-everything over stdio), in the built
 * browser mode (issue #11):
 *  1. a research query that needs input, run as a task: the task waits for the person, the form
 *     is tied to the task, the answer ends up in the report (tasks/result on input_required);
 *  2. a tool that requires tasks offers only "Run as task" and runs; a new run clears an earlier error;
 *  3. the tasks capability: the task-only tools are listed and work through Switchboard's own tasks;
 * 14. each server's tasks only under its own tools; a finished task's status line is its final status.
 * Item 2's "optional offers both" uses our tasks fixture: no reference server has an optional tool.
 */
import { createRequire } from 'node:module';
import { expect, test, type Page } from '@playwright/test';
import { startTasksFixture } from '../fixtures/tasks/harness';
import { openApp, startBrowserMode, type BrowserModeApp } from './support/browser-mode';
import { pendingRequest } from './support/requests';
import { bothThemes } from './support/screenshots';
import { openTool, showJson, toolDetail } from './support/tools';
import { addServer, shellQuote } from './support/ui';

const require = createRequire(import.meta.url);
const everything = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
const everythingCommand = shellQuote([process.execPath, everything, 'stdio']);

let app: BrowserModeApp;
let fx: Awaited<ReturnType<typeof startTasksFixture>>;

test.beforeAll(async () => {
  app = await startBrowserMode();
  fx = await startTasksFixture();
});

test.afterAll(async () => {
  await app?.close();
  await fx?.close();
});

test.describe.configure({ mode: 'serial' });

async function ensureServer(page: Page, name: string, server: { command?: string; url?: string }): Promise<void> {
  const item = page.locator(`[data-testid="server-item"][data-server-name="${name}"]`);
  if ((await item.count()) === 0) await addServer(page, { name, ...server });
  await expect(item).toHaveAttribute('data-state', 'connected', { timeout: 30_000 });
}

async function ready(page: Page): Promise<void> {
  await page.setViewportSize({ width: 1400, height: 950 });
  await openApp(page, app);
  await ensureServer(page, 'everything', { command: everythingCommand });
  await page.getByTestId('view-tools').click();
}

async function setArgs(page: Page, args: unknown): Promise<void> {
  await (await showJson(page)).fill(JSON.stringify(args));
}



test('item 1: a research query that needs input waits for the person, the form is tied to the task, the answer is in the report', async ({ page }) => {
  await ready(page);
  const detail = await openTool(page, 'everything__simulate-research-query');
  await setArgs(page, { topic: 'python', ambiguous: true });
  await detail.getByTestId('tool-run-as-task').click();

  // The server's question arrives through tasks/result, tied to the task.
  const form = await pendingRequest(page, 'elicitation-form', 'everything');
  const tie = form.getByTestId('request-task');
  await expect(tie).toContainText('for task');
  await expect(tie).toContainText('of tool everything__simulate-research-query');
  await expect(tie).toHaveAttribute('data-task-side', 'server');
  await expect(form.getByTestId('request-call')).toHaveCount(0);
  const taskId = (await tie.getAttribute('data-task-id'))!;
  await expect(page.getByTestId('request-item').first()).toContainText(`task ${taskId.slice(0, 8)}`);
  await expect(form.getByTestId('field-interpretation')).toBeVisible();
  await bothThemes(page, 'task-input-form', { pointer: { x: 1390, y: 940 } });

  // Closed, the task shows it waits for the person, with the way back to the form.
  await page.getByTestId('request-center').locator('.mantine-Modal-close').click();
  await expect(page.getByTestId('request-center')).toBeHidden();
  const run = detail.getByTestId('task-run');
  await expect(run).toHaveAttribute('data-task-id', taskId);
  await expect(run).toHaveAttribute('data-status', 'input_required');
  const row = run.getByTestId('task-row');
  await expect(row).toHaveAttribute('data-waiting', 'true');
  await expect(row.getByTestId('task-waiting')).toContainText('Waiting for you');
  await expect(run).toContainText('tasks/result is open');
  await bothThemes(page, 'task-input', { pointer: { x: 1390, y: 940 } });

  await row.getByTestId('task-answer').click();
  const again = await pendingRequest(page, 'elicitation-form');
  await expect(again.getByTestId('request-task')).toHaveAttribute('data-task-id', taskId);
  await again.getByTestId('field-interpretation').selectOption('comedy');
  await again.getByTestId('answer-accept').click();
  await expect(page.getByTestId('request-center')).toBeHidden();

  await expect(run).toHaveAttribute('data-status', 'completed', { timeout: 30_000 });
  await expect(row).toHaveAttribute('data-waiting', 'false');
  const report = run.getByTestId('tool-result-text').first();
  await expect(report).toContainText('Clarification**: comedy');
  await expect(report).not.toContainText('elicitation unavailable');
});

test('item 2: a tool that requires tasks offers only "Run as task" and runs; a new run clears the earlier error', async ({ page }) => {
  await ready(page);
  const detail = await openTool(page, 'everything__simulate-research-query');
  await expect(detail.getByTestId('tool-call')).toHaveCount(0);
  await expect(detail.getByTestId('tool-run-as-task')).toBeVisible();
  await expect(detail.getByTestId('tool-task-only')).toContainText('runs only as a task');

  // Refused arguments: the start fails and says why.
  await setArgs(page, { ambiguous: 'very' });
  await detail.getByTestId('tool-run-as-task').click();
  await expect(detail.getByTestId('task-run-error')).toBeVisible();
  await expect(detail.getByTestId('task-run-error')).toContainText('Could not start the task');

  // The next run (Ctrl+Enter runs a task-only tool as a task) replaces it.
  await setArgs(page, { topic: 'tides' });
  await detail.getByTestId('tool-args').press('Control+Enter');
  await expect(detail.getByTestId('task-run-error')).toHaveCount(0);
  await expect(detail.getByTestId('task-run')).toHaveAttribute('data-status', 'completed', { timeout: 30_000 });
  await expect(detail.getByTestId('task-run').getByTestId('tool-result-text').first()).toContainText('Research Report: tides');

  // A tool whose task support is optional offers both; a plain run after a task run shows the plain one.
  await ensureServer(page, 'tasks', { url: fx.url });
  const optional = await openTool(page, 'tasks__long_job');
  await expect(optional.getByTestId('tool-call')).toBeVisible();
  await expect(optional.getByTestId('tool-run-as-task')).toBeVisible();
  await expect(optional.getByTestId('tool-task-only')).toHaveCount(0);
  await setArgs(page, { seconds: 'soon' });
  await optional.getByTestId('tool-call').click();
  // The arguments are checked against the schema off the page's main thread: wait for its verdict
  // ("Send anyway") or for the result, not for whichever is there the moment the click returns.
  const sendAnyway = optional.getByTestId('tool-send-anyway');
  await expect(sendAnyway.or(optional.getByTestId('tool-result-iserror')).first()).toBeVisible();
  if (await sendAnyway.isVisible()) await sendAnyway.click();
  await expect(optional.getByTestId('tool-result-iserror')).toBeVisible();
  await setArgs(page, { seconds: 0.5 });
  await optional.getByTestId('tool-run-as-task').click();
  await expect(optional.getByTestId('tool-result-iserror')).toHaveCount(0);
  await expect(optional.getByTestId('task-run')).toHaveAttribute('data-status', 'completed', { timeout: 15_000 });
  await optional.getByTestId('tool-call').click();
  await expect(optional.getByTestId('task-run')).toHaveCount(0);
  await expect(optional.getByTestId('tool-result')).toBeVisible();
});

test('item 3: with the tasks capability the task-only tools are listed; both complete through Switchboard\'s own tasks', async ({ page }) => {
  await ready(page);
  const detail = await openTool(page, 'everything__trigger-elicitation-request-async');
  await detail.getByTestId('tool-call').click();
  const form = await pendingRequest(page, 'elicitation-form', 'everything');
  await expect(form.getByTestId('request-task')).toHaveAttribute('data-task-side', 'client');
  await expect(form.getByTestId('request-task')).toContainText('the server polls tasks/get');
  await expect(form.getByTestId('request-call')).toContainText('trigger-elicitation-request-async');
  const clientTask = (await form.getByTestId('request-task').getAttribute('data-task-id'))!;
  await form.getByTestId('field-name').fill('Ada Lovelace');
  await form.getByTestId('answer-accept').click();
  const result = detail.getByTestId('tool-result');
  await expect(result).toBeVisible({ timeout: 30_000 });
  await expect(result).toContainText('[COMPLETED] User provided the requested information!');
  await expect(result).toContainText('- Name: Ada Lovelace');
  await expect(result).toContainText(`Task created: ${clientTask}`);

  const sampling = await openTool(page, 'everything__trigger-sampling-request-async');
  await setArgs(page, { prompt: 'say hi', maxTokens: 20 });
  await sampling.getByTestId('tool-call').click();
  const dialog = await pendingRequest(page, 'sampling', 'everything');
  await expect(dialog.getByTestId('request-task')).toHaveAttribute('data-task-side', 'client');
  await dialog.getByTestId('sampling-text').fill('hi, from a person');
  await dialog.getByTestId('sampling-approve').click();
  const reply = sampling.getByTestId('tool-result');
  await expect(reply).toBeVisible({ timeout: 30_000 });
  await expect(reply).toContainText('hi, from a person');
});

test('item 14: each server\'s tasks only under its own tools; a finished task shows its final status, not stale progress', async ({ page }) => {
  await ready(page);
  await ensureServer(page, 'everything b', { command: everythingCommand });
  const a = await openTool(page, 'everything__simulate-research-query');
  await setArgs(page, { topic: 'only on a' });
  await a.getByTestId('tool-run-as-task').click();
  const aRun = a.getByTestId('task-run');
  await expect(aRun).toHaveAttribute('data-task-id', /.+/);
  const aTask = (await aRun.getAttribute('data-task-id'))!;

  const b = await openTool(page, 'everything-b__simulate-research-query');
  await setArgs(page, { topic: 'only on b' });
  await b.getByTestId('tool-run-as-task').click();
  const bRun = b.getByTestId('task-run');
  await expect(bRun).toHaveAttribute('data-status', 'completed', { timeout: 30_000 });
  const bTask = (await bRun.getAttribute('data-task-id'))!;

  // b's panel: b's task only.
  const bPanel = toolDetail(page).getByTestId('task-panel');
  await expect(bPanel).toContainText('Tasks on everything b');
  await expect(bPanel.locator(`[data-testid="task-row"][data-task-id="${bTask}"]`)).toBeVisible();
  await expect(bPanel.locator(`[data-testid="task-row"][data-task-id="${aTask}"]`)).toHaveCount(0);

  // a's panel: a's tasks (this one and the earlier ones), never b's.
  await openTool(page, 'everything__simulate-research-query');
  const aPanel = toolDetail(page).getByTestId('task-panel');
  const aRow = aPanel.locator(`[data-testid="task-row"][data-task-id="${aTask}"]`);
  await expect(aRow).toHaveAttribute('data-status', 'completed', { timeout: 30_000 });
  await expect(aPanel.locator(`[data-testid="task-row"][data-task-id="${bTask}"]`)).toHaveCount(0);
  // The server leaves "Generating report..." standing on the completed task: never shown as its
  // status. Hidden when the polls saw the task working under it; when a poll missed that stage (1 s
  // stages, 1 s polls), shown only as the server's last message.
  const line = aRow.getByTestId('task-status-message');
  await expect(line).toHaveText(/^Completed after [\d.]+ m?s(?: · last message from the server: Generating report\.\.\.)?$/);
  await aPanel.scrollIntoViewIfNeeded();
  await bothThemes(page, 'task-panel-per-server', { pointer: { x: 1390, y: 940 } });
});
