/**
 * The capture handlers (#12) on real files: the proxy they write launches this checkout's
 * bin/switchboard.mjs with this process's Node and the app's data dir; two captures of one file
 * at once run one after the other (both land, one backup, restore gives the original bytes); a
 * file changed since the last scan is refused with `conflict`; a path that is not a known config
 * location is refused.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CoreContext } from '../../main/core/handlers/context';
import { captureHandlers } from '../../main/core/handlers/capture';

const ROOT = join(import.meta.dirname, '../..');
const TEXT = '{\n  "mcpServers": {\n    "a": { "command": "srv-a" },\n    "b": { "command": "srv-b", "args": ["--x"] }\n  }\n}\n';

let dir: string;
let path: string;
let handlers: ReturnType<typeof captureHandlers>;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'switchboard-capture-handlers-'));
  path = join(dir, 'home', '.cursor', 'mcp.json');
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, TEXT);
  // The settings store is the one collaborator stood in for: only its location is read.
  const ctx = { settings: { location: join(dir, 'data', 'settings.json') } } as unknown as CoreContext;
  handlers = captureHandlers(ctx, () => [{ client: 'Cursor', path }]);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('capture handlers', () => {
  it('wrap with this Node, this checkout\'s bin and the app\'s data dir; concurrent captures of one file both land; restore is exact', async () => {
    const [config] = await handlers.captureScan({});
    expect(config!.entries.map((e) => e.name)).toEqual(['a', 'b']);
    const [first, second] = await Promise.all([handlers.captureApply({ path, names: ['a'] }), handlers.captureApply({ path, names: ['b'] })]);
    expect([first.changed, second.changed]).toEqual([['a'], ['b']]);
    const doc = JSON.parse(readFileSync(path, 'utf8')) as { mcpServers: Record<string, { command: string; args: string[] }> };
    expect(doc.mcpServers.a).toEqual({ command: process.execPath, args: [join(ROOT, 'bin', 'switchboard.mjs'), 'proxy', '--name', 'a', '--data-dir', join(dir, 'data'), '--', 'srv-a'] });
    expect(doc.mcpServers.b!.args.slice(-3)).toEqual(['--', 'srv-b', '--x']);
    expect(first.backup).toBe(second.backup);
    expect(first.backup!.startsWith(join(dir, 'data', 'capture-backups'))).toBe(true);

    const restored = await handlers.captureRestore({ path });
    expect(restored.changed).toEqual(['a', 'b']);
    expect(readFileSync(path, 'utf8')).toBe(TEXT);
  });

  it('refuses a file changed since the scan (conflict), and a path that is not a known config', async () => {
    await handlers.captureScan({});
    writeFileSync(path, TEXT.replace('srv-a', 'srv-a2'));
    await expect(handlers.captureApply({ path, names: ['a'] })).rejects.toMatchObject({ code: 'conflict', message: expect.stringContaining('changed since it was scanned') });
    expect(readFileSync(path, 'utf8')).toContain('srv-a2');
    await expect(handlers.captureApply({ path: join(dir, 'other.json'), names: ['a'] })).rejects.toMatchObject({ code: 'invalid-arguments' });
  });
});
