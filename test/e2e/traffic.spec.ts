/**
 * The Traffic view against real fixture servers: a legacy-era Streamable HTTP server with
 * sessions (POSTs answered as SSE streams with event ids) and a stdio one. Calls made through
 * the UI, then: filters, grouping, the detail pane of a POST-SSE exchange (headers, SSE events
 * with ids, JSON bodies), copy as cURL, HAR and JSONL export, and the JSONL read back read-only.
 */
import { readFileSync } from 'node:fs';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { startFixture, stdioFixtureCommand, type RunningFixture } from '../fixtures/everything/harness';
import { mainCall, openApp, startBrowserMode, type BrowserModeApp } from './support/browser-mode';
import {
  clearTrafficFilters,
  filterMethod,
  openTraffic,
  pickFilter,
  rowAttr,
  toggleErrorsOnly,
  trafficCount,
  trafficGroups,
  trafficRows,
  waitForFiltered,
} from './support/traffic';
import { addServer, callTool, shellQuote } from './support/ui';
import { bothThemes } from './support/screenshots';
import { fromBottom, scrollSettled, wheelUpStopsFollowing } from './support/wheel';

let app: BrowserModeApp;
let legacy: RunningFixture;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  app = await startBrowserMode();
  legacy = await startFixture({ transport: 'http', era: 'legacy', sessions: true });
});

test.afterAll(async () => {
  await app?.close();
  await legacy?.close();
});

/** Selects the request row of the slow_count call: a POST answered with an SSE stream. */
async function selectSlowCountExchange(page: Page): Promise<void> {
  await page.getByTestId('traffic-search').fill('slow_count');
  await pickFilter(page, 'traffic-filter-kind', 'http-request');
  await waitForFiltered(page);
  const request = trafficRows(page).filter({ has: page.locator('text=tools/call') }).first();
  await expect(request).toHaveAttribute('data-channel', 'post-sse');
  await request.click();
  await expect(page.getByTestId('traffic-detail')).toHaveAttribute('data-exchange', /.+/);
}

