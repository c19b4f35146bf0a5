/**
 * "When the server asks", as a user meets it in browser mode: a tool call makes the asking
 * fixture ask (a form, a link, a model reply, its roots); the request center opens while the call
 * waits; the answer reaches the server, and the call completes with what the server received.
 *
 * Servers: the asking fixture over Streamable HTTP in the 2025-11-25 era (server→client requests
 * on the call's stream) and over stdio in the 2026-07-28 era (input_required, answered by
 * retrying the call with inputResponses).
 */
import { expect, test, type Page } from '@playwright/test';
import { askingStdioCommand, startAskingFixture, DASHBOARD_URL, type RunningAskingFixture } from '../fixtures/asking/harness';
import { openApp, startBrowserMode, type BrowserModeApp } from './support/browser-mode';
import { fillField, pendingRequest, resultJson, startCall, stubExternalPages } from './support/requests';
import { addServer, callTool, shellQuote } from './support/ui';
import { bothThemes, shot } from './support/screenshots';

let app: BrowserModeApp;
let legacy: RunningAskingFixture;

const LEGACY = 'ask legacy'; // Streamable HTTP, 2025-11-25
const MODERN = 'ask modern'; // stdio, 2026-07-28
const tool = (server: string, name: string) => `${server.replace(/ /g, '-')}__${name}`;

test.beforeAll(async () => {
  app = await startBrowserMode();
  legacy = await startAskingFixture({ era: 'legacy', name: 'asking-legacy' });
});

test.afterAll(async () => {
  await app?.close();
  await legacy?.close();
});

async function setUp(page: Page): Promise<void> {
  await openApp(page, app);
  const items = page.getByTestId('server-item');
  if ((await items.count()) === 0) {
    await addServer(page, { name: LEGACY, url: legacy.url });
    const { command, args } = askingStdioCommand('modern', ['--name', 'asking-modern']);
    await addServer(page, { name: MODERN, command: shellQuote([command, ...args]) });
  }
  for (const name of [LEGACY, MODERN]) await expect(page.locator(`[data-testid="server-item"][data-server-name="${name}"]`)).toHaveAttribute('data-state', 'connected');
  await expect(page.locator(`[data-tool-name="${tool(MODERN, 'register_user')}"]`)).toBeVisible();
}

