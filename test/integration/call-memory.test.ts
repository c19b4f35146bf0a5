/**
 * #17 item 3: a tool call writes nothing to disk. Real calls to the everything fixture (a real
 * stdio process) through the core's handlers, with a real settings file, call memory file and
 * call audit in a temp dir. While 20 calls run, the settings file is watched (fs.watch, and its
 * inode, mtime and bytes compared) and must not change; the call memory and the audit are not
 * written either. When their delay runs out (the test decides when: their timers are handed
 * over), each is written once. A clean shutdown writes what waits; the next start reads it.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, watch, type FSWatcher } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCore, type Core } from '../../main/core/app';
import { FileAuditLog } from '../../main/core/audit/audit-log';
import { CALL_MEMORY_FILE, CallMemory } from '../../main/core/store/call-memory';
import { ConfSettingsStore } from '../../main/core/store/conf-settings';
import type { WriteTimers } from '../../main/core/store/write-behind';
import { stdioFixtureCommand } from '../fixtures/everything/harness';
import { call, until } from '../support/core-calls';

/** Timers that fire only when the test says so. */
class HeldTimers implements WriteTimers {
  private next = 0;
  private readonly waiting = new Map<number, () => void>();
  set(run: () => void): unknown {
    this.waiting.set(++this.next, run);
    return this.next;
  }
  clear(handle: unknown): void {
    this.waiting.delete(handle as number);
  }
  get count(): number {
    return this.waiting.size;
  }
  /** Runs the timers set so far (as if their time had come). */
  fire(): void {
    const due = [...this.waiting.values()];
    this.waiting.clear();
    for (const run of due) run();
  }
}

interface FileState {
  ino: number;
  mtimeMs: number;
  text: string;
}
const stateOf = (path: string): FileState => {
  const stat = statSync(path);
  return { ino: stat.ino, mtimeMs: stat.mtimeMs, text: readFileSync(path, 'utf8') };
};

let dir: string;
let settingsPath: string;
let memoryPath: string;
let auditPath: string;
let core: Core | undefined;
const fixture = stdioFixtureCommand();

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sb-call-memory-'));
  settingsPath = join(dir, 'settings.json');
  memoryPath = join(dir, CALL_MEMORY_FILE);
  auditPath = join(dir, 'audit.jsonl');
});

afterAll(async () => {
  await core?.shutdown();
  rmSync(dir, { recursive: true, force: true });
});

