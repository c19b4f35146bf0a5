/**
 * #13 item 2, the library, against the built browser mode on one data directory restarted three
 * times: a first session (the everything fixture over stdio: stderr, tool calls) stopped cleanly;
 * a second one SIGKILLed mid-session; the third finds the first with the same event count
 * ("closed") and the second "ended unexpectedly", its own live one marked. Then: a recording
 * reopened read-only in Traffic, in the Tools view (the catalog as it was, nothing runs) and in
 * Logs (its stderr), back to live; rename, tags, search; deleting the live one refused; deleting
 * another after a confirmation. Screenshots of the library, Traffic and Tools, light and dark.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import type { RecordingSummary } from '../../contract';
import { stdioFixtureCommand } from '../fixtures/everything/harness';
import { mainCall, openApp, startBrowserMode, type BrowserModeApp } from './support/browser-mode';
import { bothThemes } from './support/screenshots';
import { trafficCount } from './support/traffic';
import { addServer, callTool, shellQuote } from './support/ui';

test.describe.configure({ mode: 'serial' });

const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-e2e-recordings-'));
let app: BrowserModeApp | undefined;
/** The first session's recording, and its event count when it stopped. */
let first: { id: string; events: number };
let crashedId = '';

async function result<T>(app: BrowserModeApp, method: string, args: unknown = {}): Promise<T> {
  const reply = await mainCall(app, method, args);
  if (!reply.ok) throw new Error(`${method}: ${reply.error?.message}`);
  return reply.result as T;
}
const library = (app: BrowserModeApp) => result<{ recordings: RecordingSummary[]; dir?: string }>(app, 'recordingsList');
const liveOf = async (app: BrowserModeApp) => (await library(app)).recordings.find((r) => r.live)!;

/** Stops the process without removing the data directory (the next start reads it). */
async function stop(app: BrowserModeApp, signal: 'SIGTERM' | 'SIGKILL'): Promise<void> {
  if (app.process.exitCode !== null || app.process.signalCode !== null) return;
  const exited = new Promise((done) => app.process.once('exit', done));
  app.process.kill(signal);
  await exited;
}

