import { describe, expect, it } from 'vitest';
import { LIMITS, TRUNCATED_KEY, boundDepth, depthOf, describeTruncation, isTruncationMarker, safeStringify } from '../../contract/bounded-json';

const nested = (levels: number): unknown => JSON.parse('{"a":'.repeat(levels - 1) + '{"leaf":1}' + '}'.repeat(levels - 1));

describe('bounded JSON', () => {
  it('measures depth without recursion, also 100,000 levels', () => {
    expect(depthOf(1)).toBe(0);
    expect(depthOf({})).toBe(1);
    expect(depthOf([[1]])).toBe(2);
    expect(depthOf(nested(100_000))).toBe(100_000);
    expect(depthOf(nested(100_000), 10)).toBe(11);
  });

  it('returns a value within the limit untouched (no copy)', () => {
    const v = { a: [1, { b: 2 }] };
    expect(boundDepth(v, 3)).toBe(v);
  });

  it('cuts a 5,000-deep value at the limit with a marker that counts what was cut', () => {
    const cut = boundDepth(nested(5_000), LIMITS.carriedDepth);
    expect(depthOf(cut)).toBe(LIMITS.carriedDepth);
    let node: any = cut;
    for (let i = 1; i < LIMITS.carriedDepth; i++) node = node.a;
    expect(isTruncationMarker(node)).toBe(true);
    expect(node).toEqual({ [TRUNCATED_KEY]: true, levels: 5_000 - LIMITS.carriedDepth + 1, entries: 1, array: false });
    expect(describeTruncation(node)).toBe('… 4,937 more levels');
    // Cutting again changes nothing: a carrier may bound what the dispatcher already bounded.
    expect(boundDepth(cut, LIMITS.carriedDepth)).toBe(cut);
    expect(() => JSON.stringify(cut)).not.toThrow();
  });

  it('keeps key order, arrays and siblings of a cut subtree', () => {
    const v = { first: 1, deep: [[[[1]]]], last: 'x' };
    const cut = boundDepth(v, 3) as any;
    expect(Object.keys(cut)).toEqual(['first', 'deep', 'last']);
    expect(cut.deep[0]).toEqual({ [TRUNCATED_KEY]: true, levels: 3, entries: 1, array: true });
    expect(depthOf(cut)).toBe(3);
    expect(boundDepth({ a: { b: { c: 1 } } }, 3)).toEqual({ a: { b: { c: 1 } } });
    expect(cut.last).toBe('x');
  });

  it('safeStringify never throws: deep, BigInt, and a cycle', () => {
    expect(JSON.parse(safeStringify(nested(100_000)))).toBeTruthy();
    expect(JSON.parse(safeStringify({ n: 10n })).error).toMatch(/BigInt/);
    const cyclic: any = { name: 'loop' };
    cyclic.self = cyclic;
    const parsed = JSON.parse(safeStringify(cyclic, { maxDepth: 5 }));
    expect(parsed.self.self.self.name).toBe('loop');
    expect(isTruncationMarker(parsed.self.self.self.self)).toBe(true);
  });

  it('keeps a __proto__ key of a cut value as data (never as the prototype)', () => {
    const v = JSON.parse('{"__proto__": {"polluted": true}, "deep": [[[[1]]]]}');
    const cut = boundDepth(v, 3) as Record<string, unknown>;
    expect(Object.keys(cut)).toEqual(['__proto__', 'deep']);
    expect(JSON.parse(JSON.stringify(cut)).__proto__).toEqual({ polluted: true });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(cut)).toBe(Object.prototype);
  });
});
