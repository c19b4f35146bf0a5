/**
 * #12 item 4 in the built browser mode, against a fake HOME (HOME and XDG_CONFIG_HOME point into a
 * temp dir) holding a Claude-Desktop-style config (stdio + HTTP), a VS Code JSONC config with
 * comments and a broken Cursor config: the Capture modal lists them (the broken one with where it
 * breaks), captures chosen entries (the file on disk now launches `switchboard proxy` recording
 * into this app's data dir; the HTTP entry's proxy command is shown), refuses a capture of a file
 * changed since it was shown, and Restore puts every byte back. Screenshots light and dark.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { parse } from 'jsonc-parser';
import { mainCall, openApp, startBrowserMode, type BrowserModeApp } from './support/browser-mode';
import { bothThemes } from './support/screenshots';

test.describe.configure({ mode: 'serial', timeout: 120_000 });

const ROOT = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'switchboard-e2e-capture-'));
const home = join(dir, 'home');
const claudePath = join(home, '.config', 'Claude', 'claude_desktop_config.json');
const vscodePath = join(home, '.config', 'Code', 'User', 'mcp.json');
const cursorPath = join(home, '.cursor', 'mcp.json');
const SECRET = 'sk-e2e-capture-secret-81c2';

const CLAUDE = `{
  "mcpServers": {
    "everything": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-everything"],
      "env": { "API_KEY": "${SECRET}" }
    },
    "memory": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"] },
    "remote": { "type": "http", "url": "https://mcp.example.com/mcp" }
  }
}
`;
const VSCODE = `// VS Code user MCP servers
{
  "servers": {
    /* files of the workspace */
    "fs": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "\${workspaceFolder}"],
    },
  },
}
`;
const CURSOR = '{ "mcpServers": { "x": ';

let app: BrowserModeApp;

/** A file in the fake HOME, its directories made. */
const put = (path: string, text: string) => {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
};

test.beforeAll(async () => {
  put(claudePath, CLAUDE);
  put(vscodePath, VSCODE);
  put(cursorPath, CURSOR);
  app = await startBrowserMode([], { env: { HOME: home, XDG_CONFIG_HOME: join(home, '.config') } });
});

test.afterAll(async () => {
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

const config = (page: Page, path: string) => page.locator(`[data-testid="capture-config"][data-path="${path}"]`);
const entry = (page: Page, path: string, name: string) => config(page, path).locator(`[data-testid="capture-entry"][data-name="${name}"]`);

async function openCapture(page: Page): Promise<void> {
  await openApp(page, app);
  await page.getByTestId('capture-open').click();
  await expect(page.getByTestId('capture-modal')).toHaveAttribute('data-loaded', 'true');
}

test('the modal lists the configs of the fake HOME, captures chosen entries and restores every byte', async ({ page }) => {
  await openCapture(page);
  const modal = page.getByTestId('capture-modal');
  await expect(config(page, claudePath)).toContainText('Claude Desktop');
  await expect(config(page, vscodePath)).toContainText('JSONC');
  await expect(config(page, cursorPath).getByTestId('capture-config-error')).toContainText(/cannot be parsed: .* at line 1, column \d+\. It was left alone/);
  await expect(entry(page, claudePath, 'everything')).toHaveAttribute('data-captured', 'false');
  await expect(config(page, claudePath)).toContainText('npx -y @modelcontextprotocol/server-everything (env: API_KEY)');
  await expect(modal).not.toContainText(SECRET);
  await bothThemes(page, 'capture-modal', { pointer: { x: 5, y: 5 } });

  // Capture two entries of the Claude Desktop config.
  await entry(page, claudePath, 'everything').check();
  await entry(page, claudePath, 'remote').check();
  await config(page, claudePath).getByTestId('capture-apply').click();
  const result = page.getByTestId('capture-result');
  await expect(result).toContainText('Captured 2 entries');
  await expect(result.getByTestId('capture-command')).toContainText(/switchboard\.mjs proxy --name remote --upstream https:\/\/mcp\.example\.com\/mcp --port \d+ --data-dir /);
  await expect(entry(page, claudePath, 'everything')).toHaveAttribute('data-captured', 'true');
  await expect(entry(page, claudePath, 'memory')).toHaveAttribute('data-captured', 'false');
  await expect(entry(page, claudePath, 'remote')).toHaveAttribute('data-captured', 'true');

  // On disk: the entry launches the proxy, recording into this app's data dir.
  const doc = JSON.parse(readFileSync(claudePath, 'utf8')) as { mcpServers: Record<string, { command: string; args: string[]; env?: object; url?: string }> };
  expect(doc.mcpServers.everything!.args).toEqual([join(ROOT, 'bin/switchboard.mjs'), 'proxy', '--name', 'everything', '--data-dir', app.dataDir, '--', 'npx', '-y', '@modelcontextprotocol/server-everything']);
  expect(doc.mcpServers.everything!.env).toEqual({ API_KEY: SECRET });
  expect(doc.mcpServers.memory).toEqual({ command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] });
  expect(doc.mcpServers.remote!.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  await bothThemes(page, 'capture-result', { pointer: { x: 5, y: 5 } });

  // The VS Code JSONC file: comments stay.
  await entry(page, vscodePath, 'fs').check();
  await config(page, vscodePath).getByTestId('capture-apply').click();
  await expect(result).toContainText('Captured 1 entry');
  const jsonc = readFileSync(vscodePath, 'utf8');
  expect(jsonc).toContain('// VS Code user MCP servers');
  expect(jsonc).toContain('/* files of the workspace */');
  expect((parse(jsonc) as { servers: { fs: { args: string[] } } }).servers.fs.args).toContain('proxy');

  // Restore both: the original bytes.
  await config(page, claudePath).getByTestId('capture-restore').click();
  await expect(result).toContainText(`Restored ${claudePath} byte for byte`);
  await config(page, vscodePath).getByTestId('capture-restore').click();
  await expect(result).toContainText(`Restored ${vscodePath} byte for byte`);
  expect(readFileSync(claudePath, 'utf8')).toBe(CLAUDE);
  expect(readFileSync(vscodePath, 'utf8')).toBe(VSCODE);
  expect(readFileSync(cursorPath, 'utf8')).toBe(CURSOR);
  await expect(entry(page, claudePath, 'everything')).toHaveAttribute('data-captured', 'false');
  await expect(config(page, claudePath).getByTestId('capture-restore')).toHaveCount(0);
});

test('a config changed on disk after the modal showed it is not overwritten', async ({ page }) => {
  await openCapture(page);
  await entry(page, claudePath, 'memory').check();
  // Another program (the client itself) saves the file meanwhile.
  const edited = CLAUDE.replace('"memory"', '"memory-renamed"');
  writeFileSync(claudePath, edited);
  await config(page, claudePath).getByTestId('capture-apply').click();
  await expect(page.getByTestId('capture-error')).toContainText('changed since it was scanned; nothing was written');
  expect(readFileSync(claudePath, 'utf8')).toBe(edited);
  // The list was read again: it shows the file as it is now.
  await expect(entry(page, claudePath, 'memory-renamed')).toBeVisible();
  await expect(config(page, claudePath).getByTestId('capture-apply')).toBeDisabled();
  await bothThemes(page, 'capture-conflict', { pointer: { x: 5, y: 5 } });
});

test('the contract writes only the known client config locations', async () => {
  const elsewhere = join(dir, 'not-a-client-config.json');
  writeFileSync(elsewhere, CLAUDE);
  const reply = await mainCall(app, 'captureApply', { path: elsewhere, names: ['everything'] });
  expect(reply.ok).toBe(false);
  expect(reply.error?.message).toContain('Not a known MCP client configuration file');
  expect(readFileSync(elsewhere, 'utf8')).toBe(CLAUDE);
});