test('records the calls and filters them by server, channel, method, text and errors', async ({ page }) => {
  await openApp(page, app);
  const { command, args } = stdioFixtureCommand();
  await addServer(page, { name: 'legacy http', url: legacy.url });
  await addServer(page, { name: 'local stdio', command: shellQuote([command, ...args]) });
  await expect(page.locator('[data-testid="server-item"][data-server-name="legacy http"]')).toHaveAttribute('data-state', 'connected');
  await expect(page.locator('[data-testid="server-item"][data-server-name="local stdio"]')).toHaveAttribute('data-state', 'connected');

  await callTool(page, 'legacy-http__slow_count', { steps: 3, delayMs: 40 });
  await callTool(page, 'legacy-http__log', { level: 'warning', message: 'disk almost full' });
  await callTool(page, 'legacy-http__add', { a: 2, b: 40 });
  await callTool(page, 'legacy-http__fail', { message: 'broken on purpose' });
  await callTool(page, 'local-stdio__echo', { text: 'hello traffic' });

  await openTraffic(page);
  await expect.poll(() => trafficCount(page)).toBeGreaterThan(20);
  await expect(trafficRows(page).first()).toBeVisible();
  // Both servers are in the unfiltered table, and the count is every event main holds.
  const servers = new Set(await rowAttr(trafficRows(page), 'data-server-name'));
  expect(servers.has('legacy http') && servers.has('local stdio')).toBe(true);

  await test.step('server', async () => {
    await pickFilter(page, 'traffic-filter-server', 'local stdio');
    await waitForFiltered(page);
    await expect(trafficRows(page).first()).toBeVisible();
    expect(new Set(await rowAttr(trafficRows(page), 'data-server-name'))).toEqual(new Set(['local stdio']));
    expect(await rowAttr(trafficRows(page), 'data-channel')).toContain('stdio');
    await clearTrafficFilters(page);
  });

  await test.step('channel', async () => {
    await pickFilter(page, 'traffic-filter-channel', 'post-sse');
    await waitForFiltered(page);
    await expect(trafficRows(page).first()).toBeVisible();
    expect(new Set(await rowAttr(trafficRows(page), 'data-channel'))).toEqual(new Set(['post-sse']));
    const kinds = new Set(await rowAttr(trafficRows(page), 'data-kind'));
    expect(kinds.has('sse-event')).toBe(true);
    expect(kinds.has('http-request')).toBe(true);
    await clearTrafficFilters(page);
  });

  await test.step('method', async () => {
    await filterMethod(page, 'tools/call');
    await waitForFiltered(page);
    await expect(trafficRows(page).first()).toBeVisible();
    const methods = await rowAttr(trafficRows(page), 'data-method');
    expect(new Set(methods)).toEqual(new Set(['tools/call']));
    // Five calls: each request recorded once (HTTP request, or the stdio line).
    expect(methods.length).toBe(5);
    await clearTrafficFilters(page);
  });

  await test.step('text (the "/" key focuses the search box)', async () => {
    await page.getByTestId('traffic-status').click();
    await page.keyboard.press('/');
    await expect(page.getByTestId('traffic-search')).toBeFocused();
    await page.keyboard.type('hello traffic');
    await waitForFiltered(page);
    const rows = trafficRows(page);
    await expect(rows).toHaveCount(2);
    expect(new Set(await rowAttr(rows, 'data-server-name'))).toEqual(new Set(['local stdio']));
    expect(await rowAttr(rows, 'data-kind')).toEqual(['jsonrpc-out', 'jsonrpc-in']);
    await clearTrafficFilters(page);
  });

  await test.step('status class', async () => {
    await page.getByTestId('traffic-filters').getByText('4xx', { exact: true }).click();
    await waitForFiltered(page);
    await expect(trafficRows(page).first()).toBeVisible();
    const statuses = await rowAttr(trafficRows(page), 'data-status');
    expect(statuses.every((s) => /^4\d\d$/.test(s))).toBe(true);
    await clearTrafficFilters(page);
  });

  await test.step('errors only, and the filters survive switching views', async () => {
    // A real error (the version probe's expected refusals are negotiation, not errors): a read the server refuses.
    const listed = (await mainCall(app, 'listServers')).result as { id: string; name: string }[];
    expect((await mainCall(app, 'readResource', { serverId: listed.find((s) => s.name === 'legacy http')!.id, uri: 'fixture://no-such-resource' })).ok).toBe(false);
    await toggleErrorsOnly(page);
    await waitForFiltered(page);
    await page.getByTestId('view-tools').click();
    await openTraffic(page);
    await expect(page.getByTestId('traffic-table')).toHaveAttribute('data-filtered', 'true');
    await expect(trafficRows(page).first()).toBeVisible();
    const errors = await rowAttr(trafficRows(page), 'data-error');
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.every((e) => e === 'true')).toBe(true);
    await clearTrafficFilters(page);
  });

  await test.step('"Show traffic" from the server menu filters by server', async () => {
    await page.locator('[data-testid="server-item"][data-server-name="legacy http"]').getByTestId('server-menu').click();
    await page.getByRole('menuitem', { name: 'Show traffic' }).click();
    await waitForFiltered(page);
    expect(new Set(await rowAttr(trafficRows(page), 'data-server-name'))).toEqual(new Set(['legacy http']));
    await clearTrafficFilters(page);
  });

  await test.step('grouping: one row per exchange, expandable', async () => {
    await page.getByTestId('traffic-group-toggle').check();
    await expect(page.getByTestId('traffic-table')).toHaveAttribute('data-grouped', 'true');
    const sseGroup = trafficGroups(page).filter({ has: page.locator('text=tools/call') }).and(page.locator('[data-channel="post-sse"]')).first();
    await expect(sseGroup).toBeVisible();
    const events = Number(await sseGroup.getAttribute('data-events'));
    expect(events).toBeGreaterThanOrEqual(4);
    const exchange = (await sseGroup.getAttribute('data-exchange'))!;
    await sseGroup.getByTestId('traffic-group-expand').click();
    await expect(trafficRows(page).and(page.locator(`[data-exchange="${exchange}"]`))).toHaveCount(events);
    await sseGroup.getByTestId('traffic-group-expand').click();
    await page.getByTestId('traffic-group-toggle').uncheck();
    await expect(page.getByTestId('traffic-table')).toHaveAttribute('data-grouped', 'false');
  });

  await test.step('separators where sessions start and states change', async () => {
    await pickFilter(page, 'traffic-filter-kind', 'session');
    await pickFilter(page, 'traffic-filter-kind', 'state');
    await waitForFiltered(page);
    await expect(trafficRows(page).first()).toBeVisible();
    const rows = trafficRows(page);
    expect(new Set(await rowAttr(rows, 'data-separator'))).toEqual(new Set(['session', 'state']));
    await expect(rows.and(page.locator('[data-separator="session"]')).first()).toContainText('session issued');
    await expect(rows.filter({ hasText: 'state: connected' }).first()).toBeVisible();
    await clearTrafficFilters(page);
  });

  await test.step('pause holds new events; resume adds every one of them', async () => {
    await page.getByTestId('traffic-pause').click();
    await expect(page.getByTestId('traffic-pause')).toHaveAttribute('data-paused', 'true');
    // Read once paused: pausing shows at once what had arrived (a background event a tick old included).
    const before = await trafficCount(page);
    await page.getByTestId('view-tools').click();
    await callTool(page, 'local-stdio__echo', { text: 'said while paused' });
    await openTraffic(page);
    const held = page.getByTestId('traffic-held');
    await expect(held).toContainText('new events held');
    await expect.poll(async () => Number(await held.getAttribute('data-held'))).toBeGreaterThanOrEqual(2);
    expect(await trafficCount(page)).toBe(before);
    const heldCount = Number(await held.getAttribute('data-held'));
    await page.getByTestId('traffic-pause').click();
    await expect(held).toBeHidden();
    await expect.poll(() => trafficCount(page)).toBeGreaterThanOrEqual(before + heldCount);
    await page.getByTestId('traffic-search').fill('said while paused');
    await waitForFiltered(page);
    await expect(trafficRows(page)).toHaveCount(2);
    await clearTrafficFilters(page);
  });

  await test.step('clear view hides what is there; new events still show; "show" brings the rest back', async () => {
    const total = await trafficCount(page);
    await page.getByTestId('traffic-clear-view').click();
    await expect(page.getByTestId('traffic-empty')).toContainText('View cleared');
    expect(await trafficCount(page)).toBe(0);
    await page.getByTestId('view-tools').click();
    await callTool(page, 'local-stdio__echo', { text: 'after the clear' });
    await openTraffic(page);
    await expect.poll(() => trafficCount(page)).toBeGreaterThanOrEqual(2);
    expect((await rowAttr(trafficRows(page), 'data-seq')).every((seq) => Number(seq) > total)).toBe(true);
    expect(await rowAttr(trafficRows(page), 'data-server-name')).toContain('local stdio');
    await page.getByTestId('traffic-restore-view').click();
    await expect.poll(() => trafficCount(page)).toBeGreaterThanOrEqual(total + 2);
  });
});

