import { describe, expect, it } from 'vitest';
import { junitXml, type JUnitSuite } from '../../main/core/report/junit';
import { validateJUnit } from '../support/junit-schema';

const HOSTILE = [
  'nul\u0000 bell\u0007 esc\u001b[31m vt\u000b ff\u000c',
  'cdata end ]]> and <![CDATA[ start',
  'quotes " \' amp & lt < gt >',
  'bidi \u202eevil\u202c isolate \u2066x\u2069 zwsp\u200b bom\ufeff tag\u{e0041}\u{e007f}',
  'lone surrogates \ud800 and \udfff',
  'non-chars \ufffe \uffff',
  'newline\nand\r\ntab\t',
].join(' | ');

function hostileSuites(): JUnitSuite[] {
  return [
    {
      name: `server ${HOSTILE}`,
      properties: { [`key ${HOSTILE}`]: HOSTILE },
      timestamp: new Date('invalid'),
      timeSeconds: Number.POSITIVE_INFINITY,
      cases: [
        { name: 'passes', classname: 'check.tools', timeSeconds: 0.25 },
        { name: `fails ${HOSTILE}`, classname: `check.${HOSTILE}`, timeSeconds: -3, failure: { message: HOSTILE, type: HOSTILE, text: HOSTILE } },
        { name: 'errors', classname: 'check.connect', timeSeconds: 1e30, error: { message: HOSTILE, text: 'x'.repeat(200_000) } },
        { name: 'skipped', classname: 'check.latency', skipped: { message: HOSTILE }, systemOut: `${HOSTILE}${'y'.repeat(100_000)}` },
      ],
    },
    { name: 'empty', cases: [] },
  ];
}

describe('junitXml against the Jenkins junit-10.xsd', () => {
  it('writes a valid document from hostile text, with counts that match the cases', async () => {
    const xml = junitXml(hostileSuites());
    const result = await validateJUnit(xml);
    expect(result.errors).toEqual([]);
    expect(result.valid).toBe(true);
    expect(xml).toMatch(/<testsuites name="switchboard" tests="4" failures="1" errors="1" time="[0-9.]+">/);
    expect(xml).toContain('tests="4" failures="1" errors="1" skipped="1"');
  });

  it('leaves no character in the output that XML cannot carry or that hides text', () => {
    const xml = junitXml(hostileSuites());
    expect(xml).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/);
    expect(xml).not.toMatch(/\p{Surrogate}/u);
    expect(xml).not.toMatch(/[\u{e0000}-\u{e007f}]/u);
    expect(xml).not.toContain(']]>');
    expect(xml).toContain('\\u202e');
    expect(xml).toContain('\\u{e0041}');
    expect(xml).toContain('\\u0000');
    expect(xml).toContain('… (truncated)');
    // bounded: 200 kB of failure text and 100 kB of output come out under the caps
    expect(xml.length).toBeLessThan(160_000);
  });

  it('writes times the schema accepts (no exponent, no negative, no NaN)', () => {
    const xml = junitXml(hostileSuites());
    const times = [...xml.matchAll(/ time="([^"]*)"/g)].map((m) => m[1]);
    expect(times.length).toBeGreaterThan(4);
    for (const t of times) expect(t).toMatch(/^\d+(\.\d+)?$/);
  });

  it('the validator rejects documents that break the schema (so a check can fail)', async () => {
    const missing = await validateJUnit('<testsuites><testsuite><testcase/></testsuite></testsuites>');
    expect(missing.valid).toBe(false);
    expect(missing.errors.join('\n')).toMatch(/attribute 'name' is required/);
    const wrongRoot = await validateJUnit('<?xml version="1.0"?><report/>');
    expect(wrongRoot.valid).toBe(false);
    const notXml = await validateJUnit('<testsuites><testsuite name="a"');
    expect(notXml.valid).toBe(false);
    const badTime = await validateJUnit('<testsuites><testsuite name="a" tests="0" failures="0" errors="0" time="1e+21"/></testsuites>');
    expect(badTime.valid).toBe(false);
  });
});
