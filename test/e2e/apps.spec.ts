/**
 * MCP Apps (issue #14) against the example app servers the MCP project publishes on npm
 * (`@modelcontextprotocol/server-basic-vanillajs` and `server-basic-react`, real processes over
 * stdio): the app renders in its double sandbox in the Tools view, receives the tool's input and
 * result, its own "Get Server Time" button calls `get-time` through the bridge and that call goes
 * to the server on its normal connection (Traffic shows both it and the bridge's `app` channel),
 * the app follows our theme, the Apps view lists and runs app tools, the Devtools strip resends
 * and changes what the app was sent, and ui/message, notifications/message and ui/open-link
 * land where the issue says. Screenshots light and dark.
 */
import { expect, test, type Locator, type Page } from '@playwright/test';
import { openApp, startBrowserMode, type BrowserModeApp } from './support/browser-mode';
import { appDocument, appEvents, devtoolsTab, exampleAppCommand, methodOf, toolCallsSent, waitAppReady, type ExampleApp } from './support/apps';
import { serverId, showView, logLine } from './support/resources';
import { bothThemes } from './support/screenshots';
import { clearTrafficFilters, filterMethod, openTraffic, pickFilter, rowAttr, trafficRows, waitForFiltered } from './support/traffic';
import { addServer, callTool } from './support/ui';

const SERVERS: Record<string, ExampleApp> = { vanilla: 'server-basic-vanillajs', react: 'server-basic-react' };
const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
/** The page's getComputedStyle (this file is type-checked without the DOM library). */
interface PageStyle {
  getComputedStyle(element: unknown): { colorScheme: string };
}

/** Where the mouse waits during a picture (no tooltip left over). */
const PARK = { x: 0, y: 0 };

let app: BrowserModeApp;

test.beforeAll(async () => {
  app = await startBrowserMode();
});

test.afterAll(async () => {
  await app?.close();
});

test.describe.configure({ mode: 'serial' });

async function ready(page: Page): Promise<void> {
  await openApp(page, app);
  for (const [name, pkg] of Object.entries(SERVERS)) {
    const item = page.locator(`[data-testid="server-item"][data-server-name="${name}"]`);
    if ((await item.count()) === 0) await addServer(page, { name, command: exampleAppCommand(pkg) });
    await expect(item).toHaveAttribute('data-state', 'connected', { timeout: 30_000 });
  }
}

/** The time the example app shows: vanilla's `#server-time`, React's `<code>` beside "Server Time:". */
function serverTime(page: Page, server: string): Locator {
  return server === 'vanilla' ? appDocument(page).locator('#server-time') : appDocument(page).locator('p', { hasText: 'Server Time:' }).locator('code');
}

/** Calls `get-time` from the Tools view and returns the time the server answered (the result text). */
async function callGetTime(page: Page, server: string): Promise<string> {
  const result = await callTool(page, `${server}__get-time`, {});
  const text = (await result.getByTestId('tool-result-text').first().textContent())?.trim() ?? '';
  expect(text).toMatch(ISO_TIME);
  return text;
}

/** A select of the Devtools strip: a native <select> or a Mantine Select (an input with an option list). */
async function choose(page: Page, testId: string, value: RegExp): Promise<void> {
  const control = page.locator(`[data-testid="app-devtools"]:visible [data-testid="${testId}"]`);
  if ((await control.evaluate((el) => (el as unknown as { tagName: string }).tagName)) === 'SELECT') {
    const options = await control.locator('option').evaluateAll((els) => (els as unknown as { getAttribute(name: string): string | null; textContent: string | null }[]).map((o) => ({ value: o.getAttribute('value') ?? '', label: o.textContent ?? '' })));
    const option = options.find((o) => value.test(o.value) || value.test(o.label));
    if (!option) throw new Error(`${testId} has no option ${value}: ${JSON.stringify(options)}`);
    await control.selectOption(option.value);
  } else {
    await control.click();
    await page.getByRole('option', { name: value }).first().click();
  }
}

