/**
 * Drift (#13) in the built browser mode: pin a server's interface as its baseline from the server
 * menu, then the server is redeployed changed (our fixture restarted on the same port with
 * `--variant drift`); after reconnecting, the sidebar flags it, and one click shows the diff in
 * the Compare tab — a changed tool description (with the rug-pull warning), a new required
 * argument and a removed tool, each with its area, change and severity. Pictures in light and dark.
 */
import { expect, test, type Page } from '@playwright/test';
import { startFixture, type RunningFixture } from '../fixtures/everything/harness';
import { freePort } from '../support/core-calls';
import { openApp, startBrowserMode, type BrowserModeApp } from './support/browser-mode';
import { waitConnected } from './support/resources';
import { bothThemes } from './support/screenshots';
import { addServer } from './support/ui';

let app: BrowserModeApp;
let fixture: RunningFixture;
let port: number;
const NAME = 'orders api';

test.beforeAll(async () => {
  app = await startBrowserMode();
  port = await freePort();
  fixture = await startFixture({ transport: 'http', era: 'legacy', port });
});

test.afterAll(async () => {
  await app?.close();
  await fixture?.close();
});

const item = (page: Page) => page.locator(`[data-testid="server-item"][data-server-name="${NAME}"]`);

async function serverMenu(page: Page, testId: string): Promise<void> {
  await item(page).getByTestId('server-menu').click();
  await page.getByTestId(testId).click();
}

test('a drift warning in the sidebar after reconnecting to the changed server, and its diff in the Compare tab', async ({ page }) => {
  await openApp(page, app);
  await addServer(page, { name: NAME, url: fixture.url });
  await waitConnected(page, NAME);

  await test.step('pin the interface as the baseline', async () => {
    await serverMenu(page, 'server-pin-baseline');
    await expect(item(page).getByTestId('drift-badge')).toHaveAttribute('data-state', 'same');
  });

  await test.step('the server comes back changed: the sidebar flags it on reconnect', async () => {
    await fixture.close();
    fixture = await startFixture({ transport: 'http', era: 'legacy', port, extraArgs: ['--variant', 'drift'] });
    // Reconnect by hand (the connection may be retrying on its own already).
    // Wait for the menu to be open before deciding: it offers Disconnect while the connection is
    // up (or has already reconnected on its own to the restarted server), Connect otherwise.
    await item(page).getByTestId('server-menu').click();
    const disconnect = page.getByRole('menuitem', { name: 'Disconnect', exact: true });
    const connect = page.getByRole('menuitem', { name: 'Connect', exact: true });
    await expect(disconnect.or(connect)).toBeVisible();
    if (await disconnect.isVisible()) await disconnect.click();
    else await page.keyboard.press('Escape');
    await expect(item(page)).not.toHaveAttribute('data-state', 'connected');
    await item(page).getByTestId('server-menu').click();
    await page.getByRole('menuitem', { name: 'Connect', exact: true }).click();
    await waitConnected(page, NAME);
    const badge = item(page).getByTestId('drift-badge');
    await expect(badge).toHaveAttribute('data-state', 'changed');
    await expect(badge).toHaveText('drift');
    await bothThemes(page, 'drift-sidebar', { pointer: { x: 900, y: 700 } });
  });

  await test.step('one click: the diff, baseline vs now', async () => {
    await item(page).getByTestId('drift-badge').click();
    const panel = page.getByTestId('compare-panel');
    await expect(panel).toBeVisible();
    await expect(page.getByTestId('recordings-tab-compare')).toHaveAttribute('aria-selected', 'true');
    const result = panel.getByTestId('compare-result');
    await expect(result).toHaveAttribute('data-same', 'false');
    await expect(result.getByTestId('compare-summary')).toHaveText('3 changes: 2 breaking, 1 warning');
    const rows = result.getByTestId('interface-change');
    await expect(rows).toHaveCount(3);
    const attrs = await rows.evaluateAll((els) => els.map((e) => [e.getAttribute('data-area'), e.getAttribute('data-item'), e.getAttribute('data-change'), e.getAttribute('data-severity')]));
    expect(attrs).toEqual([
      ['tools', 'add', 'changed', 'breaking'],
      ['tools', 'echo', 'changed', 'warning'],
      ['tools', 'flood', 'removed', 'breaking'],
    ]);
    await expect(rows.nth(0)).toContainText('tool `add`: new required argument `c`');
    await expect(rows.nth(2)).toContainText('tool `flood` was removed');
    await expect(result.getByTestId('compare-rug-pull')).toBeVisible();
    // The description side by side: the new text's changed line marked.
    const values = rows.nth(1).getByTestId('interface-change-values');
    await expect(values).toContainText('~/.ssh/id_rsa');
    await expect(values.locator('[data-changed]')).toHaveCount(2);
    await bothThemes(page, 'drift-compare', { pointer: { x: 5, y: 700 } });
    await rows.nth(2).scrollIntoViewIfNeeded();
    await bothThemes(page, 'drift-compare-rows', { pointer: { x: 5, y: 700 } });
  });

  await test.step('now vs now: no differences, said plainly', async () => {
    const panel = page.getByTestId('compare-panel');
    await panel.getByTestId('compare-a').click();
    await page.getByRole('option', { name: `${NAME} — now` }).click();
    await panel.getByTestId('compare-run').click();
    await expect(panel.getByTestId('compare-result')).toHaveAttribute('data-same', 'true');
    await expect(panel.getByTestId('compare-same')).toContainText('The two interfaces are the same');
  });
});
