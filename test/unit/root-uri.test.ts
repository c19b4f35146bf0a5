/**
 * Roots: a plain path becomes a file: URI with pathToFileURL's encoding; relative paths and ~
 * are refused with the reason; the contract's schema (what main validates) does the same (issue
 * #11, item 13).
 */
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { methods } from '../../contract';
import { toRootUri } from '../../contract/field-checks';

const uriOf = (input: string) => {
  const root = toRootUri(input);
  if (!root.ok) throw new Error(`refused: ${root.error}`);
  return root.uri;
};

describe('toRootUri', () => {
  it('turns absolute POSIX paths into file: URIs exactly as pathToFileURL does', () => {
    for (const path of ['/home/me/project', '/home/me/my project', '/tmp/a%b', '/tmp/#hash?query', '/tmp/back\\slash', '/tmp/é ü 日本', '/tmp/tab\there', '/x/', '/a/../b', '/']) {
      expect(uriOf(path), path).toBe(pathToFileURL(path).href);
    }
  });

  it('matches pathToFileURL on any absolute POSIX path (property)', () => {
    const segment = fc.string({ unit: fc.constantFrom(...'ab Z09%#?\\&=;+,@$!\'"()[]{}<>`^|~-_.é日\t'.split('')), minLength: 1, maxLength: 8 }).filter((s) => s !== '.' && s !== '..');
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 5 }), (segments) => {
        const path = `/${segments.join('/')}`;
        fc.pre(path === path.trim()); // what a person types is trimmed
        expect(uriOf(path)).toBe(pathToFileURL(path).href);
      }),
      { numRuns: 500 },
    );
  });

  it('turns Windows drive and UNC paths into file: URIs as pathToFileURL does on Windows', () => {
    for (const path of ['C:\\work', 'C:\\work\\my dir', 'c:/Users/me/a%b', 'D:\\x#y']) {
      expect(uriOf(path), path).toBe(pathToFileURL(path, { windows: true }).href);
    }
    expect(uriOf('\\\\server\\share\\x y')).toBe(pathToFileURL('\\\\server\\share\\x y', { windows: true }).href);
  });

  it('keeps URIs (file: normalized), refuses relative paths, ~ and non-URIs with the reason', () => {
    expect(uriOf('file:///home/ada/project')).toBe('file:///home/ada/project');
    expect(uriOf('file:///home/ada/my project')).toBe('file:///home/ada/my%20project');
    expect(uriOf('  https://example.com/repo  ')).toBe('https://example.com/repo');
    expect(toRootUri('/home/me/project')).toMatchObject({ ok: true, fromPath: true });
    expect(toRootUri('file:///x')).toMatchObject({ ok: true, fromPath: false });
    for (const relative of ['project', './project', '../up', 'src/lib']) expect(toRootUri(relative)).toEqual({ ok: false, error: expect.stringContaining('is a relative path') });
    expect(toRootUri('~/x')).toEqual({ ok: false, error: expect.stringContaining('“~” is not expanded') });
    expect(toRootUri('~')).toMatchObject({ ok: false });
    expect(toRootUri('  ')).toMatchObject({ ok: false });
    expect(toRootUri('http://[bad')).toEqual({ ok: false, error: expect.stringContaining('not a valid URI') });
  });
});

describe('the roots schema (what main validates)', () => {
  it('accepts paths and URIs, stores URIs, and names the row that is wrong', () => {
    const parsed = methods.setRoots.args.safeParse({ serverId: 'srv', roots: [{ uri: '/home/me/my project', name: 'p' }, { uri: 'C:\\work' }, { uri: 'file:///x' }] });
    expect(parsed.success).toBe(true);
    expect(parsed.data?.roots).toEqual([{ uri: 'file:///home/me/my%20project', name: 'p' }, { uri: 'file:///C:/work' }, { uri: 'file:///x' }]);
    const bad = methods.setRoots.args.safeParse({ serverId: 'srv', roots: [{ uri: '/ok' }, { uri: 'relative/dir' }] });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([['roots.1.uri', expect.stringContaining('is a relative path')]]);
  });
});
