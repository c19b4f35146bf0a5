/**
 * The browser every browser workload runs in: Debian's Chromium (never a Playwright-downloaded
 * one), the same binary the e2e suite uses (`chromiumPath` in playwright.config.ts, overridable
 * with SWITCHBOARD_CHROMIUM).
 */
import { chromium, type Browser } from '@playwright/test';
import { chromiumPath } from '../../playwright.config';

const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking'];

export function launchChromium(options: { headless?: boolean } = {}): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath, args: ARGS, headless: options.headless ?? true });
}
