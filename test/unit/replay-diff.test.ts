/** Replay's comparison rules: the structural diff, what it ignores, latency, the output-schema check. */
import { describe, expect, it } from 'vitest';
import { MAX_DIFFERENCES, diffValues, latencyDifference, pointer } from '../../main/core/replay/diff';
import { checkStructuredContent } from '../../main/core/replay/output-schema';
import { compareOutcomes } from '../../main/core/replay/run';

describe('diffValues', () => {
  it('is empty for equal values whatever the key order', () => {
    expect(diffValues({ a: 1, b: [1, { c: 'x' }] }, { b: [1, { c: 'x' }], a: 1 })).toEqual([]);
  });

  it('names each difference by a JSON pointer, escaping ~ and /', () => {
    const d = diffValues({ content: [{ type: 'text', text: 'a' }], 'x/y~z': 1 }, { content: [{ type: 'text', text: 'b' }], 'x/y~z': 2 });
    expect(d.map((x) => x.path)).toEqual(['/content/0/text', '/x~1y~0z']);
    expect(d[0]).toMatchObject({ kind: 'result', old: 'a', new: 'b' });
    expect(pointer([])).toBe('');
  });

  it('reports added and removed keys and array items', () => {
    const d = diffValues({ a: 1, list: [1, 2, 3] }, { b: 2, list: [1, 2] });
    expect(d.map((x) => `${x.path} ${x.message}`)).toEqual(['/a removed', '/list/2 removed', '/b added']);
  });

  it('ignores _meta anywhere, task ids and times, a cursor value, resultType complete vs absent', () => {
    const old = { _meta: { progressToken: 1 }, content: [{ type: 'text', text: 'x', _meta: { a: 1 } }], nextCursor: 'abc', resultType: 'complete', task: { taskId: 't1', status: 'working', createdAt: '1', lastUpdatedAt: '2' } };
    const next = { _meta: { progressToken: 2 }, content: [{ type: 'text', text: 'x', _meta: { a: 2 } }], nextCursor: 'def', task: { taskId: 't2', status: 'working', createdAt: '3', lastUpdatedAt: '4' } };
    expect(diffValues(old, next)).toEqual([]);
    // …but a task's status is not ignored, nor a cursor that appears.
    expect(diffValues({ task: { taskId: 'a', status: 'working' } }, { task: { taskId: 'b', status: 'failed' } }).map((x) => x.path)).toEqual(['/task/status']);
    expect(diffValues({ tools: [] }, { tools: [], nextCursor: 'x' }).map((x) => x.path)).toEqual(['/nextCursor']);
    expect(diffValues({ resultType: 'input_required' }, {}).map((x) => x.path)).toEqual(['/resultType']);
  });

  it('pairs named lists by name: one inserted tool is one new item, not every later one changed', () => {
    const tools = [{ name: 'a', description: 'A' }, { name: 'b', description: 'B' }, { name: 'c', description: 'C' }];
    const next = [{ name: 'new', description: 'N' }, tools[0], { name: 'b', description: 'B2' }];
    const d = diffValues({ tools }, { tools: next });
    expect(d.map((x) => `${x.path} ${x.message}`)).toEqual(['/tools/2/description "B" → "B2"', '/tools/2 c is gone', '/tools/0 new is new']);
  });

  it('keeps at most MAX_DIFFERENCES and counts the rest', () => {
    const a = Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`k${i}`, i]));
    const b = Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`k${i}`, -i - 1]));
    const d = diffValues(a, b);
    expect(d).toHaveLength(MAX_DIFFERENCES + 1);
    expect(d.at(-1)!.message).toBe('…and 50 more differences (not listed).');
  });

  it('walks a deep value without overflowing the stack, and finds what differs near the top', () => {
    const deep = (leaf: unknown) => {
      let v: unknown = leaf;
      for (let i = 0; i < 5000; i++) v = { x: v };
      return v;
    };
    expect(diffValues({ a: 1, deep: deep(1) }, { a: 2, deep: deep(1) }).map((d) => d.path)).toEqual(['/a']);
    // Within the depth the trace keeps (LIMITS.carriedDepth), a change at the bottom is found with its path.
    let a: unknown = 1;
    let b: unknown = 2;
    for (let i = 0; i < 60; i++) {
      a = { x: a };
      b = { x: b };
    }
    expect(diffValues(a, b)[0]!.path).toBe('/x'.repeat(60));
  });
});

