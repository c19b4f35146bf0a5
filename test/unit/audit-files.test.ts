/**
 * #18 item 8: files on disk. A settings file whose `servers` is not a list is backed up and
 * reported, not silently emptied; remembered inputs do not outlive argument auditing; a torn
 * last line in the call audit does not swallow the next record, and is reported.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuditRecord } from '../../contract';
import { FileAuditLog } from '../../main/core/audit/audit-log';
import { CallMemory } from '../../main/core/store/call-memory';
import { ConfSettingsStore } from '../../main/core/store/conf-settings';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sb-files-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const record = (tool: string): AuditRecord => ({ ts: 1, serverId: 's', serverName: 'srv', tool, argumentKeys: [], durationMs: 1, outcome: 'ok' });

describe('settings whose servers is not a list', () => {
  it.each([
    ['an object', { fs: { command: 'x' } }],
    ['a string', 'oops'],
    ['null', null],
  ])('backs the file up and says so (%s)', (kind, servers) => {
    const original = JSON.stringify({ version: 1, servers, auditArgumentValues: true });
    writeFileSync(join(dir, 'settings.json'), original);
    const store = new ConfSettingsStore({ cwd: dir });
    expect(store.read().servers).toEqual([]);
    expect(store.problems.join('\n')).toContain(`"servers" is not a list (it is ${kind})`);
    const backups = readdirSync(dir).filter((f) => f.startsWith('settings.json.corrupt-'));
    expect(backups).toHaveLength(1);
    expect(readFileSync(join(dir, backups[0]!), 'utf8')).toBe(original);
    expect(store.problems.join('\n')).toContain(backups[0]);
  });
});

describe('remembered inputs', () => {
  it('are dropped on load while argument auditing is off, and kept while it is on', () => {
    const memory = () => new CallMemory({ path: join(dir, 'call-memory.json') });
    writeFileSync(join(dir, 'settings.json'), JSON.stringify({ version: 1, servers: [], toolInputs: { a__b: { password: 'raw' } } }));
    new ConfSettingsStore({ cwd: dir });
    expect(memory().lastInput('a__b')).toBeUndefined();
    expect(readFileSync(join(dir, 'settings.json'), 'utf8')).not.toContain('raw');
    expect(readFileSync(join(dir, 'call-memory.json'), 'utf8')).not.toContain('raw');
    writeFileSync(join(dir, 'settings.json'), JSON.stringify({ version: 1, servers: [], auditArgumentValues: true, toolInputs: { a__b: { x: 1 } } }));
    new ConfSettingsStore({ cwd: dir });
    expect(memory().lastInput('a__b')).toEqual({ x: 1 });
  });
});

describe('the call audit', () => {
  it('appends after a torn last line on a fresh line, and reports the torn one', async () => {
    const path = join(dir, 'audit.jsonl');
    writeFileSync(path, `${JSON.stringify(record('first'))}\n{"ts":2,"serverId":"s","too`);
    const log = new FileAuditLog(path);
    expect(log.problems).toEqual([expect.stringContaining('an unreadable line (2)')]);
    log.append(record('after-crash'));
    log.append(record('later'));
    await log.flush();
    const reread = new FileAuditLog(path);
    expect(reread.list().map((r) => r.tool)).toEqual(['later', 'after-crash', 'first']);
    expect(reread.problems).toHaveLength(1);
    expect(readFileSync(path, 'utf8').endsWith('\n')).toBe(true);
  });

  it('reads a clean file without problems', async () => {
    const path = join(dir, 'audit.jsonl');
    const first = new FileAuditLog(path);
    first.append(record('one'));
    await first.close();
    const log = new FileAuditLog(path);
    expect(log.problems).toEqual([]);
    expect(log.list()).toHaveLength(1);
  });
});
