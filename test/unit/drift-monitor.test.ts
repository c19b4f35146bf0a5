/**
 * Baselines on disk and the drift monitor (#13): the file is owner-only and read back; a file
 * that is not JSON is moved aside and reported, a bad entry skipped (the original kept); a check
 * waits for a server's lists to settle and pushes its standing. And the Compare tab's rules: refs
 * encoded for a select and back, what is offered, the summary, grouping, the marked lines.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { DriftStatus, InterfaceSnapshot, ServerStatus } from '../../contract';
import { BaselineStore } from '../../main/core/drift/baselines';
import { buildSnapshot } from '../../main/core/drift/interface';
import { DriftMonitor } from '../../main/core/drift/monitor';
import { decodeRef, encodeRef, groupChanges, markLines, notCompared, refGroups, summarize } from '../../renderer/src/features/drift/compare-model';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'sb-baselines-'));
  dirs.push(d);
  return d;
};

const snapshot = (tools: string[], missing = false): InterfaceSnapshot =>
  buildSnapshot({ serverName: 'srv', takenAt: 1, lists: { tools: tools.map((name) => ({ name, inputSchema: { type: 'object' } })), resources: [], resourceTemplates: [], ...(missing ? {} : { prompts: [] }) } });

describe('baselines on disk', () => {
  it('owner-only, read back by a new store', () => {
    const path = join(tempDir(), 'baselines.json');
    const store = new BaselineStore(path);
    store.set({ serverId: 's1', serverName: 'srv', pinnedAt: 5, snapshot: snapshot(['a']) });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const again = new BaselineStore(path);
    expect(again.problems).toEqual([]);
    expect(again.get('s1')?.snapshot.tools.map((t) => t.name)).toEqual(['a']);
    expect(again.delete('s1')).toBe(true);
    expect(new BaselineStore(path).all()).toEqual([]);
  });

  it('a file that is not JSON is moved aside; a bad entry is skipped and the original kept', () => {
    const dir = tempDir();
    const path = join(dir, 'baselines.json');
    writeFileSync(path, '{ not json');
    const broken = new BaselineStore(path);
    expect(broken.problems[0]).toContain('could not be read');
    expect(existsSync(path)).toBe(false);
    expect(readdirSync(dir).some((f) => f.startsWith('baselines.json.corrupt-'))).toBe(true);

    writeFileSync(path, JSON.stringify({ version: 1, baselines: [{ serverId: 's1', serverName: 'srv', pinnedAt: 1, snapshot: snapshot(['a']) }, { serverId: 42 }] }));
    const partly = new BaselineStore(path);
    expect(partly.all().map((b) => b.serverId)).toEqual(['s1']);
    expect(partly.problems[0]).toContain('A baseline in');
  });
});

describe('the drift monitor', () => {
  it('checks after the lists settle and pushes same, then changed; none after clearing', async () => {
    let now = snapshot(['a', 'b']);
    const pushed: DriftStatus[] = [];
    const monitor = new DriftMonitor({ snapshot: () => now, onChange: (s) => pushed.push(s), settleMs: 10 });
    expect(monitor.status(['s1'])).toEqual([{ serverId: 's1', state: 'none' }]);
    monitor.listsChanged('s1'); // no baseline: nothing to do
    monitor.pin('s1', now);
    expect(pushed.at(-1)?.state).toBe('same');
    now = snapshot(['a']);
    monitor.listsChanged('s1');
    monitor.listsChanged('s1'); // a burst is one check
    await new Promise<void>((resolve) => {
      const wait = () => (pushed.length >= 2 ? resolve() : setTimeout(wait, 5));
      wait();
    });
    expect(pushed).toHaveLength(2);
    expect(pushed[1]).toMatchObject({ serverId: 's1', state: 'changed', diff: { same: false, changes: [expect.objectContaining({ item: 'b', change: 'removed', severity: 'breaking' })] } });
    expect(monitor.statusOf('s1').state).toBe('changed');
    expect(monitor.clear('s1')).toBe(true);
    expect(pushed.at(-1)).toEqual({ serverId: 's1', state: 'none' });
    monitor.close();
  });

  it('a failing snapshot is logged, not thrown', () => {
    const lines: string[] = [];
    const monitor = new DriftMonitor({ snapshot: () => {
      throw new Error('gone');
    }, log: (_level, text) => lines.push(text) });
    monitor['store'].set({ serverId: 's1', serverName: 'srv', pinnedAt: 1, snapshot: snapshot(['a']) });
    expect(monitor.check('s1')).toBeUndefined();
    expect(lines[0]).toContain('gone');
  });
});

describe("the Compare tab's rules", () => {
  it('refs round-trip through a select value; what is offered', () => {
    for (const ref of [{ kind: 'live', serverId: 's1' }, { kind: 'baseline', serverId: 's1' }, { kind: 'recording', id: '20261201-1', server: 'a:b' }] as const) expect(decodeRef(encodeRef(ref))).toEqual(ref);
    expect(decodeRef('nonsense')).toBeUndefined();
    const servers = [{ id: 's1', name: 'one', state: 'connected' }, { id: 's2', name: 'two', state: 'disconnected' }] as ServerStatus[];
    const groups = refGroups(servers, [{ serverId: 's2', state: 'unknown', pinnedAt: 1 }], [
      { id: 'r1', name: 'yesterday', startedAt: 1, live: false, servers: [{ id: 's1', name: 'one' }] } as never,
    ]);
    expect(groups.map((g) => [g.group, g.items.map((i) => i.value)])).toEqual([
      ['Live servers', ['live:s1']],
      ['Baselines', ['baseline:s2']],
      ['Recordings', ['recording:r1:s1']],
    ]);
  });

  it('summary, groups, not compared, marked lines', () => {
    const a = snapshot(['a', 'b']);
    const b = snapshot(['a', 'c'], true);
    const diff = { same: false, changes: [
      { area: 'tools' as const, item: 'b', change: 'removed' as const, severity: 'breaking' as const, message: 'tool `b` was removed' },
      { area: 'tools' as const, item: 'c', change: 'added' as const, severity: 'info' as const, message: 'new tool `c`' },
    ] };
    expect(summarize(diff)).toBe('2 changes: 1 breaking, 1 info');
    expect(summarize({ same: true, changes: [] })).toBe('No differences: the two interfaces are the same.');
    expect(groupChanges(diff.changes)).toEqual([expect.objectContaining({ area: 'tools', label: 'Tools', breaking: 1, warning: 0 })]);
    expect(notCompared(a, b)).toBe('Not compared: prompts (B never saw them answered).');
    const lines = markLines('{\n  "a": 1\n}', '{\n  "a": 1,\n  "c": 2\n}');
    expect(lines.new.filter((l) => l.changed).map((l) => l.text)).toEqual(['  "c": 2']);
    expect(lines.old.some((l) => l.changed)).toBe(false);
  });
});
