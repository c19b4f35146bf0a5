/**
 * MCP Apps (issue #14): the hostile app (test/fixtures/apps/html/hostile.html, served by the apps
 * fixture server over stdio) in real Chromium. Each attack runs on a button of its own and the app
 * writes its outcome into its own document; every test also checks, from outside, that nothing
 * happened: the host page's URL, its pages, its globals, what reached the server (the trace), what
 * reached a loopback listener, what Logs and the `app` channel recorded.
 *
 * One page for the whole file (the app instance lives on between tests); serial.
 */
import { expect, test, type BrowserContext, type Locator, type Page } from '@playwright/test';
import { openApp, startBrowserMode, type BrowserModeApp } from './support/browser-mode';
import { appChannelStats, appDocument, appEvents, appHost, appsFixtureCommand, devtoolsTab, startCountingServer, toolCallsSent, traceEvents, waitAppReady, type CountingServer } from './support/apps';
import { logLine, serverId, showView } from './support/resources';
import { bothThemes, settled, shot } from './support/screenshots';
import { openTool, run, showJson } from './support/tools';
import { addServer } from './support/ui';
import config from '../../playwright.config';
import { APP_BRIDGE_BUDGET } from '../../contract/app-sandbox';

const SERVER = 'apps';
const TOOL = `${SERVER}__show-hostile`;

let app: BrowserModeApp;
let counter: CountingServer;
let context: BrowserContext;
let page: Page;
let hostUrl: string;
let id: string;
const popups: string[] = [];
const dialogs: string[] = [];

test.describe.configure({ mode: 'serial' });

// A fake camera, so that a refused getUserMedia is the sandbox's refusal, not a missing device.
const launch = config.use?.launchOptions ?? {};
test.use({ launchOptions: { ...launch, args: [...(launch.args ?? []), '--use-fake-device-for-media-stream'] } });

test.beforeAll(async ({ browser }) => {
  app = await startBrowserMode();
  counter = await startCountingServer();
  context = await browser.newContext();
  page = await context.newPage();
  // Only pages opened after ours (the listener would count ours too).
  context.on('page', (opened) => popups.push(opened.url()));
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
});

test.afterAll(async () => {
  await context?.close();
  await app?.close();
  await counter?.close();
});

/** The app's row for one attack (its outcome in `data-outcome`). */
function outcome(name: string): Locator {
  return appDocument(page).locator(`#outcome-${name}`);
}

/** Clicks one attack's button and waits until the app has written its outcome. */
async function attack(name: string): Promise<Locator> {
  const before = await outcome(name).count();
  const row = outcome(name);
  if (before > 0) await row.evaluate((el) => (el as unknown as { remove(): void }).remove());
  await appDocument(page).locator(`#attack-${name}`).click();
  await expect(row).toHaveAttribute('data-outcome', /.+/);
  return row;
}

/** Opens the hostile app from the Tools view with its arguments, answering the permission question. */
async function openHostile(answer: 'allow' | 'deny'): Promise<Locator> {
  await openTool(page, TOOL);
  await expect(page.locator(`[data-testid="tool-item"][data-tool-name="${TOOL}"]`).getByTestId('app-badge')).toBeVisible();
  const consent = page.locator('[data-testid="app-consent"][data-kind="permissions"]');
  // The resource asks for the camera: Switchboard asks the person before the frame gets it.
  const args = await showJson(page).catch(() => undefined);
  if (args) {
    await args.fill(JSON.stringify({ port: counter.port }));
    await run(page);
    const blocked = page.getByTestId('tool-detail').getByTestId('tool-send-anyway');
    await expect(consent.or(blocked).or(page.getByTestId('tool-detail').getByTestId('tool-result')).first()).toBeVisible();
    if (await blocked.isVisible()) await blocked.click();
  }
  // A denial is remembered for the tool ("denied, it runs without"): asking again brings the question back.
  const askAgain = page.getByTestId('app-permissions-ask');
  await expect(consent.or(askAgain)).toBeVisible();
  if (await askAgain.isVisible()) await askAgain.click();
  await expect(consent).toBeVisible();
  await expect(consent).toContainText(/camera/i);
  await consent.getByTestId(`app-consent-${answer}`).click();
  await expect(consent).toBeHidden();
  const host = await waitAppReady(page);
  await expect(appDocument(page).locator('body')).toHaveAttribute('data-state', 'initialized');
  // It got the tool input (the port it will aim at).
  await expect(appDocument(page).locator('body')).toHaveAttribute('data-input', JSON.stringify({ port: counter.port }));
  return host;
}

