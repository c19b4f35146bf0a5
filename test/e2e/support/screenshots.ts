/**
 * Where e2e screenshots go: under the test output by default, so `npm test` changes no tracked
 * file. `npm run screenshots` points this at docs/screenshots to refresh the README's pictures.
 */
import { join } from 'node:path';

export const SCREENSHOT_DIR = process.env.SWITCHBOARD_SCREENSHOT_DIR ?? 'test-results/screenshots';

export const shot = (name: string): string => join(SCREENSHOT_DIR, name);
