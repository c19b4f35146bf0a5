/**
 * Resources, Prompts and Logs against the real "everything" fixture: read the readme, fill a
 * template with the server's completions and read the JSON item, get a prompt with a
 * completed argument, see stderr and server log notifications, set a legacy server's level.
 */
import { expect, test } from '@playwright/test';
import { startFixture, stdioFixtureCommand, type RunningFixture } from '../fixtures/everything/harness';
import { mainCall, openApp, startBrowserMode, type BrowserModeApp } from './support/browser-mode';
import { COUNTER_URI, completionOption, logLine, startWatchableServer, type WatchableServer, promptItem, resourceItem, serverId, setMinLevel, showView, templateItem, toggleSource, typeForCompletions, waitConnected } from './support/resources';
import { addServer, callTool, shellQuote } from './support/ui';
import { bothThemes } from './support/screenshots';
import { scrollSettled, wheelUpStopsFollowing } from './support/wheel';

let app: BrowserModeApp;
let legacy: RunningFixture;
let modern: RunningFixture;
let watchable: WatchableServer;

const LEGACY = 'fixture legacy';
const MODERN = 'fixture modern';
const STDIO = 'fixture stdio';

test.beforeAll(async () => {
  app = await startBrowserMode();
  legacy = await startFixture({ transport: 'http', era: 'legacy', sessions: true });
  modern = await startFixture({ transport: 'http', era: 'modern' });
  watchable = await startWatchableServer();
});

test.afterAll(async () => {
  await app?.close();
  await legacy?.close();
  await modern?.close();
  await watchable?.close();
});



test.describe.configure({ mode: 'serial' });

test('servers: a legacy and a modern HTTP fixture, and a chatty stdio one', async ({ page }) => {
  await openApp(page, app);
  await addServer(page, { name: LEGACY, url: legacy.url });
  await addServer(page, { name: MODERN, url: modern.url });
  const { command, args } = stdioFixtureCommand(['--stderr-chatter']);
  await addServer(page, { name: STDIO, command: shellQuote([command, ...args]) });
  for (const name of [LEGACY, MODERN, STDIO]) await waitConnected(page, name);
  await expect(page.locator(`[data-testid="server-item"][data-server-name="${LEGACY}"] [data-testid="server-era"]`)).toContainText('legacy');
  await expect(page.locator(`[data-testid="server-item"][data-server-name="${MODERN}"] [data-testid="server-era"]`)).toContainText('modern');
});

test('resources: read the readme, fill the template with completions, read the JSON item', async ({ page }) => {
  await openApp(page, app);
  await waitConnected(page, LEGACY);
  const id = await serverId(page, LEGACY);
  await showView(page, 'resources');

  // Grouped by server, searchable.
  await expect(page.locator('[data-testid="list-group"]')).toHaveCount(3);
  await page.getByTestId('resource-search').fill('readme');
  await expect(page.locator('[data-testid="resource-item"]')).toHaveCount(3);
  await expect(page.locator('[data-testid="template-item"]')).toHaveCount(0);
  await page.getByTestId('resource-search').fill('');

  // The readme, as text.
  await resourceItem(page, id, 'fixture://readme').click();
  const detail = page.getByTestId('resource-detail');
  await expect(detail.getByTestId('resource-uri')).toHaveText('fixture://readme');
  await detail.getByTestId('resource-read').click();
  const readme = detail.getByTestId('resource-content');
  await expect(readme).toHaveAttribute('data-kind', 'text');
  await expect(readme.getByTestId('content-text')).toContainText('# Everything fixture');
  await expect(readme.getByTestId('content-mime')).toHaveText('text/markdown');
  await expect(detail.getByTestId('resource-duration')).toContainText(' ms');

  // The fixture does not declare resources.subscribe: the toggle is offered, the refusal shown.
  await detail.getByTestId('resource-subscribe').click();
  await expect(detail.getByTestId('resource-subscribe-error')).toBeVisible();

  // The template: "al" completes to alpha and alpine (not beta, not gamma).
  await templateItem(page, id, 'fixture://items/{id}').click();
  const template = page.getByTestId('template-detail');
  const input = template.getByTestId('template-var-id');
  await typeForCompletions(page, input, 'al', ['alpha', 'alpine']);
  await expect(completionOption(page, 'beta')).toHaveCount(0);
  await completionOption(page, 'alpine').click();
  await expect(input).toHaveValue('alpine');
  await expect(template.getByTestId('template-expanded')).toHaveText('fixture://items/alpine');
  await template.getByTestId('template-read').click();
  const item = template.getByTestId('resource-content');
  await expect(item).toHaveAttribute('data-kind', 'json');
  const tree = item.getByTestId('content-json');
  await expect(tree).toContainText('id: "alpine"');
  await expect(tree).toContainText('known: true');
  await expect(tree).toContainText('length: 6');
  // The raw text is one click away.
  await item.getByTestId('content-json-mode').getByText('Raw').click();
  await expect(item.getByTestId('content-text')).toHaveText('{"id":"alpine","known":true,"length":6}');
  await item.getByTestId('content-json-mode').getByText('Tree').click();

  // An id the server does not know is still read (the item says so).
  await input.fill('nothing-like-this');
  await template.getByTestId('template-read').click();
  await expect(item.getByTestId('content-json')).toContainText('known: false');

  await input.fill('alpha');
  await template.getByTestId('template-read').click();
  await expect(template.getByTestId('content-json')).toContainText('id: "alpha"');
  await bothThemes(page, 'resources', { pointer: { x: 0, y: 0 } });
});

