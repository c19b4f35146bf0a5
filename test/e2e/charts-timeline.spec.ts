/**
 * Charts and Timeline against real fixture servers (legacy Streamable HTTP with sessions,
 * modern HTTP, stdio): a flood of 3000 notifications and a handful of calls, then the charts
 * plot non-zero series, the window switch changes the range, a click on a point opens Traffic;
 * the timeline shows lanes per server and channel, zooms to milliseconds and back, selects a
 * range and opens a span in Traffic; an imported trace is read through traceQuery pages and
 * its own snapshots. Saves the views' screenshots, light and dark.
 */
import { writeFileSync } from 'node:fs';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { startFixture, stdioFixtureCommand, type RunningFixture } from '../fixtures/everything/harness';
import { openApp, startBrowserMode, type BrowserModeApp } from './support/browser-mode';
import { apiCall, callOn, exportFromPage, findOnLane, numberAttr, serverId, showView } from './support/charts';
import { addServer, shellQuote } from './support/ui';
import { bothThemes } from './support/screenshots';

let app: BrowserModeApp;
let legacy: RunningFixture;
let modern: RunningFixture;
/** One page for both tests: the timeline then holds every event of the session live, as a user's window would. */
let page: Page;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async ({ browser }) => {
  test.setTimeout(180_000);
  [app, legacy, modern] = await Promise.all([
    startBrowserMode(),
    startFixture({ transport: 'http', era: 'legacy', sessions: true }),
    startFixture({ transport: 'http', era: 'modern' }),
  ]);
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await setUp(page);
});

test.afterAll(async () => {
  await page?.close();
  await Promise.all([app?.close(), legacy?.close(), modern?.close()]);
});

const SERVERS = ['legacy http', 'modern http', 'stdio'] as const;
let ids: Record<(typeof SERVERS)[number], string>;

async function setUp(page: Page): Promise<void> {
  await openApp(page, app);
  const { command, args } = stdioFixtureCommand();
  // the legacy server through the API, with a 2-second heartbeat so the ping chart has data
  const added = await apiCall<{ id: string }>(page, 'addServer', { name: 'legacy http', target: { type: 'http', url: legacy.url }, pingIntervalSec: 2 });
  await apiCall(page, 'connectServer', { id: added.id });
  await addServer(page, { name: 'modern http', url: modern.url });
  await addServer(page, { name: 'stdio', command: shellQuote([command, ...args]) });
  for (const name of SERVERS) await expect(page.locator(`[data-testid="server-item"][data-server-name="${name}"]`)).toHaveAttribute('data-state', 'connected');
  ids = { 'legacy http': await serverId(page, 'legacy http'), 'modern http': await serverId(page, 'modern http'), stdio: await serverId(page, 'stdio') };

  // Realistic activity: calls on every server, failures of each kind, then a flood.
  for (const name of SERVERS) {
    const id = ids[name];
    await callOn(page, id, 'echo', { text: `hello from ${name}` });
    await callOn(page, id, 'add', { a: 2, b: 40 });
    await callOn(page, id, 'create_order', { customer: { name: 'Ada', email: 'ada@example.com' }, items: [{ sku: 'A-1', qty: 2 }] });
    expect((await callOn(page, id, 'fail', { message: 'broken on purpose' })).isError).toBe(true);
    await expect(callOn(page, id, 'protocol_error', {})).rejects.toThrow();
    await callOn(page, id, 'slow_count', { count: 3 }).catch(() => undefined);
  }
  await callOn(page, ids['legacy http'], 'flood', { count: 3000 });
  await Promise.all([callOn(page, ids['modern http'], 'flood', { count: 500 }), callOn(page, ids.stdio, 'flood', { count: 500 })]);
  for (let i = 0; i < 5; i++) for (const name of SERVERS) await callOn(page, ids[name], 'echo', { text: `round ${i}` });
}

