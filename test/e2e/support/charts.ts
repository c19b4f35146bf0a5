/** Page helpers for the Charts and Timeline e2e tests. */
import { expect, type Locator, type Page } from '@playwright/test';

/**
 * Calls a contract method over a WebSocket of its own, opened from the page (same origin, same
 * cookie as the app): drives traffic without depending on another view's UI.
 */
export async function apiCall<T = unknown>(page: Page, method: string, args: unknown, timeoutMs = 60_000): Promise<T> {
  const reply = await page.evaluate(
    ({ method, args, timeoutMs }) =>
      new Promise<{ ok: boolean; result?: unknown; error?: { message: string } }>((resolve, reject) => {
        // runs in the page (DOM types are not in this project's Node config)
        interface Socket {
          onopen: () => void;
          onerror: () => void;
          onmessage: (message: { data: unknown }) => void;
          send(data: string): void;
          close(): void;
        }
        const g = globalThis as unknown as { location: { origin: string }; WebSocket: new (url: string) => Socket };
        const ws = new g.WebSocket(`${g.location.origin.replace(/^http/, 'ws')}/ws`);
        const timer = setTimeout(() => {
          ws.close();
          reject(new Error(`${method} timed out`));
        }, timeoutMs);
        ws.onopen = () => ws.send(JSON.stringify({ id: 1, method, args }));
        ws.onerror = () => reject(new Error('websocket error'));
        ws.onmessage = (message) => {
          const frame = JSON.parse(String(message.data)) as { type: string; id?: number; reply?: { ok: boolean; result?: unknown; error?: { message: string } } };
          if (frame.type !== 'reply' || frame.id !== 1) return;
          clearTimeout(timer);
          ws.close();
          resolve(frame.reply!);
        };
      }),
    { method, args, timeoutMs },
  );
  if (!reply.ok) throw new Error(`${method} failed: ${reply.error?.message}`);
  return reply.result as T;
}

/** An export as text, fetched from the page over the host's HTTP route with the page's cookie (files do not travel the contract). */
export async function exportFromPage(page: Page, format: 'jsonl' | 'har', source = 'live'): Promise<string> {
  const reply = await page.evaluate(
    async ({ format, source }) => {
      // runs in the page
      const g = globalThis as unknown as { fetch: (url: string, init: { credentials: string }) => Promise<{ ok: boolean; status: number; text(): Promise<string> }> };
      const response = await g.fetch(`/api/trace/export?format=${format}&source=${source}`, { credentials: 'same-origin' });
      return { ok: response.ok, status: response.status, text: await response.text() };
    },
    { format, source },
  );
  if (!reply.ok) throw new Error(`export ${format}: HTTP ${reply.status}: ${reply.text.slice(0, 300)}`);
  return reply.text;
}

export async function serverId(page: Page, name: string): Promise<string> {
  const id = await page.locator(`[data-testid="server-item"][data-server-name="${name}"]`).getAttribute('data-server-id');
  if (!id) throw new Error(`no server ${name}`);
  return id;
}

export async function callOn(page: Page, server: string, tool: string, args: Record<string, unknown> = {}): Promise<{ isError: boolean }> {
  const result = await apiCall<{ result: { isError?: boolean } }>(page, 'callTool', { tool, serverId: server, args });
  return { isError: result.result.isError === true };
}

export async function showView(page: Page, view: 'charts' | 'timeline' | 'traffic' | 'tools'): Promise<void> {
  await page.getByTestId(`view-${view}`).click();
  await expect(page.getByTestId(`view-${view}`)).toHaveAttribute('aria-selected', 'true');
}

export async function numberAttr(locator: Locator, name: string): Promise<number> {
  return Number(await locator.getAttribute(name));
}

/**
 * Moves the mouse along a timeline lane until the hover card shows a `kind` (span or tick);
 * returns where. The canvas has no DOM per item, so this is how a user finds one too.
 */
export async function findOnLane(page: Page, lane: Locator, kind: 'span' | 'tick', stepPx = 3): Promise<{ x: number; y: number; seq: number }> {
  await lane.scrollIntoViewIfNeeded();
  const laneBox = (await lane.boundingBox())!;
  const canvasBox = (await page.getByTestId('timeline-canvas').boundingBox())!;
  const y = laneBox.y + laneBox.height / 2;
  const tooltip = page.getByTestId('timeline-tooltip');
  for (let x = canvasBox.x + 2; x < canvasBox.x + canvasBox.width - 2; x += stepPx) {
    await page.mouse.move(x, y);
    if ((await tooltip.count()) && (await tooltip.getAttribute('data-hit')) === kind) {
      return { x, y, seq: Number(await tooltip.getAttribute('data-seq')) };
    }
  }
  throw new Error(`no ${kind} found on the lane`);
}