test('the detail pane of a POST-SSE exchange: headers, SSE events with ids, JSON bodies, cURL', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.origin });
  await openApp(page, app);
  await openTraffic(page);
  await selectSlowCountExchange(page);
  const detail = page.getByTestId('traffic-detail');
  await expect(detail.getByTestId('traffic-detail-title')).toHaveText('POST /mcp');
  await expect(detail.getByTestId('traffic-detail-status')).toContainText('200');

  // Headers, as recorded.
  await detail.getByTestId('traffic-tab-headers').click();
  await expect(detail.getByTestId('traffic-request-headers')).toContainText('mcp-session-id');
  await expect(detail.getByTestId('traffic-request-headers')).toContainText('text/event-stream');
  await expect(detail.getByTestId('traffic-response-headers')).toContainText('content-type');
  await expect(detail.getByTestId('traffic-response-headers')).toContainText('text/event-stream');

  // The stream: every SSE event with its id (the fixture's event store numbers them).
  await detail.getByTestId('traffic-tab-events').click();
  const sse = detail.getByTestId('sse-event');
  await expect(sse.first()).toBeVisible();
  const ids = await rowAttr(sse, 'data-sse-id');
  expect(ids.length).toBeGreaterThanOrEqual(2);
  expect(ids.every((id) => id.length > 0)).toBe(true);
  expect(new Set(ids).size).toBe(ids.length);
  await expect(detail.getByTestId('traffic-sse-data')).toContainText('counted to 3');

  // Bodies as JSON trees: the request names the tool, the response is the result.
  await detail.getByTestId('traffic-tab-payload').click();
  await expect(detail.getByTestId('traffic-request-body-tree')).toContainText('slow_count');
  await expect(detail.getByTestId('traffic-request-body-tree')).toContainText('tools/call');
  await expect(detail.getByTestId('traffic-response-body-tree')).toContainText('counted to 3');

  // Copy as cURL: the URL, the headers, the body.
  await detail.getByTestId('traffic-copy-curl').click();
  const curl = page.getByTestId('traffic-curl-text');
  await expect(curl).toContainText(`curl '${legacy.url}'`);
  const text = (await curl.textContent()) ?? '';
  expect(text).toContain("-H 'mcp-session-id: ");
  expect(text).toContain('-X POST');
  expect(text).toContain('--data-raw');
  const clipboard = await page.evaluate(() => (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }).navigator.clipboard.readText());
  expect(clipboard).toBe(text);
  await page.keyboard.press('Escape');

  // "Show in table" reveals the selected event after the filters changed.
  const seq = await detail.getAttribute('data-seq');
  await clearTrafficFilters(page);
  await page.getByTestId('traffic-table').evaluate((el) => (el.scrollTop = 0));
  await detail.getByTestId('traffic-detail-reveal').click();
  await expect(page.locator(`[data-testid="traffic-row"][data-seq="${seq}"]`)).toHaveAttribute('aria-selected', 'true');

  // Screenshots: the whole table with the detail pane on the SSE exchange's stream.
  await detail.getByTestId('traffic-tab-events').click();
  await expect(detail.getByTestId('traffic-sse-data')).toBeVisible();
  await bothThemes(page, 'traffic');
});

