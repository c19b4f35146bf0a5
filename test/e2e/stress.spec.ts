/**
 * The Traffic view under a flood: 20,000 notifications/message on one POST's SSE stream (the
 * fixture's `flood` tool, legacy-era Streamable HTTP with sessions) while the view is open.
 *
 * Measured, not timed: frame times in the page (requestAnimationFrame deltas) and how long a
 * click on a filter takes to show are printed, never asserted (timing belongs to the bench:
 * bench/traffic-million.ts and the flood workloads). What is asserted: each click was answered
 * (the filtered table showed its matches), the table holds every event main reported
 * (`traceBatch.total`, read off the WebSocket), and after a reload — when only the newest 500
 * are in the page and the rest is read from main by window — it still reaches the first event,
 * one in the middle and the last.
 */
import { expect, test } from '@playwright/test';
import { startFixture, type RunningFixture } from '../fixtures/everything/harness';
import { openApp, startBrowserMode, type BrowserModeApp } from './support/browser-mode';
import { frameStats, openTraffic, scrollTableTo, startFrameProbe, startToolCall, stopFrameProbe, timeClick, trafficCount } from './support/traffic';
import { addServer } from './support/ui';

/** STRESS_FLOOD overrides the size (e.g. 100000 for a longer benchmark run). */
const FLOOD = Number(process.env.STRESS_FLOOD ?? 20_000);

let app: BrowserModeApp;
let fixture: RunningFixture;

test.beforeAll(async () => {
  app = await startBrowserMode();
  fixture = await startFixture({ transport: 'http', era: 'legacy', sessions: true });
});

test.afterAll(async () => {
  await app?.close();
  await fixture?.close();
});

