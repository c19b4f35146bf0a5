/**
 * Where e2e screenshots go: under the test output by default, so `npm test` changes no tracked
 * file. `npm run screenshots` points this at docs/screenshots to refresh the README's pictures.
 */
import { join } from 'node:path';
import { expect, type Page } from '@playwright/test';

export const SCREENSHOT_DIR = process.env.SWITCHBOARD_SCREENSHOT_DIR ?? 'test-results/screenshots';

export const shot = (name: string): string => join(SCREENSHOT_DIR, name);

/**
 * Waits until the page holds still for a picture: no finite CSS transition or animation running
 * (the theme's colour change, a tooltip or menu fading out). Spinners run forever and are not waited for.
 */
export async function settled(page: Page): Promise<void> {
  // A string expression: this file is type-checked without the DOM library. getAnimations() flushes styles first, so a change just made is seen.
  // (Polled with evaluate: the page's CSP forbids waitForFunction's string eval.)
  const still = `document.getAnimations().every((a) => a.playState !== 'running' || a.effect?.getComputedTiming().iterations === Infinity)`;
  await expect.poll(() => page.evaluate(still), { intervals: [16, 50, 100] }).toBe(true);
}

/**
 * Light and dark pictures of the page as it is (the app follows the OS colour scheme, which
 * Playwright emulates), then back to light. `pointer`: where to park the mouse first, so no
 * tooltip of the last click is left in the picture.
 */
export async function bothThemes(page: Page, name: string, options: { pointer?: { x: number; y: number } } = {}): Promise<void> {
  if (options.pointer) await page.mouse.move(options.pointer.x, options.pointer.y);
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await expect(page.locator('html')).toHaveAttribute('data-mantine-color-scheme', scheme);
    await settled(page);
    await page.screenshot({ path: shot(`${name}-${scheme}.png`) });
  }
  await page.emulateMedia({ colorScheme: 'light' });
}
