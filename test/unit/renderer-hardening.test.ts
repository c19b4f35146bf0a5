/**
 * The renderer's hardening on hostile input, without a browser: argument depth before sending,
 * validation of self-referential schemas and of values deeper than anything carried (it ends,
 * and says why), schemas main received cut, the raw text of a trace body, the reconnect backoff.
 */
import { describe, expect, it } from 'vitest';
import { LIMITS, TRUNCATED_KEY, boundDepth } from '../../contract/bounded-json';
import type { TraceEvent } from '../../contract/trace';
import { reconnectDelay } from '../../renderer/src/api/backoff';
import { argumentDepthProblem } from '../../renderer/src/features/tools/argument-depth';
import { checkSchemaBounds, initialValue } from '../../renderer/src/features/tools/schema';
import { validateAgainst } from '../../renderer/src/features/tools/validation';
import { rawBodyText } from '../../renderer/src/components/raw-body';
import { SELF_SCHEMA } from '../fixtures/hostile/server';
import { deepJson, deepJsonText } from '../fixtures/hostile/payloads';

const selfSchema = SELF_SCHEMA as unknown as Record<string, unknown>;

describe('arguments a person writes', () => {
  it('are sent up to the argument depth limit, and refused beyond it with the depth and the limit named', () => {
    expect(argumentDepthProblem(deepJson(LIMITS.argumentDepth - 1))).toBeNull();
    const problem = argumentDepthProblem(JSON.parse(deepJsonText(5_000)));
    expect(problem).toContain('nested 5,001 levels deep');
    expect(problem).toContain(`at most ${LIMITS.argumentDepth}`);
  });
});

describe('validation that always ends', () => {
  it('checks values against a schema that refers to itself ($ref "#", recursive $defs)', async () => {
    expect(await validateAgainst(selfSchema, { name: 'a', child: { name: 'b', child: { name: 'c' } }, tree: { value: 1, children: [{ value: 2, children: [] }] } })).toEqual({ status: 'valid' });
    const invalid = await validateAgainst(selfSchema, { name: 'a', child: { child: { name: 3 } }, tree: { children: [{ value: 'x' }] } });
    expect(invalid.status).toBe('invalid');
  });

  it('stops a schema whose $ref never reaches a value, and says so', async () => {
    const loop = { $ref: '#' };
    expect(await validateAgainst(loop, {})).toEqual({ status: 'skipped', reason: expect.stringContaining('refers to itself') });
  });

  it('does not walk a value nested deeper than anything carried', async () => {
    const result = await validateAgainst(selfSchema, JSON.parse(deepJsonText(5_000)));
    expect(result).toEqual({ status: 'skipped', reason: expect.stringContaining(`deeper than ${LIMITS.carriedDepth} levels`) });
  });

  it('gives a self-referential schema bounded starting values', () => {
    const required = { type: 'object', properties: { child: { $ref: '#' } }, required: ['child'] };
    expect(initialValue(required, required, true)).toBeTypeOf('object');
  });
});

describe('schemas main received cut', () => {
  it('are refused with the carried depth named', () => {
    const cut = boundDepth({ type: 'object', properties: { d: deepJson(200) } });
    expect(JSON.stringify(cut)).toContain(TRUNCATED_KEY);
    expect(checkSchemaBounds(cut)).toEqual({ ok: false, reason: expect.stringContaining(`more than ${LIMITS.carriedDepth} levels deep`) });
  });
});

describe('raw trace bodies', () => {
  const event = (extra: Partial<TraceEvent> & { raw?: string }): TraceEvent => ({ seq: 1, ts: 0, server: 's', channel: 'stdio', kind: 'jsonrpc-in', dir: 'in', ...extra });

  it('are the bytes main kept when the body was cut, never the cut value re-serialized', () => {
    const text = deepJsonText(5_000);
    const body = boundDepth(JSON.parse(text));
    expect(rawBodyText(event({ body, raw: text }), body)).toEqual({ text, exact: true });
  });

  it('are the body itself when it was within the limit (and say when it is re-serialized)', () => {
    expect(rawBodyText(event({ body: 'plain' }), 'plain')).toEqual({ text: 'plain', exact: true });
    expect(rawBodyText(event({ body: { a: 1 } }), { a: 1 })).toEqual({ text: '{\n  "a": 1\n}', exact: false });
  });
});

describe('reconnecting to main', () => {
  it('backs off from half a second to ten', () => {
    expect([0, 1, 2, 3, 4, 5, 10].map(reconnectDelay)).toEqual([500, 1_000, 2_000, 4_000, 8_000, 10_000, 10_000]);
  });
});
