/**
 * Issue #11, items 6, 11 and 17, against the published reference servers (server-everything and
 * server-memory over stdio) in the built browser mode, and one fixture of ours for what reference
 * servers never do (send what they did not declare):
 *
 * - 17: the SDK's version probe (`server/discover`) and server-everything's "Method not found"
 *   are marked negotiation, left out of "Errors only", still in the table and in the export;
 * - 11: the level picker only for servers that declared `logging` (server-memory did not, and
 *   says so); a server's error answer is that server's log line; all eight levels as themselves;
 * - 6: the server info panel — name, title, version, protocol, era, instructions as text, both
 *   sides' capabilities, icons, and what the server did without declaring it.
 */
import { createRequire } from 'node:module';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { undeclaredStdioCommand } from '../fixtures/undeclared/harness';
import { mainCall, openApp, startBrowserMode, type BrowserModeApp } from './support/browser-mode';
import { logLine, setMinLevel, showView, waitConnected } from './support/resources';
import { bothThemes } from './support/screenshots';
import { openTraffic, toggleErrorsOnly } from './support/traffic';

const require = createRequire(import.meta.url);
const bin = (pkg: string) => require.resolve(`@modelcontextprotocol/${pkg}/dist/index.js`);

let app: BrowserModeApp;
const ids: Record<string, string> = {};

async function call<T = Record<string, unknown>>(method: string, args: unknown): Promise<T> {
  const reply = await mainCall(app, method, args);
  if (!reply.ok) throw new Error(`${method}: ${reply.error?.message}`);
  return reply.result as T;
}

async function add(name: string, command: string, args: string[], env?: Record<string, string>): Promise<string> {
  const { id } = await call<{ id: string }>('addServer', { name, target: { type: 'stdio', command, args, ...(env ? { env } : {}) }, retries: 0, pingIntervalSec: 0, requestTimeoutSec: 60 });
  const status = await call<{ state: string; error?: string }>('connectServer', { id });
  if (status.state !== 'connected') throw new Error(`${name} did not connect: ${status.error}`);
  return id;
}

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  app = await startBrowserMode();
  ids.everything = await add('everything', process.execPath, [bin('server-everything'), 'stdio']);
  ids.memory = await add('memory', process.execPath, [bin('server-memory')], { MEMORY_FILE_PATH: join(mkdtempSync(join(tmpdir(), 'switchboard-info-')), 'memory.jsonl') });
  const fixture = undeclaredStdioCommand();
  ids.undeclared = await add('undeclared', fixture.command, fixture.args);
});

test.afterAll(async () => {
  await app?.close();
});

async function ready(page: Page): Promise<void> {
  await page.setViewportSize({ width: 1400, height: 900 });
  await openApp(page, app);
  for (const name of ['everything', 'memory', 'undeclared']) await waitConnected(page, name);
}



test('17: the version probe and its expected refusal are negotiation, not errors — still shown and exported as they arrived', async ({ page }) => {
  // A real error of the same server, so "Errors only" has something to keep.
  await expect(mainCall(app, 'readResource', { serverId: ids.everything, uri: 'demo://resource/dynamic/text/0' })).resolves.toMatchObject({ ok: false });
  await ready(page);
  await openTraffic(page);
  await page.getByTestId('traffic-search').fill('server-discover-probe-1');
  const probeRows = page.locator(`[data-testid="traffic-row"][data-server="${ids.everything}"]`);
  const answer = probeRows.and(page.locator('[data-kind="jsonrpc-in"]'));
  await expect(answer).toHaveCount(1);
  await expect(answer).toHaveAttribute('data-negotiation', 'answer');
  await expect(answer).not.toHaveAttribute('data-error', /.*/);
  await expect(answer.getByTestId('negotiation-badge')).toHaveText('negotiation');
  await expect(answer).toContainText('Method not found');
  await expect(probeRows.and(page.locator('[data-kind="jsonrpc-out"]'))).toHaveAttribute('data-negotiation', 'probe');
  await answer.click();
  await expect(page.getByTestId('traffic-detail-negotiation')).toContainText('expected answer');
  await bothThemes(page, 'traffic-negotiation');

  // Errors only: no probe answer of any server; the real error stays.
  await page.getByTestId('traffic-search').fill('');
  await toggleErrorsOnly(page);
  const errors = page.locator('[data-testid="traffic-row"][data-error="true"]');
  await expect(errors.filter({ hasText: 'Unknown resource' })).toHaveCount(1);
  await expect(page.locator('[data-testid="traffic-row"][data-negotiation]')).toHaveCount(0);
  await expect(page.locator('[data-testid="traffic-row"]').filter({ hasText: 'server-discover-probe' })).toHaveCount(0);
  // (a Method not found the fixture gave to prompts/list, which it declared, is an error and stays)
  await expect(errors.filter({ hasText: 'Method not found' }).first()).toHaveAttribute('data-server', ids.undeclared!);
  await toggleErrorsOnly(page);

  // The export keeps the answer byte for byte (plus its mark).
  const exported = await page.evaluate(async () => (await fetch('/api/trace/export?format=jsonl')).text());
  const line = exported.split('\n').find((l) => l.includes('"jsonrpc-in"') && l.includes('server-discover-probe-1'));
  expect(line).toBeDefined();
  const event = JSON.parse(line!) as { body: unknown; negotiation?: string; rpc?: { kind: string; errorCode?: number } };
  expect(event.negotiation).toBe('answer');
  expect(event.rpc).toMatchObject({ kind: 'error', errorCode: -32601 });
  expect(event.body).toEqual({ jsonrpc: '2.0', id: 'server-discover-probe-1', error: { code: -32601, message: 'Method not found' } });
});