test('form: every field type, checked before Accept, edits and defaults reach the server (2025 era, HTTP)', async ({ page }) => {
  await setUp(page);
  const call = startCall(page, tool(LEGACY, 'register_user'), {});
  const form = await pendingRequest(page, 'elicitation-form');

  // Who asks, for which call; the server's message as text; the secret warning; every field kind.
  await expect(form.getByTestId('request-server')).toHaveText(LEGACY);
  await expect(form.getByTestId('request-call')).toContainText('register_user');
  await expect(form.getByTestId('request-message')).toContainText('Create your account');
  await expect(form.getByTestId('secret-warning')).toContainText('API token');
  await expect(form.getByTestId('secret-note-api_token')).toBeVisible();
  await expect(form.locator('input[type="password"]')).toHaveCount(0);
  const kinds = await form.getByTestId('form-field').evaluateAll((els) => els.map((e) => `${e.getAttribute('data-field-name')}:${e.getAttribute('data-field-kind')}`));
  expect(kinds).toEqual([
    'username:text',
    'email:email',
    'homepage:uri',
    'birthday:date',
    'first_meeting:date-time',
    'age:integer',
    'height:number',
    'newsletter:boolean',
    'plan:select',
    'region:select',
    'theme:select',
    'interests:multi',
    'languages:multi',
    'api_token:text',
  ]);
  // Defaults are pre-filled; the titled options show their titles.
  await expect(form.getByTestId('field-homepage')).toHaveValue('https://example.com/~me');
  await expect(form.getByTestId('field-height')).toHaveValue('1.75');
  await expect(form.getByTestId('field-newsletter')).toBeChecked();
  await expect(form.getByTestId('field-region')).toHaveValue('eu');
  await expect(form.getByTestId('field-region').locator('option[value="apac"]')).toHaveText('Asia-Pacific');
  await expect(form.getByTestId('field-theme').locator('option[value="system"]')).toHaveText('Follow the system');
  await expect(form.getByTestId('field-interests-mcp')).toBeChecked();

  // Accept with the required fields empty or wrong: per-field messages, nothing sent.
  await fillField(form, 'username', 'ad');
  await fillField(form, 'email', 'not-an-email');
  await fillField(form, 'age', '7');
  await form.getByTestId('answer-accept').click();
  await expect(form.getByTestId('answer-error')).toContainText('need attention');
  await expect(form.locator('[data-field-name="username"]')).toContainText('At least 3 characters');
  await expect(form.locator('[data-field-name="email"]')).toContainText('Must be an e-mail address');
  await expect(form.locator('[data-field-name="age"]')).toContainText('At least 13');

  // Fix them, edit a few more (a default overridden, a titled choice, a multi-select), and take pictures.
  await fillField(form, 'username', 'ada_l');
  await fillField(form, 'email', 'ada@example.com');
  await fillField(form, 'age', '36');
  await fillField(form, 'birthday', '1815-12-10');
  await form.getByTestId('field-region').selectOption('apac');
  await form.getByTestId('field-theme').selectOption('dark');
  await form.getByTestId('field-interests-typescript').check();
  await form.getByTestId('field-languages-fr').check();
  await form.getByTestId('field-newsletter').uncheck();
  await page.getByTestId('request-detail').evaluate((e) => e.scrollTo(0, 0));
  await bothThemes(page, 'elicitation');

  await form.getByTestId('answer-accept').click();
  const result = await call.result();
  const received = await resultJson(result);
  expect(received).toEqual({
    action: 'accept',
    content: {
      // edited
      username: 'ada_l',
      email: 'ada@example.com',
      age: 36,
      birthday: '1815-12-10',
      region: 'apac',
      theme: 'dark',
      interests: ['mcp', 'typescript'],
      languages: ['fr'],
      newsletter: false,
      // untouched: the schema's defaults
      homepage: 'https://example.com/~me',
      height: 1.75,
      plan: 'free',
    },
  });
  await expect(page.getByTestId('request-center')).toBeHidden();
});

test('form: accept leaving the defaults — the server receives them (2026 era, stdio)', async ({ page }) => {
  await setUp(page);
  const call = startCall(page, tool(MODERN, 'register_user'), {});
  const form = await pendingRequest(page, 'elicitation-form');
  await expect(form.getByTestId('request-header')).toContainText('2026-07-28');
  await fillField(form, 'username', 'grace');
  await fillField(form, 'email', 'grace@example.com');
  await fillField(form, 'age', '45');
  await form.getByTestId('answer-accept').click();
  const received = await resultJson(await call.result());
  expect(received).toEqual({
    action: 'accept',
    content: { username: 'grace', email: 'grace@example.com', age: 45, homepage: 'https://example.com/~me', height: 1.75, newsletter: true, plan: 'free', region: 'eu', interests: ['mcp'] },
  });
});

test('form: decline and cancel reach the server; the server\'s message is shown as inert text', async ({ page }) => {
  await setUp(page);
  let call = startCall(page, tool(LEGACY, 'register_user'), { message: 'Confirm \u202eKO si siht\u202c <img src=x onerror=alert(1)>' });
  let form = await pendingRequest(page, 'elicitation-form');
  const message = form.getByTestId('request-message');
  await expect(message).toContainText('<img src=x onerror=alert(1)>');
  await expect(message).toContainText('RLO');
  await expect(message.locator('img')).toHaveCount(0);
  await form.getByTestId('answer-decline').click();
  expect(await resultJson(await call.result())).toEqual({ action: 'decline' });

  call = startCall(page, tool(MODERN, 'register_user'), {});
  form = await pendingRequest(page, 'elicitation-form');
  await form.getByTestId('answer-cancel').click();
  expect(await resultJson(await call.result())).toEqual({ action: 'cancel' });
});