test('the hostile app runs in its sandbox after the permission question (denied)', async () => {
  await openApp(page, app);
  hostUrl = page.url();
  await addServer(page, { name: SERVER, command: appsFixtureCommand() });
  await expect(page.locator(`[data-testid="server-item"][data-server-name="${SERVER}"]`)).toHaveAttribute('data-state', 'connected', { timeout: 30_000 });
  id = await serverId(page, SERVER);
  const host = await openHostile('deny');
  await host.scrollIntoViewIfNeeded();
  await settled(page);
  await page.screenshot({ path: shot('apps-hostile.png') });
});

test('a permission without consent: getUserMedia fails, the permissions policy does not allow the camera, nothing asks', async () => {
  const row = await attack('camera');
  await expect(row).toHaveAttribute('data-outcome', 'blocked');
  await expect(row).toHaveAttribute('data-policy', 'false');
  await expect(row).toContainText(/NotAllowedError|SecurityError/);
  expect(dialogs).toEqual([]);
  await expect(page.getByTestId('app-consent')).toHaveCount(0);
});

test('navigating the top window or the proxy frame, opening windows: refused; the host page stays where it was', async () => {
  for (const name of ['top-nav', 'parent-nav', 'form-top', 'popup']) {
    const row = await attack(name);
    await expect(row, name).toHaveAttribute('data-outcome', 'blocked');
    // Each attempt's own words, in the report.
    test.info().annotations.push({ type: name, description: (await row.textContent()) ?? '' });
  }
  await expect(outcome('top-nav')).toContainText('SecurityError');
  await expect(outcome('parent-nav')).toContainText('parent.parent.location = ...: SecurityError');
  await expect(outcome('popup')).toContainText('window.open(...): refused');
  // A bridge round trip after the attempts (the link click and the form submission raise nothing
  // inside: had a navigation or a window started, it would have by the time this answer is back).
  await expect(await attack('echo')).toHaveAttribute('data-outcome', 'allowed');
  expect(page.url()).toBe(hostUrl);
  expect(popups).toEqual([]);
  expect(context.pages()).toHaveLength(1);
  for (const frame of page.frames()) expect(frame.url()).not.toContain('example.invalid');
  await expect(appHost(page)).toHaveAttribute('data-state', 'ready');
});

test("reading our DOM, cookie and storage, writing our globals: SecurityError each; window.__pwned stays undefined", async () => {
  const read = await attack('read-parent');
  await expect(read).toHaveAttribute('data-outcome', 'blocked');
  await expect(read).toContainText('parent.document.title: SecurityError');
  await expect(read).toContainText('top.document.cookie: SecurityError');
  await expect(read).toContainText('localStorage (own): SecurityError');
  const pwned = await attack('pwned');
  await expect(pwned).toHaveAttribute('data-outcome', 'blocked');
  expect(await page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned)).toBeUndefined();
  // Nor in the sandbox proxy's window.
  for (const frame of page.frames()) expect(await frame.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned).catch(() => undefined), frame.url()).toBeUndefined();
});