test('resources: subscribe, see the update mark when the server says it changed, re-read', async ({ page }) => {
  await openApp(page, app);
  await addServer(page, { name: 'watchable', url: watchable.url });
  await waitConnected(page, 'watchable');
  const id = await serverId(page, 'watchable');
  await showView(page, 'resources');
  await resourceItem(page, id, COUNTER_URI).click();
  const detail = page.getByTestId('resource-detail');
  await detail.getByTestId('resource-read').click();
  await expect(detail.getByTestId('content-json')).toContainText('count: 0');

  await detail.getByTestId('resource-subscribe').check();
  await expect.poll(() => watchable.subscribers()).toBe(1);
  await expect(detail.getByTestId('resource-updated')).toHaveCount(0);

  await watchable.bump();
  // The list row gets a dot with the time, the detail a notice; re-reading clears both.
  await expect(resourceItem(page, id, COUNTER_URI).getByTestId('resource-updated-dot')).toBeVisible();
  await expect(detail.getByTestId('resource-updated')).toContainText('Updated at');
  await detail.getByTestId('resource-updated').getByRole('button', { name: 'Re-read' }).click();
  await expect(detail.getByTestId('content-json')).toContainText('count: 1');
  await expect(detail.getByTestId('resource-updated')).toHaveCount(0);

  // Clicking the dot in the list re-reads too.
  await watchable.bump();
  await resourceItem(page, id, COUNTER_URI).getByTestId('resource-updated-dot').click();
  await expect(detail.getByTestId('content-json')).toContainText('count: 2');
  await expect(resourceItem(page, id, COUNTER_URI).getByTestId('resource-updated-dot')).toHaveCount(0);

  await detail.getByTestId('resource-subscribe').uncheck();
  await expect.poll(() => watchable.subscribers()).toBe(0);
});

