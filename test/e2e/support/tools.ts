/** Page helpers for the Tools view: its explorer, generated form, JSON editor, runs and panels. */
import { expect, type Locator, type Page } from '@playwright/test';

export function toolDetail(page: Page): Locator {
  return page.getByTestId('tool-detail');
}

/** Selects a tool in the (virtualized) explorer, searching for it when it is not rendered. */
export async function openTool(page: Page, name: string): Promise<Locator> {
  await page.getByTestId('tools-tab-tools').click();
  const item = page.locator(`[data-testid="tool-item"][data-tool-name="${name}"]`);
  if ((await item.count()) === 0) await page.getByTestId('tool-search').fill(name);
  await item.click();
  const detail = toolDetail(page);
  await expect(detail).toHaveAttribute('data-tool-name', name);
  return detail;
}

/** The input of a generated form field by its dotted path (`customer.email`, `items.1.qty`). */
export function field(page: Page, path: string): Locator {
  return toolDetail(page).locator(`[data-field-path="${path}"]`);
}

export async function showForm(page: Page): Promise<void> {
  await toolDetail(page).getByTestId('tool-tab-form').click();
}

export async function showJson(page: Page): Promise<Locator> {
  await toolDetail(page).getByTestId('tool-tab-json').click();
  return toolDetail(page).getByTestId('tool-args');
}

/** The arguments as the JSON tab shows them. */
export async function jsonArgs(page: Page): Promise<unknown> {
  const area = await showJson(page);
  return JSON.parse(await area.inputValue());
}

/** Picks an option of a generated enum field (a Mantine Select). */
export async function pickOption(page: Page, path: string, label: string): Promise<void> {
  await field(page, path).click();
  await page.getByRole('option', { name: label, exact: true }).click();
}

export async function run(page: Page): Promise<void> {
  await toolDetail(page).getByTestId('tool-call').click();
}

/** The current numeric progress (`data-value` of the progress bar). */
export async function progressValue(page: Page): Promise<number> {
  const raw = await toolDetail(page).getByTestId('tool-progress').getAttribute('data-value');
  return raw ? Number(raw) : 0;
}
