/** Persistence: validated settings, migrations, and a corrupt file backed up and reported — never silently lost. */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfSettingsStore } from '../../main/core/store/conf-settings';
import { parseSettingsDocument, SETTINGS_VERSION } from '../../main/core/store/settings';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sb-settings-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const server = { id: 's1', name: 'files', target: { type: 'stdio', command: 'node', args: [], env: {} } };

describe('settings', () => {
  it('persists servers across instances with an owner-only file', () => {
    const first = new ConfSettingsStore({ cwd: dir });
    first.write({ ...first.read(), servers: [server as never] });
    const second = new ConfSettingsStore({ cwd: dir });
    expect(second.read().servers.map((s) => s.name)).toEqual(['files']);
    expect(second.problems).toEqual([]);
  });

  it('backs up a corrupt file, reports it, and starts empty', () => {
    writeFileSync(join(dir, 'settings.json'), '{"servers": [ this is not json');
    const store = new ConfSettingsStore({ cwd: dir });
    expect(store.read().servers).toEqual([]);
    expect(store.problems).toHaveLength(1);
    expect(store.problems[0]).toMatch(/could not be read .* moved to .*settings\.json\.corrupt-/);
    const backups = readdirSync(dir).filter((f) => f.startsWith('settings.json.corrupt-'));
    expect(backups).toHaveLength(1);
    expect(readFileSync(join(dir, backups[0]!), 'utf8')).toContain('this is not json');
  });

  it('skips one invalid server entry, keeps the others, and keeps the original file', () => {
    writeFileSync(join(dir, 'settings.json'), JSON.stringify({ version: 1, servers: [server, { id: 's2', name: '', target: { type: 'http', url: 'ftp://x' } }] }));
    const store = new ConfSettingsStore({ cwd: dir });
    expect(store.read().servers.map((s) => s.id)).toEqual(['s1']);
    expect(store.problems[0]).toMatch(/Server #2 in the settings is invalid and was skipped: name: name must not be empty; target.url/);
    expect(readdirSync(dir).some((f) => f.startsWith('settings.json.corrupt-'))).toBe(true);
  });

  it('migrates a version-less document to the current version', () => {
    const parsed = parseSettingsDocument({ servers: [server] });
    expect(parsed.changed).toBe(true);
    expect(parsed.settings.version).toBe(SETTINGS_VERSION);
    expect(parsed.settings.servers).toHaveLength(1);
    writeFileSync(join(dir, 'settings.json'), JSON.stringify({ servers: [server] }));
    new ConfSettingsStore({ cwd: dir });
    expect(JSON.parse(readFileSync(join(dir, 'settings.json'), 'utf8')).version).toBe(SETTINGS_VERSION);
    expect(existsSync(join(dir, 'settings.json'))).toBe(true);
  });
});
