/**
 * An elicitation form's model: the server's `requestedSchema` (a flat object of primitives) read
 * into fields, the draft a person edits, per-field checks (the same rules main applies before a
 * reply leaves), and the content sent back — only the fields the person touched; main merges the
 * schema's defaults for the rest.
 */

import { isUri, looksLikeSecret, safeRegExp, secretAskedFor } from '../../../../contract/field-checks';
export type FieldKind = 'text' | 'email' | 'uri' | 'date' | 'date-time' | 'number' | 'integer' | 'boolean' | 'select' | 'multi' | 'unsupported';

export interface Option {
  value: string;
  label: string;
}

export interface FieldModel {
  name: string;
  title: string;
  description?: string;
  required: boolean;
  kind: FieldKind;
  options?: Option[];
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  default?: unknown;
  /** The field asks for a secret (a password, token, key, PIN…): warned about. */
  secret: boolean;
  /** What it asks for, as the warning says it ("a password", "an API key"). */
  secretWhat?: string;
  /** The raw schema of a field this form cannot edit (shown as JSON). */
  raw?: unknown;
}

/** What the inputs hold: text as typed, booleans, multi-select lists. */
export type DraftValue = string | boolean | string[];

export interface Draft {
  values: Record<string, DraftValue>;
  touched: string[];
}

const MAX_FIELDS = 200;
const MAX_OPTIONS = 1_000;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const text = (v: unknown) => (typeof v === 'string' ? v : undefined);

export { looksLikeSecret };

export function fieldsOf(schema: unknown): FieldModel[] {
  if (!isObject(schema) || !isObject(schema.properties)) return [];
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : []);
  return Object.entries(schema.properties)
    .slice(0, MAX_FIELDS)
    .map(([name, raw]) => fieldOf(name, raw, required.has(name)));
}

function fieldOf(name: string, raw: unknown, required: boolean): FieldModel {
  const field = shapeOf(name, raw, required);
  const what = secretAskedFor({ name, title: isObject(raw) ? text(raw.title) : undefined, description: field.description, kind: field.kind });
  return what ? { ...field, secret: true, secretWhat: what } : field;
}

function shapeOf(name: string, raw: unknown, required: boolean): FieldModel {
  const s = isObject(raw) ? raw : {};
  const title = text(s.title) ?? name;
  const description = text(s.description);
  const base = { name, title, description, required, default: s.default, secret: false };
  if (s.type === 'string') {
    if (Array.isArray(s.oneOf)) {
      const options = s.oneOf.slice(0, MAX_OPTIONS).filter(isObject).map((o) => ({ value: String(o.const ?? ''), label: text(o.title) ?? String(o.const ?? '') }));
      return { ...base, kind: 'select', options };
    }
    if (Array.isArray(s.enum)) {
      const names = Array.isArray(s.enumNames) ? s.enumNames : [];
      const options = s.enum.slice(0, MAX_OPTIONS).map((v, i) => ({ value: String(v), label: text(names[i]) ?? String(v) }));
      return { ...base, kind: 'select', options };
    }
    const format = s.format;
    const kind: FieldKind = format === 'email' ? 'email' : format === 'uri' ? 'uri' : format === 'date' ? 'date' : format === 'date-time' ? 'date-time' : 'text';
    return { ...base, kind, minLength: num(s.minLength), maxLength: num(s.maxLength), pattern: text(s.pattern) };
  }
  if (s.type === 'number' || s.type === 'integer') return { ...base, kind: s.type, minimum: num(s.minimum), maximum: num(s.maximum) };
  if (s.type === 'boolean') return { ...base, kind: 'boolean' };
  if (s.type === 'array' && isObject(s.items)) {
    const items = s.items;
    const options = Array.isArray(items.anyOf)
      ? items.anyOf.slice(0, MAX_OPTIONS).filter(isObject).map((o) => ({ value: String(o.const ?? ''), label: text(o.title) ?? String(o.const ?? '') }))
      : Array.isArray(items.enum)
        ? items.enum.slice(0, MAX_OPTIONS).map((v) => ({ value: String(v), label: String(v) }))
        : undefined;
    if (options) return { ...base, kind: 'multi', options, minItems: num(s.minItems), maxItems: num(s.maxItems) };
  }
  return { ...base, kind: 'unsupported', raw };
}

/** The starting draft: defaults shown in the inputs (untouched: main applies them anyway). */
export function initialDraft(fields: FieldModel[]): Draft {
  const values: Record<string, DraftValue> = {};
  for (const f of fields) values[f.name] = displayOf(f, f.default);
  return { values, touched: [] };
}

