/**
 * The elicitation form's model (renderer/src/features/requests/form-model.ts) in Node: fields
 * read from a requested schema, drafts, the checks, and the content sent back. Its checks are
 * "the same rules main applies before a reply leaves": a fast-check property holds the form's
 * verdict against main's own (main/core/requests/elicitation.ts) on the content the form sends.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateContent, withDefaults, type RequestedSchema } from '../../main/core/requests/elicitation';
import { checkDraft, checkField, contentOf, effectiveValue, fieldsOf, initialDraft, toLocalInput, wireValue, type Draft, type DraftValue, type FieldModel } from '../../renderer/src/features/requests/form-model';

const field = (schema: RequestedSchema, name: string): FieldModel => fieldsOf(schema).find((f) => f.name === name)!;

const SCHEMA: RequestedSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Your name', minLength: 2, maxLength: 5 },
    code: { type: 'string', pattern: '^[A-Z]{3}$' },
    mail: { type: 'string', format: 'email' },
    site: { type: 'string', format: 'uri' },
    day: { type: 'string', format: 'date' },
    when: { type: 'string', format: 'date-time' },
    age: { type: 'integer', minimum: 0, maximum: 150 },
    ratio: { type: 'number', default: 0.5 },
    agree: { type: 'boolean' },
    size: { type: 'string', enum: ['s', 'm'], enumNames: ['Small', 'Medium'] } as never,
    tier: { type: 'string', oneOf: [{ const: 'free', title: 'Free' }, { const: 'pro' }] },
    tags: { type: 'array', items: { type: 'string', enum: ['a', 'b', 'c'] }, minItems: 1, maxItems: 2 } as never,
    nested: { type: 'object', properties: {} } as never,
    password: { type: 'string', title: 'Password' },
  },
  required: ['name', 'agree', 'tags'],
};

describe('fieldsOf', () => {
  it('reads each primitive into a field kind, with its limits, options and whether it is required', () => {
    const fields = fieldsOf(SCHEMA);
    expect(fields.map((f) => [f.name, f.kind, f.required])).toEqual([
      ['name', 'text', true],
      ['code', 'text', false],
      ['mail', 'email', false],
      ['site', 'uri', false],
      ['day', 'date', false],
      ['when', 'date-time', false],
      ['age', 'integer', false],
      ['ratio', 'number', false],
      ['agree', 'boolean', true],
      ['size', 'select', false],
      ['tier', 'select', false],
      ['tags', 'multi', true],
      ['nested', 'unsupported', false],
      ['password', 'text', false],
    ]);
    expect(field(SCHEMA, 'name')).toMatchObject({ title: 'Your name', minLength: 2, maxLength: 5, secret: false });
    expect(field(SCHEMA, 'size').options).toEqual([
      { value: 's', label: 'Small' },
      { value: 'm', label: 'Medium' },
    ]);
    expect(field(SCHEMA, 'tier').options).toEqual([
      { value: 'free', label: 'Free' },
      { value: 'pro', label: 'pro' },
    ]);
    expect(field(SCHEMA, 'tags')).toMatchObject({ minItems: 1, maxItems: 2, options: [{ value: 'a' }, { value: 'b' }, { value: 'c' }] });
    expect(field(SCHEMA, 'nested').raw).toEqual({ type: 'object', properties: {} });
    expect(field(SCHEMA, 'password')).toMatchObject({ secret: true, secretWhat: expect.stringContaining('password') });
  });

  it('anything that is not a schema of properties has no fields; huge schemas are bounded', () => {
    for (const junk of [undefined, null, 'x', 42, [], { properties: [] }, { properties: 'x' }]) expect(fieldsOf(junk)).toEqual([]);
    const properties = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`f${i}`, { type: 'string', enum: Array.from({ length: 1_500 }, (_, j) => j) }]));
    const fields = fieldsOf({ properties });
    expect(fields).toHaveLength(200);
    expect(fields[0]!.options).toHaveLength(1_000);
    expect(fieldsOf({ properties: { odd: 'not an object', n: { type: 'number', minimum: Infinity } } }).map((f) => [f.kind, f.minimum])).toEqual([
      ['unsupported', undefined],
      ['number', undefined],
    ]);
  });
});

describe('drafts and values', () => {
  it('the first draft shows defaults, nothing touched', () => {
    const schema: RequestedSchema = { properties: { a: { type: 'string', default: 'x' }, b: { type: 'boolean', default: true }, c: { type: 'number', default: 3 }, d: { type: 'array', items: { enum: ['p'] }, default: ['p'] } as never } };
    expect(initialDraft(fieldsOf(schema))).toEqual({ values: { a: 'x', b: true, c: '3', d: ['p'] }, touched: [] });
  });

  it('wire values: numbers parsed (text kept when it is not one), empty text is undefined, dates in RFC 3339', () => {
    const age = field(SCHEMA, 'age');
    expect([wireValue(age, ' 42 '), wireValue(age, ''), wireValue(age, 'abc'), wireValue(age, undefined)]).toEqual([42, undefined, 'abc', undefined]);
    expect(wireValue(field(SCHEMA, 'name'), '')).toBeUndefined();
    expect(wireValue(field(SCHEMA, 'agree'), false)).toBe(false);
    expect(wireValue(field(SCHEMA, 'tags'), 'not a list')).toEqual([]);
    const when = field(SCHEMA, 'when');
    const local = new Date(2026, 5, 7, 8, 9);
    expect(wireValue(when, toLocalInput(local.toISOString()))).toBe(local.toISOString());
    expect(wireValue(when, 'yesterday')).toBe('yesterday');
    expect(toLocalInput('not a date')).toBe('');
  });

  it('effective value: touched, else the default; a required boolean nobody touched is false', () => {
    const fields = fieldsOf(SCHEMA);
    const draft = initialDraft(fields);
    expect(effectiveValue(field(SCHEMA, 'ratio'), draft)).toBe(0.5);
    expect(effectiveValue(field(SCHEMA, 'agree'), draft)).toBe(false);
    expect(effectiveValue(field(SCHEMA, 'name'), draft)).toBeUndefined();
    const edited: Draft = { values: { ...draft.values, ratio: '', name: 'Ada' }, touched: ['ratio', 'name'] };
    expect(effectiveValue(field(SCHEMA, 'ratio'), edited)).toBe(0.5); // emptied: the default applies
    expect(effectiveValue(field(SCHEMA, 'name'), edited)).toBe('Ada');
  });

  it('each check names the one problem', () => {
    const f = (name: string) => field(SCHEMA, name);
    expect(checkField(f('name'), undefined)).toBe('Required');
    expect(checkField(f('code'), undefined)).toBeUndefined();
    expect(checkField(f('name'), 'A')).toBe('At least 2 characters');
    expect(checkField(f('name'), 'Abcdef')).toBe('At most 5 characters');
    expect(checkField(f('name'), 3)).toBe('Must be text');
    expect(checkField(f('code'), 'abc')).toBe('Must match ^[A-Z]{3}$');
    expect(checkField(f('code'), 'ABC')).toBeUndefined();
    expect(checkField(f('mail'), 'a@b')).toBe('Must be an e-mail address');
    expect(checkField(f('site'), 'not a uri')).toMatch(/^Must be a URI/);
    expect(checkField(f('site'), 'https://example.com/x')).toBeUndefined();
    expect(checkField(f('day'), '2026-1-2')).toBe('Must be a date (YYYY-MM-DD)');
    expect(checkField(f('when'), 'nope')).toBe('Must be a date and time');
    expect(checkField(f('age'), 'abc')).toBe('Must be a number');
    expect(checkField(f('age'), 1.5)).toBe('Must be a whole number');
    expect(checkField(f('age'), -1)).toBe('At least 0');
    expect(checkField(f('age'), 151)).toBe('At most 150');
    expect(checkField(f('agree'), 'yes')).toBe('Must be true or false');
    expect(checkField(f('size'), 'xl')).toBe('Choose one of the options');
    expect(checkField(f('tags'), 'a')).toBe('Must be a list');
    expect(checkField(f('tags'), ['z'])).toBe('Only the listed options');
    expect(checkField(f('tags'), [])).toBe('Choose at least 1');
    expect(checkField(f('tags'), ['a', 'b', 'c'])).toBe('Choose at most 2');
    expect(checkField(f('nested'), { anything: true })).toBeUndefined();
    // a pattern that cannot be compiled (or is over 500 characters) fails in main whatever the value: the form says so before sending
    expect(checkField(fieldsOf({ properties: { p: { type: 'string', pattern: '([' } } })[0]!, 'x')).toBe('Must match ([');
    expect(checkField(fieldsOf({ properties: { p: { type: 'string', pattern: `${'a?'.repeat(300)}` } } })[0]!, 'a')).toMatch(/^Must match /);
  });

  it('content: only what was touched, plus a required boolean shown unchecked; never an unsupported field', () => {
    const fields = fieldsOf(SCHEMA);
    const draft = initialDraft(fields);
    expect(contentOf(fields, draft)).toEqual({ agree: false });
    const edited: Draft = { values: { ...draft.values, name: 'Ada', tags: ['a'], nested: 'x', age: '7' }, touched: ['name', 'tags', 'nested', 'age'] };
    expect(contentOf(fields, edited)).toEqual({ name: 'Ada', tags: ['a'], agree: false, age: 7 });
    expect(checkDraft(fields, edited)).toEqual({});
    expect(checkDraft(fields, draft)).toEqual({ name: 'Required', tags: 'Required' });
  });
});

// ---------------------------------------------------------------------------------------
// The form's verdict is main's verdict

const STRINGS = ['', 'A', 'Ab', 'ABC', 'abcdefg', 'a@b.co', 'a@b', 'https://example.com', 'not a uri', '2026-01-02', '2026-1-2', '12', '-3', '2.5', 'abc', 's', 'm', 'free', 'pro', 'x'];

const fieldSchemaArb = fc.oneof(
  fc.record({ type: fc.constant('string'), minLength: fc.option(fc.nat(4), { nil: undefined }), maxLength: fc.option(fc.integer({ min: 2, max: 8 }), { nil: undefined }), pattern: fc.option(fc.constantFrom('^[A-Z]+$', '^a', '(['), { nil: undefined }) }, { requiredKeys: ['type'] }),
  fc.record({ type: fc.constant('string'), format: fc.constantFrom('email', 'uri', 'date') }),
  fc.record({ type: fc.constantFrom('number', 'integer'), minimum: fc.option(fc.integer({ min: -5, max: 5 }), { nil: undefined }), maximum: fc.option(fc.integer({ min: 0, max: 20 }), { nil: undefined }) }, { requiredKeys: ['type'] }),
  fc.record({ type: fc.constant('boolean') }),
  fc.record({ type: fc.constant('string'), enum: fc.constant(['s', 'm']) }),
  fc.record({ type: fc.constant('string'), oneOf: fc.constant([{ const: 'free' }, { const: 'pro' }]) }),
  fc.record({ type: fc.constant('array'), items: fc.constant({ type: 'string', enum: ['s', 'm', 'x'] }), minItems: fc.option(fc.nat(2), { nil: undefined }), maxItems: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }) }, { requiredKeys: ['type', 'items'] }),
);

const caseArb = fc
  .uniqueArray(fc.constantFrom('a', 'b', 'c', 'd', 'e'), { minLength: 1 })
  .chain((names) =>
    fc.record({
      properties: fc.tuple(...names.map((name) => fieldSchemaArb.map((schema) => [name, schema] as const))),
      required: fc.subarray(names),
      touched: fc.subarray(names),
      values: fc.tuple(...names.map(() => fc.oneof(fc.constantFrom(...STRINGS), fc.boolean(), fc.subarray(['s', 'm', 'x', 'q'])))),
    }),
  );

describe('the form and main agree', () => {
  it('a draft the form finds fine is content main accepts, and one it flags, main refuses', () => {
    fc.assert(
      fc.property(caseArb, ({ properties, required, touched, values }) => {
        const schema = { type: 'object', properties: Object.fromEntries(properties), required } as RequestedSchema;
        const fields = fieldsOf(schema);
        const draft: Draft = { values: {}, touched };
        fields.forEach((f, i) => {
          const value = values[i]!;
          // what an input of that kind can hold
          draft.values[f.name] = (f.kind === 'boolean' ? value === true : f.kind === 'multi' ? (Array.isArray(value) ? value : []) : Array.isArray(value) || typeof value === 'boolean' ? '' : value) as DraftValue;
        });
        const formProblems = checkDraft(fields, draft);
        const mainProblems = validateContent(schema, withDefaults(schema, contentOf(fields, draft)));
        expect(Object.keys(formProblems).length === 0, `form: ${JSON.stringify(formProblems)} main: ${JSON.stringify(mainProblems)}`).toBe(mainProblems.length === 0);
      }),
      { numRuns: 1_000 },
    );
  });
});