describe('a tool call and the disk', () => {
  const memoryTimers = new HeldTimers();
  const auditTimers = new HeldTimers();
  let memory: CallMemory;
  let audit: FileAuditLog;

  it('20 calls write nothing to the settings file, and the call memory and the audit once each after their delay', async () => {
    memory = new CallMemory({ path: memoryPath, timers: memoryTimers });
    audit = new FileAuditLog(auditPath, { timers: auditTimers });
    core = createCore({ settings: new ConfSettingsStore({ cwd: dir }), callMemory: memory, audit, carrier: 'browser', version: 't' });
    // Setting up writes the settings (a server, the audit switch): that is what settings are for.
    const { id } = await call(core, 'addServer', { name: 'everything', target: { type: 'stdio', ...fixture }, pingIntervalSec: 0 });
    await call(core, 'connectServer', { id });
    await call(core, 'updateSettings', { auditArgumentValues: true });
    // Nothing waits to be written yet.
    expect(memoryTimers.count + auditTimers.count).toBe(0);

    const before = stateOf(settingsPath);
    const touched: string[] = [];
    const watcher: FSWatcher = watch(dir, (_event, file) => touched.push(String(file)));
    try {
      for (let i = 1; i <= 20; i++) {
        const reply = await call(core, 'callTool', { tool: 'everything__echo', args: { text: `call ${i}` } });
        expect(reply.result.content).toEqual([{ type: 'text', text: `echo: call ${i}` }]);
      }
    } finally {
      watcher.close();
    }
    expect(stateOf(settingsPath)).toEqual(before);
    expect(touched.filter((f) => f.startsWith('settings.json'))).toEqual([]);
    // Neither the call memory nor the audit touched the disk; both know everything already.
    expect(existsSync(memoryPath)).toBe(false);
    expect(existsSync(auditPath)).toBe(false);
    expect(touched).toEqual([]);
    expect((await call(core, 'lastToolInput', { tool: 'everything__echo' })).args).toEqual({ text: 'call 20' });
    expect(await call(core, 'listAudit', { limit: 50 })).toHaveLength(20);
    expect([memory.writes, audit.writes]).toEqual([0, 0]);

    // Their time comes: one write each, with everything in it.
    memoryTimers.fire();
    auditTimers.fire();
    await until('the call memory written', () => (existsSync(memoryPath) ? true : undefined));
    await Promise.all([memory.flush(), audit.flush()]);
    expect([memory.writes, audit.writes]).toEqual([1, 1]);
    expect(JSON.parse(readFileSync(memoryPath, 'utf8'))).toEqual({ version: 1, toolInputs: { everything__echo: { text: 'call 20' } }, savedCalls: [] });
    const lines = readFileSync(auditPath, 'utf8').trim().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as { arguments: { text: string } }).arguments.text)).toEqual(Array.from({ length: 20 }, (_, i) => `call ${i + 1}`));
    expect(statSync(memoryPath).mode & 0o777).toBe(0o600);
    expect(stateOf(settingsPath)).toEqual(before);
  }, 60_000);

  it('a clean shutdown writes what waits; the next start has it', async () => {
    const saved = await call(core!, 'saveCall', { name: 'hello', serverName: 'everything', tool: 'everything__echo', args: { text: 'saved' } });
    await call(core!, 'callTool', { tool: 'everything__echo', args: { text: 'last before quitting' } });
    expect(memoryTimers.count).toBeGreaterThan(0); // waiting, not written
    expect(readFileSync(memoryPath, 'utf8')).not.toContain('last before quitting');
    await core!.shutdown();
    core = undefined;
    expect(readFileSync(memoryPath, 'utf8')).toContain('last before quitting');
    expect(readFileSync(auditPath, 'utf8').trim().split('\n')).toHaveLength(21);

    // The next start, with the default (real-time) stores beside the settings.
    core = createCore({ settings: new ConfSettingsStore({ cwd: dir }), carrier: 'browser', version: 't' });
    expect((await call(core, 'lastToolInput', { tool: 'everything__echo' })).args).toEqual({ text: 'last before quitting' });
    expect(await call(core, 'listSavedCalls', {})).toEqual([saved]);
    expect(await call(core, 'listSavedCalls', { serverName: 'other' })).toEqual([]);
    expect(await call(core, 'listAudit', { limit: 50 })).toHaveLength(21);
    expect(JSON.parse(readFileSync(settingsPath, 'utf8'))).not.toHaveProperty('savedCalls');
    expect(JSON.parse(readFileSync(settingsPath, 'utf8'))).not.toHaveProperty('toolInputs');

    // Deleting is written behind too, within a second of real time.
    expect(await call(core, 'deleteSavedCall', { id: saved.id })).toEqual({ deleted: true });
    expect(await call(core, 'deleteSavedCall', { id: saved.id })).toEqual({ deleted: false });
    await until('the deletion written', () => ((JSON.parse(readFileSync(memoryPath, 'utf8')) as { savedCalls: unknown[] }).savedCalls.length === 0 ? true : undefined));
  }, 60_000);

  it('turning argument values off forgets every remembered input', async () => {
    await call(core!, 'updateSettings', { auditArgumentValues: false });
    expect((await call(core!, 'lastToolInput', { tool: 'everything__echo' })).args).toBeUndefined();
    await core!.callMemory.flush();
    expect((JSON.parse(readFileSync(memoryPath, 'utf8')) as { toolInputs: unknown }).toolInputs).toEqual({});
  });
});
