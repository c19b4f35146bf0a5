/**
 * `Redactor.leavesJson` (#15): with secrets configured, JSON text that holds none of them is kept
 * as parsed, without the copying walk of `json()`. It is told from the text alone, so it must never
 * say "nothing to redact" for a value that `json()` would change. Checked on generated values
 * (strings built from the secrets' own characters, secrets as whole values, inside longer strings
 * and in keys, short and long secrets, secrets JSON has to escape) against `json()` itself.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REDACTED, Redactor, SUBSTRING_MIN } from '../../main/core/trace/redact';
import { scanJsonText, traceBody } from '../../main/core/trace/rpc';

const LIVE = 'sk-live-0123456789abcdef';
const SECRETS = [LIVE, 'ab', 'tok"en-with-quote', 'line\nbreak-secret', 'é-ünïcode-sécret', 'x'];

/** Strings likely to hold a secret, a piece of one, or one next to other text. */
const piece = fc.oneof(
  fc.constantFrom(...SECRETS),
  fc.constantFrom(...SECRETS).map((s) => s.slice(1)),
  fc.tuple(fc.string({ maxLength: 4 }), fc.constantFrom(...SECRETS), fc.string({ maxLength: 4 })).map(([a, s, b]) => a + s + b),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 8 }),
);
const value = fc.letrec((tie) => ({
  json: fc.oneof({ depthSize: 'small' }, piece, fc.integer(), fc.constant(null), fc.boolean(), fc.array(tie('json'), { maxLength: 4 }), fc.dictionary(piece, tie('json'), { maxKeys: 4 })),
})).json;

describe('Redactor.leavesJson', () => {
  it('never says a value is left as it is when json() would change it', () => {
    fc.assert(
      fc.property(value, fc.subarray(SECRETS, { minLength: 1 }), (v, secrets) => {
        const redactor = new Redactor();
        for (const secret of secrets) redactor.addSecret(secret);
        const text = JSON.stringify(v);
        if (text === undefined || !scanJsonText(text, Infinity).canonical) return;
        if (redactor.leavesJson(text)) expect(redactor.json(JSON.parse(text), false)).toEqual(JSON.parse(text));
      }),
      { numRuns: 3000, seed: 1515 },
    );
  });

  it('says so for text without the secrets, and not for text with one (whole or inside a string, long or short)', () => {
    const redactor = new Redactor();
    redactor.addSecret(LIVE);
    redactor.addSecret('ab');
    expect(redactor.leavesJson('{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"abc"}}')).toBe(true);
    expect(redactor.leavesJson(`{"data":"key ${LIVE} here"}`)).toBe(false);
    expect(redactor.leavesJson('{"data":"ab"}')).toBe(false);
    expect(SUBSTRING_MIN).toBeGreaterThan('ab'.length);
  });

  it('gives up (the walk decides) once a secret has a character JSON escapes', () => {
    const redactor = new Redactor();
    redactor.addSecret('tok"en-with-quote');
    // The secret is in the value, and the text shows it only escaped.
    const text = JSON.stringify({ data: 'tok"en-with-quote' });
    expect(text.includes('tok"en-with-quote')).toBe(false);
    expect(redactor.leavesJson(text)).toBe(false);
    expect(redactor.json(JSON.parse(text), false)).toEqual({ data: REDACTED });
  });

  it('through traceBody: a body without the secrets is kept as parsed and its text stands for it; one with a secret escaped as \\u is still redacted', () => {
    const redactor = new Redactor();
    redactor.addSecret(LIVE);
    const clean = '{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"nothing here"}}';
    const parsed = JSON.parse(clean) as unknown;
    const kept = traceBody(parsed, clean, redactor, false, 'own');
    expect(kept.body).toBe(parsed);
    expect(kept.wire).toBe(clean);
    const hidden = `{"data":"\\u0073${LIVE.slice(1)}"}`;
    const secret = traceBody(JSON.parse(hidden), hidden, redactor, false, 'own');
    expect(secret.body).toEqual({ data: REDACTED });
    expect(secret.wire).toBeUndefined();
  });
});