test('tools/call of a tool not visible to apps: a JSON-RPC error to the app, an app-channel error event, nothing sent to the server', async () => {
  const row = await attack('model-only');
  await expect(row).toHaveAttribute('data-outcome', 'blocked');
  await expect(row).toHaveAttribute('data-reply', 'rpc-error');
  await expect
    .poll(async () => (await appEvents(page, id)).filter((e) => e.kind === 'error' && JSON.stringify(e).includes('model-only')).length)
    .toBeGreaterThanOrEqual(1);
  // The control on the same path reaches the server (so the check below can see a call when there is one).
  await expect(await attack('echo')).toHaveAttribute('data-outcome', 'allowed');
  await expect.poll(async () => (await toolCallsSent(page, id)).filter((name) => name === 'echo').length).toBeGreaterThanOrEqual(1);
  expect(await toolCallsSent(page, id)).not.toContain('model-only');
  // The app's own report of it reached Logs (its notifications/message), source MCP App.
  await showView(page, 'logs');
  await expect(logLine(page, { source: 'mcp-app', text: 'attack model-only: blocked' })).toHaveCount(1);
  await showView(page, 'tools');
  await waitAppReady(page);
});

test('a tools/call posted straight to the host page, around the proxy, is ignored', async () => {
  const row = await attack('smuggle');
  await expect(row).toContainText('bridged echo after it: answered');
  // What went to the server: its tools/call requests on stdio (the app's HTML, read as a resource, holds both words too).
  const sent = (await traceEvents(page, { servers: [id], channels: ['stdio'], kinds: ['jsonrpc-out'], methods: ['tools/call'] })).map((e) => JSON.stringify(e.body ?? ''));
  expect(sent.filter((body) => body.includes('after-smuggle')).length).toBeGreaterThanOrEqual(1);
  expect(sent.filter((body) => body.includes('smuggled-to-top'))).toEqual([]);
});

test('fetch, image and beacon to an undeclared loopback origin: blocked by the CSP, nothing arrives, the violation is in Logs', async () => {
  const row = await attack('fetch');
  await expect(row).toHaveAttribute('data-outcome', 'blocked');
  await expect(row).toContainText('fetch: TypeError');
  expect(counter.hits()).toEqual([]);
  const csp = await devtoolsTab(page, 'csp');
  await expect(csp).toContainText('connect-src');
  await expect(csp).not.toContainText(`127.0.0.1:${counter.port}`);
  await showView(page, 'logs');
  await expect(logLine(page, { source: 'mcp-app', text: 'connect-src' }).first()).toBeVisible();
  await expect(logLine(page, { source: 'mcp-app', text: String(counter.port) }).first()).toBeVisible();
  await settled(page);
  await page.screenshot({ path: shot('apps-hostile-logs.png') });
  await showView(page, 'tools');
  await waitAppReady(page);
});

test('ui/open-link with a javascript: URL is refused without asking', async () => {
  const row = await attack('open-link');
  await expect(row).toHaveAttribute('data-outcome', 'blocked');
  // (The answer is back, so any question about the link would be on screen by now.)
  await expect(page.locator('[data-testid="app-consent"][data-kind="open-link"]')).toHaveCount(0);
  expect(await page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned)).toBeUndefined();
});

test('with consent, a new instance gets the camera in its permissions policy', async () => {
  // Another tool, then back: the app host opens a new instance and asks again.
  await openTool(page, `${SERVER}__echo`);
  await expect(appHost(page)).toHaveCount(0);
  await openHostile('allow');
  // The frame's policy, read in the app's own document. getUserMedia is not called here: with the
  // browser's permission granted and the fake camera, it twice left the app's process unresponsive
  // in clean-clone CI runs (no outcome, not even the fixture's 10 s 'stalled' report), and whether
  // a device opens is Chromium's business, not what Switchboard decides (the test without consent
  // above calls it and requires the refusal).
  const allowed = await appDocument(page)
    .locator('body')
    .evaluate(() => (globalThis as unknown as { document: { featurePolicy?: { allowsFeature(feature: string): boolean } } }).document.featurePolicy?.allowsFeature('camera'));
  expect(allowed).toBe(true);
});

