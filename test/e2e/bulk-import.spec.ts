/**
 * Issue #10 in a real browser: a 17 MB trace (over the contract socket's 16 MiB frame limit)
 * opened through the Traffic view's file chooser goes to the host as a streamed HTTP upload,
 * its events show, the host is alive; its export comes back as a download saved by the
 * browser, line for line; a file that is not a trace gets a message saying what it is.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Download } from '@playwright/test';
import { writeBigTrace, type BigTrace } from '../integration/support/big-trace';
import { openApp, startBrowserMode, type BrowserModeApp } from './support/browser-mode';
import { apiCall } from './support/charts';
import { bothThemes } from './support/screenshots';
import { openTraffic, trafficCount, trafficRows } from './support/traffic';

let app: BrowserModeApp;
let dir: string;
let trace: BigTrace;

test.beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sb-bulk-e2e-'));
  trace = await writeBigTrace(join(dir, 'seventeen.jsonl'), 17 * 1024 * 1024);
  app = await startBrowserMode();
});

test.afterAll(async () => {
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A downloaded export is the 17 MB trace: its header's count, and every event line byte for byte. */
async function expectWholeTrace(download: Download, name: string): Promise<void> {
  const saved = join(dir, name);
  await download.saveAs(saved);
  const text = readFileSync(saved, 'utf8');
  const firstNewline = text.indexOf('\n');
  expect(JSON.parse(text.slice(0, firstNewline))).toMatchObject({ format: 'switchboard-trace', eventCount: trace.events });
  expect(createHash('sha256').update(text.slice(firstNewline + 1)).digest('hex')).toBe(trace.eventsHash);
  rmSync(saved);
}

test('a 17 MB trace opens through the file chooser over HTTP, shows its events, and exports back whole', async ({ page }) => {
  expect(trace.bytes).toBeGreaterThan(16 * 1024 * 1024);
  await openApp(page, app);
  await openTraffic(page);

  const upload = page.waitForRequest((r) => r.url().includes('/api/trace/import?name=seventeen.jsonl') && r.method() === 'POST');
  await page.getByTestId('traffic-import-input').setInputFiles(trace.path);
  await upload;
  // The notice comes with the switch to the imported source (and closes by itself a few seconds later).
  await expect(page.getByTestId('trace-import-notice')).toContainText(`${trace.events.toLocaleString('en-US')} events`, { timeout: 60_000 });
  await expect(page.getByTestId('imported-source')).toBeVisible();
  await expect(page.getByTestId('traffic-view')).toHaveAttribute('data-source', /^import-\d+$/);
  await expect.poll(() => trafficCount(page), { timeout: 30_000 }).toBe(trace.events);
  await expect(trafficRows(page).first()).toBeVisible();
  expect(app.process.exitCode).toBeNull();

  // The export is a link to the route: the browser streams it to disk.
  await page.getByTestId('traffic-export').click();
  const [download] = await Promise.all([page.waitForEvent('download', { timeout: 60_000 }), page.getByTestId('traffic-export-jsonl').click()]);
  expect(download.url()).toMatch(/\/api\/trace\/export\?format=jsonl&source=import-\d+$/);
  expect(download.suggestedFilename()).toMatch(/^switchboard-.+\.jsonl$/);
  await expectWholeTrace(download, 'exported.jsonl');
});

