/**
 * The packaged-shape Electron app end to end (needs `npx electron-vite build` first):
 * the window exposes exactly the contract as `window.switchboard`, and a call goes through
 * IPC to the core. Skipped, loudly, when the Electron binary is not installed; the
 * `electron` package is never required to find out (its index.js would try to download).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { _electron as electron, expect, test } from '@playwright/test';
import { METHOD_NAMES } from '../../contract/names';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const ELECTRON_DIR = join(ROOT, 'node_modules/electron');
const MAIN_ENTRY = join(ROOT, 'out/main/index.js');
const SKIP_MESSAGE =
  'skipped: Electron runtime not installed (node_modules/electron/dist missing; it cannot be downloaded on this machine)';

/** The Electron executable, when `path.txt` names one that exists in `dist/`. */
function installedElectron(): string | undefined {
  const pathFile = join(ELECTRON_DIR, 'path.txt');
  if (!existsSync(pathFile)) return undefined;
  const relative = readFileSync(pathFile, 'utf8').trim();
  if (!relative) return undefined;
  const executable = join(ELECTRON_DIR, 'dist', relative);
  return existsSync(executable) ? executable : undefined;
}

test('the Electron window exposes the contract and reaches the core over IPC', async () => {
  if (!installedElectron()) {
    console.log(SKIP_MESSAGE);
    test.skip(true, SKIP_MESSAGE);
    return;
  }
  expect(existsSync(MAIN_ENTRY), `${MAIN_ENTRY} is missing: run "npx electron-vite build" first`).toBe(true);

  const userDataDir = mkdtempSync(join(tmpdir(), 'switchboard-electron-e2e-'));
  // The binary exists, so Playwright's own lookup (electron/index.js) just returns its path.
  const app = await electron.launch({
    args: [MAIN_ENTRY, `--user-data-dir=${userDataDir}`],
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: 'production', ELECTRON_RENDERER_URL: '' },
  });
  try {
    const window = await app.firstWindow();
    await window.waitForLoadState('domcontentloaded');
    expect(window.url()).toMatch(/^app:\/\/switchboard\//);

    const keys = await window.evaluate(() => {
      const api = (globalThis as unknown as { switchboard?: Record<string, unknown> }).switchboard;
      return api ? Object.keys(api) : null;
    });
    expect(keys, 'window.switchboard is missing').not.toBeNull();
    expect([...(keys ?? [])].sort()).toEqual([...METHOD_NAMES, 'on'].sort());
    expect(keys).not.toContain('invoke');

    const hasNode = await window.evaluate(() => typeof (globalThis as { require?: unknown }).require !== 'undefined');
    expect(hasNode, 'the renderer must not have require()').toBe(false);

    const reply = await window.evaluate(async () => {
      const api = (globalThis as unknown as { switchboard: { appInfo(args?: unknown): Promise<unknown> } }).switchboard;
      return api.appInfo();
    });
    expect(reply).toMatchObject({ ok: true, result: { name: 'Switchboard', carrier: 'electron' } });
  } finally {
    await app.close().catch(() => undefined);
    rmSync(userDataDir, { recursive: true, force: true });
  }
});
