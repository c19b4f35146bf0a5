/** The Replay tab's pure rules (renderer/src/features/replay/replay-model.ts). */
import { describe, expect, it } from 'vitest';
import type { ReplayCandidate, ReplayItem, ServerStatus } from '../../contract';
import { changedPaths, defaultTarget, differenceRow, itemState, latencyBars, markedLines, methodsOf, shownItems, toolsToCall, visibleCandidates } from '../../renderer/src/features/replay/replay-model';

const c = (seq: number, method: string, extra: Partial<ReplayCandidate> = {}): ReplayCandidate => ({ seq, serverId: 's1', serverName: 'fixture', method, summary: method, ...extra });
const candidates = [c(1, 'tools/list'), c(2, 'tools/call', { tool: 'echo' }), c(3, 'tools/call', { tool: 'add' }), c(4, 'tools/call', { tool: 'echo' }), c(5, 'prompts/get', { serverName: 'other' })];

describe('selection', () => {
  it('methods with counts, in order; filters by server and method; the tools a selection calls', () => {
    expect(methodsOf(candidates)).toEqual([
      { method: 'tools/list', count: 1 },
      { method: 'tools/call', count: 3 },
      { method: 'prompts/get', count: 1 },
    ]);
    expect(visibleCandidates(candidates, { server: 'fixture', methods: [] }).map((x) => x.seq)).toEqual([1, 2, 3, 4]);
    expect(visibleCandidates(candidates, { methods: ['prompts/get'] }).map((x) => x.seq)).toEqual([5]);
    expect(toolsToCall(candidates, new Set([1, 2, 4]))).toEqual(['echo']);
    expect(toolsToCall(candidates, new Set([1, 5]))).toEqual([]);
  });

  it('the default target is the connected server of the recorded name, else the first connected', () => {
    const s = (id: string, name: string, state: ServerStatus['state']) => ({ id, name, state }) as ServerStatus;
    expect(defaultTarget([s('a', 'x', 'connected'), s('b', 'fixture', 'connected')], 'fixture')).toBe('b');
    expect(defaultTarget([s('a', 'x', 'connected'), s('b', 'fixture', 'error')], 'fixture')).toBe('a');
    expect(defaultTarget([s('b', 'fixture', 'error')], 'fixture')).toBeUndefined();
  });
});

describe('results', () => {
  const item = (extra: Partial<ReplayItem>): ReplayItem => ({ candidate: c(2, 'tools/call', { tool: 'echo' }), old: {}, new: {}, differences: [], same: true, ...extra });

  it('states and the only-differing filter', () => {
    const same = item({});
    const differs = item({ same: false, differences: [{ kind: 'result', path: '/a', message: 'x' }] });
    const skipped = item({ same: false, skipped: 'not confirmed' });
    const failed = item({ same: false, old: { result: {} }, new: { error: { message: 'not sent: the connection closed' } } });
    expect([same, differs, skipped, failed].map(itemState)).toEqual(['same', 'differs', 'skipped', 'error']);
    expect(shownItems([same, differs, skipped], true)).toEqual([differs]);
    expect(shownItems([same, differs, skipped], false)).toHaveLength(3);
  });

  it('a difference reads as where / old / new; a gone or new list item by its name', () => {
    expect(differenceRow({ kind: 'result', path: '/content/0/text', message: '', old: 'a', new: 'b' })).toEqual({ where: '/content/0/text', old: '"a"', new: '"b"' });
    expect(differenceRow({ kind: 'result', path: '/tools/3', message: 'fail is gone', old: { name: 'fail' } })).toEqual({ where: '/tools/3', old: 'fail (gone)', new: '—' });
    expect(differenceRow({ kind: 'latency', path: '', message: 'slower: 10 ms → 500 ms', old: 10, new: 500 })).toMatchObject({ where: 'latency', old: '10 ms', new: '500 ms' });
    expect(differenceRow({ kind: 'error', path: '', message: 'was a result, now an error', old: { content: [] }, new: { code: -32601, message: 'Method not found' } }).new).toBe('error -32601 Method not found');
    expect(differenceRow({ kind: 'schema', path: '/structuredContent', message: 'm', old: { valid: true, errors: [] }, new: { valid: false, errors: ['/sum: wrong'] } })).toMatchObject({ old: 'valid', new: 'invalid: /sum: wrong' });
  });

  it('latency bars on one scale, never zero-width for a value', () => {
    expect(latencyBars(10, 100)).toEqual({ old: 10, new: 100 });
    expect(latencyBars(0.01, 1000).old).toBe(2);
    expect(latencyBars(undefined, undefined)).toEqual({ old: 0, new: 0 });
  });

  it('marks the lines of the answer at and under the changed paths', () => {
    const value = { content: [{ type: 'text', text: 'echo: hi' }], isError: false };
    const lines = markedLines(value, changedPaths(item({ differences: [{ kind: 'result', path: '/content/0/text', message: '' }] })));
    expect(lines.filter((l) => l.changed).map((l) => l.text.trim())).toEqual(['"text": "echo: hi"']);
    // A whole-answer difference marks every line; a long answer is cut with a note.
    expect(markedLines({ a: 1 }, new Set([''])).every((l) => l.changed)).toBe(true);
    const long = markedLines({ list: Array.from({ length: 1000 }, (_, i) => i) }, new Set(), 50);
    expect(long).toHaveLength(51);
    expect(long.at(-1)!.text).toMatch(/cut/);
  });
});