test('a 20,000-notification flood with the Traffic view open', async ({ page }) => {
  test.setTimeout(180_000);

  // What main reports: the highest `total` of the trace batches pushed to this page.
  let reportedTotal = 0;
  let lastBatchAt = 0;
  page.on('websocket', (ws) => {
    ws.on('framereceived', ({ payload }) => {
      if (typeof payload !== 'string' || !payload.startsWith('{"type":"event","event":"traceBatch"')) return;
      const total = (JSON.parse(payload) as { payload: { total: number } }).payload.total;
      if (total > reportedTotal) reportedTotal = total;
      lastBatchAt = Date.now();
    });
  });

  await openApp(page, app);
  await addServer(page, { name: 'flood http', url: fixture.url });
  await expect(page.locator('[data-testid="server-item"][data-server-name="flood http"]')).toHaveAttribute('data-state', 'connected');
  await openTraffic(page);
  const before = await trafficCount(page);

  await startFrameProbe(page);
  const started = Date.now();
  await startToolCall(page, 'flood-http__flood', { count: FLOOD });
  await openTraffic(page);
  const table = page.getByTestId('traffic-table');
  await expect(table).toHaveAttribute('data-follow', 'true');

  // Clicks during the flood: toggle "Errors only" on and off; the page times its own answer.
  const clicks: { at: number; rows: number; on: boolean; answerMs: number; paintMs: number }[] = [];
  const errorsOnly = 'input[data-testid="traffic-errors-only"]';
  const filteredIs = (value: boolean) => ({ selector: '[data-testid="traffic-table"]', attribute: 'data-filtered', value: String(value) });
  await expect.poll(() => trafficCount(page), { timeout: 60_000, intervals: [100] }).toBeGreaterThan(before + 200);
  let rows = 0;
  for (let i = 0; i < 3; i++) {
    for (const on of [true, false]) {
      if (on) rows = await trafficCount(page);
      const at = Date.now();
      clicks.push({ at, rows, on, ...(await timeClick(page, errorsOnly, filteredIs(on))) });
      if (on) await expect(page.getByTestId('traffic-count')).toContainText('matching');
      // the next click against newer data: another batch arrived (or the flood is over)
      const seen = reportedTotal;
      await expect.poll(() => reportedTotal > seen || reportedTotal >= before + FLOOD, { timeout: 60_000, intervals: [50] }).toBe(true);
    }
  }

  // The flood is over when the table shows everything main reported and that stops changing.
  await expect
    .poll(
      async () => {
        const count = await trafficCount(page);
        return count >= before + FLOOD && count === reportedTotal;
      },
      { timeout: 120_000, intervals: [250] },
    )
    .toBe(true);
  const floodMs = Date.now() - started;
  const frames = frameStats(await stopFrameProbe(page));
  const finalCount = await trafficCount(page);

  console.log(`[stress] flood of ${FLOOD} notifications: ${finalCount} events in the table, main reported ${reportedTotal}, ${(floodMs / 1000).toFixed(1)} s until all were shown`);
  console.log(`[stress] frame times during the flood (ms): p50=${frames.p50} p95=${frames.p95} p99=${frames.p99} max=${frames.max}; ${frames.frames} frames, ${frames.long} longer than 50 ms (${frames.longMs} ms in total)`);
  for (const c of clicks) {
    const when = `${((c.at - started) / 1000).toFixed(1)} s into the flood, ${c.at < lastBatchAt ? 'batches still arriving' : 'after the last batch'}, ${c.rows} rows`;
    console.log(`[stress] "Errors only" ${c.on ? 'on ' : 'off'} (${when}): answered in ${c.answerMs.toFixed(0)} ms, on screen in ${c.paintMs.toFixed(0)} ms`);
  }

  expect(clicks[0]!.at).toBeLessThan(lastBatchAt); // the first click really was during the flood
  expect(finalCount).toBe(reportedTotal);
  expect(frames.frames).toBeGreaterThan(10);

  // The newest row is on screen (follow), and it is the last event.
  await expect(page.locator(`[data-testid="traffic-row"][data-seq="${finalCount}"]`)).toBeVisible();

  // One of the flood's events: its exchange holds 20,000+ events, more than the detail loads, and
  // has ended. The detail says so as soon as it shows the exchange, not a refresh later.
  const floodEvent = page.locator(`[data-testid="traffic-row"][data-seq="${finalCount - 3}"][data-kind="sse-event"]`);
  await floodEvent.click();
  const detail = page.getByTestId('traffic-detail');
  await expect(detail).toHaveAttribute('data-seq', String(finalCount - 3));
  await detail.getByTestId('traffic-tab-headers').click();
  await expect(detail.getByTestId('traffic-detail-filter-exchange')).toContainText('5,000+ events');
  const ended = await detail.locator('dt', { hasText: /^Ended$/ }).locator('xpath=following-sibling::dd[1]').textContent();
  expect(ended).not.toBe('still open');
  expect(ended).toMatch(/\S/);

  // Reload: the page now holds only the newest 500 events; everything older is paged from main.
  await page.reload();
  await page.locator('body[data-app-state="ready"]').waitFor();
  await openTraffic(page);
  await expect.poll(() => trafficCount(page)).toBeGreaterThanOrEqual(finalCount);
  const total = await trafficCount(page);
  await expect(page.getByTestId('traffic-count')).toHaveText(`${total.toLocaleString('en-US')} events`);

  await page.getByTestId('traffic-follow').uncheck();
  await scrollTableTo(page, 0);
  await expect(page.locator('[data-testid="traffic-row"][data-seq="1"]')).toBeVisible();
  await scrollTableTo(page, 9_999);
  await expect(page.locator('[data-testid="traffic-row"][data-seq="10000"]')).toBeVisible();
  await expect(page.locator('[data-testid="traffic-row"][data-seq="10000"]')).toHaveAttribute('data-kind', /.+/);
  await expect(page.locator('[data-testid="traffic-row-placeholder"]')).toHaveCount(0);
  await page.getByTestId('traffic-table').press('End');
  await expect(page.locator(`[data-testid="traffic-row"][data-seq="${total}"]`)).toBeVisible();
});
