/**
 * MCP tasks in the UI: the tasks fixture (v1 SDK task runtime, Streamable HTTP with sessions)
 * added over HTTP; "Run as task" on long_job → the task panel follows working → completed and
 * shows the result; a second one cancelled → cancelled; doomed_job → failed.
 */
import { expect, test, type Page } from '@playwright/test';
import { startTasksFixture } from '../fixtures/tasks/harness';
import { openApp, startBrowserMode, type BrowserModeApp } from './support/browser-mode';
import { openTool, showJson, toolDetail } from './support/tools';
import { addServer } from './support/ui';
import { bothThemes } from './support/screenshots';

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

async function ready(page: Page): Promise<void> {
  await page.setViewportSize({ width: 1400, height: 900 });
  await openApp(page, app);
  const item = page.locator('[data-testid="server-item"][data-server-name="tasks"]');
  if ((await item.count()) === 0) await addServer(page, { name: 'tasks', url: fx.url });
  await expect(item).toHaveAttribute('data-state', 'connected');
  await page.getByTestId('view-tools').click();
  await expect(page.locator('[data-tool-name="tasks__long_job"]').first()).toBeVisible();
}

async function runAsTask(page: Page, tool: string, args: unknown): Promise<void> {
  await openTool(page, tool);
  await (await showJson(page)).fill(JSON.stringify(args));
  await toolDetail(page).getByTestId('tool-run-as-task').click();
}

test('long_job as a task: working → completed with its result; a second one cancelled; doomed_job failed', async ({ page }) => {
  await ready(page);
  const rows = page.getByTestId('task-panel').getByTestId('task-row'); // the panel's rows (the Response pane shows the latest run too)

  await runAsTask(page, 'tasks__long_job', { seconds: 2 });
  const first = rows.first();
  await expect(first).toHaveAttribute('data-status', 'working');
  await expect(first.getByTestId('task-status')).toHaveText('working');
  await expect(first.getByTestId('task-status-message')).toContainText('s left');
  await expect(first).toHaveAttribute('data-status', 'completed', { timeout: 10_000 });
  await expect(first.getByTestId('task-elapsed')).toHaveText(/^(2|3)\.\d+ s$|^2\d{3} ms$/);
  await first.getByTestId('task-toggle-result').click();
  await expect(first.getByTestId('task-result').getByTestId('tool-result-text')).toHaveText('long_job finished after 2 s');

  await runAsTask(page, 'tasks__long_job', { seconds: 60 });
  await expect(rows).toHaveCount(2);
  const second = rows.first();
  await expect(second).toHaveAttribute('data-status', 'working');
  // cancelled while it works: at least a second in, as a later tasks/get shows
  await expect(second.getByTestId('task-status-message')).toContainText(/\b[1-5]?\d s left/, { timeout: 10_000 }); // 59 or less of 60
  await second.getByTestId('task-cancel').click();
  await expect(second).toHaveAttribute('data-status', 'cancelled');
  await expect(second.getByTestId('task-cancel')).toHaveCount(0);
  await expect(second.getByTestId('task-status-message')).toContainText('cancelled');

  await runAsTask(page, 'tasks__doomed_job', { seconds: 1 });
  await expect(rows).toHaveCount(3);
  await expect(rows.first()).toHaveAttribute('data-status', 'failed', { timeout: 10_000 });
  await rows.first().getByTestId('task-toggle-result').click();
  await expect(rows.first().getByTestId('tool-result-iserror')).toBeVisible();

  // A running one for the screenshots.
  await runAsTask(page, 'tasks__long_job', { seconds: 120 });
  await expect(rows).toHaveCount(4);
  await expect(rows.first()).toHaveAttribute('data-status', 'working');
  await openTool(page, 'tasks__long_job');
  await expect(rows.first().getByTestId('task-status-message')).toContainText('s left');
  await bothThemes(page, 'tasks');
  await rows.first().getByTestId('task-cancel').click();
  await expect(rows.first()).toHaveAttribute('data-status', 'cancelled');
});
