/**
 * JSON Schema helpers for the tool form. Tool schemas come from servers: untrusted, possibly
 * huge, deep, recursive or malformed. Everything here is bounded and never throws on bad input;
 * what it cannot understand becomes a raw-JSON field.
 */

import { LIMITS, TRUNCATED_KEY, safeStringify } from '../../../../contract/bounded-json';
import { formatChars } from '../../components/format';

export type JsonSchema = Record<string, unknown>;
export type Path = (string | number)[];

/** Schemas over this size (serialized) are not turned into forms or validated. */
export const MAX_SCHEMA_CHARS = 200_000;
/** Nesting of subschemas (properties, items, anyOf…) beyond this is refused. */
export const MAX_SCHEMA_DEPTH = 20;
/** Nesting of raw JSON anywhere in the schema (defaults, enums, examples…). */
const MAX_JSON_DEPTH = 100;

const SUBSCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
const SUBSCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];
const SUBSCHEMA_SINGLE = ['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames', 'unevaluatedProperties', 'unevaluatedItems', 'additionalItems'];

export type SchemaBounds = { ok: true; chars: number; depth: number } | { ok: false; reason: string };

/** Size and depth of a schema, without recursion (a 500-level schema must not blow the stack). */
export function checkSchemaBounds(schema: unknown): SchemaBounds {
  // Never throws: a cycle or a BigInt becomes a marker, refused below like a cut.
  const text = safeStringify(schema);
  // Main cuts what crosses the contract at LIMITS.carriedDepth: such a schema is not whole.
  if (text.includes(`"${TRUNCATED_KEY}":true`)) {
    return { ok: false, reason: `the schema nests more than ${LIMITS.carriedDepth} levels deep (or cannot be serialized), so Switchboard holds it cut` };
  }
  if (text.length > MAX_SCHEMA_CHARS) {
    return { ok: false, reason: `the schema is ${formatChars(text.length)}, over the ${formatChars(MAX_SCHEMA_CHARS)} limit` };
  }
  // Raw JSON depth: one pass over the text, counting brackets outside strings.
  let jsonDepth = 0;
  let maxJsonDepth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) maxJsonDepth = Math.max(maxJsonDepth, ++jsonDepth);
    else if (c === 125 || c === 93) jsonDepth--;
  }
  if (maxJsonDepth > MAX_JSON_DEPTH) return { ok: false, reason: `the schema's JSON nests ${maxJsonDepth} levels deep, over the limit of ${MAX_JSON_DEPTH}` };
  // Subschema depth, iteratively.
  let depth = 0;
  const stack: [unknown, number][] = [[schema, 1]];
  while (stack.length) {
    const [node, level] = stack.pop()!;
    if (!isObject(node)) continue;
    depth = Math.max(depth, level);
    if (depth > MAX_SCHEMA_DEPTH) return { ok: false, reason: `subschemas nest more than ${MAX_SCHEMA_DEPTH} levels deep` };
    for (const key of SUBSCHEMA_MAPS) if (isObject(node[key])) for (const child of Object.values(node[key])) stack.push([child, level + 1]);
    for (const key of SUBSCHEMA_LISTS) if (Array.isArray(node[key])) for (const child of node[key]) stack.push([child, level + 1]);
    for (const key of SUBSCHEMA_SINGLE) {
      const child = node[key];
      if (Array.isArray(child)) for (const c of child) stack.push([c, level + 1]);
      else stack.push([child, level + 1]);
    }
  }
  return { ok: true, chars: text.length, depth };
}

export { formatChars };

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Resolves a local `$ref` (`#/…`), following chains up to a few hops. */
export function resolveSchema(schema: unknown, root: JsonSchema): JsonSchema | undefined {
  let current: unknown = schema;
  for (let hops = 0; hops < 8; hops++) {
    if (current === true) return {};
    if (!isObject(current)) return undefined;
    const ref = current.$ref;
    if (typeof ref !== 'string') return current;
    if (!ref.startsWith('#')) return undefined;
    let target: unknown = root;
    for (const raw of ref.slice(1).split('/').filter(Boolean)) {
      const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
      target = isObject(target) || Array.isArray(target) ? (target as Record<string, unknown>)[key] : undefined;
    }
    // Keywords next to $ref (2019-09+) are merged over the target, shallowly.
    const { $ref: _ref, ...siblings } = current;
    current = isObject(target) ? { ...target, ...siblings } : target;
  }
  return undefined;
}

export type FieldKind = 'string' | 'number' | 'integer' | 'boolean' | 'enum' | 'const' | 'object' | 'array' | 'raw';

export interface FieldShape {
  kind: FieldKind;
  /** The schema after unwrapping `$ref` and nullability. */
  schema: JsonSchema;
  nullable: boolean;
}

const typeList = (schema: JsonSchema): string[] => (typeof schema.type === 'string' ? [schema.type] : Array.isArray(schema.type) ? schema.type.filter((t): t is string => typeof t === 'string') : []);