test('charts plot the flood and the calls; the window switches; a click filters Traffic', async ({}, testInfo) => {
  await showView(page, 'charts');
  const charts = page.getByTestId('charts');
  await expect(charts).toHaveAttribute('data-scope', 'all');

  await page.getByTestId('charts-window').getByText('1 min', { exact: true }).click();
  await expect(charts).toHaveAttribute('data-window-sec', '60');
  const messages = page.getByTestId('chart-messages');
  await expect(messages).toHaveAttribute('data-range-ms', '60000');
  await expect(messages).toHaveAttribute('data-points', '60');
  // the flood: thousands of messages within a second or two
  await expect.poll(() => numberAttr(messages, 'data-max'), { timeout: 15_000 }).toBeGreaterThan(500);
  await expect(messages).toHaveAttribute('data-channels', /post-sse/);
  await expect(messages).toHaveAttribute('data-channels', /stdio/);
  // drawn on a canvas (it changes on every tick of a flood): a legend entry per channel, and ink on the plot
  await expect(messages.getByTestId('chart-legend')).toContainText('post-sse');
  await expect.poll(() => inkedPixels(messages)).toBeGreaterThan(2000);

  const latency = page.getByTestId('chart-latency');
  await expect(latency).toHaveAttribute('data-methods', /tools\/call/);
  await expect.poll(() => inkedPixels(latency)).toBeGreaterThan(1000);
  await expect.poll(() => numberAttr(page.getByTestId('chart-errors'), 'data-max')).toBeGreaterThan(0);
  await expect.poll(() => numberAttr(page.getByTestId('chart-ping'), 'data-ping-points')).toBeGreaterThan(0);
  await expect.poll(() => numberAttr(page.getByTestId('chart-inflight'), 'data-max')).toBeGreaterThan(0);

  // tiles: whole-session totals
  expect(await numberAttr(page.getByTestId('tile-messages'), 'data-total')).toBeGreaterThan(4000);
  expect(await numberAttr(page.getByTestId('tile-sessions'), 'data-active')).toBeGreaterThanOrEqual(1);

  // the window changes the visible range (and a long window is downsampled)
  await page.getByTestId('charts-window').getByText('5 min', { exact: true }).click();
  await expect(messages).toHaveAttribute('data-range-ms', '300000');
  await page.getByTestId('charts-window').getByText('15 min', { exact: true }).click();
  await expect(messages).toHaveAttribute('data-range-ms', '900000');
  expect(await numberAttr(messages, 'data-points')).toBeLessThanOrEqual(300);
  expect(await numberAttr(messages, 'data-step-sec')).toBeGreaterThan(1);

  // the sidebar's selection preselects the server
  await page.locator('[data-testid="server-item"][data-server-name="stdio"]').click();
  await expect(charts).toHaveAttribute('data-scope', ids.stdio);
  await expect(messages).toHaveAttribute('data-channels', 'stdio');
  await page.locator('[data-testid="server-item"][data-server-name="stdio"]').click();
  await expect(charts).toHaveAttribute('data-scope', 'all');

  await page.getByTestId('charts-window').getByText('1 min', { exact: true }).click();
  await expect(messages).toHaveAttribute('data-range-ms', '60000');
  await bothThemes(page, 'charts', { pointer: { x: 0, y: 0 } });

  // a click on a point of the messages chart: Traffic, filtered to that second
  const surface = messages.getByTestId('chart-canvas');
  const box = (await surface.boundingBox())!;
  await page.mouse.move(box.x + box.width * 0.85, box.y + box.height * 0.6);
  await expect(messages.getByTestId('chart-tooltip')).toBeVisible();
  await expect(messages.getByTestId('chart-tooltip')).toContainText('/s');
  await page.screenshot({ path: testInfo.outputPath('charts-hover.png') });
  await page.mouse.click(box.x + box.width * 0.85, box.y + box.height * 0.6);
  await expect(page.getByTestId('view-traffic')).toHaveAttribute('aria-selected', 'true');
});