test('prompts: required arguments, a completed name, the rendered message', async ({ page }) => {
  await openApp(page, app);
  await waitConnected(page, LEGACY);
  await showView(page, 'prompts');
  await expect(page.locator('[data-testid="prompt-item"]')).toHaveCount(3);
  await page.getByTestId('prompt-search').fill('greet');
  await promptItem(page, 'fixture-legacy__greet').click();
  const detail = page.getByTestId('prompt-detail');

  // Required is marked and enforced before anything is sent.
  await detail.getByTestId('prompt-get').click();
  await expect(detail.getByText('name is required')).toBeVisible();

  // "A" completes to Ada and Alan.
  const name = detail.getByTestId('prompt-arg-name');
  await typeForCompletions(page, name, 'A', ['Ada', 'Alan']);
  await expect(completionOption(page, 'Grace')).toHaveCount(0);
  await completionOption(page, 'Ada').click();
  await expect(name).toHaveValue('Ada');
  await detail.getByTestId('prompt-get').click();

  const message = detail.getByTestId('prompt-message');
  await expect(message).toHaveCount(1);
  await expect(message).toHaveAttribute('data-role', 'user');
  await expect(message.getByTestId('prompt-role')).toHaveText('user');
  await expect(message.getByTestId('prompt-text')).toHaveText('Say hi to Ada!');
  await expect(detail.getByTestId('prompt-duration')).toContainText('1 message');

  // The optional argument changes the message.
  await detail.getByTestId('prompt-arg-style').fill('formal');
  await detail.getByTestId('prompt-get').click();
  await expect(message.getByTestId('prompt-text')).toHaveText('Good day, Ada. Please greet them formally.');

  // A value the server rejects is a readable error.
  await detail.getByTestId('prompt-arg-style').fill('shouty');
  await detail.getByTestId('prompt-get').click();
  await expect(detail.getByTestId('prompt-error')).toBeVisible();
  await expect(detail.getByTestId('prompt-error')).toContainText(/style|invalid/i);

  await detail.getByTestId('prompt-arg-style').fill('casual');
  await detail.getByTestId('prompt-get').click();
  await expect(message.getByTestId('prompt-text')).toHaveText('Say hi to Ada!');
  await page.getByTestId('prompt-search').fill('');
  await bothThemes(page, 'prompts', { pointer: { x: 0, y: 0 } });
});

test('logs: stderr lines, server log notifications, filters, and a legacy server log level', async ({ page }) => {
  await openApp(page, app);
  await waitConnected(page, LEGACY);
  const stdioId = await serverId(page, STDIO);
  await showView(page, 'logs');

  // The stdio fixture's stderr chatter.
  const chatter = logLine(page, { source: 'stderr', text: 'everything: ready, waiting for a client on stdin' });
  await expect(chatter).toHaveCount(1);
  await expect(chatter).toHaveAttribute('data-server-id', stdioId);
  await expect(chatter).toContainText(STDIO);

  // A server log notification (notifications/message) from the log tool.
  await showView(page, 'tools');
  await callTool(page, 'fixture-legacy__log', { level: 'warning', message: 'disk 91% full on /var' });
  await showView(page, 'logs');
  const warning = logLine(page, { source: 'server', text: 'disk 91% full on /var' });
  await expect(warning).toHaveCount(1);
  await expect(warning).toHaveAttribute('data-level', 'warning');
  await expect(warning).toContainText(LEGACY);

  // Filters: minimum level, source, text.
  await setMinLevel(page, 'error');
  await expect(warning).toHaveCount(0);
  await setMinLevel(page, 'warning');
  await expect(warning).toHaveCount(1);
  await expect(chatter).toHaveCount(0); // stderr lines are info
  await setMinLevel(page, 'debug');
  await toggleSource(page, 'server');
  await expect(warning).toHaveCount(0);
  await expect(chatter).toHaveCount(1);
  await toggleSource(page, 'server');
  await page.getByTestId('log-filter-text').fill('DISK 91%');
  await expect(page.locator('[data-testid="log-line"]')).toHaveCount(1);
  await page.getByTestId('log-filter-text').fill('');

  // logging/setLevel on the legacy server; the modern one has no such method.
  await page.getByTestId('log-levels-open').click();
  const levels = page.getByTestId('log-levels');
  const modernRow = levels.locator(`[data-testid="log-level-row"][data-server-name="${MODERN}"]`);
  await expect(modernRow.getByTestId('log-level-select')).toBeDisabled();
  await expect(modernRow).toContainText('not in this era');
  const legacyRow = levels.locator(`[data-testid="log-level-row"][data-server-name="${LEGACY}"]`);
  await legacyRow.getByTestId('log-level-select').selectOption('error');
  await expect(legacyRow.getByTestId('log-level-status')).toHaveText('set to error');
  await page.keyboard.press('Escape');

  // The server honours it: an info line is no longer sent, an error line is.
  await showView(page, 'tools');
  await callTool(page, 'fixture-legacy__log', { level: 'info', message: 'cache warmed (should be filtered by the server)' });
  await callTool(page, 'fixture-legacy__log', { level: 'error', message: 'upstream 502 from billing-api' });
  await showView(page, 'logs');
  await expect(logLine(page, { source: 'server', level: 'error', text: 'upstream 502 from billing-api' })).toHaveCount(1);
  await expect(logLine(page, { text: 'cache warmed' })).toHaveCount(0);

  // Back to a chattier level for the screenshots.
  await page.getByTestId('log-levels-open').click();
  await legacyRow.getByTestId('log-level-select').selectOption('debug');
  await expect(legacyRow.getByTestId('log-level-status')).toHaveText('set to debug');
  await page.keyboard.press('Escape');
  await showView(page, 'tools');
  await callTool(page, 'fixture-legacy__log', { level: 'debug', message: 'GET /v1/invoices?page=2 → 200 in 38 ms' });
  await callTool(page, 'fixture-legacy__log', { level: 'info', message: 'connected to postgres://db.internal:5432/app (pool 10)' });
  await showView(page, 'logs');
  await expect(logLine(page, { source: 'server', level: 'debug', text: 'GET /v1/invoices' })).toHaveCount(1);
  await expect(page.getByTestId('log-count')).toContainText('lines shown');
  await bothThemes(page, 'logs', { pointer: { x: 0, y: 0 } });
});

