/** Page helpers for the request center (elicitation, sampling, roots): one place that knows its test ids. */
import { expect, type Locator, type Page } from '@playwright/test';
import { callTool } from './ui';

/**
 * Starts a tool call with the shared `callTool` helper without waiting for its result: the
 * server's question appears while the call waits. `result()` waits for the call's result panel
 * (for as long as the test needs: the helper's own wait may run out while a person answers).
 */
export function startCall(page: Page, name: string, args: unknown): { result(): Promise<Locator> } {
  const done = callTool(page, name, args);
  done.catch(() => undefined);
  return {
    async result() {
      try {
        return await done;
      } catch {
        const result = page.getByTestId('tool-detail').getByTestId('tool-result');
        await expect(result).toBeVisible();
        return result;
      }
    },
  };
}

/** The request center, open, showing a pending request of this kind (and server, when given). */
export async function pendingRequest(page: Page, kind: 'elicitation-form' | 'elicitation-url' | 'sampling', serverName?: string): Promise<Locator> {
  const center = page.getByTestId('request-center');
  await expect(center).toBeVisible();
  if (serverName) {
    const item = center.locator(`[data-testid="request-item"][data-request-kind="${kind}"][data-server-name="${serverName}"]`).first();
    await expect(item).toBeVisible();
    if ((await item.getAttribute('data-active')) !== 'true') await item.click();
  }
  const detail = center.locator(`[data-testid="request-open"][data-request-kind="${kind}"]`);
  await expect(detail).toBeVisible();
  return detail;
}

/** Fills a form field by name (text-like inputs). */
export async function fillField(form: Locator, name: string, value: string): Promise<void> {
  await form.getByTestId(`field-${name}`).fill(value);
}

/** The text of the tool result, parsed: the asking fixture answers with JSON text. */
export async function resultJson(result: Locator): Promise<Record<string, unknown>> {
  const text = await result.getByTestId('tool-result-text').first().innerText();
  return JSON.parse(text) as Record<string, unknown>;
}

/** Serves every https:// page the app opens with a stub (no network here), and records the URLs. */
export async function stubExternalPages(page: Page): Promise<string[]> {
  const opened: string[] = [];
  await page.context().route(/^https:\/\//, async (route) => {
    opened.push(route.request().url());
    await route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>stub</title><p>external page stub</p>' });
  });
  return opened;
}
