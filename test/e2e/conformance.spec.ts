/**
 * Server conformance in the app (#16): the built browser mode, a real server in its own process
 * (the conformance-target fixture, which answers tools-call-image wrongly on purpose), the
 * official runner behind "Run". The server's menu opens Checks → Conformance; the run's table
 * shows passed, failed and not-applicable scenarios; the failing one expands to its check with
 * the suite's message and spec link; "Show exchange in Traffic" opens the run's recording and
 * selects the answer that failed it; a second run cancelled keeps what finished. The UI runs the whole suite; against this fixture most
 * scenarios are not applicable (not run), so only a few runner processes start.
 * Pictures of the table and of the expanded failing check, light and dark.
 */
import { expect, test, type Page } from '@playwright/test';
import { conformanceTargetStdio, startConformanceTarget } from '../fixtures/conformance-target/harness';
import type { ListeningProcess } from '../fixtures/spawn-listening';
import { openApp, startBrowserMode, type BrowserModeApp } from './support/browser-mode';
import { bothThemes } from './support/screenshots';
import { addServer, shellQuote } from './support/ui';

let app: BrowserModeApp;
let target: ListeningProcess;

test.beforeAll(async () => {
  [app, target] = await Promise.all([startBrowserMode(), startConformanceTarget()]);
});
test.afterAll(async () => {
  await Promise.all([app?.close(), target?.close()]);
});

const scenario = (page: Page, name: string) => page.locator(`[data-testid="conformance-scenario"][data-scenario="${name}"]`);