test('11: a level picker only where logging was declared; a server-caused error is that server’s line; eight levels as themselves', async ({ page }) => {
  await ready(page);
  await showView(page, 'logs');

  // server-memory declared no logging: no picker, and the reason; server-everything gets one.
  await page.getByTestId('log-levels-open').click();
  const levels = page.getByTestId('log-levels');
  const memory = levels.locator('[data-testid="log-level-row"][data-server-name="memory"]');
  await expect(memory).toHaveAttribute('data-settable', 'false');
  await expect(memory.getByTestId('log-level-select')).toBeDisabled();
  await expect(memory.getByTestId('log-level-why')).toContainText('did not declare the logging capability');
  const everything = levels.locator('[data-testid="log-level-row"][data-server-name="everything"]');
  await expect(everything.getByTestId('log-level-select')).toBeEnabled();
  await everything.getByTestId('log-level-select').selectOption('debug');
  await expect(everything.getByTestId('log-level-status')).toHaveText('set to debug');
  await page.keyboard.press('Escape');
  // Main refuses it too (no "Method not found" round trip).
  const refused = await mainCall(app, 'setLogLevel', { serverId: ids.memory, level: 'debug' });
  expect(refused.ok).toBe(false);
  expect(refused.error?.message).toContain('did not declare the logging capability');

  // server-everything's own error answer: its line, its name — not "Switchboard".
  await mainCall(app, 'readResource', { serverId: ids.everything, uri: 'demo://resource/dynamic/text/0' });
  const failure = logLine(page, { source: 'protocol', text: 'Unknown resource' }).first();
  await expect(failure).toHaveAttribute('data-server-id', ids.everything!);
  await expect(failure).toHaveAttribute('data-level', 'error');
  await expect(failure).toContainText('everything');
  await expect(failure).toContainText('protocol');

  // critical as critical (the fixture sends one at initialize), and the filter knows it.
  const critical = logLine(page, { source: 'server', text: 'a log line nobody asked for' });
  await expect(critical).toHaveAttribute('data-level', 'critical');
  await expect(critical.getByTestId('log-level-tag')).toHaveText('critical');
  await setMinLevel(page, 'critical');
  await expect(critical).toHaveCount(1);
  await expect(failure).toHaveCount(0);
  await setMinLevel(page, 'alert');
  await expect(critical).toHaveCount(0);
  await setMinLevel(page, 'debug');

  // server-everything's simulated logging (random levels, one now, then every 5 s): each line at the level it names.
  await call('callTool', { serverId: ids.everything, tool: 'toggle-simulated-logging', args: {} });
  const simulated = logLine(page, { source: 'server', text: /-level message|level-message/ });
  await expect(simulated.first()).toBeVisible();
  // wait for one of the levels the view used to fold (notice, critical, alert, emergency)
  await expect(logLine(page, { source: 'server', text: /Notice-level|Critical-level|Alert level|Emergency-level/ }).first()).toBeVisible({ timeout: 90_000 });
  for (const row of await simulated.all()) {
    const text = (await row.getByTestId('log-text').textContent()) ?? '';
    const named = /^(\w+)[- ]level/i.exec(text.replace(/^\[[^\]]*\]\s*/, ''))?.[1]?.toLowerCase();
    expect(await row.getAttribute('data-level')).toBe(named);
  }
  await call('callTool', { serverId: ids.everything, tool: 'toggle-simulated-logging', args: {} });
  await page.getByTestId('log-count').click(); // a click outside closes the level popover
  await expect(page.getByTestId('log-levels')).toBeHidden();
  await bothThemes(page, 'logs-levels');
  await page.getByTestId('log-levels-open').click();
  await expect(page.getByTestId('log-levels')).toBeVisible();
  await bothThemes(page, 'logs-level-picker');
  await page.getByTestId('log-count').click();
  await expect(page.getByTestId('log-levels')).toBeHidden();
});

