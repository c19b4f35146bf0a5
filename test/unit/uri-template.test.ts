/**
 * RFC 6570 URI templates (renderer/src/features/resources/uri-template.ts) in Node: the RFC's own
 * examples for levels 1–4 (string values: the form fills strings), the documented difference
 * (an empty value counts as undefined, so optional parts disappear), properties of the encoding,
 * and the same examples through the SDK's `UriTemplate` for comparison.
 */
import { UriTemplate } from '@modelcontextprotocol/client';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expandTemplate, templateVariables } from '../../renderer/src/features/resources/uri-template';

/** The variables of RFC 6570 §3.2 (string ones; lists and maps are not something the form fills), and §1.2's. */
const VARS: Record<string, string> = { var: 'value', hello: 'Hello World!', path: '/foo/bar', empty: '', x: '1024', y: '768', half: '50%', base: 'http://example.com/home/', who: 'fred', dub: 'me/too', v: '6', dom: 'example.com', uni: 'ü' };
// [template, RFC 6570 expansion, level]
const RFC: [string, string, number][] = [
  ['{var}', 'value', 1], ['{hello}', 'Hello%20World%21', 1], ['{half}', '50%25', 1], ['O{empty}X', 'OX', 1], ['O{undef}X', 'OX', 1], ['{base}index', 'http%3A%2F%2Fexample.com%2Fhome%2Findex', 1],
  ['{+var}', 'value', 2], ['{+hello}', 'Hello%20World!', 2], ['{+half}', '50%25', 2], ['{+path}/here', '/foo/bar/here', 2], ['here?ref={+path}', 'here?ref=/foo/bar', 2], ['{+base}index', 'http://example.com/home/index', 2], ['X{#var}', 'X#value', 2], ['X{#hello}', 'X#Hello%20World!', 2], ['{#half}', '#50%25', 2], ['up{+path}{var}/here', 'up/foo/barvalue/here', 2], ['{+who}', 'fred', 2], ['{#undef}', '', 2],
  ['map?{x,y}', 'map?1024,768', 3], ['{x,hello,y}', '1024,Hello%20World%21,768', 3], ['{+x,hello,y}', '1024,Hello%20World!,768', 3], ['{+path,x}/here', '/foo/bar,1024/here', 3], ['{#x,hello,y}', '#1024,Hello%20World!,768', 3], ['{#path,x}/here', '#/foo/bar,1024/here', 3], ['X{.var}', 'X.value', 3], ['X{.x,y}', 'X.1024.768', 3], ['www{.dom}', 'www.example.com', 3], ['{/var}', '/value', 3], ['{/var,x}/here', '/value/1024/here', 3], ['{/who,dub}', '/fred/me%2Ftoo', 3], ['{;x,y}', ';x=1024;y=768', 3], ['{;who}', ';who=fred', 3], ['{;v,undef}', ';v=6', 3], ['{?x,y}', '?x=1024&y=768', 3], ['{?who}', '?who=fred', 3], ['{?x,undef}', '?x=1024', 3], ['?fixed=yes{&x}', '?fixed=yes&x=1024', 3], ['{&x,y}', '&x=1024&y=768', 3], ['{&undef}', '', 3], ['{?uni}', '?uni=%C3%BC', 3],
  ['{var:3}', 'val', 4], ['{var:30}', 'value', 4], ['{+path:6}/here', '/foo/b/here', 4], ['{#path:6}/here', '#/foo/b/here', 4], ['X{.var:3}', 'X.val', 4], ['{/var:1,var}', '/v/value', 4], ['{;hello:5}', ';hello=Hello', 4], ['{?var:3}', '?var=val', 4], ['{&var:3}', '&var=val', 4], ['{var*}', 'value', 4], ['{/var*}', '/value', 4], ['{?who*}', '?who=fred', 4], ['{;x*}', ';x=1024', 4], ['{#path*}', '#/foo/bar', 4], ['{hello:5}', 'Hello', 4], ['{uni:1}', '%C3%BC', 4],
];
// empty values: RFC keeps them; ours treats empty as undefined by design
const RFC_EMPTY: [string, string, string][] = [
  ['{x,empty}', '1024,', '1024'],
  ['{;x,y,empty}', ';x=1024;y=768;empty', ';x=1024;y=768'],
  ['{?x,y,empty}', '?x=1024&y=768&empty=', '?x=1024&y=768'],
  ['{&x,y,empty}', '&x=1024&y=768&empty=', '&x=1024&y=768'],
  ['X{.empty}', 'X.', 'X'],
  ['{/empty}', '/', ''],
  ['{?empty}', '?empty=', ''],
];

const sdkExpand = (template: string): string | undefined => {
  try {
    return new UriTemplate(template).expand(VARS);
  } catch {
    return undefined;
  }
};

