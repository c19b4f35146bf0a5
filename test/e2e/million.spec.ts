/**
 * A million events at hand (#15): a live session of 1,000,000 trace events (the everything
 * fixture's `flood` over stdio, through the real app: added, connected and called through the
 * contract), then, in the browser, Traffic scrolls to the middle, filters, scrolls the filtered
 * rows and jumps to a seq — every row read from main's store by window (`traceWindow`), most of it
 * spilled to disk — while the page's JS heap stays bounded.
 *
 * Response times (from the action — the scroll, the Enter key — until the right row is on screen)
 * are printed, not asserted:
 * the bench (bench/traffic-million.ts) holds them to their goal. MILLION_EVENTS sets the size
 * (default 1,000,000).
 */
import { expect, test } from '@playwright/test';
import { mainCall, openApp, startBrowserMode, type BrowserModeApp } from './support/browser-mode';
import { floodLiveTrace, jsHeapUsed, openTraffic, trafficCount, waitVisible, watchFor } from './support/traffic';

const COUNT = Number(process.env.MILLION_EVENTS ?? 1_000_000);
const HEAP_BOUND = 200 * 1024 * 1024;

let app: BrowserModeApp;

test.beforeAll(async () => {
  test.setTimeout(900_000);
  app = await startBrowserMode();
  const started = Date.now();
  const { events, notifications } = await floodLiveTrace((method, args) => mainCall(app, method, args), COUNT, {
    onProgress: (n) => console.log(`[million] ${n.toLocaleString('en-US')} events recorded, ${((Date.now() - started) / 1000).toFixed(0)} s`),
  });
  console.log(`[million] live trace: ${events.toLocaleString('en-US')} events (${notifications.toLocaleString('en-US')} notifications) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
});

test.afterAll(async () => {
  await app?.close();
});

const row = (seq: number) => `[data-testid="traffic-row"][data-seq="${seq}"]`;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

test('1,000,000 events: scroll to the middle, filter, jump to a seq, with the page memory bounded', async ({ page }) => {
  test.setTimeout(300_000);
  await openApp(page, app);
  await openTraffic(page);
  const total = await trafficCount(page);
  expect(total).toBeGreaterThanOrEqual(COUNT);
  await page.getByTestId('traffic-follow').uncheck();
  const heapAtStart = await jsHeapUsed(page);

  // Scroll to the middle: the rows there come from main's spill file.
  const middle = Math.floor(total / 2);
  await watchFor(page, row(middle + 1), { scrollIndex: middle });
  const scrollMs = await waitVisible(page);
  await expect(page.locator(row(middle + 1))).toHaveAttribute('data-kind', /.+/);
  await expect(page.locator('[data-testid="traffic-row-placeholder"]')).toHaveCount(0);
  // and once more, far away (what was loaded for the first scroll does not help)
  const quarter = Math.floor(total / 4);
  await watchFor(page, row(quarter + 1), { scrollIndex: quarter });
  const scroll2Ms = await waitVisible(page);

  // Filter: main evaluates it on its index; the count is every match.
  const methodInput = page.getByTestId('traffic-filter-method');
  await methodInput.click();
  await methodInput.fill('notifications/message');
  await watchFor(page, '[data-testid="traffic-table"][data-filtered="true"] [data-testid="traffic-row"][data-method="notifications/message"]');
  await methodInput.press('Enter');
  const filterMs = await waitVisible(page);
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('traffic-count')).toContainText('matching');
  const matched = await trafficCount(page);
  expect(matched).toBeGreaterThanOrEqual(COUNT * 0.99);
  expect(matched).toBeLessThan(total);

  // The middle of the filtered rows: every row on screen matches; the seqs ascend.
  const filteredMiddle = Math.floor(matched / 2);
  await watchFor(page, '[data-testid="traffic-row"][data-method="notifications/message"]:not([data-seq="1"])', { scrollIndex: filteredMiddle });
  const filteredScrollMs = await waitVisible(page);
  await expect(page.locator('[data-testid="traffic-row-placeholder"]')).toHaveCount(0);
  const seqs = (await page.locator('[data-testid="traffic-row"]').evaluateAll((els) => els.map((el) => [el.getAttribute('data-seq'), el.getAttribute('data-method')]))) as [string, string][];
  expect(seqs.length).toBeGreaterThan(5);
  expect(seqs.every(([, method]) => method === 'notifications/message')).toBe(true);
  const numbers = seqs.map(([seq]) => Number(seq));
  expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
  // positions are dense: the middle match of a flood is near the middle of the trace
  expect(Math.abs(numbers[0]! - total / 2)).toBeLessThan(total * 0.05);

  // Jump to a seq (it matches the filter): it is selected and on screen.
  const target = numbers[0]! - Math.floor(total / 3);
  await expect(page.locator(row(target))).toHaveCount(0);
  const goto = page.getByTestId('traffic-goto');
  await goto.fill(String(target));
  await watchFor(page, `${row(target)}[data-method="notifications/message"]`);
  await goto.press('Enter');
  const jumpMs = await waitVisible(page);
  await expect(page.locator(row(target))).toHaveAttribute('aria-selected', 'true');

  // Jump to a seq that does not match (the tool call's request): the filters are cleared to show it.
  const request = await mainCall(app, 'traceWindow', { methods: ['tools/call'], kinds: ['jsonrpc-out'], offset: 0, limit: 1 });
  const requestSeq = (request.result as { events: { seq: number }[] }).events[0]!.seq;
  await goto.fill(String(requestSeq));
  await goto.press('Enter');
  await expect(page.getByTestId('traffic-table')).toHaveAttribute('data-filtered', 'false');
  await expect(page.locator(row(requestSeq))).toBeVisible();

  const heap = await jsHeapUsed(page);
  console.log(`[million] ${total.toLocaleString('en-US')} events; ${matched.toLocaleString('en-US')} match notifications/message`);
  console.log(
    `[million] visible response (ms): scroll to the middle ${scrollMs}, to a quarter ${scroll2Ms}, filter ${filterMs}, scroll the filtered rows ${filteredScrollMs}, jump to #${target} ${jumpMs}`,
  );
  console.log(`[million] renderer JS heap: ${mb(heapAtStart)} on opening Traffic, ${mb(heap)} at the end (bound ${mb(HEAP_BOUND)})`);
  expect(heap).toBeLessThan(HEAP_BOUND);
});