/** What kind of input a schema gets. Anything not clearly one of the simple kinds is "raw". */
export function fieldShape(input: unknown, root: JsonSchema): FieldShape {
  const resolved = resolveSchema(input, root);
  if (!resolved) return { kind: 'raw', schema: {}, nullable: false };
  let schema = resolved;
  let nullable = false;
  // anyOf/oneOf: [X, {type: null}] is "nullable X".
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = schema[key];
    if (!Array.isArray(options)) continue;
    const resolvedOptions = options.map((o) => resolveSchema(o, root));
    const nonNull = resolvedOptions.filter((o) => !(o && typeList(o).length === 1 && typeList(o)[0] === 'null'));
    if (resolvedOptions.length === 2 && nonNull.length === 1 && nonNull[0]) {
      const { [key]: _options, ...rest } = schema;
      schema = { ...nonNull[0], ...rest };
      nullable = true;
    }
  }
  let types = typeList(schema);
  if (types.includes('null') && types.length > 1) {
    nullable = true;
    types = types.filter((t) => t !== 'null');
  }
  if (Array.isArray(schema.enum) && schema.enum.length > 0) {
    if (schema.enum.includes(null)) nullable = true;
    return { kind: 'enum', schema, nullable };
  }
  if ('const' in schema) return { kind: 'const', schema, nullable };
  if (schema.anyOf || schema.oneOf || schema.allOf || schema.not || schema.if) return { kind: 'raw', schema, nullable };
  if (types.length > 1) return { kind: 'raw', schema, nullable };
  const type = types[0] ?? (isObject(schema.properties) ? 'object' : schema.items !== undefined ? 'array' : undefined);
  switch (type) {
    case 'string':
    case 'number':
    case 'integer':
    case 'boolean':
      return { kind: type, schema, nullable };
    case 'object':
      return isObject(schema.properties) ? { kind: 'object', schema, nullable } : { kind: 'raw', schema, nullable };
    case 'array':
      return isObject(schema.items) || schema.items === true ? { kind: 'array', schema, nullable } : { kind: 'raw', schema, nullable };
    default:
      return { kind: 'raw', schema, nullable };
  }
}

export function requiredSet(schema: JsonSchema): Set<string> {
  return new Set(Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : []);
}

/** A deep copy of JSON data (defaults must not be shared with the schema). */
function clone<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(safeStringify(value)) as T);
}

/**
 * The value a field starts with: the schema's default; else, for required objects, an object
 * of their own starting values; for required arrays, `minItems` starting items (up to 5);
 * for required booleans, false. Everything else starts absent (undefined).
 */
export function initialValue(input: unknown, root: JsonSchema, required: boolean, depth = 0): unknown {
  if (depth > MAX_SCHEMA_DEPTH) return undefined;
  const shape = fieldShape(input, root);
  const { schema } = shape;
  if ('default' in schema) return clone(schema.default);
  if (!required) return undefined;
  switch (shape.kind) {
    case 'object': {
      const req = requiredSet(schema);
      const out: Record<string, unknown> = {};
      for (const [key, child] of Object.entries(schema.properties as Record<string, unknown>)) {
        const value = initialValue(child, root, req.has(key), depth + 1);
        if (value !== undefined) Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
      }
      return out;
    }
    case 'array': {
      const count = Math.min(5, typeof schema.minItems === 'number' ? schema.minItems : 0);
      return Array.from({ length: count }, () => initialValue(schema.items, root, true, depth + 1) ?? emptyFor(schema.items, root));
    }
    case 'boolean':
      return false;
    case 'const':
      return clone(schema.const);
    default:
      return undefined;
  }
}

/** A placeholder item for a new array entry (objects get their starting values). */
export function emptyFor(input: unknown, root: JsonSchema): unknown {
  const shape = fieldShape(input, root);
  const initial = initialValue(input, root, true);
  if (initial !== undefined) return initial;
  switch (shape.kind) {
    case 'string':
      return '';
    case 'object':
      return {};
    case 'array':
      return [];
    default:
      return null;
  }
}

/** Path segments from a validator's instance location (`#/customer/email`). */
export function pathFromPointer(pointer: string): Path {
  return pointer
    .replace(/^#/, '')
    .split('/')
    .filter((_, i) => i > 0)
    .map((raw) => {
      let text = raw;
      try {
        text = decodeURIComponent(raw);
      } catch {
        /* keep the raw segment */
      }
      return text.replace(/~1/g, '/').replace(/~0/g, '~');
    });
}

/** A stable key for a path: the form uses it to match issues to fields. */
export function pathKey(path: Path): string {
  return JSON.stringify(path.map(String));
}

/** A readable path: `customer.email`, `items[0].sku`. */
export function pathLabel(path: Path): string {
  if (path.length === 0) return '(arguments)';
  return path.map((p, i) => (typeof p === 'number' || /^\d+$/.test(String(p)) ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join('');
}

/** The dotted path used in `data-field-path` test attributes. */
export function pathAttr(path: Path): string {
  return path.map(String).join('.');
}

export function getAt(value: unknown, path: Path): unknown {
  let current = value;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    if (!Object.prototype.hasOwnProperty.call(current, key)) return undefined;
    current = (current as Record<string, unknown>)[key as string];
  }
  return current;
}

/** An immutable update: `undefined` deletes an object key. */
export function setAt(value: unknown, path: Path, next: unknown): unknown {
  if (path.length === 0) return next;
  const [head, ...rest] = path;
  if (Array.isArray(value)) {
    const copy = value.slice();
    copy[head as number] = setAt(copy[head as number], rest, next);
    return copy;
  }
  const base = isObject(value) ? value : {};
  const key = String(head);
  const child = setAt(Object.prototype.hasOwnProperty.call(base, key) ? base[key] : undefined, rest, next);
  const copy = { ...base };
  if (child === undefined) delete copy[key];
  // defineProperty, not assignment: a property named "__proto__" must stay a plain property.
  else Object.defineProperty(copy, key, { value: child, enumerable: true, writable: true, configurable: true });
  return copy;
}

/** Which JSON Schema dialect a schema declares, in @cfworker/json-schema's terms. */
export function schemaDraft(schema: JsonSchema): '4' | '7' | '2019-09' | '2020-12' {
  const id = typeof schema.$schema === 'string' ? schema.$schema : '';
  if (id.includes('draft-04')) return '4';
  if (id.includes('draft-06') || id.includes('draft-07')) return '7';
  if (id.includes('2019-09')) return '2019-09';
  return '2020-12';
}