test('timeline: lanes per server and channel, zoom to milliseconds and back, selection and click open Traffic', async ({}, testInfo) => {
  test.setTimeout(120_000);
  await showView(page, 'timeline');
  const timeline = page.getByTestId('timeline');
  await expect.poll(() => numberAttr(timeline, 'data-events')).toBeGreaterThan(4000);

  const lane = (name: string, kind: string, channel = '') =>
    page.locator(`[data-testid="timeline-lane"][data-server-name="${name}"][data-lane-kind="${kind}"][data-channel="${channel}"]`);
  for (const name of SERVERS) {
    await expect(page.locator(`[data-testid="timeline-server"][data-server-name="${name}"]`)).toBeVisible();
    await expect(lane(name, 'rpc-out')).toHaveCount(1);
    await expect(lane(name, 'notifications')).toHaveCount(1);
    await expect(lane(name, 'lifecycle')).toHaveCount(1);
    await expect(lane(name, 'errors')).toHaveCount(1);
  }
  await expect(lane('legacy http', 'channel', 'post-sse')).toHaveCount(1);
  await expect(lane('legacy http', 'channel', 'get')).toHaveCount(1);
  await expect(lane('modern http', 'channel', 'post-json')).toHaveCount(1);
  await expect(lane('modern http', 'channel', 'listen')).toHaveCount(1);
  await expect(lane('stdio', 'channel', 'stdio')).toHaveCount(1);
  // the flood's 3000 notifications are on the legacy server's notifications lane
  expect(await numberAttr(lane('legacy http', 'notifications'), 'data-items')).toBeGreaterThanOrEqual(3000);

  await bothThemes(page, 'timeline', { pointer: { x: 0, y: 0 } });

  // zoom: the button halves the visible span, the wheel zooms around the cursor down to milliseconds
  await expect(timeline).toHaveAttribute('data-follow', 'true');
  const full = await numberAttr(timeline, 'data-visible-ms');
  expect(full).toBeGreaterThan(1000);
  // A live view keeps growing: compare with the span read just before the click, not with `full`
  // (on a loaded machine seconds pass between the two, and the span grows with them).
  const beforeZoom = await numberAttr(timeline, 'data-visible-ms');
  await page.getByTestId('timeline-zoom-in').click();
  await expect.poll(() => numberAttr(timeline, 'data-visible-ms')).toBeLessThan(beforeZoom * 0.6); // about half of what the view was at the click
  await expect(timeline).toHaveAttribute('data-follow', 'false');
  const canvas = page.getByTestId('timeline-canvas');
  const box = (await canvas.boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + 40);
  for (let i = 0; i < 40 && (await numberAttr(timeline, 'data-visible-ms')) >= 50; i++) await page.mouse.wheel(0, -300);
  await expect.poll(() => numberAttr(timeline, 'data-visible-ms')).toBeLessThan(50);
  // the axis labels milliseconds at this zoom
  await expect(page.getByTestId('timeline-range')).toContainText('ms');
  await page.screenshot({ path: testInfo.outputPath('timeline-zoomed.png') });

  await page.getByTestId('timeline-fit').click();
  await expect(timeline).toHaveAttribute('data-follow', 'true');
  expect(await numberAttr(timeline, 'data-visible-ms')).toBeGreaterThanOrEqual(full * 0.95);

  // shift+drag selects a range; "Show in Traffic" applies it
  await page.keyboard.down('Shift');
  await page.mouse.move(box.x + box.width * 0.3, box.y + 30);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.5, box.y + 30, { steps: 5 });
  await page.mouse.up();
  await page.keyboard.up('Shift');
  const selection = page.getByTestId('timeline-selection');
  await expect(selection).toBeVisible();
  expect(await numberAttr(selection, 'data-to')).toBeGreaterThan(await numberAttr(selection, 'data-from'));
  await page.getByTestId('timeline-show-traffic').click();
  await expect(page.getByTestId('view-traffic')).toHaveAttribute('aria-selected', 'true');

  // back on the timeline: hover finds a request span (method, duration, status), a click opens it in Traffic
  await showView(page, 'timeline');
  await page.getByTestId('timeline-fit').click();
  const hit = await findOnLane(page, lane('stdio', 'rpc-out'), 'span');
  const tooltip = page.getByTestId('timeline-tooltip');
  await expect(tooltip).toContainText('duration');
  await expect(tooltip).toContainText('status');
  expect(hit.seq).toBeGreaterThan(0);
  // Press where the pointer already is. The view follows live, so the span slides under a still
  // pointer; mouse.click would first send a move to the same point, and on a slow machine the span
  // has slid off it by then. The click opens what the tooltip named when the button went down.
  await page.mouse.down();
  await page.mouse.up();
  await expect(page.getByTestId('view-traffic')).toHaveAttribute('aria-selected', 'true');
  await expect(page.locator('[data-testid="traffic-row"][aria-selected="true"]')).toHaveAttribute('data-seq', String(hit.seq));
});

