/** Page helpers for the Traffic view's e2e specs (traffic.spec.ts, stress.spec.ts). */
import { expect, type Locator, type Page } from '@playwright/test';

export async function openTraffic(page: Page): Promise<void> {
  await page.getByTestId('view-traffic').click();
  await expect(page.getByTestId('traffic-view')).toBeVisible();
}

/** Event rows on screen (the table is virtualized: only what is visible is in the DOM). */
export function trafficRows(page: Page): Locator {
  return page.locator('[data-testid="traffic-table"] [data-testid="traffic-row"]');
}

export function trafficGroups(page: Page): Locator {
  return page.locator('[data-testid="traffic-table"] [data-testid="traffic-group"]');
}

/** The attribute of every row on screen. */
export async function rowAttr(rows: Locator, attr: string): Promise<string[]> {
  return rows.evaluateAll((els, name) => els.map((el) => el.getAttribute(name) ?? ''), attr);
}

/** The row count the table reports (`data-count` of the status bar). */
export async function trafficCount(page: Page): Promise<number> {
  return Number(await page.getByTestId('traffic-count').getAttribute('data-count'));
}

/** Picks one option of a Mantine MultiSelect filter by its label. */
export async function pickFilter(page: Page, testId: string, label: string): Promise<void> {
  await page.getByTestId(testId).click();
  await page.getByRole('option', { name: label, exact: true }).click();
  await page.keyboard.press('Escape');
}

export async function filterMethod(page: Page, method: string): Promise<void> {
  const input = page.getByTestId('traffic-filter-method');
  await input.click();
  await input.fill(method);
  await input.press('Enter');
  await page.keyboard.press('Escape');
}

/** The "Errors only" chip (Mantine puts the test id on its hidden checkbox: click the label). */
export async function toggleErrorsOnly(page: Page): Promise<void> {
  await page.getByTestId('traffic-filters').getByText('Errors only', { exact: true }).click();
}

export async function clearTrafficFilters(page: Page): Promise<void> {
  const button = page.getByTestId('traffic-clear-filters');
  if (await button.isVisible()) await button.click();
  await expect(button).toBeHidden();
  await expect(page.getByTestId('traffic-table')).toHaveAttribute('data-filtered', 'false');
}

/** Waits until a filtered list has loaded (the status bar shows "matching"). */
export async function waitForFiltered(page: Page): Promise<void> {
  await expect(page.getByTestId('traffic-table')).toHaveAttribute('data-filtered', 'true');
  await expect(page.getByTestId('traffic-count')).toContainText('matching');
}

/**
 * Starts a tool call from the Tools view without waiting for its result (the stress test
 * switches to Traffic while it runs). Same steps as `callTool` in ui.ts.
 */
export async function startToolCall(page: Page, name: string, args: unknown): Promise<void> {
  await page.getByTestId('view-tools').click();
  const item = page.locator(`[data-testid="tool-item"][data-tool-name="${name}"]`);
  const search = page.getByTestId('tool-search');
  if ((await item.count()) === 0 && (await search.count()) > 0) await search.fill(name);
  await item.click();
  const detail = page.getByTestId('tool-detail');
  const jsonTab = detail.getByTestId('tool-tab-json');
  if ((await jsonTab.count()) > 0) await jsonTab.click();
  await detail.getByTestId('tool-args').fill(JSON.stringify(args));
  await detail.getByTestId('tool-call').click();
}

/** Scrolls the table so that row `index` (0-based) is at the top. */
export async function scrollTableTo(page: Page, index: number): Promise<void> {
  await page.getByTestId('traffic-table').evaluate((el, i) => {
    el.scrollTop = i * Number(el.getAttribute('data-row-height'));
  }, index);
}

// ---------------------------------------------------------------------------------------
// Timing in the page (the test tsconfig has no DOM lib: the page globals are typed here).

interface PageElement {
  click(): void;
  getAttribute(name: string): string | null;
  textContent: string | null;
}

interface PageGlobals {
  document: { querySelector(selector: string): PageElement | null };
  MutationObserver: new (callback: () => void) => { observe(target: PageElement, options: { attributes?: boolean; subtree?: boolean; childList?: boolean; characterData?: boolean }): void; disconnect(): void };
  requestAnimationFrame(callback: (time: number) => void): number;
}

/**
 * Clicks an element inside the page and measures, also inside the page, how long until
 * `selector`'s `attribute` equals `value` (the UI answered) and until the next frame after that
 * (it is on screen). No Playwright round trips in the measurement.
 */
export async function timeClick(page: Page, click: string, until: { selector: string; attribute: string; value: string }): Promise<{ answerMs: number; paintMs: number }> {
  return page.evaluate(
    ({ click, until }) =>
      new Promise<{ answerMs: number; paintMs: number }>((resolve, reject) => {
        const g = globalThis as unknown as PageGlobals;
        const target = g.document.querySelector(click);
        const watched = g.document.querySelector(until.selector);
        if (!target || !watched) return reject(new Error(`timeClick: ${!target ? click : until.selector} not found`));
        const t0 = performance.now();
        const done = () => {
          const answerMs = performance.now() - t0;
          g.requestAnimationFrame(() => resolve({ answerMs, paintMs: performance.now() - t0 }));
        };
        const observer = new g.MutationObserver(() => {
          if (watched.getAttribute(until.attribute) !== until.value) return;
          observer.disconnect();
          done();
        });
        observer.observe(watched, { attributes: true });
        target.click();
        if (watched.getAttribute(until.attribute) === until.value) {
          observer.disconnect();
          done();
        }
      }),
    { click, until },
  );
}

interface FrameProbe {
  requestAnimationFrame(callback: (time: number) => void): number;
  __frames?: number[];
  __framesStop?: boolean;
}

export async function startFrameProbe(page: Page): Promise<void> {
  await page.evaluate(() => {
    const g = globalThis as unknown as FrameProbe;
    g.__frames = [];
    g.__framesStop = false;
    let last = -1;
    const loop = (time: number) => {
      if (last >= 0) g.__frames!.push(time - last);
      last = time;
      if (!g.__framesStop) g.requestAnimationFrame(loop);
    };
    g.requestAnimationFrame(loop);
  });
}

export async function stopFrameProbe(page: Page): Promise<number[]> {
  return page.evaluate(() => {
    const g = globalThis as unknown as FrameProbe;
    g.__framesStop = true;
    return g.__frames ?? [];
  });
}

export interface FrameStats {
  frames: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  /** Frames longer than 50 ms (a "long frame": visible jank). */
  long: number;
  /** Total time spent in long frames. */
  longMs: number;
}

export function frameStats(deltas: number[]): FrameStats {
  const sorted = [...deltas].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  const long = sorted.filter((d) => d > 50);
  return {
    frames: sorted.length,
    p50: round(at(0.5)),
    p95: round(at(0.95)),
    p99: round(at(0.99)),
    max: round(sorted[sorted.length - 1] ?? 0),
    long: long.length,
    longMs: round(long.reduce((a, b) => a + b, 0)),
  };
}

const round = (n: number) => Math.round(n * 10) / 10;