test('exports HAR and JSONL, and opens the JSONL read-only', async ({ page }) => {
  await openApp(page, app);
  await openTraffic(page);
  const liveCount = await trafficCount(page);
  expect(liveCount).toBeGreaterThan(20);

  // HAR: one entry per HTTP exchange; SSE streams in _eventSourceMessages.
  await page.getByTestId('traffic-export').click();
  const [har] = await Promise.all([page.waitForEvent('download'), page.getByTestId('traffic-export-har').click()]);
  expect(har.suggestedFilename()).toMatch(/\.har$/);
  const parsed = JSON.parse(readFileSync((await har.path())!, 'utf8')) as { log: { entries: { request: { url: string }; _eventSourceMessages?: { eventId: string; data: string }[] }[] } };
  expect(parsed.log.entries.length).toBeGreaterThan(3);
  const streamed = parsed.log.entries.filter((e) => (e._eventSourceMessages?.length ?? 0) > 0);
  expect(streamed.length).toBeGreaterThan(0);
  expect(streamed.some((e) => e._eventSourceMessages!.some((m) => m.data.includes('counted to 3')))).toBe(true);
  expect(parsed.log.entries.every((e) => e.request.url.startsWith(legacy.url.replace(/\/mcp$/, '')))).toBe(true);

  // JSONL: everything; opened again read-only.
  const { path, events: exportedEvents } = await exportJsonl(page);
  expect(exportedEvents).toBeGreaterThanOrEqual(liveCount);

  await page.getByTestId('traffic-import-input').setInputFiles(path);
  await expect(page.getByTestId('imported-source')).toBeVisible();
  await expect(page.getByTestId('imported-source')).toContainText('read-only');
  await expect(page.getByTestId('traffic-readonly')).toBeVisible();
  await expect(page.getByTestId('traffic-view')).toHaveAttribute('data-source', /^import-\d+$/);
  await expect(page.getByTestId('traffic-follow')).toHaveCount(0);
  await expect(page.getByTestId('traffic-pause')).toHaveCount(0);
  await expect.poll(() => trafficCount(page)).toBe(exportedEvents);
  await expect(trafficRows(page).first()).toBeVisible();
  // Server names come from the file; filters query the imported trace.
  await pickFilter(page, 'traffic-filter-server', 'local stdio');
  await waitForFiltered(page);
  expect(new Set(await rowAttr(trafficRows(page), 'data-server-name'))).toEqual(new Set(['local stdio']));
  await clearTrafficFilters(page);

  await page.getByTestId('imported-source').getByRole('button', { name: 'Back to live' }).click();
  await expect(page.getByTestId('traffic-view')).toHaveAttribute('data-source', 'live');
  await expect(page.getByTestId('traffic-follow')).toBeVisible();
});