for (const server of Object.keys(SERVERS)) {
  test(`${server}: the app renders in the Tools view, gets the tool's input and result, and its button calls get-time through the bridge`, async ({ page }) => {
    await ready(page);
    const id = await serverId(page, server);
    const tool = `${server}__get-time`;

    // The explorer marks the tool as an app.
    await page.getByTestId('view-tools').click();
    await page.getByTestId('tool-search').fill('get-time');
    await expect(page.locator(`[data-testid="tool-item"][data-tool-name="${tool}"]`).getByTestId('app-badge')).toBeVisible();

    const answered = await callGetTime(page, server);
    const host = await waitAppReady(page);
    await expect(page.locator('[data-testid="app-frame"]:visible')).toHaveCount(1);
    // The app shows the very time the tool returned: it got the tool result.
    await expect(serverTime(page, server)).toHaveText(answered);

    // The bridge, traced: the app's ui/initialize, and our tool input and result to it, with the app's identity.
    const instance = await host.getAttribute('data-instance');
    expect(instance).toBeTruthy();
    await expect
      .poll(async () => {
        const events = (await appEvents(page, id)).filter((e) => (e.meta?.app as { instanceId?: string } | undefined)?.instanceId === instance);
        return ['in:ui/initialize', 'out:ui/notifications/tool-input', 'out:ui/notifications/tool-result'].filter((m) => !events.some((e) => `${e.dir}:${methodOf(e)}` === m));
      })
      .toEqual([]);
    const sample = (await appEvents(page, id)).find((e) => methodOf(e) === 'ui/notifications/tool-result')!;
    expect(sample.meta?.app).toMatchObject({ instanceId: instance, uri: 'ui://get-time/mcp-app.html', tool });

    // The app's own button: a tools/call through the bridge, sent to the server on its normal connection.
    const before = await toolCallsSent(page, id);
    await appDocument(page).getByRole('button', { name: 'Get Server Time' }).click();
    await expect.poll(async () => (await toolCallsSent(page, id)).length).toBe(before.length + 1);
    expect((await toolCallsSent(page, id)).at(-1)).toBe('get-time');
    await expect(serverTime(page, server)).not.toHaveText(answered);
    await expect(serverTime(page, server)).toHaveText(ISO_TIME);
    // …and on the bridge: the app's request in, our answer out.
    const bridged = (await appEvents(page, id)).filter((e) => methodOf(e) === 'tools/call');
    expect(bridged.some((e) => e.dir === 'in' && e.kind === 'jsonrpc-in')).toBe(true);
  });

  test(`${server}: changing our theme sends the app its new theme${server === 'vanilla' ? ', and the app restyles' : ''}`, async ({ page }) => {
    await ready(page);
    const id = await serverId(page, server);
    await callGetTime(page, server);
    const host = await waitAppReady(page);
    const instance = await host.getAttribute('data-instance');
    const root = appDocument(page).locator('html');
    const themesSent = async () =>
      (await appEvents(page, id))
        .filter((e) => e.dir === 'out' && methodOf(e) === 'ui/notifications/host-context-changed' && (e.meta?.app as { instanceId?: string } | undefined)?.instanceId === instance)
        .map((e) => (e.body as { params?: { theme?: string } } | undefined)?.params?.theme)
        .filter((theme) => theme !== undefined);
    // Our theme button, the OS staying light: only Switchboard's own theme changes.
    const toggle = page.getByTestId('theme-toggle');
    for (const [scheme, setting] of [['dark', 'dark'], ['light', 'auto']] as const) {
      const before = (await themesSent()).length;
      for (let i = 0; i < 3 && (await toggle.getAttribute('data-scheme')) !== setting; i++) await toggle.click();
      await expect(page.locator('html')).toHaveAttribute('data-mantine-color-scheme', scheme);
      await expect.poll(async () => (await themesSent()).slice(before)).toContain(scheme);
      if (server === 'vanilla') {
        // ext-apps' applyDocumentTheme: data-theme and color-scheme on the app's root.
        await expect(root).toHaveAttribute('data-theme', scheme);
        await expect.poll(() => root.evaluate((el) => (globalThis as unknown as PageStyle).getComputedStyle(el).colorScheme)).toBe(scheme);
      }
    }
    // (The React example keeps the host context in state and styles itself only from the OS's
    // prefers-color-scheme: the theme reaches it, as asserted above, but nothing in it shows it.)
  });
}

test('Tools view with the app: screenshots light and dark', async ({ page }) => {
  await ready(page);
  const answered = await callGetTime(page, 'vanilla');
  await waitAppReady(page);
  await expect(serverTime(page, 'vanilla')).toHaveText(answered);
  await bothThemes(page, 'apps-tools', { pointer: PARK });
});

