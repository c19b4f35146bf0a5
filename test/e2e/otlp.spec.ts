/**
 * OpenTelemetry from the page (#16): Traffic → Export → "Send to an OpenTelemetry collector…",
 * an endpoint and an auth header typed into the dialog (the value masked), sent to a real
 * OTLP/HTTP endpoint in this test that decodes the protobuf with the OpenTelemetry protos; an
 * endpoint that refuses shows why; the OTLP JSON download. Screenshots of the dialog, its result
 * and its error, light and dark.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { startFixture, type RunningFixture } from '../fixtures/everything/harness';
import { attributeMap, startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver';
import { mainCall, openApp, startBrowserMode, type BrowserModeApp } from './support/browser-mode';
import { bothThemes } from './support/screenshots';
import { openTraffic } from './support/traffic';
import { callTool } from './support/ui';

const BEARER = 'sk-e2e-otlp-bearer-61c2a9';
const COLLECTOR_TOKEN = 'e2e-collector-token-7b3d';

let app: BrowserModeApp;
let server: RunningFixture;
let receiver: OtlpReceiver;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  app = await startBrowserMode();
  server = await startFixture({ transport: 'http', era: 'legacy', sessions: true });
  receiver = await startOtlpReceiver();
  const added = await mainCall(app, 'addServer', { name: 'everything', target: { type: 'http', url: server.url, headers: { Authorization: `Bearer ${BEARER}` } } });
  expect(added.ok, added.error?.message).toBe(true);
  const connected = await mainCall(app, 'connectServer', { id: (added.result as { id: string }).id });
  expect(connected.ok, connected.error?.message).toBe(true);
});

test.afterAll(async () => {
  await app?.close();
  await server?.close();
  await receiver?.close();
});

test('sends the live trace to an OTLP/HTTP endpoint from the dialog, and downloads OTLP JSON', async ({ page }) => {
  await openApp(page, app);
  await expect(page.locator('[data-testid="server-item"][data-server-name="everything"]')).toHaveAttribute('data-state', 'connected');
  await expect(await callTool(page, 'everything__add', { a: 40, b: 2 })).toContainText('42');

  await openTraffic(page);
  await page.getByTestId('traffic-export').click();
  await page.getByTestId('traffic-send-otlp').click();
  const modal = page.getByTestId('otlp-modal');
  await expect(modal).toBeVisible();
  await expect(page.getByTestId('otlp-send')).toBeDisabled();
  await modal.getByTestId('otlp-endpoint').fill(receiver.url);
  await modal.getByTestId('otlp-add-header').click();
  await modal.getByTestId('otlp-header-name').fill('Authorization');
  await modal.getByTestId('otlp-header-value').fill(`Bearer ${COLLECTOR_TOKEN}`);
  await expect(modal.getByTestId('otlp-header-value')).toHaveAttribute('type', 'password');
  await bothThemes(page, 'otlp-send-dialog', { pointer: { x: 5, y: 5 } });

  await page.getByTestId('otlp-send').click();
  const result = page.getByTestId('otlp-result');
  await expect(result).toBeVisible();
  await expect(result).toContainText(`${receiver.url}/v1/traces`);
  const spans = receiver.spans();
  expect(spans.length).toBeGreaterThan(3);
  await expect(result).toContainText(`${spans.length} spans`);
  expect(receiver.requests[0]!.headers.authorization).toBe(`Bearer ${COLLECTOR_TOKEN}`);
  const add = spans.find((s) => s.name === 'tools/call add');
  expect(add, spans.map((s) => s.name).join(', ')).toBeDefined();
  expect(attributeMap(add!.attributes)).toMatchObject({ 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'add' });
  expect(add!.resource['service.name']).toBe('everything');
  expect(add!.events?.map((e) => e.name)).toContain('http.request');
  for (const r of receiver.requests) expect(r.raw.includes(BEARER)).toBe(false);
  await bothThemes(page, 'otlp-send-result', { pointer: { x: 5, y: 5 } });

  // An endpoint that refuses: the dialog says what it answered.
  receiver.failWith(403, 'token not allowed');
  await page.getByTestId('otlp-send').click();
  const error = page.getByTestId('otlp-error');
  await expect(error).toContainText('HTTP 403');
  await expect(error).toContainText('token not allowed');
  await expect(error).not.toContainText(COLLECTOR_TOKEN);
  receiver.failWith(undefined);
  await bothThemes(page, 'otlp-send-error', { pointer: { x: 5, y: 5 } });

  // The endpoint and header name are remembered, the value is not.
  await page.getByRole('button', { name: 'Close' }).click();
  await expect(modal).toBeHidden();
  await page.getByTestId('traffic-export').click();
  await page.getByTestId('traffic-send-otlp').click();
  await expect(modal.getByTestId('otlp-endpoint')).toHaveValue(receiver.url);
  await expect(modal.getByTestId('otlp-header-name')).toHaveValue('Authorization');
  await expect(modal.getByTestId('otlp-header-value')).toHaveValue('');
  await page.getByRole('button', { name: 'Close' }).click();

  // OTLP JSON download.
  await page.getByTestId('traffic-export').click();
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('traffic-export-otlp').click()]);
  expect(download.suggestedFilename()).toMatch(/\.otlp\.json$/);
  const text = readFileSync((await download.path())!, 'utf8');
  expect(text.includes(BEARER)).toBe(false);
  const parsed = JSON.parse(text) as { resourceSpans: { scopeSpans: { spans: { name: string; traceId: string; startTimeUnixNano: string }[] }[] }[] };
  const names = parsed.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans.map((s) => s.name)));
  expect(names).toContain('tools/call add');
  expect(names).toContain('initialize');
  const first = parsed.resourceSpans[0]!.scopeSpans[0]!.spans[0]!;
  expect(first.traceId).toMatch(/^[0-9a-f]{32}$/);
  expect(first.startTimeUnixNano).toMatch(/^\d+$/);

  // The palette: both commands.
  const palette = async (query: string, label: RegExp) => {
    await page.evaluate(() => (globalThis as unknown as { document: { activeElement: { blur?(): void } | null } }).document.activeElement?.blur?.());
    await page.keyboard.press('Control+K');
    const search = page.getByPlaceholder('Run a command, go to a view, server or tool…');
    await expect(search).toBeFocused();
    await search.fill(query);
    await expect(page.locator('[data-action][data-selected]')).toHaveText(label);
    await page.keyboard.press('Enter');
  };
  const [fromPalette] = await Promise.all([page.waitForEvent('download'), palette('otlp', /^Export trace as OTLP/)]);
  expect(fromPalette.suggestedFilename()).toMatch(/\.otlp\.json$/);
  await palette('collector', /^Send trace to an OpenTelemetry collector/);
  await expect(modal).toBeVisible();
  await expect(modal.getByTestId('otlp-endpoint')).toHaveValue(receiver.url);
  await page.getByRole('button', { name: 'Close' }).click();
});

test('sends a recording of the library from its menu', async ({ page }) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-e2e-otlp-'));
  // A session recorded by the CLI into the library, then the app on that library.
  execFileSync(process.execPath, ['out/main/cli.js', 'record', '--url', server.url, '--name', 'cli session', '--call', 'echo', '--args', '{"text":"from the library"}', '--data-dir', dataDir], { timeout: 60_000, stdio: ['ignore', 'pipe', 'pipe'] });
  const library = await startBrowserMode([], { dataDir });
  try {
    receiver.requests.length = 0;
    await openApp(page, library);
    await page.getByTestId('view-recordings').click();
    const row = page.locator('[data-testid="recording-row"]:not([data-live="true"])').filter({ hasText: 'cli session' });
    await expect(row).toHaveCount(1);
    await row.getByTestId('recording-menu').click();
    await page.getByTestId('recording-send-otlp').click();
    const modal = page.getByTestId('otlp-modal');
    await expect(modal).toContainText('cli session');
    await modal.getByTestId('otlp-endpoint').fill(`${receiver.url}/v1/traces`);
    await page.getByTestId('otlp-send').click();
    await expect(page.getByTestId('otlp-result')).toBeVisible();
    const spans = receiver.spans();
    expect(spans.find((s) => s.name === 'tools/call echo'), spans.map((s) => s.name).join(', ')).toBeDefined();
    expect(receiver.requests[0]!.headers.authorization).toBeUndefined();
  } finally {
    await library.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
