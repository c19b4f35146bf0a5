/**
 * The layer rules are lint rules (eslint.config.js, eslint-plugin-boundaries; `npm run lint` runs
 * them on the tree). This proves each rule can fail: ESLint's own API lints one-line samples placed
 * at virtual paths in the repo, and every forbidden import is reported by the rule, while the
 * imports each layer is allowed are not.
 */
import { join } from 'node:path';
import { ESLint, type Linter } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const BOUNDARIES = 'boundaries/dependencies';

let eslint: ESLint;
beforeAll(() => {
  eslint = new ESLint({ cwd: ROOT });
});

/** What the layer rules (and the restricted-imports rule) report for `code` placed at `path`. */
async function layerMessages(path: string, code: string): Promise<Linter.LintMessage[]> {
  const [result] = await eslint.lintText(code, { filePath: join(ROOT, path) });
  const messages = result!.messages;
  expect(messages.filter((m) => m.fatal), `${path} parses`).toEqual([]);
  return messages.filter((m) => m.ruleId === BOUNDARIES || m.ruleId === 'no-restricted-imports');
}

type Sample = [path: string, code: string];

/** Forbidden imports by layer rule (`boundaries/dependencies`); the targets are real files. */
const FORBIDDEN: Record<string, Sample[]> = {
  'contract/ imports only zod and contract/': [
    ['contract/sample.ts', "export { readFile } from 'node:fs';"],
    ['contract/sample.ts', "export { useState } from 'react';"],
    ['contract/sample.ts', "export { CoreError } from '../main/core/errors';"],
  ],
  'main/core never imports electron, electron-store, adapters, preload or the renderer': [
    ['main/core/sample.ts', "export { app } from 'electron';"],
    ['main/core/sample.ts', "export type { BrowserWindow } from 'electron';"],
    ['main/core/sample.ts', "import type { BrowserWindow } from 'electron'; export type W = BrowserWindow;"],
    ['main/core/sample.ts', "const { ipcMain } = require('electron'); export { ipcMain };"],
    ['main/core/sample.ts', "export const load = () => import('electron');"],
    ['main/core/handlers/sample.ts', "export { default } from 'electron-store';"],
    ['main/core/sample.ts', "export { WebHost } from '../adapters/web/host';"],
    ['main/core/sample.ts', "export * from '../../preload/index';"],
    ['main/core/sample.ts', "export { App } from '../../renderer/src/app/App';"],
  ],
  'an adapter never imports another adapter': [
    ['main/adapters/web/sample.ts', "export { registerIpc } from '../electron/ipc';"],
    ['main/adapters/cli/sample.ts', "export { WebHost } from '../web/host';"],
    ['main/adapters/shared/sample.ts', "export { registerIpc } from '../electron/ipc';"],
  ],
  "a feature imports another feature only through its index.ts": [
    ['renderer/src/features/tools/sample.ts', "export { formatMs } from '../traffic/format';"],
    ['renderer/src/features/auth/sample.tsx', "export { TrafficView } from '../traffic/TrafficView';"],
  ],
  'components, state and api never import a feature': [['renderer/src/components/sample.ts', "export { getRequestStore } from '../features/requests';"]],
  'the renderer never imports main/, preload/, electron or Node built-ins': [
    ['renderer/src/app/sample.ts', "export { createCore } from '../../../main/core/app';"],
    ['renderer/src/features/tools/sample.ts', "export * from '../../../../preload/index';"],
    ['renderer/src/state/sample.ts', "export { ipcRenderer } from 'electron';"],
    ['renderer/src/app/sample.ts', "export { readFile } from 'node:fs';"],
  ],
  'preload/ imports nothing from main/ or the renderer': [['preload/sample.ts', "export { createCore } from '../main/core/app';"]],
  'nothing outside test/ imports test/': [
    ['main/core/sample.ts', "export * from '../../test/support/core-calls';"],
    ['renderer/src/app/sample.ts', "export * from '../../../test/support/core-calls';"],
    ['contract/sample.ts', "export * from '../test/support/core-calls';"],
    ['scripts/sample.mjs', "export * from '../test/support/core-calls';"],
    ['bench/sample.ts', "export * from '../test/unit/layering.test';"],
  ],
};

/** Packages, not layers: `no-restricted-imports`. */
const RESTRICTED_PACKAGES: Sample[] = [
  ['main/core/sample.ts', "export { McpServer } from '@modelcontextprotocol/server';"],
  ['renderer/src/features/tools/sample.ts', "export { fc } from 'fast-check';"],
  ['renderer/src/app/sample.ts', "export { Client } from '@modelcontextprotocol/client';"],
];

/** What each layer may import: none of it is reported. */
const ALLOWED: Sample[] = [
  ['contract/sample.ts', "export { z } from 'zod'; export { METHOD_NAMES } from './names';"],
  ['main/core/sample.ts', "export { readFile } from 'node:fs'; export { Client } from '@modelcontextprotocol/client'; export { TraceEvent } from '../../contract/trace';"],
  ['main/core/handlers/sample.ts', "export { CoreError } from '../errors';"],
  ['main/adapters/web/sample.ts', "export { contentSecurityPolicy } from '../shared/csp'; export { createCore } from '../../core/app';"],
  ['main/adapters/electron/sample.ts', "export { app } from 'electron'; export { default as Store } from 'electron-store';"],
  ['main/sample.ts', "export { registerIpc } from './adapters/electron/ipc'; export { WebHost } from './adapters/web/host';"],
  ['preload/sample.ts', "export { ipcRenderer } from 'electron'; export { METHOD_NAMES } from '../contract/names';"],
  ['renderer/src/features/tools/sample.ts', "export { getRequestStore } from '../requests'; export { getTasksStore } from '../tasks/index'; export { checkSchemaBounds } from './schema';"],
  ['renderer/src/features/tools/sample.ts', "export { SafeText } from '../../components/SafeText'; export type { ToolEntry } from '../../../../contract';"],
  ['renderer/src/app/sample.ts', "export { ToolsView } from '../features/tools/ToolsView';"],
  ['bench/sample.ts', "export { startFixture } from '../test/fixtures/everything/harness'; export { TraceStore } from '../main/core/trace/store';"],
  ['test/unit/sample.ts', "export { createCore } from '../../main/core/app'; export { App } from '../../renderer/src/app/App'; export * from '../support/core-calls';"],
];

/** The one error `code` at `path` gets from `ruleId`, naming the import that broke the rule. */
async function expectReported(ruleId: string, [path, code]: Sample): Promise<void> {
  const messages = await layerMessages(path, code);
  expect(messages.map((m) => m.ruleId), `${path}: ${code}`).toEqual([ruleId]);
  expect(messages[0]!.message, `${path}: ${code}`).toContain(/['"]([^'"]+)['"]/.exec(code)![1]!);
  expect(messages[0]!.severity, 'an error, not a warning').toBe(2);
}

describe('layer rules (eslint.config.js)', () => {
  for (const [rule, samples] of Object.entries(FORBIDDEN)) {
    it(`reports: ${rule}`, async () => {
      for (const sample of samples) await expectReported(BOUNDARIES, sample);
    });
  }

  it('reports test-only packages in shipped code and an MCP SDK in the renderer', async () => {
    for (const sample of RESTRICTED_PACKAGES) await expectReported('no-restricted-imports', sample);
  });

  it('does not report what each layer may import', async () => {
    for (const [path, code] of ALLOWED) expect(await layerMessages(path, code), `${path}: ${code}`).toEqual([]);
  });
});
