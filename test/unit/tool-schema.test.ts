/**
 * The Tools view's schema helpers on untrusted input: bounds, starting values, safe updates,
 * issue paths, and validation (here on the main-thread fallback: Node has no Worker global).
 */
import { describe, expect, it } from 'vitest';
import { checkSchemaBounds, fieldShape, initialValue, pathFromPointer, setAt } from '../../renderer/src/features/tools/schema';
import { toIssues, validateAgainst } from '../../renderer/src/features/tools/validation';
import { judgeIcons } from '../../renderer/src/features/tools/icons';

const order = {
  type: 'object',
  properties: {
    customer: { type: 'object', properties: { name: { type: 'string', minLength: 1 }, email: { type: 'string', format: 'email' } }, required: ['name', 'email'] },
    items: { type: 'array', minItems: 1, items: { type: 'object', properties: { sku: { type: 'string' }, qty: { type: 'integer', minimum: 1 } }, required: ['sku', 'qty'] } },
    shipping: { type: 'object', properties: { express: { type: 'boolean', default: false } } },
    notes: { anyOf: [{ type: 'string' }, { type: 'null' }] },
    priority: { type: 'string', enum: ['low', 'normal', 'high'], default: 'normal' },
  },
  required: ['customer', 'items'],
};

function nested(levels: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < levels; i++) schema = { type: 'object', properties: { d: schema } };
  return schema;
}

describe('schema bounds', () => {
  it('accepts ordinary schemas and refuses deep or huge ones, without recursion', () => {
    expect(checkSchemaBounds(order)).toMatchObject({ ok: true });
    expect(checkSchemaBounds(nested(19))).toMatchObject({ ok: true });
    expect(checkSchemaBounds(nested(20))).toMatchObject({ ok: false });
    expect(checkSchemaBounds(nested(5000))).toMatchObject({ ok: false });
    const huge = { type: 'object', description: 'x'.repeat(300_000) };
    expect(checkSchemaBounds(huge)).toMatchObject({ ok: false, reason: expect.stringContaining('over the 200 KB limit') });
  });
});

describe('form model', () => {
  it('starts from defaults, required objects and minItems', () => {
    expect(initialValue(order, order, true)).toEqual({ customer: {}, items: [{}], priority: 'normal' });
  });

  it('reads nullable anyOf as a nullable string and resolves local $refs', () => {
    expect(fieldShape(order.properties.notes, order)).toMatchObject({ kind: 'string', nullable: true });
    const withRef = { $defs: { qty: { type: 'integer' } }, type: 'object', properties: { q: { $ref: '#/$defs/qty' } } };
    expect(fieldShape(withRef.properties.q, withRef)).toMatchObject({ kind: 'integer' });
    expect(fieldShape({ $ref: 'https://elsewhere.invalid/schema' }, withRef)).toMatchObject({ kind: 'raw' });
  });

  it('keeps a property named __proto__ a plain property', () => {
    const next = setAt({}, ['__proto__'], { polluted: true }) as Record<string, unknown>;
    expect(Object.getPrototypeOf(next)).toBe(Object.prototype);
    expect(JSON.stringify(next)).toBe('{"__proto__":{"polluted":true}}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('decodes validator pointers', () => {
    expect(pathFromPointer('#/items/0/qty')).toEqual(['items', '0', 'qty']);
    expect(pathFromPointer('#/%3Cscript%3E/a~1b')).toEqual(['<script>', 'a/b']);
  });
});

describe('validation', () => {
  it('reports leaf issues with their paths', async () => {
    const result = await validateAgainst(order, { customer: { name: 'Ada', email: 'nope' }, items: [{ sku: 'A', qty: 0 }] });
    expect(result.status).toBe('invalid');
    const issues = result.status === 'invalid' ? result.issues.map((i) => [i.path.join('.'), i.keyword]) : [];
    expect(issues).toEqual(expect.arrayContaining([['customer.email', 'format'], ['items.0.qty', 'minimum']]));
    expect(issues.some(([path]) => path === '')).toBe(false);
  });

  it('maps a missing required property to its own path', () => {
    const issues = toIssues([
      { instanceLocation: '#', keyword: 'properties', error: 'Property "customer" does not match schema.' },
      { instanceLocation: '#/customer', keyword: 'required', error: 'Instance does not have required property "name".' },
    ]);
    expect(issues).toEqual([{ path: ['customer', 'name'], keyword: 'required', message: 'Required.' }]);
  });

  it('says why it did not validate instead of throwing', async () => {
    expect(await validateAgainst(nested(30), {})).toMatchObject({ status: 'skipped' });
    expect(await validateAgainst({ type: 'string', pattern: '(unclosed' }, 'x')).toMatchObject({ status: 'skipped', reason: expect.stringContaining('broken') });
    expect(await validateAgainst({ type: 'object', properties: { sum: { type: 'number' } } }, { sum: 42 })).toEqual({ status: 'valid' });
  });
});

describe('icons', () => {
  it('renders only small raster data URIs', () => {
    expect(judgeIcons([{ src: 'data:image/png;base64,iVBORw0KGgo=' }])).toMatchObject({ safe: true });
    for (const src of ['data:image/svg+xml;base64,PHN2Zz4=', 'javascript:alert(1)', 'https://example.com/i.png', 'data:text/html,<script>', `data:image/png;base64,${'A'.repeat(200_000)}`]) {
      expect(judgeIcons([{ src }])).toMatchObject({ safe: false });
    }
    expect(judgeIcons(undefined)).toBeNull();
  });
});