test('logs: hostile text stays text; a flood stays a virtualized list that follows the tail', async ({ page }) => {
  await openApp(page, app);
  await waitConnected(page, LEGACY);
  await showView(page, 'tools');
  const hostile = '<img src=x onerror="document.body.dataset.pwned=1"><b>bold?</b> \u202Eexe.txt';
  await callTool(page, 'fixture-legacy__log', { level: 'error', message: hostile });
  await callTool(page, 'fixture-legacy__flood', { count: 5000 });
  await showView(page, 'logs');

  // (The list is virtualized: filter to bring the line into the DOM.)
  await page.getByTestId('log-filter-text').fill('<b>bold?</b>');
  const line = logLine(page, { source: 'server', text: '<b>bold?</b>' });
  await expect(line).toHaveCount(1);
  await expect(line.getByTestId('log-text')).toContainText(hostile);
  await expect(page.locator('[data-testid="log-lines"] img, [data-testid="log-lines"] b')).toHaveCount(0);
  await expect(page.locator('body')).not.toHaveAttribute('data-pwned', '1');

  // A long text of many lines: one row like every other (its line breaks shown as ⏎), saying how
  // many lines it has; clicking it shows it whole below the list, where the hostile text stays text too.
  await showView(page, 'tools');
  const trace = ['TypeError: cannot read properties of undefined (reading "id")', ...Array.from({ length: 40 }, (_, i) => `    at handler${i} (/srv/app/routes/${'deep/'.repeat(12)}file${i}.js:${10 + i}:7)`), hostile].join('\n');
  await callTool(page, 'fixture-legacy__log', { level: 'error', message: trace });
  await showView(page, 'logs');
  await page.getByTestId('log-filter-text').fill('cannot read properties');
  const long = logLine(page, { source: 'server', text: 'cannot read properties' });
  await expect(long).toHaveCount(1);
  await expect(long.getByTestId('log-more')).toHaveText('42 lines');
  await expect(long.getByTestId('log-text')).toContainText('"id") ⏎     at handler0');
  const rowHeight = Number(await page.getByTestId('log-lines').getAttribute('data-row-height'));
  expect((await long.boundingBox())?.height).toBeCloseTo(rowHeight, 0);
  await long.click();
  await expect(long).toHaveAttribute('aria-selected', 'true');
  const detail = page.getByTestId('log-detail');
  await expect(detail).toContainText('42 lines');
  // (the line names the fixture's logger first)
  expect(await detail.getByTestId('log-detail-text').textContent()).toBe(`[everything] ${trace}`);
  await expect(page.locator('[data-testid="log-detail"] img, [data-testid="log-detail"] b')).toHaveCount(0);
  await expect(page.getByTestId('log-follow')).not.toBeChecked();
  await bothThemes(page, 'logs-detail', { pointer: { x: 0, y: 0 } });
  // The keyboard moves the selection over the lines shown (here the hostile one, then the long one again); Escape closes the pane.
  await page.getByTestId('log-filter-text').fill('bold?');
  await expect(page.locator('[data-testid="log-line"]')).toHaveCount(2);
  await page.getByTestId('log-lines').focus();
  await page.keyboard.press('ArrowUp');
  await expect(detail).toContainText('1 line ·');
  expect(await detail.getByTestId('log-detail-text').textContent()).toBe(`[everything] ${hostile}`);
  await page.keyboard.press('ArrowDown');
  await expect(detail).toContainText('42 lines');
  await page.keyboard.press('Escape');
  await expect(detail).toHaveCount(0);
  await page.getByTestId('log-follow').check();

  // 5,000 lines, a few dozen rows in the DOM, the newest in view. (The flood came while Logs was
  // closed, so each push carried only its newest lines; the view read the rest from main as it opened.)
  await page.getByTestId('log-filter-text').fill('flood ');
  await expect(page.getByTestId('log-count')).toContainText('5,000 of');
  expect(await page.locator('[data-testid="log-line"]').count()).toBeLessThan(150);
  await expect(logLine(page, { text: 'flood 5000/5000' })).toBeInViewport();
  await expect(page.getByTestId('log-follow')).toBeChecked();

  // Scrolling up pauses following; scrolling back to the bottom resumes it.
  await page.getByTestId('log-lines').evaluate((el) => (el.scrollTop = 0));
  await expect(page.getByTestId('log-follow')).not.toBeChecked();
  await expect(logLine(page, { text: 'flood 1/5000' })).toBeInViewport();
  await page.getByTestId('log-lines').evaluate((el) => (el.scrollTop = el.scrollHeight));
  await expect(page.getByTestId('log-follow')).toBeChecked();
  await expect(logLine(page, { text: 'flood 5000/5000' })).toBeInViewport();

  // The switch itself: on again from far up the list jumps to the tail and stays there.
  await page.getByTestId('log-lines').evaluate((el) => (el.scrollTop = 0));
  await expect(page.getByTestId('log-follow')).not.toBeChecked();
  await page.getByTestId('log-follow').check();
  await expect(logLine(page, { text: 'flood 5000/5000' })).toBeInViewport();
  await expect(page.getByTestId('log-follow')).toBeChecked();

  // The newest line, clicked at the bottom of the list: the pane opens below, the list grows
  // shorter, and the line stays in view (following stops while it is read).
  await logLine(page, { text: 'flood 5000/5000' }).click();
  await expect(page.getByTestId('log-detail')).toContainText('flood 5000/5000');
  await expect(logLine(page, { text: 'flood 5000/5000' })).toBeInViewport({ ratio: 1 });
  await expect(page.getByTestId('log-follow')).not.toBeChecked();
});