test('Check this server: the suite runs, the failing check is one click from its exchange in Traffic', async ({ page }) => {
  test.setTimeout(180_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  await openApp(page, app);
  await addServer(page, { name: 'Target', url: target.url });
  const item = page.locator('[data-testid="server-item"][data-server-name="Target"]');
  await expect(item).toHaveAttribute('data-state', 'connected', { timeout: 20_000 });

  await test.step('the server menu opens Checks on the conformance tab; Run starts the suite', async () => {
    await item.getByTestId('server-menu').click();
    await page.getByTestId('server-conformance').click();
    await expect(page.getByTestId('checks-view')).toBeVisible();
    await page.getByTestId('conformance-run').click();
    await expect(page.getByTestId('conformance-progress')).toBeVisible();
    await expect(page.getByTestId('conformance-summary')).toBeVisible({ timeout: 150_000 });
  });

  await test.step('the table: real verdicts from the suite, not-applicable ones with their reason', async () => {
    await expect(scenario(page, 'server-initialize')).toHaveAttribute('data-verdict', 'passed');
    await expect(scenario(page, 'tools-call-simple-text')).toHaveAttribute('data-verdict', 'passed');
    await expect(scenario(page, 'tools-call-image')).toHaveAttribute('data-verdict', 'failed');
    await expect(scenario(page, 'tools-call-audio')).toHaveAttribute('data-verdict', 'not-applicable');
    await expect(scenario(page, 'tools-call-audio').getByTestId('conformance-scenario-note')).toHaveText('needs the tool test_audio_content, which this server does not list');
    await expect(page.getByTestId('conformance-summary')).toContainText('failed');
    // The failing scenario opens by itself; its check says what the suite saw.
    const check = page.locator('[data-testid="conformance-check"][data-check="tools-call-image"]');
    await expect(check).toHaveAttribute('data-verdict', 'failed');
    await expect(check.getByTestId('conformance-check-message')).toHaveText('No image content found');
    await expect(check.getByTestId('conformance-spec-link')).toHaveAttribute('href', /^https:\/\/modelcontextprotocol\.io\/specification\//);
    await expect(check.getByTestId('conformance-spec-link')).toHaveAttribute('target', '_blank');
    await check.getByTestId('conformance-check-details-toggle').click();
    await expect(check.getByTestId('conformance-check-details')).toContainText('"hasData": false');
    await check.scrollIntoViewIfNeeded();
    await bothThemes(page, 'conformance-failing-check', { pointer: { x: 1400, y: 880 } });
    // The rest of the table: the resource and prompt scenarios, and DNS rebinding (the fixture does not check Host: a real failure).
    await expect(scenario(page, 'dns-rebinding-protection')).toHaveAttribute('data-verdict', 'failed');
    await scenario(page, 'dns-rebinding-protection').scrollIntoViewIfNeeded();
    await bothThemes(page, 'conformance-table', { pointer: { x: 1400, y: 880 } });
  });

  await test.step('a passing scenario expands to its checks too', async () => {
    await scenario(page, 'server-initialize').getByTestId('conformance-scenario-toggle').click();
    await expect(page.locator('[data-testid="conformance-check"][data-check="server-initialize"]')).toHaveAttribute('data-verdict', 'passed');
  });

  await test.step('Show exchange in Traffic: the run’s recording, the answer that failed the check selected', async () => {
    const check = page.locator('[data-testid="conformance-check"][data-check="tools-call-image"]');
    const seq = /#(\d+)/.exec((await check.getByText(/^event #\d+$/).textContent()) ?? '')![1]!;
    await check.getByTestId('conformance-show-exchange').click();
    const traffic = page.getByTestId('traffic-view');
    await expect(traffic).toBeVisible();
    await expect(traffic).toHaveAttribute('data-source', /^rec-/);
    const detail = page.getByTestId('traffic-detail');
    await expect(detail).toHaveAttribute('data-seq', seq);
    await expect(page.locator(`[data-testid="traffic-row"][data-seq="${seq}"]`)).toHaveAttribute('aria-selected', 'true');
    await detail.getByTestId('traffic-tab-payload').click();
    await expect(detail).toContainText('no image here');
    await bothThemes(page, 'conformance-traffic', { pointer: { x: 1400, y: 880 } });
  });

  await test.step('back in Checks the report is still there; Run again and Cancel: what finished stays, the rest is skipped', async () => {
    await page.getByTestId('view-checks').click();
    await expect(scenario(page, 'tools-call-image')).toHaveAttribute('data-verdict', 'failed');
    await page.getByTestId('conformance-run').click();
    // Cancel while one of the first three scenarios runs (the probe and the listing come first;
    // each takes about half a second, so waiting for the first alone could miss it, as CI once did).
    await expect(page.getByTestId('conformance-progress')).toContainText(/\/\d+ · (server-initialize|logging-set-level|ping)$/, { timeout: 30_000 });
    await page.getByTestId('conformance-cancel').click();
    await expect(page.getByTestId('conformance-progress')).toBeHidden({ timeout: 30_000 });
    await expect(page.getByTestId('conformance-summary')).toContainText('skipped');
    await expect(scenario(page, 'prompts-get-simple')).toHaveAttribute('data-verdict', 'skipped');
    await expect(scenario(page, 'prompts-get-simple').getByTestId('conformance-scenario-note')).toHaveText('cancelled before it ran');
  });
});

test('a stdio server runs through the stdio→HTTP bridge: the same verdicts, DNS rebinding not applicable', async ({ page }) => {
  test.setTimeout(180_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  await openApp(page, app);
  const { command, args } = conformanceTargetStdio();
  await addServer(page, { name: 'Local stdio', command: shellQuote([command, ...args]) });
  const item = page.locator('[data-testid="server-item"][data-server-name="Local stdio"]');
  await item.getByTestId('server-menu').click();
  await page.getByTestId('server-conformance').click();
  await expect(page.getByTestId('checks-view')).toBeVisible();
  await expect(page.getByTestId('checks-server')).toHaveValue('Local stdio');
  await expect(page.getByTestId('conformance-stdio')).toContainText('stdio→HTTP bridge');
  await page.getByTestId('conformance-run').click();
  await expect(page.getByTestId('conformance-summary')).toBeVisible({ timeout: 150_000 });
  await expect(scenario(page, 'tools-call-simple-text')).toHaveAttribute('data-verdict', 'passed');
  await expect(scenario(page, 'tools-call-image')).toHaveAttribute('data-verdict', 'failed');
  await expect(scenario(page, 'dns-rebinding-protection')).toHaveAttribute('data-verdict', 'not-applicable');
  await expect(scenario(page, 'dns-rebinding-protection').getByTestId('conformance-scenario-note')).toContainText('does not apply to a stdio server');
  await bothThemes(page, 'conformance-stdio', { pointer: { x: 1400, y: 880 } });
});