/** Exports the live trace as JSONL through the UI; the file's path and how many events it holds. */
async function exportJsonl(page: Page): Promise<{ path: string; events: number }> {
  await page.getByTestId('traffic-export').click();
  const [jsonl] = await Promise.all([page.waitForEvent('download'), page.getByTestId('traffic-export-jsonl').click()]);
  expect(jsonl.suggestedFilename()).toMatch(/\.jsonl$/);
  const path = test.info().outputPath(jsonl.suggestedFilename());
  await jsonl.saveAs(path);
  const lines = readFileSync(path, 'utf8').split('\n').filter((l) => l.trim());
  return { path, events: lines.length - 1 };
}

/** The live table, unfiltered, following its newest row. */
async function liveTableFollowing(page: Page): Promise<{ follow: Locator; table: Locator; rowHeight: number }> {
  await openApp(page, app);
  await openTraffic(page);
  await clearTrafficFilters(page);
  const follow = page.getByTestId('traffic-follow');
  if (!(await follow.isChecked())) await follow.check();
  const table = page.getByTestId('traffic-table');
  return { follow, table, rowHeight: Number(await table.getAttribute('data-row-height')) };
}

test('scrolled up by the wheel during a live flood, the rows on screen stay put; back at the bottom it follows again', async ({ page }) => {
  const { follow, table, rowHeight } = await liveTableFollowing(page);
  const serverId = await page.locator('[data-testid="server-item"][data-server-name="legacy http"]').getAttribute('data-server-id');
  const before = await trafficCount(page);

  // 20,000 notifications over 24 s, started without waiting for the answer: they arrive while we scroll.
  const COUNT = 20_000;
  let done = false;
  const flood = mainCall(app, 'callTool', { tool: 'flood', serverId, args: { count: COUNT, spreadMs: 24_000 } }).finally(() => (done = true));
  await expect.poll(() => trafficCount(page)).toBeGreaterThan(before + 500);
  await expect(table).toHaveAttribute('data-follow', 'true');

  // A person's gesture: the wheel, over the table. Each time, following stops where the wheel left the table.
  const box = (await table.boundingBox())!;
  await wheelUpStopsFollowing(page, table, follow, 5);
  await expect(table).toHaveAttribute('data-follow', 'false');
  // What the person now reads: the first whole row on screen, by its place in the table and its seq.
  const top = await scrollSettled(table);
  const row = table.locator(`[data-testid="traffic-row"][style*="translateY(${Math.ceil(top / rowHeight) * rowHeight}px)"]`);
  const seq = await row.getAttribute('data-seq');
  expect(seq).toMatch(/^\d+$/);
  expect(done, 'the flood was still arriving while we scrolled').toBe(false);

  // The rest of the flood arrives; the rows under the reader do not move.
  expect((await flood).ok).toBe(true);
  await expect.poll(() => trafficCount(page)).toBeGreaterThanOrEqual(before + COUNT);
  expect(await table.evaluate((el) => el.scrollTop)).toBe(top);
  await expect(row).toHaveAttribute('data-seq', seq!);
  await expect(row).toBeInViewport();
  await expect(table).toHaveAttribute('data-follow', 'false');
  // The mark says how many events lie below the screen: at least those after the rows on screen, fewer than those after the top row.
  const mark = page.getByTestId('traffic-new-below');
  await expect(mark).toBeVisible();
  // (both read from one rendered frame: the flood's last events may still be arriving)
  const [below, total] = await table.evaluate((el) => [Number(el.parentElement?.querySelector('[data-testid="traffic-new-below"]')?.getAttribute('data-count')), Number(el.getAttribute('aria-rowcount'))]);
  const onScreen = Math.ceil((await table.evaluate((el) => el.clientHeight)) / rowHeight) + 1;
  const index = Math.ceil(top / rowHeight);
  expect(below).toBeGreaterThanOrEqual(total - index - onScreen);
  expect(below).toBeLessThan(total - index);
  await expect(mark).toHaveText(`↓ ${below.toLocaleString('en-US')} newer events`);
  await bothThemes(page, 'traffic-scrolled-up-after-flood', { pointer: { x: 0, y: 0 } });

  // Back down with the wheel: following resumes at the newest row, and the mark is gone.
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.wheel(0, (await table.evaluate((el) => el.scrollHeight)) + 1_000);
  await expect(follow).toBeChecked();
  await expect.poll(() => fromBottom(table)).toBeLessThan(rowHeight * 1.5);
  await expect(mark).toHaveCount(0);

  // Stopped by a click on a row on screen (its detail pane may take some of the table: those rows count), then new events: the mark
  // counts them too, and a click on it follows again.
  const onTop = Math.ceil((await scrollSettled(table)) / rowHeight) + 1;
  await table.locator(`[data-testid="traffic-row"][aria-rowindex="${onTop}"]`).click();
  await expect(follow).not.toBeChecked();
  await expect(page.getByTestId('traffic-detail')).toBeVisible();
  // (what the pane hides, once the table has taken its new height: the same count twice, 300 ms apart)
  const markCount = async () => Number((await mark.getAttribute('data-count', { timeout: 200 }).catch(() => null)) ?? 0);
  let hidden = -1;
  await expect
    .poll(
      async () => {
        const now = await markCount();
        const same = now === hidden;
        hidden = now;
        return same;
      },
      { intervals: [300] },
    )
    .toBe(true);
  const stdio = await page.locator('[data-testid="server-item"][data-server-name="local stdio"]').getAttribute('data-server-id');
  expect((await mainCall(app, 'callTool', { tool: 'echo', serverId: stdio, args: { text: 'below' } })).ok).toBe(true);
  await expect.poll(async () => Number(await mark.getAttribute('data-count'))).toBeGreaterThanOrEqual(hidden + 2); // (the call's request and answer at least)
  await expect(mark).toHaveText(/^↓ [\d,]+ newer events$/);
  await mark.click();
  await expect(follow).toBeChecked();
  await expect.poll(() => fromBottom(table)).toBeLessThan(rowHeight * 1.5);
  await expect(mark).toHaveCount(0);
});

