/** Page helpers for the e2e suite: one place that knows the UI's test ids. */
import { expect, type Locator, type Page } from '@playwright/test';

export function shellQuote(words: string[]): string {
  return words.map((w) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`)).join(' ');
}

export async function addServer(page: Page, server: { name: string; command?: string; url?: string }): Promise<void> {
  await page.getByTestId('add-server-open').click();
  const form = page.getByTestId('add-server-form');
  await form.getByText(server.url ? 'URL (HTTP)' : 'stdio (command)', { exact: true }).click();
  await form.getByTestId('add-server-name').fill(server.name);
  if (server.url) await form.getByTestId('add-server-url').fill(server.url);
  else await form.getByTestId('add-server-command').fill(server.command ?? '');
  await form.getByTestId('add-server-submit').click();
  await expect(page.locator(`[data-testid="server-item"][data-server-name="${server.name}"]`)).toBeVisible();
}

/** Selects a tool, writes its JSON arguments, calls it, and returns the result panel. */
export async function callTool(page: Page, name: string, args: unknown): Promise<Locator> {
  await page.locator(`[data-tool-name="${name}"]`).click();
  const detail = page.getByTestId('tool-detail');
  await expect(detail.getByRole('heading', { name })).toBeVisible();
  await detail.getByTestId('tool-args').fill(JSON.stringify(args));
  await detail.getByTestId('tool-call').click();
  const result = detail.getByTestId('tool-result');
  await expect(result).toBeVisible();
  return result;
}