test('two requests pending at once are both answerable', async ({ page }, testInfo) => {
  await setUp(page);
  const call = startCall(page, tool(MODERN, 'double_check'), {});
  const center = page.getByTestId('request-center');
  await expect(center.getByTestId('request-item')).toHaveCount(2);
  await expect(page.getByTestId('requests-badge')).toHaveAttribute('data-count', '2');
  await expect(center.getByTestId('requests-pending-count')).toHaveText('2 pending');
  await page.screenshot({ path: testInfo.outputPath('two-pending.png') });

  // The first: which color.
  let form = await pendingRequest(page, 'elicitation-form');
  await expect(form.getByTestId('request-message')).toContainText('First question');
  await form.getByTestId('field-color').selectOption('blue');
  await form.getByTestId('answer-accept').click();
  // The center moves on to the second by itself.
  await expect(center.getByTestId('request-item')).toHaveCount(1);
  form = await pendingRequest(page, 'elicitation-form');
  await expect(form.getByTestId('request-message')).toContainText('Second question');
  await fillField(form, 'count', '4');
  await form.getByTestId('answer-accept').click();
  expect(await resultJson(await call.result())).toEqual({ first: { action: 'accept', content: { color: 'blue' } }, second: { action: 'accept', content: { count: 4 } } });
  await expect(page.getByTestId('requests-badge')).toHaveAttribute('data-count', '0');
});

test('URL mode: the link with its host, opened after consent, then "completed" (2025 era)', async ({ page }, testInfo) => {
  const opened = await stubExternalPages(page);
  await setUp(page);
  const call = startCall(page, tool(LEGACY, 'open_dashboard'), {});
  const dialog = await pendingRequest(page, 'elicitation-url');
  await expect(dialog.getByTestId('url-display')).toHaveText(DASHBOARD_URL);
  await expect(dialog.getByTestId('url-host')).toHaveText('dashboard.example.com');
  await expect(dialog.getByTestId('request-message')).toContainText('Connect your Asking account');
  await page.screenshot({ path: shot('url-elicitation.png') });

  const popup = page.waitForEvent('popup');
  await dialog.getByTestId('url-open').click();
  await (await popup).close();
  expect(opened).toContain(DASHBOARD_URL);
  const received = await resultJson(await call.result());
  expect(received.action).toBe('accept');
  // Answered: the center closes, like after any answer. The server confirms with
  // notifications/elicitation/complete a moment later; Recent shows it.
  await expect(page.getByTestId('request-center')).toBeHidden();
  await page.getByTestId('requests-badge').click();
  await page.getByTestId('request-center').getByTestId('recent-item').first().click();
  const status = page.getByTestId('request-center').getByTestId('url-status');
  await expect(status).toContainText('completed');
  await page.screenshot({ path: testInfo.outputPath('url-completed.png') });
});

test('URL mode: a javascript: or http: link is refused, with no way to open it', async ({ page }, testInfo) => {
  await setUp(page);
  for (const [server, kind, scheme] of [
    [MODERN, 'javascript', 'javascript:'],
    [LEGACY, 'http', 'http:'],
  ] as const) {
    const call = startCall(page, tool(server, 'open_evil'), { kind });
    const dialog = await pendingRequest(page, 'elicitation-url');
    await expect(dialog.getByTestId('url-refused')).toContainText(`the link uses ${scheme}`);
    await expect(dialog.getByTestId('url-open')).toHaveCount(0);
    await expect(dialog.getByTestId('url-elicitation')).toHaveAttribute('data-url-ok', 'false');
    await page.screenshot({ path: testInfo.outputPath(`refused-${kind}.png`) });
    await dialog.getByTestId('answer-decline').click();
    expect((await resultJson(await call.result())).action).toBe('decline');
  }
});