test('an imported trace is charted and laid out from its own events', async ({}, testInfo) => {
  const text = await exportFromPage(page, 'jsonl');
  const file = testInfo.outputPath('session.jsonl');
  writeFileSync(file, text);
  const exported = text.trim().split('\n').length - 1; // minus the header line

  await showView(page, 'traffic');
  await page.getByTestId('traffic-import-input').setInputFiles(file);
  await expect(page.getByTestId('imported-source')).toBeVisible();

  await showView(page, 'timeline');
  const timeline = page.getByTestId('timeline');
  await expect.poll(() => numberAttr(timeline, 'data-events'), { timeout: 30_000 }).toBe(exported);
  await expect(page.locator('[data-testid="timeline-lane"][data-server-name="legacy http"][data-lane-kind="notifications"]')).toHaveAttribute('data-items', /^3\d{3}$/);
  await expect(page.locator('[data-testid="timeline-lane"][data-server-name="stdio"][data-channel="stdio"]')).toHaveCount(1);

  await showView(page, 'charts');
  const charts = page.getByTestId('charts');
  await expect(charts).toHaveAttribute('data-source', /^import-\d+$/);
  await page.getByTestId('charts-window').getByText('5 min', { exact: true }).click();
  await expect.poll(() => numberAttr(page.getByTestId('chart-messages'), 'data-max')).toBeGreaterThan(500);
  await expect(page.getByTestId('chart-latency')).toHaveAttribute('data-methods', /tools\/call/);

  await page.getByTestId('imported-source').getByRole('button', { name: 'Back to live' }).click();
  await expect(charts).toHaveAttribute('data-source', 'live');
});

test('a window opened late reads the events before its live window on request', async ({ browser }) => {
  await callOn(page, ids.stdio, 'flood', { count: 3000 });
  const late = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  try {
    await openApp(late, app);
    await showView(late, 'timeline');
    const timeline = late.getByTestId('timeline');
    // the live buffer starts with the most recent 5000 events
    await expect.poll(() => numberAttr(timeline, 'data-events')).toBeGreaterThanOrEqual(5000);
    const first = await numberAttr(timeline, 'data-events');
    await late.getByTestId('timeline-load-earlier').click();
    await expect.poll(() => numberAttr(timeline, 'data-events')).toBeGreaterThan(first + 2000);
    await expect(late.getByTestId('timeline-load-earlier')).toHaveCount(0);
    // the whole session now: the first connection's discovery exchange is there
    await expect(late.locator('[data-testid="timeline-lane"][data-server-name="legacy http"][data-channel="discovery"]')).toHaveCount(1);
  } finally {
    await late.close();
  }
});

/** Pixels a chart's canvas has drawn on (grid, axes, labels and the data itself). */
function inkedPixels(chart: Locator): Promise<number> {
  return chart.getByTestId('chart-canvas').evaluate((element) => {
    const canvas = element as unknown as { width: number; height: number; getContext(kind: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } } };
    const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
    let inked = 0;
    for (let i = 3; i < data.length; i += 4) if (data[i]! > 0) inked++;
    return inked;
  });
}