test('following, a filter that swaps in a shorter list, filled from main: it still follows, at the newest match', async ({ page }) => {
  const { follow, table, rowHeight } = await liveTableFollowing(page);
  await expect.poll(() => fromBottom(table)).toBeLessThan(rowHeight * 1.5);
  // (the flood before left tens of thousands of rows: the table stands far down)
  expect(await table.evaluate((el) => el.scrollTop)).toBeGreaterThan(100_000);

  // The filtered list starts empty (the table's scroll clamps to the top), then main's matches fill it, many screens of them.
  await filterMethod(page, 'notifications/message');
  await waitForFiltered(page);
  expect(await trafficCount(page)).toBeGreaterThan(10_000);
  await expect(table).toHaveAttribute('data-follow', 'true');
  await expect.poll(() => fromBottom(table)).toBeLessThan(rowHeight * 1.5);
  await expect(follow).toBeChecked();
  await clearTrafficFilters(page);
  await expect(table).toHaveAttribute('data-follow', 'true');
  await expect.poll(() => fromBottom(table)).toBeLessThan(rowHeight * 1.5);
});

test('a recording, grouped: older rows loaded at the top keep the rows on screen, and no more are loaded than asked for', async ({ page }) => {
  test.setTimeout(300_000);
  const { follow, table, rowHeight } = await liveTableFollowing(page);
  // The stored Follow switch stays on (a recording has none, and never follows).
  await expect(follow).toBeChecked();
  const idOf = (name: string) => page.locator(`[data-testid="server-item"][data-server-name="${name}"]`).getAttribute('data-server-id');
  // 5,000 notifications over legacy HTTP, one POST answered by one SSE stream: grouped, one row of
  // 5,000 events, so older pages of it add no row. Then 5,000 over stdio: no exchange holds them,
  // so grouped they are 5,000 rows.
  expect((await mainCall(app, 'callTool', { tool: 'flood', serverId: await idOf('legacy http'), args: { count: 5_000 } })).ok).toBe(true);
  expect((await mainCall(app, 'callTool', { tool: 'flood', serverId: await idOf('local stdio'), args: { count: 5_000 } })).ok).toBe(true);
  const { path, events } = await exportJsonl(page);
  expect(events).toBeGreaterThan(10_000);

  await page.getByTestId('traffic-import-input').setInputFiles(path);
  await expect(page.getByTestId('traffic-view')).toHaveAttribute('data-source', /^import-\d+$/);
  await page.getByTestId('traffic-group-toggle').check();
  await expect(table).toHaveAttribute('data-grouped', 'true');
  await expect(table).toHaveAttribute('data-follow', 'false');
  const rowCount = async () => Number(await table.getAttribute('aria-rowcount'));
  /** The row count once no older page is loading and the count held for half a second. */
  const settledCount = async () => {
    let seen = -1;
    await expect
      .poll(
        async () => {
          const now = (await table.getAttribute('data-loading-older')) === 'true' ? -1 : await rowCount();
          const same = now >= 0 && now === seen;
          seen = now;
          return same;
        },
        { intervals: [500], timeout: 60_000 },
      )
      .toBe(true);
    return seen;
  };

  // Opened at the top of the newest page, the list loads one older page and keeps its place: not page after page.
  await expect.poll(rowCount).toBeGreaterThan(1_000);
  const opened = await settledCount();
  expect(opened).toBeGreaterThan(1_000);
  expect(opened).toBeLessThan(3_500);
  expect(await table.evaluate((el) => el.scrollTop)).toBeGreaterThanOrEqual((opened - 1_000 - 1) * rowHeight);

  // Scrolled to the top: one more page comes in above, and the table moves down by the rows it added (what was on top stays on top).
  await table.evaluate((el) => el.scrollTo({ top: 0 }));
  await expect.poll(rowCount).toBeGreaterThan(opened);
  const more = await settledCount();
  expect(more - opened).toBeLessThanOrEqual(1_000);
  const top = await scrollSettled(table);
  expect(top).toBeGreaterThanOrEqual((more - opened - 1) * rowHeight);
  expect(top).toBeLessThanOrEqual((more - opened + 1) * rowHeight);

  // Home, again and again, reaches the recording's first event: across the HTTP flood's one exchange
  // too, whose older pages add no row (each page's events join the group already shown).
  const firstSeq = (JSON.parse(readFileSync(path, 'utf8').split('\n')[1]!) as { seq: number }).seq;
  const atFirst = async () => (await table.locator('[role="row"][aria-rowindex="1"]').getAttribute('data-seq', { timeout: 1_000 }).catch(() => null)) === String(firstSeq);
  await table.focus();
  let presses = 0;
  for (; presses < 80 && !(await atFirst()); presses++) {
    await page.keyboard.press('Home');
    await settledCount();
  }
  expect(await atFirst(), `the first event's row on top after ${presses} presses of Home`).toBe(true);
  console.log(`[traffic] a recording of ${events.toLocaleString('en-US')} events, grouped: ${await rowCount()} rows, the first on top after ${presses} presses of Home`);

  await page.getByTestId('imported-source').getByRole('button', { name: 'Back to live' }).click();
  await expect(page.getByTestId('traffic-view')).toHaveAttribute('data-source', 'live');
  await page.getByTestId('traffic-group-toggle').uncheck();
});

