/** Page helpers for the Traffic view's e2e specs (traffic.spec.ts, stress.spec.ts). */
import { expect, type Locator, type Page } from '@playwright/test';
import { stdioFixtureCommand } from '../../fixtures/everything/harness';
import { longFramesWithoutTask } from './frames';

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
  /** When each frame in `__frames` ended (the rAF time that closed it): with the delta, the frame's interval. */
  __frameEnds?: number[];
  __framesStop?: boolean;
  /** The page's own long tasks (> 50 ms of script, style, layout) while the probe ran: [start, duration]. */
  __longTasks?: [number, number][];
  __longTaskObserver?: { observe(options: { type: string; buffered?: boolean }): void; disconnect(): void };
  PerformanceObserver: new (callback: (list: { getEntries(): { startTime: number; duration: number }[] }) => void) => NonNullable<FrameProbe['__longTaskObserver']>;
}

export async function startFrameProbe(page: Page): Promise<void> {
  await page.evaluate(() => {
    const g = globalThis as unknown as FrameProbe;
    g.__frames = [];
    g.__frameEnds = [];
    g.__framesStop = false;
    g.__longTasks = [];
    g.__longTaskObserver?.disconnect();
    g.__longTaskObserver = new g.PerformanceObserver((list) => {
      for (const entry of list.getEntries()) g.__longTasks!.push([entry.startTime, entry.duration]);
    });
    g.__longTaskObserver.observe({ type: 'longtask', buffered: false });
    let last = -1;
    const loop = (time: number) => {
      if (last >= 0) {
        g.__frames!.push(time - last);
        g.__frameEnds!.push(time);
      }
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

/** The page's long tasks while the frame probe ran, and how many long frames none of them overlapped (`longFramesWithoutTask`). */
export async function longTasks(page: Page): Promise<{ count: number; totalMs: number; maxMs: number; over100: number; longFramesWithoutTask: number }> {
  const { tasks, frames, ends } = await page.evaluate(() => {
    const g = globalThis as unknown as FrameProbe;
    g.__longTaskObserver?.disconnect();
    return { tasks: g.__longTasks ?? [], frames: g.__frames ?? [], ends: g.__frameEnds ?? [] };
  });
  const durations = tasks.map(([, d]) => d);
  return {
    count: durations.length,
    totalMs: round(durations.reduce((a, b) => a + b, 0)),
    maxMs: round(Math.max(0, ...durations)),
    over100: durations.filter((d) => d >= 100).length,
    longFramesWithoutTask: longFramesWithoutTask(frames, ends, tasks),
  };
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

// ---------------------------------------------------------------------------------------
// A large live session (million.spec.ts, bench/traffic-million.ts).

/**
 * Fills the live trace of a running browser mode with `count` real events, the quickest real
 * way: the everything fixture over stdio, added and called through the contract (the WebSocket,
 * as a non-browser client), its `flood` tool sending notifications/message in calls of
 * `chunk`. Each notification is one `jsonrpc-in` event; each call adds its request, its response
 * and a few lines around them. Resolves with the trace's size, once it holds at least `count`.
 */
export async function floodLiveTrace(
  call: (method: string, args: unknown) => Promise<{ ok: boolean; result?: unknown; error?: { message: string } }>,
  count: number,
  options: { chunk?: number; name?: string; onProgress?: (events: number) => void } = {},
): Promise<{ serverId: string; events: number; notifications: number }> {
  const { command, args } = stdioFixtureCommand();
  const added = await call('addServer', { name: options.name ?? 'million', target: { type: 'stdio', command, args } });
  if (!added.ok) throw new Error(`addServer: ${added.error?.message}`);
  const serverId = (added.result as { id: string }).id;
  const connected = await call('connectServer', { id: serverId });
  if (!connected.ok) throw new Error(`connectServer: ${connected.error?.message}`);
  const size = async () => ((await call('traceWindow', { limit: 1 })).result as { total: number }).total;
  const chunk = options.chunk ?? 100_000;
  let notifications = 0;
  for (let events = await size(); events < count; events = await size()) {
    const n = Math.min(chunk, Math.max(1, count - events));
    const flooded = await call('callTool', { tool: 'flood', serverId, args: { count: n }, timeoutMs: 3_600_000 });
    if (!flooded.ok) throw new Error(`flood: ${flooded.error?.message}`);
    notifications += n;
    options.onProgress?.(await size());
  }
  return { serverId, events: await size(), notifications };
}

/**
 * Runs `action` in the page and times from just before it until the first animation frame in
 * which `selector` matches an element: the response is on screen in that frame. Without an action
 * it only starts watching, and the clock starts at the next Enter the page receives (the key a
 * person presses to filter or jump: Playwright's own round trip to press it is not the app's time).
 * `waitVisible` then collects the figure.
 */
export async function watchFor(page: Page, selector: string, action?: { scrollIndex: number }): Promise<void> {
  await page.evaluate(
    ({ selector, action }) => {
      const g = globalThis as unknown as PageGlobals & {
        __watch?: { t0: number; at?: number };
        __watchStop?: boolean;
        addEventListener(type: 'keydown', listener: (event: { key: string; timeStamp: number }) => void, capture: boolean): void;
        removeEventListener(type: 'keydown', listener: (event: { key: string; timeStamp: number }) => void, capture: boolean): void;
      };
      const watch: { t0: number; at?: number } = { t0: performance.now() };
      g.__watch = watch;
      const loop = () => {
        if (g.__watch !== watch) return;
        if (g.document.querySelector(selector)) watch.at = performance.now();
        else g.requestAnimationFrame(loop);
      };
      if (!action) {
        const onKey = (event: { key: string; timeStamp: number }) => {
          if (event.key !== 'Enter') return;
          g.removeEventListener('keydown', onKey, true);
          if (g.__watch === watch && watch.at === undefined) watch.t0 = event.timeStamp;
        };
        g.addEventListener('keydown', onKey, true);
      }
      if (action) {
        const el = g.document.querySelector('[data-testid="traffic-table"]') as unknown as { scrollTop: number; getAttribute(n: string): string | null };
        el.scrollTop = action.scrollIndex * Number(el.getAttribute('data-row-height'));
      }
      g.requestAnimationFrame(loop);
    },
    { selector, action },
  );
}

/** The figure of the last `watchFor`: ms until its selector was on screen (waits up to `timeoutMs`). */
export async function waitVisible(page: Page, timeoutMs = 60_000): Promise<number> {
  const handle = await page.waitForFunction(
    () => {
      const w = (globalThis as unknown as { __watch?: { t0: number; at?: number } }).__watch;
      return w?.at !== undefined ? w.at - w.t0 : false;
    },
    undefined,
    { timeout: timeoutMs, polling: 50 },
  );
  return Math.round(((await handle.jsonValue()) as number) * 10) / 10;
}

/** The page's JS heap in use (CDP Performance.getMetrics JSHeapUsedSize), after a collection when `gc`. */
export async function jsHeapUsed(page: Page, gc = true): Promise<number> {
  const cdp = await page.context().newCDPSession(page);
  try {
    if (gc) await cdp.send('HeapProfiler.collectGarbage');
    await cdp.send('Performance.enable');
    const { metrics } = await cdp.send('Performance.getMetrics');
    return metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? NaN;
  } finally {
    await cdp.detach();
  }
}