test.afterAll(async () => {
  if (app) await app.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const row = (page: Page, id: string) => page.locator(`[data-testid="recording-row"][data-recording-id="${id}"]`);

async function openLibrary(page: Page): Promise<void> {
  await page.getByTestId('view-recordings').click();
  await page.getByTestId('recordings-tab-library').click();
  await expect(page.getByTestId('recordings-library')).toBeVisible();
}

test('a session stopped cleanly and one killed with SIGKILL are both in the library of the next start', async ({ page }) => {
  // 1. The first session: a stdio server with stderr chatter, two calls, then disconnected and stopped cleanly.
  app = await startBrowserMode([], { dataDir });
  await openApp(page, app);
  const { command, args } = stdioFixtureCommand(['--stderr-chatter']);
  await addServer(page, { name: 'everything', command: shellQuote([command, ...args]) });
  await expect(page.locator('[data-testid="server-item"][data-server-name="everything"]')).toHaveAttribute('data-state', 'connected');
  await callTool(page, 'everything__echo', { text: 'recorded before the restart' });
  await expect(page.getByTestId('tool-result')).toContainText('echo: recorded before the restart');
  await callTool(page, 'everything__add', { a: 2, b: 3 });
  await expect(page.getByTestId('tool-result')).toContainText('5');
  const serverId = (await result<{ id: string; name: string }[]>(app, 'listServers')).find((s) => s.name === 'everything')!.id;
  await result(app, 'disconnectServer', { id: serverId });
  // The trace holds still once the server is gone: that is the count the library must show.
  let total = -1;
  await expect
    .poll(async () => {
      const before = total;
      total = (await result<{ total: number }>(app!, 'traceQuery', { limit: 1 })).total;
      return total === before;
    })
    .toBe(true);
  first = { id: (await liveOf(app)).id, events: total };
  await stop(app, 'SIGTERM');

  // 2. The second session: connected again, a call, then killed without a chance to close anything.
  app = await startBrowserMode([], { dataDir });
  await result(app, 'connectServer', { id: serverId });
  await result(app, 'callTool', { tool: 'everything__echo', args: { text: 'before the kill' } });
  const crashed = await liveOf(app);
  crashedId = crashed.id;
  await expect.poll(async () => (await liveOf(app!)).events).toBeGreaterThan(5);
  await stop(app, 'SIGKILL');

  // 3. The third start: both are there, and its own live one.
  app = await startBrowserMode([], { dataDir });
  await openApp(page, app);
  await openLibrary(page);
  await expect(page.getByTestId('recording-row')).toHaveCount(3);
  await expect(row(page, first.id)).toHaveAttribute('data-ended', 'clean');
  // The same count the reopened recording answers; the first session's events, and after them
  // only what its shutdown wrote (each server's "disconnected" once more as it closed).
  const listed = Number(await row(page, first.id).getAttribute('data-events'));
  await result(app, 'recordingOpen', { id: first.id });
  const after = await result<{ events: { kind: string; channel: string }[]; total: number }>(app, 'traceQuery', { source: `rec-${first.id}`, cursor: first.events });
  console.log(`first session: ${first.events} events before it stopped; the next start's library lists ${listed}, the reopened recording holds ${after.total} (${after.events.length} written by its shutdown: ${after.events.map((e) => `${e.channel}/${e.kind}`).join(', ') || 'none'})`);
  expect(after.total).toBe(listed);
  expect(listed - first.events).toBe(after.events.length);
  expect(after.events.length).toBeLessThanOrEqual(1);
  for (const e of after.events) expect(e).toMatchObject({ channel: 'lifecycle', kind: 'state' });
  await expect(row(page, crashedId)).toHaveAttribute('data-ended', 'unexpected');
  await expect(row(page, crashedId).getByTestId('recording-ended')).toHaveText('ended unexpectedly');
  expect(Number(await row(page, crashedId).getAttribute('data-events'))).toBeGreaterThan(0);
  const live = page.locator('[data-testid="recording-row"][data-live="true"]');
  await expect(live).toHaveCount(1);
  await expect(live.getByTestId('recording-live-badge')).toBeVisible();
  // Newest first: the live one, the crashed one, the first.
  const ids = await page.getByTestId('recording-row').evaluateAll((els) => els.map((el) => el.getAttribute('data-recording-id')));
  expect(ids.slice(1)).toEqual([crashedId, first.id]);
  await expect(page.getByTestId('recordings-dir')).toContainText(join(dataDir, 'recordings'));
  await expect(page.getByTestId('recordings-retention')).toContainText('2.0 GB');
  await bothThemes(page, 'recordings-library', { pointer: { x: 5, y: 5 } });
});

test('a recording opens read-only in Traffic, in the Tools view as it was and in Logs; back to live restores them', async ({ page }) => {
  await openApp(page, app!);
  await openLibrary(page);
  await row(page, first.id).getByTestId('recording-open').click();
  const traffic = page.getByTestId('traffic-view');
  await expect(traffic).toHaveAttribute('data-source', `rec-${first.id}`);
  await expect(page.getByTestId('imported-source')).toBeVisible();
  await expect.poll(() => trafficCount(page)).toBeGreaterThan(0);
  await page.getByTestId('traffic-search').fill('recorded before the restart');
  await expect(page.locator('[data-testid="traffic-table"] [data-testid="traffic-row"]').first()).toBeVisible();
  await bothThemes(page, 'recordings-reopened-traffic', { pointer: { x: 5, y: 5 } });
  await page.getByTestId('traffic-search').fill('');

  // The tool catalog as it was: the recording's tools, their schemas, nothing to run.
  await page.getByTestId('view-tools').click();
  const catalog = page.getByTestId('recorded-catalog');
  await expect(catalog).toHaveAttribute('data-source', `rec-${first.id}`);
  await expect(page.getByTestId('tools-read-only')).toBeVisible();
  await expect(catalog.locator('[data-testid="tool-item"][data-tool-name="everything__echo"]')).toBeVisible();
  await catalog.locator('[data-testid="tool-item"][data-tool-name="everything__echo"]').click();
  const detail = page.getByTestId('recorded-tool-detail');
  await expect(detail.getByTestId('tool-description')).toBeVisible();
  await detail.getByTestId('tool-input-schema-toggle').click();
  await expect(detail.getByTestId('tool-input-schema')).toContainText('text');
  await expect(page.getByTestId('tool-call')).toHaveCount(0);
  await bothThemes(page, 'recordings-tools-as-it-was', { pointer: { x: 5, y: 5 } });

  // Logs: the recording's own stderr lines, read-only.
  await page.getByTestId('view-logs').click();
  await expect(page.getByTestId('logs-view')).toHaveAttribute('data-source', `rec-${first.id}`);
  await expect(page.getByTestId('logs-read-only')).toBeVisible();
  await expect(page.locator('[data-testid="log-line"][data-source="stderr"]').first()).toContainText('everything:');
  await expect(page.getByTestId('log-clear')).toHaveCount(0);
  await bothThemes(page, 'recordings-reopened-logs', { pointer: { x: 5, y: 5 } });

  // Back to live: every view reads this session again.
  await page.getByTestId('logs-back-to-live').click();
  await expect(page.getByTestId('logs-view')).toHaveAttribute('data-source', 'live');
  await expect(page.getByTestId('imported-source')).toHaveCount(0);
  await page.getByTestId('view-tools').click();
  await expect(page.getByTestId('recorded-catalog')).toHaveCount(0);
  await expect(page.getByTestId('tools-view')).toBeVisible();
});

test('rename, tags and search; deleting the live one is refused, another is deleted after a confirmation', async ({ page }) => {
  await openApp(page, app!);
  await openLibrary(page);
  const r = row(page, first.id);
  await r.getByTestId('recording-menu').click();
  await page.getByTestId('recording-rename').click();
  await page.getByTestId('recording-rename-input').fill('Checkout flake');
  await page.getByTestId('recording-rename-save').click();
  await expect(r.getByTestId('recording-name')).toHaveText('Checkout flake');

  await r.getByTestId('recording-menu').click();
  await page.getByTestId('recording-tags').click();
  const tags = page.getByTestId('recording-tags-input');
  await tags.fill('flaky');
  await tags.press('Enter');
  await tags.fill('ci');
  await tags.press('Enter');
  await page.getByTestId('recording-tags-save').click();
  await expect(r.getByTestId('recording-tag')).toHaveText(['flaky', 'ci']);

  await page.getByTestId('recordings-search').fill('tag:flaky');
  await expect(page.getByTestId('recording-row')).toHaveCount(1);
  await page.getByTestId('recordings-search').fill('checkout');
  await expect(page.getByTestId('recording-row')).toHaveCount(1);
  await page.getByTestId('recordings-search').fill('');
  await expect(page.getByTestId('recording-row')).toHaveCount(3);

  // The live one: main refuses, and says why.
  const live = page.locator('[data-testid="recording-row"][data-live="true"]');
  await live.getByTestId('recording-menu').click();
  await page.getByTestId('recording-delete').click();
  await expect(page.getByTestId('recording-refused')).toContainText('cannot be deleted');
  await expect(live).toHaveCount(1);

  // The crashed one: after a confirmation, gone from the list and from disk.
  await row(page, crashedId).getByTestId('recording-menu').click();
  await page.getByTestId('recording-delete').click();
  await page.getByTestId('recording-delete-yes').click();
  await expect(row(page, crashedId)).toHaveCount(0);
  expect((await library(app!)).recordings.map((x) => x.id)).not.toContain(crashedId);
  // Kept on disk: main lists the new name and tags.
  expect((await library(app!)).recordings.find((x) => x.id === first.id)).toMatchObject({ name: 'Checkout flake', tags: ['flaky', 'ci'] });
  await bothThemes(page, 'recordings-library-tagged', { pointer: { x: 5, y: 5 } });
});