test('6: the server info panel — what server-everything declared, and what the fixture did without declaring it', async ({ page }) => {
  await ready(page);
  const openInfo = async (name: string) => {
    await page.locator(`[data-testid="server-item"][data-server-name="${name}"]`).getByTestId('server-menu').click();
    await page.getByTestId('server-show-info').click();
    const panel = page.getByTestId('server-info-panel');
    await expect(panel).toHaveAttribute('data-server-id', ids[name]!);
    return panel;
  };

  const panel = await openInfo('everything');
  await expect(panel.getByTestId('server-info-title')).toHaveText('Everything Reference Server');
  await expect(panel.getByTestId('server-info-name')).toContainText('mcp-servers/everything');
  await expect(panel.getByTestId('server-info-name')).toContainText('version 2.0.0');
  await expect(panel.getByTestId('server-info-era')).toHaveText('legacy era');
  await expect(panel.getByTestId('server-info-protocol')).toHaveText('protocol 2025-11-25');
  for (const cap of ['tools', 'prompts', 'resources', 'logging', 'completions']) await expect(panel.getByTestId('server-info-server-caps').locator(`[data-capability="${cap}"]`)).toHaveCount(1);
  await expect(panel.getByTestId('server-info-server-caps').locator('[data-capability="tools"]')).toContainText('listChanged');
  await expect(panel.getByTestId('server-info-client-caps').locator('[data-capability="sampling"]')).toHaveCount(1);
  await expect(panel.getByTestId('server-info-notifications').locator('[data-method="notifications/tools/list_changed"]')).toBeVisible();
  await expect(panel.getByTestId('server-info-consistent')).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('server-info-panel')).toHaveCount(0);

  const fixture = await openInfo('undeclared');
  await expect(fixture.getByTestId('server-info-title')).toHaveText('Undeclared Fixture');
  const mismatches = fixture.getByTestId('server-info-mismatch');
  await expect(mismatches.and(page.locator('[data-kind="undeclared"][data-capability="tools.listChanged"]'))).toContainText('without declaring tools.listChanged');
  await expect(mismatches.and(page.locator('[data-kind="undeclared"][data-capability="logging"]'))).toContainText('notifications/message');
  await expect(mismatches.and(page.locator('[data-kind="refused"][data-method="prompts/list"]'))).toContainText('Method not found');
  // Instructions are text: the markup shows as characters and runs nothing.
  const instructions = fixture.getByTestId('server-info-instructions');
  await expect(instructions).toContainText('<img src=x onerror="window.__pwned=1"> <b>not bold</b>');
  await expect(instructions.locator('img, b')).toHaveCount(0);
  expect(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).toBeUndefined();
  // Icons: the data: SVG drawn, sized; the javascript: one never used.
  await expect(fixture.getByTestId('server-info-icon')).toHaveAttribute('src', /^data:image\/svg\+xml;base64,/);
  await expect(fixture.getByTestId('server-info-icon')).toHaveAttribute('width', '40');
  await expect(fixture.locator('[data-testid="server-info-icon-row"][data-verdict="refused"]')).toContainText('javascript:');
  await expect(page.locator('img[src^="javascript:"]')).toHaveCount(0);
  await expect(fixture.getByTestId('server-info-website')).toBeVisible();

  // It keeps watching: poking it again counts again.
  await call('callTool', { serverId: ids.undeclared, tool: 'poke', args: {} });
  await expect(mismatches.and(page.locator('[data-capability="tools.listChanged"]'))).toContainText('2 times');
  await bothThemes(page, 'server-info');
});