test('100,000 notifications as fast as it can: contained, recorded, and the page stays responsive', async () => {
  // Two shared cores: the flood costs the browser tens of seconds whatever the host does.
  test.setTimeout(180_000);
  const host = appHost(page);
  // A figure, not an assertion (timing belongs to the bench): the longest gap between our page's
  // animation frames while the app floods. The sandbox is another site (localhost vs 127.0.0.1),
  // so the app's busy loop runs in a process of its own and should not stall ours.
  // And the message events that reach our page: the sandbox proxy holds the app to its budget in
  // the sandbox's process, so the flood must not cross to our page message by message.
  await page.evaluate(() => {
    // Typed without the DOM lib (the Node typecheck covers test/e2e): what the page has.
    const g = globalThis as unknown as {
      __frameGaps: { max: number; last: number; on: boolean };
      __messages: number;
      requestAnimationFrame(cb: (now: number) => void): number;
      addEventListener(type: 'message', listener: () => void): void;
    };
    g.__messages = 0;
    g.addEventListener('message', () => g.__messages++);
    g.__frameGaps = { max: 0, last: performance.now(), on: true };
    const tick = (now: number) => {
      g.__frameGaps.max = Math.max(g.__frameGaps.max, now - g.__frameGaps.last);
      g.__frameGaps.last = now;
      if (g.__frameGaps.on) g.requestAnimationFrame(tick);
    };
    g.requestAnimationFrame(tick);
  });
  const clicked = Date.now();
  await appDocument(page).locator('#attack-flood').click();
  await expect(host).toHaveAttribute('data-state', 'stopped', { timeout: 45_000 });
  const stoppedAt = Date.now();
  console.log(`flood: stopped ${stoppedAt - clicked} ms after the click`);
  const longestGap = await page.evaluate(() => {
    const g = globalThis as unknown as { __frameGaps: { max: number; on: boolean } };
    g.__frameGaps.on = false;
    return Math.round(g.__frameGaps.max);
  });
  const messages = await page.evaluate(() => (globalThis as unknown as { __messages: number }).__messages);
  console.log(`flood: the host page's longest gap between animation frames until the app was stopped: ${longestGap} ms; message events that reached the page: ${messages}`);
  test.info().annotations.push({ type: 'flood: message events on the host page', description: String(messages) });
  // At most the burst, what the bucket refilled from the click until the stop, and the proxy's
  // reports (at most ten a second), with a second and 50 messages of slack. Had the proxy relayed
  // everything, the host would have had to see its 5,000 dropped messages on top of that.
  const seconds = (stoppedAt - clicked) / 1000 + 1;
  expect(messages).toBeLessThan(APP_BRIDGE_BUDGET.burst + (APP_BRIDGE_BUDGET.perSecond + 1000 / APP_BRIDGE_BUDGET.reportMs) * seconds + 50);
  test.info().annotations.push({ type: 'flood: longest frame gap (ms)', description: String(longestGap) });
  await expect(host.getByTestId('app-error')).toContainText(/flood/i);
  test.info().annotations.push({ type: 'flood', description: (await host.getByTestId('app-error').textContent()) ?? '' });
  await host.scrollIntoViewIfNeeded();
  await settled(page);
  await bothThemes(page, 'apps-hostile-flood');
  // The page answers: another tab, then back.
  await page.getByTestId('view-traffic').click();
  await expect(page.getByTestId('traffic-view')).toBeVisible({ timeout: 5_000 });
  await page.getByTestId('view-tools').click();
  await expect(page.getByTestId('tools-view')).toBeVisible({ timeout: 5_000 });
  // Recorded as a containment (an app-channel error), and main was not handed every message.
  const refusals = await traceEvents(page, { servers: [id], channels: ['app'], kinds: ['error'] });
  expect(refusals.length).toBeGreaterThanOrEqual(1);
  test.info().annotations.push({ type: 'flood refusal', description: JSON.stringify(refusals.at(-1)).slice(0, 600) });
  const stats = await appChannelStats(page, id);
  expect(stats).toBeDefined();
  test.info().annotations.push({ type: 'app channel after the flood', description: JSON.stringify(stats) });
  expect(stats!.requests + stats!.responses + stats!.notifications + stats!.errors).toBeLessThan(100_000);
  expect(await page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned)).toBeUndefined();
  expect(page.url()).toBe(hostUrl);
  expect(popups).toEqual([]);
});
