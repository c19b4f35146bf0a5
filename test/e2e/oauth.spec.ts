/**
 * OAuth in browser mode, against the fixture authorization server with a consent page: adding
 * the server asks to sign in; the prompt's button opens the popup; the consent is clicked; the
 * popup closes itself; the tools appear. The Auth view then shows every step with its exchange.
 * A server whose metadata names a javascript: authorization endpoint is refused, with no prompt.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { startOAuthFixture } from '../fixtures/oauth/harness';
import { openApp, startBrowserMode, type BrowserModeApp } from './support/browser-mode';
import { addServer } from './support/ui';
import { shot } from './support/screenshots';

let app: BrowserModeApp;
let consent: Awaited<ReturnType<typeof startOAuthFixture>>;
let faulty: Awaited<ReturnType<typeof startOAuthFixture>>;

test.beforeAll(async () => {
  app = await startBrowserMode();
  consent = await startOAuthFixture({ mode: 'dcr', approve: 'consent', separateAs: true });
  faulty = await startOAuthFixture({ mode: 'faulty-js' });
});

test.afterAll(async () => {
  await app?.close();
  await consent?.close();
  await faulty?.close();
});

test.describe.configure({ mode: 'serial' });

const server = (page: Page, name: string) => page.locator(`[data-testid="server-item"][data-server-name="${name}"]`);

async function screenshot(page: Page, name: string): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.screenshot({ path: shot(`${name}-${scheme}.png`) });
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

test('sign in through the popup: consent clicked, popup closes, tools appear', async ({ page }) => {
  await page.setViewportSize({ width: 1400, height: 900 });
  await openApp(page, app);
  await addServer(page, { name: 'secure', url: consent.url });

  const prompt = page.getByTestId('signin-prompt');
  await expect(prompt).toBeVisible();
  await expect(prompt.getByTestId('signin-origin')).toContainText(new URL(consent.issuer).host);
  await expect(prompt.getByTestId('signin-scopes')).toContainText('mcp:read');
  await screenshot(page, 'oauth-prompt');

  const popupOpened = page.waitForEvent('popup');
  await prompt.getByTestId('signin-open').click();
  const popup = await popupOpened;
  await expect(popup.locator('#approve')).toBeVisible();
  await expect(popup).toHaveTitle(/Authorize Switchboard/);
  const closed = popup.waitForEvent('close');
  await popup.locator('#approve').click();
  await closed;

  await expect(prompt).toBeHidden();
  await expect(server(page, 'secure')).toHaveAttribute('data-state', 'connected');
  await page.getByTestId('view-tools').click();
  await expect(page.locator('[data-tool-name="secure__whoami"]').first()).toBeVisible();
  expect(await consent.admin.stats()).toMatchObject({ register: 1, authorize: 1, token: { authorization_code: 1 } });
});

test('the Auth view shows every step with its exchange, the token, and where it is kept', async ({ page }) => {
  await page.setViewportSize({ width: 1400, height: 1000 });
  await openApp(page, app);
  await expect(server(page, 'secure')).toHaveAttribute('data-state', 'connected');
  await server(page, 'secure').click();
  await page.getByTestId('view-auth').click();
  const status = page.getByTestId('auth-status');
  await expect(status).toHaveAttribute('data-loaded', 'true');
  await expect(status).toHaveAttribute('data-signed-in', 'true');
  await expect(page.getByTestId('auth-client-source')).toHaveAttribute('data-source', 'dynamic');
  await expect(page.getByTestId('auth-storage')).toHaveAttribute('data-encrypted', 'false');
  await expect(page.getByTestId('auth-storage')).toContainText('0600');
  await expect(page.getByTestId('auth-jwt-aud')).toContainText(consent.url);

  const steps = page.getByTestId('auth-step');
  for (const step of ['challenge', 'prm', 'as-metadata', 'register', 'authorize', 'callback', 'token', 'tokens', 'retry']) {
    await expect(steps.and(page.locator(`[data-step="${step}"]`)).first(), `step ${step}`).toBeVisible();
  }
  // The challenge is the MCP endpoint's 401; the token request its 200.
  await expect(steps.and(page.locator('[data-step="challenge"]')).first().getByTestId('auth-step-status')).toContainText('401');
  const token = steps.and(page.locator('[data-step="token"]')).first();
  await expect(token.getByTestId('auth-step-status')).toContainText('200');

  await screenshot(page, 'oauth-debugger');

  // The authorization request, decoded into its parameters.
  const authorize = steps.and(page.locator('[data-step="authorize"]')).first();
  await authorize.click();
  const params = authorize.getByTestId('auth-authorize-params');
  await expect(params).toContainText('code_challenge_method');
  await expect(params).toContainText('S256');
  await expect(params).toContainText('resource');
  await expect(params).toContainText(consent.url);

  // The token exchange's form, with the secrets' places marked.
  await token.click();
  await expect(token.getByTestId('auth-form-params')).toContainText('authorization_code');
  await expect(token.getByTestId('auth-form-params')).toContainText('[redacted]');
  const issued = (await consent.admin.stats()).issued;
  const text = await page.locator('body').innerText();
  for (const secret of [...issued.access, ...issued.refresh, ...issued.codes, ...issued.verifiers]) expect(text.includes(secret)).toBe(false);
  await screenshot(page, 'oauth-steps');
});

test('sign out revokes at the server and forgets the tokens', async ({ page }) => {
  await openApp(page, app);
  await server(page, 'secure').click();
  await page.getByTestId('view-auth').click();
  await expect(page.getByTestId('auth-status')).toHaveAttribute('data-signed-in', 'true');
  await page.getByTestId('auth-signout').click();
  await page.getByTestId('auth-signout-confirm').click();
  await expect(page.getByTestId('auth-status')).toHaveAttribute('data-signed-in', 'false');
  await expect(server(page, 'secure')).toHaveAttribute('data-state', 'disconnected');
  expect((await consent.admin.stats()).revoke).toBeGreaterThan(0);
  await expect(page.getByTestId('auth-step').and(page.locator('[data-step="sign-out"]')).first()).toBeVisible();
});

test('step by step: each OAuth request waits for Continue; the sign-in completes after the last one', async ({ page }) => {
  await page.setViewportSize({ width: 1400, height: 1000 });
  await openApp(page, app);
  await server(page, 'secure').click();
  await page.getByTestId('view-auth').click();
  await expect(page.getByTestId('auth-status')).toHaveAttribute('data-signed-in', 'false');
  await page.getByTestId('auth-step-mode-switch').click();
  await expect(page.getByTestId('auth-step-mode')).toHaveAttribute('data-on', 'true');
  await page.getByTestId('auth-signin').click();

  const paused = page.getByTestId('auth-paused');
  const before = await consent.admin.stats();
  for (const step of ['prm', 'as-metadata', 'register', 'login']) {
    await expect(paused).toHaveAttribute('data-step', step);
    if (step === 'prm') {
      await screenshot(page, 'oauth-step-by-step');
      // Nothing went out while paused.
      expect((await consent.admin.stats()).prm).toBe(before.prm);
    }
    await page.getByTestId('auth-continue').click();
  }
  const prompt = page.getByTestId('signin-prompt');
  await expect(prompt).toBeVisible();
  const popupOpened = page.waitForEvent('popup');
  await prompt.getByTestId('signin-open').click();
  const popup = await popupOpened;
  const closed = popup.waitForEvent('close');
  await popup.locator('#approve').click();
  await closed;
  await expect(paused).toHaveAttribute('data-step', 'token');
  expect((await consent.admin.stats()).token.authorization_code).toBe(before.token.authorization_code);
  await page.getByTestId('auth-continue').click();
  await expect(page.getByTestId('auth-status')).toHaveAttribute('data-signed-in', 'true');
  await expect(server(page, 'secure')).toHaveAttribute('data-state', 'connected');
  await page.getByTestId('auth-step-mode-switch').click();
  await expect(page.getByTestId('auth-step-mode')).toHaveAttribute('data-on', 'false');
});

test('a javascript: authorization endpoint is refused: no prompt, a clear error, the failed step in the Auth view', async ({ page }) => {
  await openApp(page, app);
  await addServer(page, { name: 'hostile-as', url: faulty.url });
  await expect(server(page, 'hostile-as')).toHaveAttribute('data-state', 'error');
  await expect(server(page, 'hostile-as')).toContainText(/javascript:/);
  await expect(page.getByTestId('signin-prompt')).toHaveCount(0);
  expect((await faulty.admin.stats()).authorize).toBe(0);
  await server(page, 'hostile-as').click();
  await page.getByTestId('view-auth').click();
  await expect(page.getByTestId('auth-failure')).toContainText('javascript:');
  await expect(page.getByTestId('auth-failure')).toContainText(/[Oo]nly http: and https:/);
  // The sidebar offers to sign in again, with a way to the details.
  await expect(server(page, 'hostile-as').getByTestId('server-signin')).toBeVisible();
  await expect(server(page, 'hostile-as').getByTestId('server-auth-details')).toBeVisible();
  await screenshot(page, 'oauth-refused');
});

test('the add-server form takes a pre-registered client: OAuth settings saved without empty fields', async ({ page }) => {
  await openApp(page, app);
  await page.getByTestId('add-server-open').click();
  const form = page.getByTestId('add-server-form');
  await form.getByText('URL (HTTP)', { exact: true }).click();
  await form.getByTestId('add-server-name').fill('preregistered');
  await form.getByTestId('add-server-url').fill('https://mcp.example.com/mcp');
  await form.getByTestId('server-oauth-toggle').click();
  await form.getByTestId('server-oauth-client-id').fill('switchboard-desktop');
  await form.getByTestId('server-oauth-client-secret').fill('s3cret-in-the-form');
  await form.getByTestId('server-oauth-scope').fill('mcp:read');
  await screenshot(page, 'oauth-server-form');
  await form.getByTestId('server-oauth-metadata-url').fill('http://not-https.example/client.json');
  await form.getByTestId('add-server-submit').click();
  await expect(form).toContainText('clientMetadataUrl must be an https: URL with a path');
  await form.getByTestId('server-oauth-metadata-url').fill('');
  await form.getByTestId('add-server-submit').click();
  await expect(server(page, 'preregistered')).toBeVisible();
  const settings = JSON.parse(readFileSync(join(app.dataDir, 'settings.json'), 'utf8')) as { servers: { name: string; target: { oauth?: Record<string, string> } }[] };
  expect(settings.servers.find((s) => s.name === 'preregistered')?.target.oauth).toEqual({ clientId: 'switchboard-desktop', clientSecret: 's3cret-in-the-form', scope: 'mcp:read' });
});
