/**
 * RFC 6570 URI templates, for string values: which variables a template has, and the URI a
 * set of values expands to. Operators `+ # . / ; ? &`, prefix (`:n`) and explode (`*`)
 * modifiers; explode is the same as plain for a string. A variable left empty counts as
 * undefined (skipped), so optional query parts (`{?q}`) disappear when not filled.
 */

export interface TemplateVariable {
  name: string;
  operator: Operator;
  /** Path-like variables (`{x}`, `{+x}`, `{/x}`) are expected; the others (`? & ; . #`) are optional parts. */
  required: boolean;
}

type Operator = '' | '+' | '#' | '.' | '/' | ';' | '?' | '&';

const OPERATORS: Record<Operator, { first: string; sep: string; named: boolean; ifEmpty: string; reserved: boolean }> = {
  '': { first: '', sep: ',', named: false, ifEmpty: '', reserved: false },
  '+': { first: '', sep: ',', named: false, ifEmpty: '', reserved: true },
  '#': { first: '#', sep: ',', named: false, ifEmpty: '', reserved: true },
  '.': { first: '.', sep: '.', named: false, ifEmpty: '', reserved: false },
  '/': { first: '/', sep: '/', named: false, ifEmpty: '', reserved: false },
  ';': { first: ';', sep: ';', named: true, ifEmpty: '', reserved: false },
  '?': { first: '?', sep: '&', named: true, ifEmpty: '=', reserved: false },
  '&': { first: '&', sep: '&', named: true, ifEmpty: '=', reserved: false },
};

const EXPRESSION = /\{([^{}]*)\}/g;

interface VarSpec {
  name: string;
  prefix?: number;
}

function parseExpression(body: string): { operator: Operator; specs: VarSpec[] } {
  const first = body[0] ?? '';
  const operator: Operator = first in OPERATORS && first !== '' ? (first as Operator) : '';
  const list = operator ? body.slice(1) : body;
  const specs: VarSpec[] = [];
  for (const raw of list.split(',')) {
    const spec = raw.trim();
    if (!spec) continue;
    const prefix = /^(.*):(\d{1,4})$/.exec(spec);
    if (prefix) specs.push({ name: prefix[1]!, prefix: Number(prefix[2]) });
    else specs.push({ name: spec.endsWith('*') ? spec.slice(0, -1) : spec });
  }
  return { operator, specs };
}

/** The template's variables in order of first appearance. */
export function templateVariables(template: string): TemplateVariable[] {
  const seen = new Map<string, TemplateVariable>();
  for (const match of template.matchAll(EXPRESSION)) {
    const { operator, specs } = parseExpression(match[1]!);
    for (const { name } of specs) {
      if (!name || seen.has(name)) continue;
      seen.set(name, { name, operator, required: operator === '' || operator === '+' || operator === '/' });
    }
  }
  return [...seen.values()];
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;
const RESERVED = /[:/?#[\]@!$&'()*+,;=]/;

function encode(value: string, allowReserved: boolean): string {
  let out = '';
  const chars = [...value];
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    if (UNRESERVED.test(ch)) out += ch;
    else if (allowReserved && RESERVED.test(ch)) out += ch;
    else if (allowReserved && ch === '%' && /^[0-9A-Fa-f]{2}$/.test((chars[i + 1] ?? '') + (chars[i + 2] ?? ''))) out += ch;
    else out += encodeURIComponent(/^[\uD800-\uDFFF]$/.test(ch) ? '\uFFFD' : ch).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`); // a lone surrogate (a server's completion, a paste) would throw
  }
  return out;
}

/** Expands the template with string values; empty or missing values are undefined. */
export function expandTemplate(template: string, values: Record<string, string>): string {
  return template.replace(EXPRESSION, (_whole, body: string) => {
    const { operator, specs } = parseExpression(body);
    const op = OPERATORS[operator];
    const parts: string[] = [];
    for (const spec of specs) {
      const raw = values[spec.name];
      if (raw === undefined || raw === '') continue;
      const value = spec.prefix !== undefined ? [...raw].slice(0, spec.prefix).join('') : raw;
      const encoded = encode(value, op.reserved);
      if (op.named) parts.push(encoded === '' ? `${encode(spec.name, false)}${op.ifEmpty}` : `${encode(spec.name, false)}=${encoded}`);
      else parts.push(encoded);
    }
    return parts.length ? op.first + parts.join(op.sep) : '';
  });
}
