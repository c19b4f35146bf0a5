/** Page helpers for the e2e suite: one place that knows the UI's test ids. */
import { expect, type Locator, type Page } from '@playwright/test';

export function shellQuote(words: string[]): string {
  return words.map((w) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`)).join(' ');
}

export async function addServer(page: Page, server: { name: string; command?: string; url?: string }): Promise<void> {
  await page.getByTestId('add-server-open').click();
  const form = page.getByTestId('add-server-form');
  // Once in a CI run (1 of 42 callers, 2026-12-07) the kind stayed stdio after this click, and the
  // URL field never came; the cause is not known (150 tries under load here did not repeat it).
  // So the click is checked by the radio's state, and made again if it did not take.
  const kind = server.url ? 'URL (HTTP)' : 'stdio (command)';
  await expect(async () => {
    await form.getByText(kind, { exact: true }).click();
    await expect(form.getByRole('radio', { name: kind, exact: true })).toBeChecked({ timeout: 2_000 });
  }).toPass({ timeout: 15_000 });
  await form.getByTestId('add-server-name').fill(server.name);
  if (server.url) await form.getByTestId('add-server-url').fill(server.url);
  else await form.getByTestId('add-server-command').fill(server.command ?? '');
  await form.getByTestId('add-server-submit').click();
  await expect(page.locator(`[data-testid="server-item"][data-server-name="${server.name}"]`)).toBeVisible();
}

/**
 * Selects a tool (searching for it: the list is virtualized), writes its JSON arguments, calls it
 * (even when they do not match its input schema), and returns the result panel.
 */
export async function callTool(page: Page, name: string, args: unknown): Promise<Locator> {
  const toolsView = page.getByTestId('view-tools');
  if ((await toolsView.getAttribute('aria-selected')) !== 'true') await toolsView.click();
  const toolsTab = page.getByTestId('tools-tab-tools');
  if ((await toolsTab.getAttribute('aria-selected')) !== 'true') await toolsTab.click();
  const item = page.locator(`[data-testid="tool-item"][data-tool-name="${name}"]`);
  if ((await item.count()) === 0) await page.getByTestId('tool-search').fill(name);
  await item.click();
  const detail = page.getByTestId('tool-detail');
  await expect(detail).toHaveAttribute('data-tool-name', name);
  await detail.getByTestId('tool-tab-json').click();
  await detail.getByTestId('tool-args').fill(JSON.stringify(args));
  await detail.getByTestId('tool-call').click();
  const result = detail.getByTestId('tool-result');
  // Arguments that do not match the input schema are held back: send them anyway, as asked.
  const blocked = detail.getByTestId('tool-send-anyway');
  await expect(result.or(blocked).or(detail.getByTestId('tool-running')).first()).toBeVisible();
  if (await blocked.isVisible()) await blocked.click();
  await expect(result).toBeVisible();
  return result;
}
