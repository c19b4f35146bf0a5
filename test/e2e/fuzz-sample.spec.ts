/**
 * The renderer against a fixed sample of fuzz cases (test/fuzz): each case's server is added and
 * driven through the contract from the page, then every view that shows server data is opened.
 * After each case the page must still paint (a requestAnimationFrame within 200 ms, measured in
 * the page) and must have executed nothing (`window.__pwned`, which every generated markup and
 * `javascript:` string would set, stays undefined).
 */
import { expect, test, type Page } from '@playwright/test';
import fc from 'fast-check';
import { describeCase, type FuzzCase } from '../fixtures/fuzz/case';
import { startFuzzServer, type FuzzServer } from '../fixtures/fuzz/harness';
import { XSS, fuzzCase, type Scale } from '../fuzz/arbitraries';
import { apiCall } from './support/charts';
import { openApp, startBrowserMode, type BrowserModeApp } from './support/browser-mode';

/** Small enough for a page to take in a few seconds, hostile in every string. */
const SAMPLE_SCALE: Scale = { maxRepeat: 50_000, maxDepth: 20_000, maxItems: 2_000 };
const SAMPLE_SEED = 4242;
const SAMPLE_RUNS = 8;

/** Hand-picked: valid in shape (the SDK accepts them), so the markup reaches the views. */
const PINNED: FuzzCase[] = (['stdio', 'http-legacy', 'http-modern', 'sse'] as const).map((carrier) => ({
  carrier,
  target: 'tools/list',
  label: `valid tools with markup over ${carrier}`,
  frames: [
    {
      kind: 'patch',
      set: [
        {
          path: ['result', 'tools'],
          value: {
            a: XSS.map((x, i) => ({
              o: [
                ['name', `t${i}`],
                ['title', x],
                ['description', x],
                ['icons', { a: [{ o: [['src', 'javascript:window.__pwned=1']] }, { o: [['src', 'data:image/svg+xml,<svg onload="window.__pwned=1"/>']] }] }],
                ['inputSchema', { o: [['type', 'object'], ['properties', { o: [[x, { o: [['type', 'string'], ['description', x], ['default', x]] }]] }]] }],
              ],
            })),
          },
        },
      ],
    },
  ],
}));

const SAMPLE: FuzzCase[] = [...PINNED, ...fc.sample(fuzzCase(SAMPLE_SCALE), { seed: SAMPLE_SEED, numRuns: SAMPLE_RUNS })];

let app: BrowserModeApp;
let fuzz: FuzzServer;

test.beforeAll(async () => {
  [app, fuzz] = await Promise.all([startBrowserMode(), startFuzzServer()]);
});

test.afterAll(async () => {
  await Promise.allSettled([app?.close(), fuzz?.close()]);
});

function config(c: FuzzCase, name: string): Record<string, unknown> {
  const common = { name, retries: 0, connectTimeoutSec: 3, requestTimeoutSec: 2, pingIntervalSec: 0 };
  if (c.carrier === 'stdio') return { ...common, target: { type: 'stdio', ...fuzz.stdioCommand() }, era: 'auto' };
  return { ...common, target: { type: 'http', url: fuzz.url(c.carrier), transport: c.carrier === 'sse' ? 'sse' : 'streamable-http' }, era: c.carrier === 'http-modern' ? 'modern' : 'legacy' };
}

/** Milliseconds until the next frame, measured in the page (a string: no DOM types here). */
const nextFrameMs = (page: Page): Promise<number> => page.evaluate(`new Promise((resolve) => { const t0 = performance.now(); requestAnimationFrame(() => resolve(performance.now() - t0)); })`) as Promise<number>;

test('fuzzed servers leave the page responsive and inert', async ({ page }) => {
  test.setTimeout(300_000);
  page.on('dialog', (dialog) => void dialog.dismiss());
  await openApp(page, app);

  for (const [index, c] of SAMPLE.entries()) {
    const label = `case ${index} (${c.label ?? `seed ${SAMPLE_SEED} path ${index - PINNED.length}`}): ${describeCase(c)}`;
    await fuzz.setCase(c);
    const added = await apiCall<{ id: string }>(page, 'addServer', config(c, `fuzz-${index}`));
    const status = await apiCall<{ state: string }>(page, 'connectServer', { id: added.id }).catch((error: Error) => ({ state: `error: ${error.message}` }));
    if (status.state === 'connected') await apiCall(page, 'callTool', { tool: 'echo', serverId: added.id, args: { text: 'fuzz' } }).catch(() => undefined);

    // The server's questions (sampling, elicitation) are declined, as a person would (the
    // requests dialog showed them first); then the dialog is closed.
    const pending = await apiCall<{ id: string; serverId: string; kind: string }[]>(page, 'listPendingRequests', {});
    for (const p of pending.filter((p) => p.serverId === added.id)) {
      await apiCall(page, 'answerRequest', { id: p.id, answer: p.kind === 'sampling' ? { kind: 'sampling', action: 'reject' } : { kind: 'elicitation', action: 'decline' } });
    }
    for (let i = 0; i < 3 && (await page.getByRole('dialog').count()) > 0; i++) await page.keyboard.press('Escape');
    await expect(page.getByRole('dialog'), label).toHaveCount(0);

    // Every view that shows what the server sent.
    await page.locator(`[data-testid="server-item"][data-server-name="fuzz-${index}"]`).click();
    for (const view of ['tools', 'resources', 'prompts', 'traffic', 'logs'] as const) {
      await page.getByTestId(`view-${view}`).click();
      await expect(page.getByTestId(`view-${view}`), label).toHaveAttribute('aria-selected', 'true');
    }
    const toolItems = page.locator('[data-testid="tool-item"]');
    await page.getByTestId('view-tools').click();
    if (index < PINNED.length) {
      // The pinned cases are valid: their markup reaches the view, as text.
      await expect(page.getByTestId('tool-list'), label).toContainText('onerror=window.__pwned=1');
      await expect(toolItems.filter({ hasText: 'onerror' }).first()).toBeVisible();
    }
    if ((await toolItems.count()) > 0) await toolItems.first().click();

    expect(await nextFrameMs(page), `no frame within 200 ms after ${label}`).toBeLessThan(200);
    expect(await page.evaluate('window.__pwned'), `executed something after ${label}`).toBeUndefined();

    // (Removed through the contract, as the fuzzer does: the sidebar learns of it on the next load.)
    expect((await apiCall<{ removed: boolean }>(page, 'removeServer', { id: added.id })).removed).toBe(true);
  }
  await openApp(page, app);
  await expect(page.locator('[data-testid="server-item"][data-server-name^="fuzz-"]')).toHaveCount(0);
  expect(await page.evaluate('window.__pwned')).toBeUndefined();
});
