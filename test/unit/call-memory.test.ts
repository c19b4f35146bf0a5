/**
 * #17 item 3: the call memory (remembered inputs, saved calls) in its own file, written behind;
 * the write-behind's timing under fake timers; an older settings file handing its inputs and
 * saved calls over once (real files in a temp dir).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { SavedCall } from '../../contract';
import { CALL_MEMORY_DELAY_MS, CALL_MEMORY_FILE, CallMemory, TOOL_INPUTS_KEEP } from '../../main/core/store/call-memory';
import { ConfSettingsStore } from '../../main/core/store/conf-settings';
import { SETTINGS_VERSION } from '../../main/core/store/settings';
import { WriteBehind } from '../../main/core/store/write-behind';

let dir: string;
let path: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sb-call-memory-'));
  path = join(dir, CALL_MEMORY_FILE);
});
afterEach(() => {
  vi.useRealTimers();
  rmSync(dir, { recursive: true, force: true });
});

const saved = (id: string, serverName = 'srv'): SavedCall => ({ id, name: `call ${id}`, serverName, tool: `${serverName}__t`, args: { id }, savedAt: 1 });
const stored = () => JSON.parse(readFileSync(path, 'utf8')) as { version: number; toolInputs: Record<string, unknown>; savedCalls: SavedCall[] };

describe('write-behind', () => {
  it('writes once, delayMs after the last change; never later than maxDelayMs after the first', async () => {
    vi.useFakeTimers();
    const write = vi.fn(async () => undefined);
    const behind = new WriteBehind(write, { delayMs: 1_000, maxDelayMs: 5_000 });
    for (let i = 0; i < 50; i++) behind.touch();
    await vi.advanceTimersByTimeAsync(999);
    expect(write).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(write).toHaveBeenCalledTimes(1);
    // A change every 0.5 s: the deadline writes after 5 s all the same.
    write.mockClear();
    for (let i = 0; i < 9; i++) {
      behind.touch();
      await vi.advanceTimersByTimeAsync(500);
    }
    expect(write).not.toHaveBeenCalled();
    behind.touch();
    await vi.advanceTimersByTimeAsync(500);
    expect(write).toHaveBeenCalledTimes(1);
    expect(behind.writes).toBe(2);
  });

  it('flush writes at once; nothing waiting, nothing written; after close every change is written at once', async () => {
    vi.useFakeTimers();
    const write = vi.fn(async () => undefined);
    const behind = new WriteBehind(write, { delayMs: 1_000 });
    await behind.flush();
    expect(write).not.toHaveBeenCalled();
    behind.touch();
    await behind.flush();
    expect(write).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(write).toHaveBeenCalledTimes(1); // the flushed change's timer was cancelled
    await behind.close();
    behind.touch();
    await behind.flush();
    expect(write).toHaveBeenCalledTimes(2);
  });

  it('a failed write is reported and tried again on the next flush, never dropped', async () => {
    const errors: unknown[] = [];
    let fail = true;
    const write = vi.fn(async () => {
      if (fail) throw new Error('disk full');
    });
    const behind = new WriteBehind(write, { delayMs: 1_000, onError: (e) => errors.push(e) });
    behind.touch();
    await behind.flush();
    expect(errors).toEqual([new Error('disk full')]);
    fail = false;
    await behind.flush();
    expect(write).toHaveBeenCalledTimes(2);
    await behind.flush();
    expect(write).toHaveBeenCalledTimes(2);
  });

  it('after a failed write, the next change sets its timer again', async () => {
    vi.useFakeTimers();
    let fail = true;
    const write = vi.fn(async () => {
      if (fail) throw new Error('disk full');
    });
    const behind = new WriteBehind(write, { delayMs: 1_000, onError: () => undefined });
    behind.touch();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(write).toHaveBeenCalledTimes(1);
    fail = false;
    behind.touch();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(write).toHaveBeenCalledTimes(2);
    await behind.flush();
    expect(write).toHaveBeenCalledTimes(2); // written: nothing waits
  });
});

describe('the call memory file', () => {
  it('is written behind: changes wait CALL_MEMORY_DELAY_MS, then one atomic owner-only write', async () => {
    vi.useFakeTimers();
    const memory = new CallMemory({ path });
    for (let i = 0; i < 20; i++) memory.rememberInput('srv__echo', { text: `call ${i}` });
    memory.addSavedCall(saved('a'));
    expect(existsSync(path)).toBe(false);
    await vi.advanceTimersByTimeAsync(CALL_MEMORY_DELAY_MS);
    await memory.flush();
    expect(memory.writes).toBe(1);
    expect(stored()).toEqual({ version: 1, toolInputs: { 'srv__echo': { text: 'call 19' } }, savedCalls: [saved('a')] });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual([CALL_MEMORY_FILE]); // no temporary file left
  });

  it('keeps the newest 500 tools; using one again makes it the newest', async () => {
    const memory = new CallMemory({ path });
    for (let i = 0; i < TOOL_INPUTS_KEEP; i++) memory.rememberInput(`s__t${i}`, { i });
    memory.rememberInput('s__t0', { again: true });
    memory.rememberInput('s__new', { n: 1 });
    expect(memory.lastInput('s__t1')).toBeUndefined();
    expect(memory.lastInput('s__t0')).toEqual({ again: true });
    await memory.close();
    const names = Object.keys(stored().toolInputs);
    expect(names).toHaveLength(TOOL_INPUTS_KEEP);
    expect(names.slice(-2)).toEqual(['s__t0', 's__new']);
    expect(new CallMemory({ path }).lastInput('s__t2')).toEqual({ i: 2 });
  });

  it('lists, adds and deletes saved calls; forgets inputs one or all', async () => {
    const memory = new CallMemory({ path });
    memory.addSavedCall(saved('a'));
    memory.addSavedCall(saved('b', 'other'));
    expect(memory.savedCalls().map((c) => c.id)).toEqual(['a', 'b']);
    expect(memory.savedCalls('other').map((c) => c.id)).toEqual(['b']);
    expect(memory.deleteSavedCall('a')).toBe(true);
    expect(memory.deleteSavedCall('a')).toBe(false);
    memory.rememberInput('s__x', { x: 1 });
    memory.rememberInput('s__y', { y: 1 });
    memory.forgetInput('s__x');
    expect(memory.lastInput('s__x')).toBeUndefined();
    expect(memory.lastInput('s__y')).toEqual({ y: 1 });
    memory.forgetInputs();
    await memory.close();
    expect(stored()).toEqual({ version: 1, toolInputs: {}, savedCalls: [saved('b', 'other')] });
  });

  it('in memory (no path) writes nothing', async () => {
    const memory = new CallMemory();
    memory.rememberInput('s__x', { x: 1 });
    await memory.close();
    expect(memory.location).toBe('(memory)');
    expect(memory.writes).toBe(0);
    expect(memory.lastInput('s__x')).toEqual({ x: 1 });
  });

  it('an unreadable file is moved aside and reported; a bad entry skipped, the file copied aside', () => {
    writeFileSync(path, '{"toolInputs": {');
    const broken = new CallMemory({ path });
    expect(broken.problems).toEqual([expect.stringMatching(/could not be read .* moved to .*call-memory\.json\.corrupt-/)]);
    expect(existsSync(path)).toBe(false);
    writeFileSync(path, JSON.stringify({ version: 1, toolInputs: { 's__ok': { a: 1 }, 's__bad': 'text' }, savedCalls: [saved('a'), { id: 'no name' }] }));
    const partial = new CallMemory({ path });
    expect(partial.problems).toEqual([expect.stringContaining('2 entries')]);
    expect(partial.lastInput('s__ok')).toEqual({ a: 1 });
    expect(partial.savedCalls()).toEqual([saved('a')]);
    expect(readdirSync(dir).filter((f) => f.startsWith(`${CALL_MEMORY_FILE}.corrupt-`))).toHaveLength(2);
  });
});

describe('an older settings file', () => {
  const settingsPath = () => join(dir, 'settings.json');
  const legacy = (extra: Record<string, unknown>) =>
    writeFileSync(settingsPath(), JSON.stringify({ version: 2, servers: [], connectedServers: [], savedCalls: [saved('a')], toolInputs: { 's__t': { text: 'kept' } }, ...extra }));

  it('hands its inputs and saved calls to the call memory once, and keeps settings only', async () => {
    legacy({ auditArgumentValues: true });
    const settings = new ConfSettingsStore({ cwd: dir });
    expect(settings.problems).toEqual([]);
    const onDisk = JSON.parse(readFileSync(settingsPath(), 'utf8')) as Record<string, unknown>;
    expect(onDisk).not.toHaveProperty('toolInputs');
    expect(onDisk).not.toHaveProperty('savedCalls');
    expect(onDisk.version).toBe(SETTINGS_VERSION);
    expect(onDisk.auditArgumentValues).toBe(true);
    expect(stored()).toEqual({ version: 1, toolInputs: { 's__t': { text: 'kept' } }, savedCalls: [saved('a')] });

    // Once: a saved call deleted afterwards does not come back at the next start.
    const memory = new CallMemory({ path });
    expect(memory.deleteSavedCall('a')).toBe(true);
    await memory.close();
    const settingsBefore = readFileSync(settingsPath(), 'utf8');
    new ConfSettingsStore({ cwd: dir });
    expect(new CallMemory({ path }).savedCalls()).toEqual([]);
    expect(readFileSync(settingsPath(), 'utf8')).toBe(settingsBefore);
  });

  it('hands over no inputs while argument values may not be kept (saved calls still)', () => {
    legacy({ auditArgumentValues: false });
    new ConfSettingsStore({ cwd: dir });
    expect(stored()).toEqual({ version: 1, toolInputs: {}, savedCalls: [saved('a')] });
    expect(readFileSync(settingsPath(), 'utf8')).not.toContain('kept');
  });

  it('merges with a call memory already there, which wins', () => {
    writeFileSync(path, JSON.stringify({ version: 1, toolInputs: { 's__t': { text: 'newer' } }, savedCalls: [saved('b')] }));
    legacy({ auditArgumentValues: true, toolInputs: { 's__t': { text: 'older' }, 's__u': { u: 1 } } });
    new ConfSettingsStore({ cwd: dir });
    const memory = new CallMemory({ path });
    expect(memory.lastInput('s__t')).toEqual({ text: 'newer' });
    expect(memory.lastInput('s__u')).toEqual({ u: 1 });
    expect(memory.savedCalls().map((c) => c.id)).toEqual(['a', 'b']);
  });
});
