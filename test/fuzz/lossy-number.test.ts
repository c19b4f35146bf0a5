/** The fidelity rule the fuzzer found missing: which JSON number tokens JSON.parse changes. */
import { describe, expect, it } from 'vitest';
import { lossyNumber, scanJsonText } from '../../main/core/trace/rpc';

describe('lossyNumber', () => {
  it.each([
    ['{"a":1e400}', '1e400'],
    ['[-1E+999]', '-1E+999'],
    ['{"a":1e-400}', '1e-400'],
    ['{"a":-0}', '-0'],
    ['{"a":-0.0}', '-0.0'],
    ['[1, -0.000e7]', '-0.000e7'],
    ['{"a":123456789012345678901234567890}', '123456789012345678901234567890'],
    ['[9007199254740993]', '9007199254740993'],
  ])('%s loses %s', (text, token) => {
    expect(lossyNumber(text)).toBe(token);
  });

  it.each(['{"a":1}', '{"a":"1e400"}', '{"a":"x\\"-0 1e999"}', '[9007199254740992]', '[-0.5, 0.0, 0e5, 1.5e300, -0.001, 0.0000000000000001, 1e-300]', '{"id":"12345678901234567890"}', ''])('%s keeps every number', (text) => {
    expect(lossyNumber(text)).toBeUndefined();
  });
});

/**
 * scanJsonText answers three questions in one pass (traceBody's depth, lossy numbers, escapes).
 * Checked against plain reference answers on generated JSON: nesting, strings with every kind of
 * escape (an escaped quote or backslash included) and number tokens at the edges of a double.
 */
describe('scanJsonText', () => {
  const NUMBERS = ['0', '-0', '-0.0', '0.0', '-0.5', '1e400', '-1E+999', '1e-400', '1.5e300', '0e5', '-0.000e7', '9007199254740992', '9007199254740993', '123456789012345678901234567890', '0.0000000000000001', '17965342177334893', '42', '-7.25'];
  const PIECES = ['a', 'é', '\\"', '\\\\', '\\/', '\\u00e9', '\\n', '1e400', '-0', ' ', '[', '{'];
  function generate(seed: number): string {
    let state = seed;
    const next = (n: number) => {
      state = (state * 1103515245 + 12345) % 2 ** 31;
      return (state >>> 12) % n;
    };
    const value = (depth: number): string => {
      const pick = next(depth > 6 ? 3 : 5);
      if (pick === 0) return NUMBERS[next(NUMBERS.length)]!;
      if (pick === 1) return `"${Array.from({ length: next(5) }, () => PIECES[next(PIECES.length)]).join('')}"`;
      if (pick === 2) return ['true', 'false', 'null'][next(3)]!;
      const items = Array.from({ length: next(4) }, () => value(depth + 1));
      return pick === 3 ? `[${items.join(',')}]` : `{${items.map((v, i) => `"k${i}": ${v}`).join(', ')}}`;
    };
    return value(0);
  }
  const depth = (v: unknown): number => (v !== null && typeof v === 'object' ? 1 + Math.max(0, ...Object.values(v).map(depth)) : 0);
  const firstLossy = (text: string): string | undefined => {
    for (const [token] of text.replace(/"(?:[^"\\]|\\.)*"/g, '""').matchAll(/-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g)) {
      const n = Number(token);
      if (!Number.isFinite(n) || Object.is(n, -0) || (n === 0 && /[1-9]/.test(token.replace(/[eE].*$/, '')))) return token;
      if (/^-?\d+$/.test(token) && BigInt(token) !== BigInt(n)) return token;
    }
    return undefined;
  };
  const canonical = (text: string) => [...text.matchAll(/\\(.)/g)].length === 0 || ![...(text.match(/"(?:[^"\\]|\\.)*"/g) ?? []).join('').matchAll(/\\./g)].some(([e]) => e === '\\u' || e === '\\/');

  it('agrees with the reference answers on 3,000 generated texts', () => {
    let lossyTexts = 0;
    let escapedTexts = 0;
    let deepTexts = 0;
    for (let seed = 1; seed <= 3000; seed++) {
      const text = generate(seed);
      const value: unknown = JSON.parse(text);
      const scan = scanJsonText(text, 3);
      expect(scan.withinDepth, text).toBe(depth(value) <= 3);
      const whole = scanJsonText(text, Infinity);
      expect(whole.lossy, text).toBe(firstLossy(text));
      expect(whole.canonical, text).toBe(canonical(text));
      if (whole.lossy) lossyTexts++;
      if (!whole.canonical) escapedTexts++;
      if (!scan.withinDepth) deepTexts++;
    }
    // the generator reaches every answer both ways
    expect(lossyTexts).toBeGreaterThan(100);
    expect(escapedTexts).toBeGreaterThan(100);
    expect(deepTexts).toBeGreaterThan(100);
    expect(3000 - lossyTexts - escapedTexts).toBeGreaterThan(100);
  });

  // A string of 100,000 escaped line breaks. (Each escape once searched again for the closing quote,
  // megabytes away: quadratic, 3.6 s for this text and a blocked host for a 10 MB tool result. The
  // reliability test's 10 MB result caught it; this checks the answers on such a text.)
  it('reads a long string with many escapes', () => {
    const lines = Array.from({ length: 100_000 }, (_, i) => `line ${i}: the quick brown fox jumps over the lazy dog`).join('\n');
    const text = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: lines }], n: -0.0 } }).replace('"n":0', '"n":-0.0');
    expect(scanJsonText(text, 8)).toEqual({ withinDepth: true, lossy: '-0.0', canonical: true });
    expect(scanJsonText(text.replace('line 99999', 'line \\u0039'), 8).canonical).toBe(false);
  });

  it('ends on text that is cut short (no closing quote, a backslash last)', () => {
    expect(scanJsonText('["abc', 8)).toEqual({ withinDepth: true, lossy: undefined, canonical: true });
    expect(scanJsonText('["abc\\', 8).withinDepth).toBe(true);
    expect(scanJsonText('["a\\u00', 8).canonical).toBe(false);
    expect(scanJsonText('[-0', 8).lossy).toBe('-0');
  });
});