test('logs: scrolled up by the wheel during a live flood, the lines on screen stay put; back at the bottom it follows again', async ({ page }) => {
  await openApp(page, app);
  await waitConnected(page, LEGACY);
  await showView(page, 'logs');
  await page.getByTestId('log-filter-text').fill('');
  const follow = page.getByTestId('log-follow');
  if (!(await follow.isChecked())) await follow.check();
  const list = page.getByTestId('log-lines');
  const rowHeight = Number(await list.getAttribute('data-row-height'));

  const lastIdBefore = Number(await page.getByTestId('log-count').getAttribute('data-last-id'));
  // 20,000 lines over 24 s, started without waiting for the answer: they arrive while we scroll.
  const COUNT = 20_000;
  let done = false;
  const flood = mainCall(app, 'callTool', { tool: 'flood', serverId: await serverId(page, LEGACY), args: { count: COUNT, spreadMs: 24_000 } }).finally(() => (done = true));
  const floodLine = (i: number) => logLine(page, { text: `flood ${i}/${COUNT}` });
  await expect(logLine(page, { text: new RegExp(`flood \\d+/${COUNT}`) }).last()).toBeInViewport();

  // A person's gesture: the wheel, over the list. Each time, following stops where the wheel left the list.
  await wheelUpStopsFollowing(page, list, follow, 5);
  // What the person now reads: the first whole row on screen, by its place in the list and its text.
  const top = await scrollSettled(list);
  const index = Math.ceil(top / rowHeight);
  const row = list.locator(`[data-testid="log-line"][aria-rowindex="${index + 1}"]`);
  const text = await row.getByTestId('log-text').textContent();
  expect(text).toMatch(new RegExp(`flood \\d+/${COUNT}`));
  expect(done, 'the flood was still arriving while we scrolled').toBe(false);

  // The rest of the flood arrives; the list under the reader does not move.
  const reply = await flood;
  expect(reply.ok).toBe(true);
  // (every line of it reached the list: main's ids rose by the flood's count at least)
  await expect.poll(async () => Number(await page.getByTestId('log-count').getAttribute('data-last-id'))).toBeGreaterThanOrEqual(lastIdBefore + COUNT);
  await expect(floodLine(COUNT)).toHaveCount(0); // not rendered: far below the rows on screen
  expect(await list.evaluate((el) => el.scrollTop)).toBe(top);
  await expect(row.getByTestId('log-text')).toHaveText(text!);
  await expect(row).toBeInViewport();
  await expect(follow).not.toBeChecked();
  // The mark says how many lines lie below the screen: at least the flood's lines after those on screen.
  const mark = page.getByTestId('log-new-below');
  await expect(mark).toBeVisible();
  // (both read from one rendered frame)
  const [below, total] = await list.evaluate((el) => [Number(el.parentElement?.querySelector('[data-testid="log-new-below"]')?.getAttribute('data-count')), Number(el.getAttribute('aria-rowcount'))]);
  const readFrom = Number(/flood (\d+)\//.exec(text!)![1]);
  const onScreen = Math.ceil((await list.evaluate((el) => el.clientHeight)) / rowHeight) + 1;
  expect(below).toBeGreaterThanOrEqual(COUNT - readFrom - onScreen);
  expect(below).toBeLessThan(total - index);
  await expect(mark).toHaveText(`↓ ${below.toLocaleString('en-US')} newer lines`);
  await bothThemes(page, 'logs-scrolled-up-after-flood', { pointer: { x: 0, y: 0 } });

  // A click on the mark: following resumes at the newest line, and the mark is gone.
  await mark.click();
  await expect(follow).toBeChecked();
  await expect(floodLine(COUNT)).toBeInViewport();
  await expect(mark).toHaveCount(0);

  // Up and back down with the wheel: the mark comes and goes, and following resumes at the newest line.
  const box = (await list.boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.wheel(0, -40 * rowHeight);
  await expect(follow).not.toBeChecked();
  await expect(mark).toBeVisible();
  await page.mouse.wheel(0, (await list.evaluate((el) => el.scrollHeight)) + 1_000);
  await expect(follow).toBeChecked();
  await expect(floodLine(COUNT)).toBeInViewport();
  await expect(mark).toHaveCount(0);
});

test('logs: a server removed elsewhere leaves the sidebar; its lines keep its name and an entry in the server filter', async ({ page }) => {
  await openApp(page, app);
  await waitConnected(page, STDIO);
  const stdioId = await serverId(page, STDIO);
  await showView(page, 'logs');
  await page.getByTestId('log-filter-text').fill('everything: ready');
  await expect(logLine(page, { source: 'stderr', text: 'everything: ready' }).first()).toBeVisible();
  expect((await mainCall(app, 'removeServer', { id: stdioId })).ok).toBe(true);
  await expect(page.getByTestId('server-item').filter({ hasText: STDIO })).toHaveCount(0);
  // (The entry is looked for when the list opens, not on every tick.)
  await page.getByTestId('log-filter-server').click();
  // (By the name it had: this page saw it go.)
  const entry = page.getByRole('option', { name: `${STDIO} (removed)` });
  await expect(entry).toBeVisible();
  await bothThemes(page, 'logs-server-filter-removed');
  await entry.click();
  await expect(page.getByTestId('log-filter-server')).toHaveValue(`${STDIO} (removed)`);
  await expect(logLine(page, { source: 'stderr', text: 'everything: ready' }).first()).toContainText(`${STDIO} (removed)`);
  await expect(page.locator(`[data-testid="log-line"]:not([data-server-id="${stdioId}"])`)).toHaveCount(0);
  // Its last state pushes (its process ending) did not bring it back.
  await expect(page.getByTestId('server-item').filter({ hasText: STDIO })).toHaveCount(0);
});