describe('latency', () => {
  it('is reported when at least twice as slow and 100 ms slower, never for noise', () => {
    expect(latencyDifference(2, 5)).toBeUndefined();
    expect(latencyDifference(2000, 2300)).toBeUndefined();
    expect(latencyDifference(50, 160)).toMatchObject({ kind: 'latency', message: 'slower: 50 ms → 160 ms' });
    expect(latencyDifference(400, 100)).toMatchObject({ kind: 'latency', message: 'faster: 400 ms → 100 ms' });
    expect(latencyDifference(undefined, 100)).toBeUndefined();
  });

  it('alone does not make an item differ', () => {
    const { same, differences } = compareOutcomes({ result: { a: 1 }, latencyMs: 10 }, { result: { a: 1 }, latencyMs: 900 });
    expect(same).toBe(true);
    expect(differences.map((d) => d.kind)).toEqual(['latency']);
  });
});

describe('compareOutcomes', () => {
  it('an error where a result was (and back) is one difference at the root', () => {
    const r = compareOutcomes({ result: { content: [] } }, { error: { code: -32601, message: 'Method not found' } });
    expect(r.same).toBe(false);
    expect(r.differences).toEqual([expect.objectContaining({ kind: 'error', path: '', message: 'was a result, now an error: -32601 Method not found' })]);
    const back = compareOutcomes({ error: { code: -32602, message: 'bad' } }, { result: {} });
    expect(back.differences[0]!.message).toBe('was an error (-32602 bad), now a result');
  });

  it('compares error codes and messages', () => {
    const r = compareOutcomes({ error: { code: -32602, message: 'a' } }, { error: { code: -32603, message: 'b' } });
    expect(r.differences.map((d) => d.path)).toEqual(['/code', '/message']);
    expect(compareOutcomes({ error: { code: 1, message: 'a' } }, { error: { code: 1, message: 'a' } }).same).toBe(true);
  });

  it('a new schema violation is a difference; the same violation on both sides is not', () => {
    const bad = { valid: false, errors: ['/sum: wrong type'] };
    expect(compareOutcomes({ result: {}, schema: { valid: true, errors: [] } }, { result: {}, schema: bad }).differences.map((d) => d.kind)).toEqual(['schema']);
    expect(compareOutcomes({ result: {}, schema: bad }, { result: {}, schema: bad }).same).toBe(true);
  });
});

describe('checkStructuredContent', () => {
  const schema = { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] };

  it('valid, invalid with the path, missing structuredContent, nothing to check', () => {
    expect(checkStructuredContent(schema, { content: [], structuredContent: { sum: 5 } })).toEqual({ valid: true, errors: [] });
    const bad = checkStructuredContent(schema, { content: [], structuredContent: { sum: '5' } });
    expect(bad?.valid).toBe(false);
    expect(bad?.errors.join('\n')).toMatch(/\/sum/);
    expect(checkStructuredContent(schema, { content: [] })).toEqual({ valid: false, errors: ['the tool declares an output schema but returned no structuredContent'] });
    expect(checkStructuredContent(undefined, { structuredContent: 1 })).toBeUndefined();
    expect(checkStructuredContent(schema, { isError: true, content: [] })).toBeUndefined();
  });

  it('a pattern that can backtrack without end is not run (main would hang)', () => {
    const evil = { type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } } };
    const check = checkStructuredContent(evil, { structuredContent: { s: `${'a'.repeat(40)}b` } });
    expect(check?.valid).toBe(true);
    expect(check?.errors[0]).toMatch(/^not checked: the pattern/);
  });

  it('a broken schema is not checked, never thrown', () => {
    const check = checkStructuredContent({ $ref: '#/nowhere' }, { structuredContent: {} });
    expect(check?.valid).toBe(true);
    expect(check?.errors[0]).toMatch(/^not checked/);
  });
});