test('the Apps view lists every app tool of every server and runs one', async ({ page }) => {
  await ready(page);
  await page.getByTestId('view-apps').click();
  await expect(page.getByTestId('view-apps')).toHaveAttribute('aria-selected', 'true');
  for (const server of Object.keys(SERVERS)) await expect(page.getByTestId(`apps-item-${server}__get-time`)).toBeVisible();
  const id = await serverId(page, 'react');
  const before = await toolCallsSent(page, id);
  await page.getByTestId('apps-item-react__get-time').click();
  await page.getByTestId('apps-run').click();
  await expect.poll(async () => (await toolCallsSent(page, id)).length).toBe(before.length + 1);
  await waitAppReady(page);
  await expect(serverTime(page, 'react')).toHaveText(ISO_TIME);
  await bothThemes(page, 'apps-view', { pointer: PARK });
});

test('the Devtools strip: messages, CSP, host context; resend input and result; theme, display mode and size', async ({ page }) => {
  await ready(page);
  const id = await serverId(page, 'vanilla');
  await callGetTime(page, 'vanilla');
  const host = await waitAppReady(page);
  const instance = await host.getAttribute('data-instance');
  const mine = async (method: string) =>
    (await appEvents(page, id)).filter((e) => e.dir === 'out' && methodOf(e) === method && (e.meta?.app as { instanceId?: string } | undefined)?.instanceId === instance);

  const messages = await devtoolsTab(page, 'messages');
  await expect(messages).toContainText('ui/initialize');
  await expect(messages).toContainText('ui/notifications/tool-result');
  await bothThemes(page, 'apps-devtools-messages', { pointer: PARK });

  const csp = await devtoolsTab(page, 'csp');
  await expect(csp).toContainText('default-src');
  await expect(csp).toContainText('/sandbox-proxy.js');
  await bothThemes(page, 'apps-devtools-csp', { pointer: PARK });

  const context = await devtoolsTab(page, 'context');
  await expect(context).toContainText('theme');
  await expect(context).toContainText('displayMode');
  await bothThemes(page, 'apps-devtools-context', { pointer: PARK });

  // Resend: one more tool-input / tool-result notification each, to the same instance.
  const inputs = (await mine('ui/notifications/tool-input')).length;
  await page.locator('[data-testid="app-devtools"]:visible').getByTestId('app-resend-input').click();
  await expect.poll(async () => (await mine('ui/notifications/tool-input')).length).toBe(inputs + 1);
  const results = (await mine('ui/notifications/tool-result')).length;
  await page.locator('[data-testid="app-devtools"]:visible').getByTestId('app-resend-result').click();
  await expect.poll(async () => (await mine('ui/notifications/tool-result')).length).toBe(results + 1);

  // Theme for the app alone: the app's root flips while ours stays light.
  const root = appDocument(page).locator('html');
  await expect(root).toHaveAttribute('data-theme', 'light');
  await page.locator('[data-testid="app-devtools"]:visible').getByTestId('app-theme').click();
  await expect(root).toHaveAttribute('data-theme', 'dark');
  await expect(page.locator('html')).toHaveAttribute('data-mantine-color-scheme', 'light');
  await page.locator('[data-testid="app-devtools"]:visible').getByTestId('app-theme').click();
  await expect(root).toHaveAttribute('data-theme', 'light');

  // Display mode and size: host-context-changed carries them to the app.
  const changes = async () => (await mine('ui/notifications/host-context-changed')).map((e) => JSON.stringify(e.body));
  const seen = (await changes()).length;
  await choose(page, 'app-display-mode', /fullscreen/i);
  await expect.poll(async () => (await changes()).slice(seen).some((b) => b.includes('"displayMode":"fullscreen"'))).toBe(true);
  const stage = page.locator('[data-testid="app-stage"]:visible');
  await expect(stage).toHaveAttribute('data-mode', 'fullscreen');
  // Fullscreen covers the strip: its own bar brings the app back inline.
  const back = (await changes()).length;
  await stage.getByTestId('app-inline').click();
  await expect(stage).toHaveAttribute('data-mode', 'inline');
  await expect.poll(async () => (await changes()).slice(back).some((b) => b.includes('"displayMode":"inline"'))).toBe(true);
  const sized = (await changes()).length;
  await choose(page, 'app-size', /\d+\s*[×x]\s*\d+/);
  await expect.poll(async () => (await changes()).slice(sized).some((b) => b.includes('containerDimensions'))).toBe(true);
});