test('a file that is not a trace is named for what it is, one over 1 GiB is refused up front, a torn one opens with where it was cut', async ({ page }) => {
  await openApp(page, app);
  await openTraffic(page);
  const png = join(dir, 'screenshot.png');
  writeFileSync(png, Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.alloc(4096, 3)]));
  await page.getByTestId('traffic-import-input').setInputFiles(png);
  await expect(page.getByText('Could not open screenshot.png')).toBeVisible();
  await expect(page.getByText(/screenshot\.png is a PNG image, not a Switchboard trace\..*Nothing was opened\./)).toBeVisible();
  await expect(page.getByTestId('traffic-view')).toHaveAttribute('data-source', 'live');
  await expect(page.locator('[data-testid="server-list"][data-loaded="true"]')).toBeVisible();
  expect(app.process.exitCode).toBeNull();

  // A file over the size limit is refused before it is uploaded whole (a sparse file: no disk used).
  const huge = join(dir, 'huge.jsonl');
  writeFileSync(huge, '');
  truncateSync(huge, 1100 * 1024 * 1024);
  await page.getByTestId('traffic-import-input').setInputFiles(huge);
  await expect(page.getByText('Could not open huge.jsonl')).toBeVisible();
  await expect(page.getByText(/huge\.jsonl is 1\.1 GiB; Switchboard opens traces of up to 1\.0 GiB/)).toBeVisible();
  rmSync(huge);

  // A trace cut off mid-line opens with what it has, and the notice says where and why.
  const text = readFileSync(trace.path, 'utf8');
  const cutAt = text.indexOf('\n', 300_000) + 100;
  const keptEvents = text.slice(0, cutAt).split('\n').length - 2;
  const torn = join(dir, 'torn.jsonl');
  writeFileSync(torn, text.slice(0, cutAt));
  await page.getByTestId('traffic-import-input').setInputFiles(torn);
  const notice = page.getByTestId('trace-import-notice');
  await expect(notice).toContainText(`${keptEvents.toLocaleString('en-US')} events kept. 2 problems:`);
  await expect(notice).toContainText(`line ${(keptEvents + 2).toLocaleString('en-US')}: the file ends in the middle of this line`);
  await expect(notice).toContainText(`the header announces ${trace.events.toLocaleString('en-US')} events; ${keptEvents.toLocaleString('en-US')} were read`);
  await expect(page.getByTestId('traffic-view')).toHaveAttribute('data-source', /^import-\d+$/);
  await expect.poll(() => trafficCount(page)).toBe(keptEvents);
});

test('the Recordings view imports the 17 MB trace into the library over HTTP and exports the recording back whole', async ({ page }) => {
  await openApp(page, app);
  // The generated events are dated a year before the file's header: keep recordings of any age
  // (age-based retention would remove this import at once).
  await apiCall(page, 'updateSettings', { recordingRetention: { maxBytes: 2 * 1024 ** 3, maxAgeDays: 0 } });
  await page.getByTestId('view-recordings').click();
  await page.getByTestId('recordings-tab-library').click();
  await expect(page.getByTestId('recordings-library')).toBeVisible();

  const upload = page.waitForRequest((r) => r.url().includes('/api/recordings/import?name=seventeen.jsonl') && r.method() === 'POST');
  await page.getByTestId('recordings-import-input').setInputFiles(trace.path);
  await upload;
  await expect(page.getByTestId('recording-import-notice')).toContainText(`${trace.events.toLocaleString('en-US')} events`, { timeout: 60_000 });
  await expect(page.getByTestId('recording-import-notice')).toContainText('Added seventeen.jsonl to the library');
  const row = page.locator(`[data-testid="recording-row"][data-events="${trace.events}"]`);
  await expect(row).toHaveCount(1);
  await expect(row.getByTestId('recording-name')).toHaveText('seventeen.jsonl');
  await expect(row).toHaveAttribute('data-ended', 'clean');
  await bothThemes(page, 'recordings-imported', { pointer: { x: 5, y: 5 } });

  // Export: the recording is opened in main, then the browser downloads it from the route.
  await row.getByTestId('recording-menu').click();
  const [download] = await Promise.all([page.waitForEvent('download', { timeout: 60_000 }), page.getByTestId('recording-export-jsonl').click()]);
  expect(download.url()).toMatch(/\/api\/trace\/export\?format=jsonl&source=rec-[A-Za-z0-9_-]+$/);
  await expectWholeTrace(download, 'recording.jsonl');
  expect(app.process.exitCode).toBeNull();
});