describe('expandTemplate: RFC 6570 examples', () => {
  it.each(RFC)('%s → %s (level %i)', (template, expected) => {
    expect(expandTemplate(template, VARS)).toBe(expected);
  });

  it.each(RFC_EMPTY)('an empty value is left out (by design: optional parts disappear), unlike the RFC: %s is %s there, %s here', (template, _rfc, ours) => {
    expect(expandTemplate(template, VARS)).toBe(ours);
  });

  it("is right wherever the SDK's UriTemplate is (and where it is not)", () => {
    const sdkRight = RFC.filter(([template, expected]) => sdkExpand(template) === expected).map(([t]) => t);
    const oursRight = RFC.filter(([template, expected]) => expandTemplate(template, VARS) === expected).map(([t]) => t);
    for (const template of sdkRight) expect(oursRight).toContain(template);
    const sdkWrong = RFC.filter(([t]) => !sdkRight.includes(t));
    console.log(`[uri-template] RFC 6570 string examples: ours ${oursRight.length}/${RFC.length}, the SDK's UriTemplate ${sdkRight.length}/${RFC.length}; the SDK differs on ${sdkWrong.map(([t, e]) => `${t} (${JSON.stringify(sdkExpand(t))}, RFC ${JSON.stringify(e)})`).join(', ')}`);
    expect(oursRight).toHaveLength(RFC.length);
  });
});

describe('templateVariables', () => {
  it('names each variable once, in order, with its operator; path-like ones are required', () => {
    expect(templateVariables('file:///{+path}{/seg,x}{?q,page:2}{&x}{#frag}{.ext*};{;m}')).toEqual([
      { name: 'path', operator: '+', required: true },
      { name: 'seg', operator: '/', required: true },
      { name: 'x', operator: '/', required: true },
      { name: 'q', operator: '?', required: false },
      { name: 'page', operator: '?', required: false },
      { name: 'frag', operator: '#', required: false },
      { name: 'ext', operator: '.', required: false },
      { name: 'm', operator: ';', required: false },
    ]);
  });

  it('odd templates: no expressions, empty ones, unclosed braces, stray commas', () => {
    expect(templateVariables('plain://no/vars')).toEqual([]);
    expect(templateVariables('a{}b{,}c{ }')).toEqual([]);
    expect(templateVariables('x{unclosed')).toEqual([]);
    expect(templateVariables('{a,,b}').map((v) => v.name)).toEqual(['a', 'b']);
    expect(expandTemplate('x{unclosed', { unclosed: 'v' })).toBe('x{unclosed');
    expect(expandTemplate('a{}b', {})).toBe('ab');
  });
});

describe('expandTemplate properties', () => {
  const text = fc.string({ unit: 'grapheme', maxLength: 40 });

  it('a simple value is percent-encoded to unreserved characters and decodes back', () => {
    fc.assert(
      fc.property(text, (value) => {
        const out = expandTemplate('{v}', { v: value });
        expect(out).toMatch(/^[A-Za-z0-9\-._~%]*$/);
        expect(decodeURIComponent(out)).toBe(value);
      }),
    );
  });

  it('a reserved value keeps reserved characters, encodes the rest, and decodes back', () => {
    fc.assert(
      fc.property(text.filter((s) => !s.includes('%')), (value) => {
        const out = expandTemplate('{+v}', { v: value });
        expect(out).toMatch(/^[A-Za-z0-9\-._~%:/?#[\]@!$&'()*+,;=]*$/);
        expect(decodeURIComponent(out)).toBe(value);
      }),
    );
  });

  it('a prefix keeps the first n characters (code points), never half of one', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme-ascii', maxLength: 20 }).chain((s) => fc.tuple(fc.constant(s), fc.integer({ min: 1, max: 25 }))), ([value, n]) => {
        expect(decodeURIComponent(expandTemplate(`{v:${n}}`, { v: value }))).toBe([...value].slice(0, n).join(''));
      }),
    );
    expect(expandTemplate('{v:1}', { v: '😀x' })).toBe('%F0%9F%98%80');
  });

  it('no values: every expression disappears, the literal text stays', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.constantFrom('{a}', '{+b}', '{#c}', '{.d}', '{/e}', '{;f}', '{?g,h}', '{&i}', '{j:3}', '{k*}'), fc.stringMatching(/^[a-z:/.?=&-]{0,6}$/)), { maxLength: 8 }), (parts) => {
        const literal = parts.filter((p) => !p.startsWith('{')).join('');
        expect(expandTemplate(parts.join(''), {})).toBe(literal);
      }),
    );
  });

  it('never throws on what a server or a paste can put in a value (lone surrogates included)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 20 }), fc.constantFrom('{v}', '{+v}', '{#v}', '{?v}', '{;v}', '{v:3}'), (value, template) => {
        expect(() => expandTemplate(template, { v: value })).not.toThrow();
      }),
    );
    expect(expandTemplate('{v}', { v: 'a\uD800b' })).toBe('a%EF%BF%BDb');
  });
});
