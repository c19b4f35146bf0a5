/**
 * Elicitation form answers: defaults applied to untouched fields, then checked against the
 * requested schema (a flat object of primitives) so a server gets what it asked for.
 */
import { isUri, safeRegExp } from '../../../contract/field-checks';
export interface FieldSchema {
  type?: string;
  title?: string;
  description?: string;
  default?: unknown;
  enum?: unknown[];
  oneOf?: { const?: unknown; title?: string }[];
  items?: { enum?: unknown[]; anyOf?: { const?: unknown }[]; type?: string };
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
}

export interface RequestedSchema {
  type?: string;
  properties?: Record<string, FieldSchema>;
  required?: string[];
}

/** The schema's defaults, overlaid with what was supplied. */
export function withDefaults(schema: RequestedSchema, supplied: Record<string, unknown> = {}): Record<string, unknown> {
  const content: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(schema.properties ?? {})) if (field.default !== undefined) content[name] = field.default;
  for (const [name, value] of Object.entries(supplied)) if (value !== undefined && value !== '') content[name] = value;
  return content;
}

/** Required fields that have neither a value nor a default. */
export function missingRequired(schema: RequestedSchema, content: Record<string, unknown>): string[] {
  return (schema.required ?? []).filter((name) => content[name] === undefined || content[name] === '');
}

/** Readable problems with an answer, field by field; empty when it is valid. */
export function validateContent(schema: RequestedSchema, content: Record<string, unknown>): string[] {
  const problems = missingRequired(schema, content).map((name) => `${name} is required`);
  for (const [name, value] of Object.entries(content)) {
    const field = schema.properties?.[name];
    if (!field) {
      problems.push(`${name} is not a field of the request`);
      continue;
    }
    const allowed = field.enum ?? field.oneOf?.map((o) => o.const);
    if (field.type === 'string') {
      if (typeof value !== 'string') problems.push(`${name} must be text`);
      else {
        if (allowed && !allowed.includes(value)) problems.push(`${name} must be one of ${allowed.join(', ')}`);
        if (field.minLength !== undefined && value.length < field.minLength) problems.push(`${name} must have at least ${field.minLength} characters`);
        if (field.maxLength !== undefined && value.length > field.maxLength) problems.push(`${name} must have at most ${field.maxLength} characters`);
        if (field.pattern && !safeRegExp(field.pattern)?.test(value)) problems.push(`${name} does not match ${field.pattern}`);
        if (field.format === 'email' && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(value)) problems.push(`${name} must be an email address`);
        if (field.format === 'uri' && !isUri(value)) problems.push(`${name} must be a URI`);
        if (field.format === 'date' && !/^\d{4}-\d{2}-\d{2}$/.test(value)) problems.push(`${name} must be a date (YYYY-MM-DD)`);
        if (field.format === 'date-time' && Number.isNaN(Date.parse(value))) problems.push(`${name} must be a date and time`);
      }
    } else if (field.type === 'number' || field.type === 'integer') {
      if (typeof value !== 'number' || Number.isNaN(value)) problems.push(`${name} must be a number`);
      else {
        if (field.type === 'integer' && !Number.isInteger(value)) problems.push(`${name} must be a whole number`);
        if (field.minimum !== undefined && value < field.minimum) problems.push(`${name} must be at least ${field.minimum}`);
        if (field.maximum !== undefined && value > field.maximum) problems.push(`${name} must be at most ${field.maximum}`);
      }
    } else if (field.type === 'boolean') {
      if (typeof value !== 'boolean') problems.push(`${name} must be true or false`);
    } else if (field.type === 'array') {
      if (!Array.isArray(value)) problems.push(`${name} must be a list`);
      else {
        const options = field.items?.enum ?? field.items?.anyOf?.map((o) => o.const);
        if (options && value.some((v) => !options.includes(v))) problems.push(`${name} may only contain ${options.join(', ')}`);
        if (field.minItems !== undefined && value.length < field.minItems) problems.push(`${name} needs at least ${field.minItems} choices`);
        if (field.maxItems !== undefined && value.length > field.maxItems) problems.push(`${name} allows at most ${field.maxItems} choices`);
      }
    }
  }
  return problems;
}
