/**
 * The interface diff's rules (#13): each kind of change with its area, change, field, severity
 * and sentence; order-only changes are not changes (a property over shuffled lists, `required`
 * sets and object keys); a list one side never saw is not compared; and hostile sizes — 100,000
 * tools, a 5,000-deep schema — are bounded, not fatal.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isTruncationMarker } from '../../contract/bounded-json';
import type { InterfaceSnapshot } from '../../contract';
import { MAX_CHANGES, canon, diffInterfaces } from '../../main/core/drift/diff';
import { SNAPSHOT_LIMITS, buildSnapshot, type SnapshotParts } from '../../main/core/drift/interface';

type Obj = Record<string, unknown>;

const tool = (name: string, extra: Obj = {}): Obj => ({ name, description: `${name} does things`, inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'string' } }, required: ['a'] }, ...extra });

function snap(parts: Partial<SnapshotParts['lists']> & { extra?: Partial<SnapshotParts> } = {}): InterfaceSnapshot {
  const { extra, ...lists } = parts;
  return buildSnapshot({
    serverName: 'srv',
    takenAt: 1,
    protocolVersion: '2025-11-25',
    serverInfo: { name: 'srv', version: '1.0.0' },
    capabilities: { tools: { listChanged: true }, resources: {}, prompts: {} },
    instructions: 'Use it well.',
    lists: { tools: [tool('add'), tool('echo')], resources: [{ uri: 'fixture://readme', name: 'readme', mimeType: 'text/markdown' }], resourceTemplates: [{ uriTemplate: 'x://{id}', name: 'item' }], prompts: [{ name: 'greet', arguments: [{ name: 'who', required: true }] }], ...lists },
    ...extra,
  });
}

const base = snap();
const only = (a: InterfaceSnapshot, b: InterfaceSnapshot) => diffInterfaces(a, b).changes.map(({ area, item, change, field, severity, message }) => ({ area, item, change, field, severity, message }));

describe('each change, in words, with its severity', () => {
  it('an identical snapshot diffs empty', () => {
    expect(diffInterfaces(base, snap())).toEqual({ same: true, changes: [] });
  });

  it('tools: added, removed, description, new required / optional argument, removed argument, retyped, now required', () => {
    const changed = snap({
      tools: [
        tool('add', { inputSchema: { type: 'object', properties: { a: { type: 'string' }, c: { type: 'number' }, d: { type: 'boolean' } }, required: ['a', 'c'] } }),
        tool('echo', { description: 'echo does other things' }),
        tool('new_one'),
      ],
    });
    expect(only(base, changed)).toEqual([
      { area: 'tools', item: 'add', change: 'changed', field: 'inputSchema.properties.a.type', severity: 'breaking', message: 'tool `add`: argument `a`: type changed from number to string' },
      { area: 'tools', item: 'add', change: 'changed', field: 'inputSchema.properties.b', severity: 'breaking', message: 'tool `add`: argument `b` was removed' },
      { area: 'tools', item: 'add', change: 'changed', field: 'inputSchema.properties.c', severity: 'breaking', message: 'tool `add`: new required argument `c`' },
      { area: 'tools', item: 'add', change: 'changed', field: 'inputSchema.properties.d', severity: 'info', message: 'tool `add`: new optional argument `d`' },
      expect.objectContaining({ area: 'tools', item: 'echo', change: 'changed', field: 'description', severity: 'warning', message: expect.stringContaining('rug pull') }),
      { area: 'tools', item: 'new_one', change: 'added', field: undefined, severity: 'info', message: 'new tool `new_one`' },
    ]);
    const gone = snap({ tools: [tool('add')] });
    expect(only(base, gone)).toEqual([{ area: 'tools', item: 'echo', change: 'removed', field: undefined, severity: 'breaking', message: 'tool `echo` was removed' }]);
    const required = snap({ tools: [tool('add', { inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'string' } }, required: ['a', 'b'] } }), tool('echo')] });
    expect(only(base, required)).toEqual([expect.objectContaining({ field: 'inputSchema.required', severity: 'breaking', message: 'tool `add`: argument `b` is now required' })]);
  });

  it('nested arguments, enums narrowed, output schemas, annotations and _meta.ui', () => {
    const nested = (inner: Obj) => tool('order', { inputSchema: { type: 'object', properties: { customer: { type: 'object', properties: inner, required: Object.keys(inner) } } } });
    expect(only(snap({ tools: [nested({ name: { type: 'string' } })] }), snap({ tools: [nested({ name: { type: 'string' }, email: { type: 'string' } })] }))).toEqual([
      expect.objectContaining({ field: 'inputSchema.properties.customer.email', severity: 'breaking', message: 'tool `order`: new required argument `customer.email`' }),
    ]);
    const level = (values: string[]) => tool('log', { inputSchema: { type: 'object', properties: { level: { type: 'string', enum: values } } } });
    expect(only(snap({ tools: [level(['info', 'debug'])] }), snap({ tools: [level(['debug', 'info'])] }))).toEqual([]);
    expect(only(snap({ tools: [level(['info', 'debug'])] }), snap({ tools: [level(['info'])] }))).toEqual([expect.objectContaining({ severity: 'breaking', message: 'tool `log`: argument `level`: no longer accepts "debug"' })]);
    const out = (props: Obj) => tool('sum', { outputSchema: { type: 'object', properties: props } });
    expect(only(snap({ tools: [out({ sum: { type: 'number' } })] }), snap({ tools: [out({ total: { type: 'number' } })] }))).toEqual([
      expect.objectContaining({ field: 'outputSchema.properties.sum', severity: 'breaking', message: 'tool `sum`: output field `sum` was removed from the structured result' }),
      expect.objectContaining({ field: 'outputSchema.properties.total', severity: 'info' }),
    ]);
    expect(only(snap({ tools: [tool('rm', { annotations: { destructiveHint: false } })] }), snap({ tools: [tool('rm', { annotations: { destructiveHint: true } })] }))).toEqual([
      expect.objectContaining({ field: 'annotations.destructiveHint', severity: 'warning' }),
    ]);
    expect(only(snap({ tools: [tool('app', { _meta: { ui: { resourceUri: 'ui://a' } } })] }), snap({ tools: [tool('app', { _meta: { ui: { resourceUri: 'ui://b' } } })] }))).toEqual([
      expect.objectContaining({ field: '_meta.ui', severity: 'warning', message: 'tool `app`: its app (`_meta.ui`) changed' }),
    ]);
  });

  it('resources, templates, prompts, capabilities, server info, protocol version and instructions', () => {
    const changed = snap({
      resources: [{ uri: 'fixture://readme', name: 'readme', mimeType: 'text/plain' }],
      resourceTemplates: [],
      prompts: [{ name: 'greet', arguments: [{ name: 'who', required: true }, { name: 'tone', required: true }] }],
      extra: { serverInfo: { name: 'srv', version: '1.1.0' }, capabilities: { tools: { listChanged: true }, resources: {} }, protocolVersion: '2026-07-28', instructions: 'Use it differently.' },
    });
    expect(only(base, changed)).toEqual([
      expect.objectContaining({ area: 'protocolVersion', severity: 'warning', message: 'protocol version changed from 2025-11-25 to 2026-07-28' }),
      expect.objectContaining({ area: 'serverInfo', field: 'version', severity: 'info', message: 'server version changed from "1.0.0" to "1.1.0"' }),
      expect.objectContaining({ area: 'capabilities', item: 'prompts', change: 'removed', severity: 'warning' }),
      expect.objectContaining({ area: 'instructions', change: 'changed', severity: 'warning' }),
      expect.objectContaining({ area: 'resources', item: 'fixture://readme', field: 'mimeType', severity: 'warning', message: 'resource `fixture://readme`: MIME type changed from "text/markdown" to "text/plain"' }),
      expect.objectContaining({ area: 'resourceTemplates', item: 'x://{id}', change: 'removed', severity: 'breaking' }),
      expect.objectContaining({ area: 'prompts', item: 'greet', field: 'arguments.tone', severity: 'breaking', message: 'prompt `greet`: new required argument `tone`' }),
    ]);
  });

  it('a list one side never saw answered is not compared (not "everything removed")', () => {
    const noPrompts = buildSnapshot({ serverName: 'srv', takenAt: 1, lists: { tools: [tool('add'), tool('echo')], resources: base.resources, resourceTemplates: base.resourceTemplates }, protocolVersion: '2025-11-25', serverInfo: base.serverInfo, capabilities: base.capabilities, instructions: base.instructions });
    expect(noPrompts.missing).toEqual(['prompts']);
    expect(diffInterfaces(base, noPrompts)).toEqual({ same: true, changes: [] });
  });
});

describe('order is not a change', () => {
  const shuffled = <T>(list: T[], seed: number[]) => list.map((v, i) => [seed[i % seed.length]! + i / 1000, v] as const).sort((x, y) => x[0] - y[0]).map(([, v]) => v);
  const reKeyed = (value: unknown, flip: boolean): unknown => {
    if (Array.isArray(value)) return value.map((v) => reKeyed(v, flip));
    if (!value || typeof value !== 'object') return value;
    const entries = Object.entries(value).map(([k, v]) => [k, reKeyed(v, flip)] as const);
    return Object.fromEntries(flip ? entries.reverse() : entries);
  };

  it('shuffled lists, `required` in another order and object keys in another order diff empty', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 100 }), { minLength: 1, maxLength: 10 }), fc.boolean(), (seed, flip) => {
        const tools = ['a', 'b', 'c', 'd', 'e'].map((n) => tool(n, { inputSchema: { type: 'object', properties: { x: { type: 'string' }, y: { type: 'number' } }, required: ['x', 'y'] } }));
        const reordered = shuffled(tools, seed).map((t) => reKeyed({ ...t, inputSchema: { ...(t.inputSchema as Obj), required: ['y', 'x'] } }, flip) as Obj);
        expect(diffInterfaces(snap({ tools }), snap({ tools: reordered }))).toEqual({ same: true, changes: [] });
      }),
      { numRuns: 60 },
    );
    expect(canon({ b: 1, a: [2, 1], required: ['z', 'y'] })).toBe(canon({ a: [2, 1], required: ['y', 'z'], b: 1 }));
    expect(canon({ a: [2, 1] })).not.toBe(canon({ a: [1, 2] }));
  });
});

describe('hostile sizes', () => {
  it(`100,000 tools: ${SNAPSHOT_LIMITS.items.toLocaleString('en-US')} kept (said in notes), one change found, at most ${MAX_CHANGES} listed`, () => {
    const many = Array.from({ length: 100_000 }, (_, i) => ({ name: `t${String(i).padStart(6, '0')}`, inputSchema: { type: 'object' } }));
    const a = buildSnapshot({ serverName: 's', takenAt: 1, lists: { tools: many, resources: [], resourceTemplates: [], prompts: [] } });
    expect(a.tools).toHaveLength(SNAPSHOT_LIMITS.items);
    expect(a.notes?.join(' ')).toContain('100,000 tools listed: only the first 10,000');
    const changedList = many.map((t, i) => (i === 5 ? { ...t, description: 'new' } : t));
    const b = buildSnapshot({ serverName: 's', takenAt: 1, lists: { tools: changedList, resources: [], resourceTemplates: [], prompts: [] } });
    expect(diffInterfaces(a, b).changes).toEqual([expect.objectContaining({ item: 't000005', field: 'description', change: 'changed' })]);
    const none = buildSnapshot({ serverName: 's', takenAt: 1, lists: { tools: [], resources: [], resourceTemplates: [], prompts: [] } });
    const all = diffInterfaces(a, none);
    expect(all.same).toBe(false);
    expect(all.changes).toHaveLength(MAX_CHANGES + 1);
    expect(all.changes.at(-1)!.message).toBe(`… and ${(SNAPSHOT_LIMITS.items - MAX_CHANGES).toLocaleString('en-US')} more changes, not listed`);
  });

  it('a 5,000-deep input schema is cut to a marker; diffs of it neither throw nor differ from themselves', () => {
    const deep = (leaf: string): Obj => {
      let node: Obj = { type: leaf };
      for (let i = 0; i < 5_000; i++) node = { type: 'object', properties: { n: node } };
      return { name: 'deep', inputSchema: node };
    };
    const a = buildSnapshot({ serverName: 's', takenAt: 1, lists: { tools: [deep('string')], resources: [], resourceTemplates: [], prompts: [] } });
    const b = buildSnapshot({ serverName: 's', takenAt: 1, lists: { tools: [deep('number')], resources: [], resourceTemplates: [], prompts: [] } });
    let node: unknown = a.tools[0]!.inputSchema;
    let levels = 0;
    while (node && typeof node === 'object' && !isTruncationMarker(node) && levels < 200) {
      node = ((node as Obj).properties as Obj | undefined)?.n ?? node;
      levels++;
      if (levels > 100) break;
    }
    expect(isTruncationMarker(node)).toBe(true);
    expect(diffInterfaces(a, a).same).toBe(true);
    // What differs lies below the cut: not comparable, so not reported as a change.
    expect(diffInterfaces(a, b).same).toBe(true);
    expect(() => JSON.stringify(diffInterfaces(a, b))).not.toThrow();
  });

  it('items without a name are left out (said in notes); names with control characters are quoted harmlessly', () => {
    const s = buildSnapshot({ serverName: 's', takenAt: 1, lists: { tools: [{ description: 'no name' }, 42, { name: 'ok\u0007`x' }], resources: [], resourceTemplates: [], prompts: [] } });
    expect(s.tools.map((t) => t.name)).toEqual(['ok\u0007`x']);
    expect(s.notes?.join(' ')).toContain('2 tools without a name were left out');
    const gone = buildSnapshot({ serverName: 's', takenAt: 1, lists: { tools: [], resources: [], resourceTemplates: [], prompts: [] } });
    expect(diffInterfaces(s, gone).changes[0]!.message).toBe('tool `ok??x` was removed');
  });
});