test('sampling: read the request, write the reply, approve (2025 era) — and a tool_use reply (2026 era)', async ({ page }) => {
  await setUp(page);
  let call = startCall(page, tool(LEGACY, 'summarize'), {});
  let dialog = await pendingRequest(page, 'sampling');
  await expect(dialog.getByTestId('sampling-system')).toHaveText('You are a concise technical writer.');
  await expect(dialog.getByTestId('sampling-messages')).toContainText('Summarize in one sentence');
  await expect(dialog.getByTestId('sampling-block-image').locator('img')).toBeVisible();
  await expect(dialog.getByTestId('sampling-block-audio').locator('audio')).toHaveCount(1);
  await expect(dialog.getByTestId('sampling-params')).toContainText('claude-sonnet');
  await expect(dialog.getByTestId('sampling-params')).toContainText('200');
  await dialog.getByTestId('sampling-model').fill('human-reviewer');
  await dialog.getByTestId('sampling-text').fill('MCP standardizes how apps give models context.');
  await page.getByTestId('request-detail').evaluate((e) => e.scrollTo(0, 0));
  await page.screenshot({ path: shot('sampling-light.png') });
  await dialog.getByTestId('sampling-approve').click();
  expect(await resultJson(await call.result())).toEqual({ model: 'human-reviewer', stopReason: 'endTurn', content: { type: 'text', text: 'MCP standardizes how apps give models context.' } });

  // Tools offered: answer with a tool_use block, then (the fixture ran the tool) with text.
  call = startCall(page, tool(MODERN, 'plan_trip'), { destination: 'Porto' });
  dialog = await pendingRequest(page, 'sampling');
  await expect(dialog.getByTestId('sampling-tools')).toContainText('search_flights');
  await dialog.getByTestId('sampling-reply-kind').getByText('Call a tool (tool_use)').click();
  await dialog.getByTestId('sampling-tool').selectOption('get_weather');
  await dialog.getByTestId('sampling-tool-id').fill('toolu_weather_1');
  await dialog.getByTestId('sampling-tool-input').fill('{"city":"Porto"}');
  await expect(dialog.getByTestId('sampling-stop')).toHaveValue('toolUse');
  await dialog.getByTestId('sampling-approve').click();
  dialog = await pendingRequest(page, 'sampling');
  await expect(dialog.getByTestId('sampling-block-tool-result')).toContainText('Porto: 21 °C');
  await dialog.getByTestId('sampling-text').fill('Go on Saturday; it will be sunny.');
  await dialog.getByTestId('sampling-approve').click();
  const plan = await resultJson(await call.result());
  expect(plan.rounds).toBe(2);
  expect(plan.replies).toEqual([
    { model: 'human', stopReason: 'toolUse', content: [{ type: 'tool_use', id: 'toolu_weather_1', name: 'get_weather', input: { city: 'Porto' } }] },
    { model: 'human', stopReason: 'endTurn', content: { type: 'text', text: 'Go on Saturday; it will be sunny.' } },
  ]);
});

test('sampling: reject with a reason', async ({ page }) => {
  await setUp(page);
  const call = startCall(page, tool(LEGACY, 'summarize'), {});
  const dialog = await pendingRequest(page, 'sampling');
  await dialog.getByTestId('sampling-reject-reason').fill('not now');
  await dialog.getByTestId('sampling-reject').click();
  const result = await call.result();
  await expect(result).toHaveAttribute('data-is-error', 'true');
  await expect(result.getByTestId('tool-result-text')).toContainText('not now');
});

test('roots: edited in the request center, seen by the server', async ({ page }) => {
  await setUp(page);
  await page.getByTestId('requests-badge').click();
  await page.getByTestId('roots-open').click();
  const editor = page.getByTestId('roots-editor');
  await editor.getByTestId('roots-server').selectOption({ label: LEGACY });
  await expect(editor.getByTestId('roots-empty')).toBeVisible();
  await editor.getByTestId('root-add').click();
  await editor.getByTestId('root-uri').fill('not a uri');
  await editor.getByTestId('roots-save').click();
  await expect(editor.getByTestId('roots-error')).toContainText('is a relative path');
  await editor.getByTestId('root-uri').fill('file:///home/ada/project');
  await editor.getByTestId('root-name').fill('project');
  await editor.getByTestId('root-add').click();
  await editor.getByTestId('root-uri').nth(1).fill('file:///home/ada/notes');
  await editor.getByTestId('roots-save').click();
  await expect(editor.getByTestId('roots-saved')).toBeVisible();
  await page.keyboard.press('Escape');
  await page.keyboard.press('Escape');
  // Adding the first root reconnected the server (the capability is declared at connect).
  await expect(page.locator(`[data-testid="server-item"][data-server-name="${LEGACY}"]`)).toHaveAttribute('data-state', 'connected');
  const result = await callTool(page, tool(LEGACY, 'list_my_roots'), {});
  expect((await resultJson(result)).roots).toEqual([{ uri: 'file:///home/ada/project', name: 'project' }, { uri: 'file:///home/ada/notes' }]);
});
