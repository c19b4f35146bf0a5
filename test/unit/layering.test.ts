/**
 * The layering rules, checked on the source: main/core never imports Electron (so the real
 * main-process logic runs in plain Node and in these tests), and the renderer never reaches
 * into main.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx|mts|cts|js|mjs|cjs)$/.test(name) ? [path] : [];
  });
}

/** Every module specifier a file imports, requires or dynamically imports. */
export function importedModules(source: string): string[] {
  const specifiers: string[] = [];
  const patterns = [
    /\bimport\s+(?:type\s+)?(?:[\w*{}\s,]+\s+from\s+)?['"]([^'"]+)['"]/g,
    /\bexport\s+(?:type\s+)?[\w*{}\s,]+\s+from\s+['"]([^'"]+)['"]/g,
    /\brequire\(\s*['"]([^'"]+)['"]\s*\)/g,
    /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const pattern of patterns) for (const match of source.matchAll(pattern)) specifiers.push(match[1]!);
  return specifiers;
}

const FORBIDDEN_IN_CORE = /^(electron|electron-store|@electron\/.*)$|^electron\//;

describe('layering', () => {
  it('finds imports in every form the rule must catch', () => {
    const sample = [
      "import { app } from 'electron';",
      "import type { BrowserWindow } from 'electron';",
      "import Store from 'electron-store';",
      "const { ipcMain } = require('electron');",
      "const m = await import('electron');",
      "export { shell } from 'electron';",
    ].join('\n');
    expect(importedModules(sample).filter((s) => FORBIDDEN_IN_CORE.test(s))).toHaveLength(6);
  });

  it('main/core never imports electron or electron-store', () => {
    const offenders = sourceFiles(join(ROOT, 'main/core')).flatMap((file) =>
      importedModules(readFileSync(file, 'utf8'))
        .filter((s) => FORBIDDEN_IN_CORE.test(s))
        .map((s) => `${relative(ROOT, file)} imports "${s}"`),
    );
    expect(offenders, 'keep Electron in main/adapters/electron').toEqual([]);
  });

  it('the renderer imports nothing from main/ or preload/', () => {
    const offenders = sourceFiles(join(ROOT, 'renderer/src')).flatMap((file) =>
      importedModules(readFileSync(file, 'utf8'))
        .filter((s) => /(^|\/)(main|preload)\//.test(s) || s === 'electron')
        .map((s) => `${relative(ROOT, file)} imports "${s}"`),
    );
    expect(offenders).toEqual([]);
  });
});