function displayOf(field: FieldModel, value: unknown): DraftValue {
  switch (field.kind) {
    case 'boolean':
      return value === true;
    case 'multi':
      return Array.isArray(value) ? value.map(String) : [];
    case 'date-time':
      return typeof value === 'string' ? toLocalInput(value) : '';
    default:
      return value === undefined || value === null ? '' : String(value);
  }
}

/** `datetime-local` shows local time without a zone; the wire wants RFC 3339. */
export function toLocalInput(iso: string): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return '';
  const d = new Date(t);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** A draft value as the wire value; undefined when empty (the default, if any, then applies). */
export function wireValue(field: FieldModel, value: DraftValue | undefined): unknown {
  if (value === undefined) return undefined;
  switch (field.kind) {
    case 'boolean':
      return value === true;
    case 'multi':
      return Array.isArray(value) ? value : [];
    case 'number':
    case 'integer': {
      const s = String(value).trim();
      if (s === '') return undefined;
      const n = Number(s);
      return Number.isNaN(n) ? s : n;
    }
    case 'date-time': {
      const s = String(value).trim();
      if (s === '') return undefined;
      const t = Date.parse(s);
      return Number.isNaN(t) ? s : new Date(t).toISOString();
    }
    default: {
      const s = String(value);
      return s === '' ? undefined : s;
    }
  }
}

/**
 * What the server will get for a field: the touched value, else the default. A required
 * boolean nobody touched is sent as it shows: false.
 */
export function effectiveValue(field: FieldModel, draft: Draft): unknown {
  if (draft.touched.includes(field.name)) return wireValue(field, draft.values[field.name]) ?? field.default;
  if (field.default !== undefined) return field.default;
  if (field.kind === 'boolean' && field.required) return false;
  return undefined;
}

/** The one problem with a field's value, or undefined. */
export function checkField(field: FieldModel, value: unknown): string | undefined {
  if (value === undefined) return field.required ? 'Required' : undefined;
  switch (field.kind) {
    case 'text':
    case 'email':
    case 'uri':
    case 'date':
    case 'date-time': {
      if (typeof value !== 'string') return 'Must be text';
      if (field.minLength !== undefined && value.length < field.minLength) return `At least ${field.minLength} characters`;
      if (field.maxLength !== undefined && value.length > field.maxLength) return `At most ${field.maxLength} characters`;
      if (field.pattern) {
        const re = safeRegExp(field.pattern);
        // a pattern that cannot be used (invalid, too long) fails in main too (main/core/requests/elicitation.ts): say so before sending
        if (!re || !re.test(value)) return `Must match ${field.pattern.slice(0, 120)}`;
      }
      if (field.kind === 'email' && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(value)) return 'Must be an e-mail address';
      if (field.kind === 'uri' && !isUri(value)) return 'Must be a URI, such as https://example.com';
      if (field.kind === 'date' && !/^\d{4}-\d{2}-\d{2}$/.test(value)) return 'Must be a date (YYYY-MM-DD)';
      if (field.kind === 'date-time' && Number.isNaN(Date.parse(value))) return 'Must be a date and time';
      return undefined;
    }
    case 'number':
    case 'integer':
      if (typeof value !== 'number' || Number.isNaN(value)) return 'Must be a number';
      if (field.kind === 'integer' && !Number.isInteger(value)) return 'Must be a whole number';
      if (field.minimum !== undefined && value < field.minimum) return `At least ${field.minimum}`;
      if (field.maximum !== undefined && value > field.maximum) return `At most ${field.maximum}`;
      return undefined;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'Must be true or false';
    case 'select':
      return field.options?.some((o) => o.value === value) ? undefined : 'Choose one of the options';
    case 'multi': {
      if (!Array.isArray(value)) return 'Must be a list';
      if (value.some((v) => !field.options?.some((o) => o.value === v))) return 'Only the listed options';
      if (field.minItems !== undefined && value.length < field.minItems) return `Choose at least ${field.minItems}`;
      if (field.maxItems !== undefined && value.length > field.maxItems) return `Choose at most ${field.maxItems}`;
      return undefined;
    }
    default:
      return undefined;
  }
}

export function checkDraft(fields: FieldModel[], draft: Draft): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const field of fields) {
    const problem = checkField(field, effectiveValue(field, draft));
    if (problem) errors[field.name] = problem;
  }
  return errors;
}

/** The answer's content: the touched fields only (and a required boolean shown unchecked). */
export function contentOf(fields: FieldModel[], draft: Draft): Record<string, unknown> {
  const content: Record<string, unknown> = {};
  for (const field of fields) {
    if (field.kind === 'unsupported') continue;
    const touched = draft.touched.includes(field.name);
    const value = touched ? wireValue(field, draft.values[field.name]) : field.kind === 'boolean' && field.required && field.default === undefined ? false : undefined;
    if (value !== undefined) content[field.name] = value;
  }
  return content;
}