test('grouped, one exchange of more events than the list may hold: older pages load up to its most, then it says older events are not loaded', async ({ page }) => {
  test.setTimeout(300_000);
  const { table } = await liveTableFollowing(page);
  // One POST answered by one SSE stream of 102,000 notifications: grouped, one row; each older page of it adds no row.
  const serverId = await page.locator('[data-testid="server-item"][data-server-name="legacy http"]').getAttribute('data-server-id');
  expect((await mainCall(app, 'callTool', { tool: 'flood', serverId, args: { count: 102_000 } })).ok).toBe(true);
  await page.getByTestId('traffic-group-toggle').check();
  await expect(table).toHaveAttribute('data-grouped', 'true');
  const older = page.getByTestId('traffic-older');
  await expect(older).toHaveAttribute('data-capped', 'true', { timeout: 120_000 });
  await expect(older).toHaveText('older events not loaded: this list loads at most 100,000 from the trace; filter to narrow it');
  const count = page.getByTestId('traffic-count');
  expect(Number(await count.getAttribute('data-events'))).toBeGreaterThanOrEqual(100_000);
  expect(Number(await count.getAttribute('data-events'))).toBeLessThan(101_000);
  // the flood's row holds the 100,000 or so loaded (of its 102,000)
  const sizes = await page.locator('[data-testid="traffic-group"]').evaluateAll((els) => els.map((el) => Number(el.getAttribute('data-events'))));
  expect(Math.max(...sizes)).toBeGreaterThan(98_000);
  // its request is older than what was loaded: the row says its start is not in the list
  const flood = page.locator('[data-testid="traffic-group"][data-partial="true"][data-method="notifications/message"]');
  await expect(flood).toHaveCount(1);
  expect(Number(await flood.getAttribute('data-events'))).toBeGreaterThan(98_000);
  await expect(flood.getByTestId('traffic-group-partial')).toHaveText('partial');
  await expect(flood.getByTestId('traffic-group-partial')).toHaveAttribute('title', /not in this list/);
  await bothThemes(page, 'traffic-grouped-capped');

  // "Go to #" an event older than the list holds (the first test's calls): grouping is turned off to show it.
  const old = (await mainCall(app, 'traceQuery', { methods: ['tools/call'], kinds: ['http-request'], order: 'asc', limit: 1 })).result as { events: { seq: number }[] };
  const target = old.events[0]!.seq;
  const goto = page.getByTestId('traffic-goto');
  await goto.fill(String(target));
  await goto.press('Enter');
  await expect(page.getByText('Grouping turned off')).toBeVisible();
  await expect(table).toHaveAttribute('data-grouped', 'false');
  await expect(page.getByTestId('traffic-group-toggle')).not.toBeChecked();
  const row = table.locator(`[data-testid="traffic-row"][data-seq="${target}"]`);
  await expect(row).toBeInViewport();
  await expect(row).toHaveAttribute('aria-selected', 'true');
});