test("the app's ui/message is shown in the model panel, which says Switchboard has no model", async ({ page }) => {
  await ready(page);
  await callGetTime(page, 'vanilla');
  await waitAppReady(page);
  await appDocument(page).locator('#message-text').fill('Summarise the server time, please.');
  await appDocument(page).getByRole('button', { name: 'Send Message' }).click();
  const panel = page.locator('[data-testid="app-model-panel"]:visible');
  await expect(panel).toContainText('Summarise the server time, please.');
  await expect(panel).toContainText(/no model/i);
});

test("the app's notifications/message goes into Logs, source MCP App", async ({ page }) => {
  await ready(page);
  const id = await serverId(page, 'vanilla');
  await callGetTime(page, 'vanilla');
  await waitAppReady(page);
  await appDocument(page).locator('#log-text').fill('app log line 7f3a');
  await appDocument(page).getByRole('button', { name: 'Send Log' }).click();
  await showView(page, 'logs');
  const line = logLine(page, { source: 'mcp-app', text: 'app log line 7f3a' });
  await expect(line).toHaveCount(1);
  await expect(line).toHaveAttribute('data-server-id', id);
});

test("the app's ui/open-link asks first, with the link's host; denied, nothing opens", async ({ page, context }) => {
  await ready(page);
  const id = await serverId(page, 'vanilla');
  await callGetTime(page, 'vanilla');
  await waitAppReady(page);
  const pages = context.pages().length;
  await appDocument(page).locator('#link-url').fill('https://example.com/docs?from=app');
  await appDocument(page).getByRole('button', { name: 'Open Link' }).click();
  const consent = page.getByTestId('app-consent');
  await expect(consent).toBeVisible();
  await expect(consent).toContainText('example.com');
  await consent.getByTestId('app-consent-deny').click();
  await expect(consent).toBeHidden();
  // The app is told: the answer to its ui/open-link is an error (traced, going out), and the refusal is an app-channel error event.
  await expect
    .poll(async () => {
      const events = await appEvents(page, id);
      const request = events.filter((e) => e.kind === 'jsonrpc-in' && methodOf(e) === 'ui/open-link').at(-1);
      if (!request) return 'no request';
      const answer = events.find((e) => e.kind === 'jsonrpc-out' && e.seq > request.seq && e.rpc?.id === request.rpc?.id && (e.rpc?.kind === 'result' || e.rpc?.kind === 'error'));
      if (!answer) return 'no answer';
      const refused = answer.rpc?.kind === 'error' || (answer.body as { result?: { isError?: boolean } }).result?.isError === true;
      const recorded = events.some((e) => e.kind === 'error' && e.seq > request.seq && methodOf(e) === 'ui/open-link');
      return refused && recorded ? 'refused and recorded' : `refused ${refused}, recorded ${recorded}`;
    })
    .toBe('refused and recorded');
  expect(context.pages().length).toBe(pages);
});

test('Traffic: the app channel holds the bridge; the tools/call also went to the server on stdio', async ({ page }) => {
  await ready(page);
  await callGetTime(page, 'vanilla');
  await waitAppReady(page);
  await appDocument(page).getByRole('button', { name: 'Get Server Time' }).click();
  await expect(serverTime(page, 'vanilla')).toHaveText(ISO_TIME);

  await openTraffic(page);
  await pickFilter(page, 'traffic-filter-channel', 'app');
  await waitForFiltered(page);
  await expect(trafficRows(page).first()).toBeVisible();
  expect(new Set(await rowAttr(trafficRows(page), 'data-channel'))).toEqual(new Set(['app']));
  await bothThemes(page, 'apps-traffic', { pointer: PARK });
  await clearTrafficFilters(page);

  await filterMethod(page, 'tools/call');
  await pickFilter(page, 'traffic-filter-server', 'vanilla');
  await waitForFiltered(page);
  await expect(trafficRows(page).first()).toBeVisible();
  const channels = new Set(await rowAttr(trafficRows(page), 'data-channel'));
  expect(channels.has('stdio')).toBe(true);
  expect(channels.has('app')).toBe(true);
});
