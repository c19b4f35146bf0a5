/**
 * Replay, part 3: a tools/call answer's structuredContent checked against the tool's output
 * schema (as the target server's catalog declares it now), with the validator the renderer's
 * tool view uses (@cfworker/json-schema). The schema is the server's, so untrusted: one over
 * MAX_SCHEMA_CHARS, cut, or with a pattern that can backtrack without end (nested quantifiers,
 * the ReDoS shape) is not checked and the answer says why — main runs this check on its own
 * thread, where a hung regular expression would stop everything.
 */
import { Validator } from '@cfworker/json-schema';
import { LIMITS, TRUNCATED_KEY, depthOf, safeStringify } from '../../../contract/bounded-json';

export const MAX_SCHEMA_CHARS = 200_000;
const MAX_ERRORS = 20;

export interface SchemaCheck {
  valid: boolean;
  errors: string[];
}

/** A quantified group that itself contains a quantifier: `(a+)+`, `(\w*)*`, `(x|y+){2,}`. */
const NESTED_QUANTIFIER = /\((?:[^()\\]|\\.)*[+*}](?:[^()\\]|\\.)*\)\s*[+*{]/;

function patternsOf(schema: unknown): string[] {
  const found: string[] = [];
  const stack: unknown[] = [schema];
  while (stack.length) {
    const node = stack.pop();
    if (!node || typeof node !== 'object') continue;
    if (Array.isArray(node)) {
      stack.push(...node);
      continue;
    }
    const record = node as Record<string, unknown>;
    if (typeof record.pattern === 'string') found.push(record.pattern);
    if (record.patternProperties && typeof record.patternProperties === 'object') found.push(...Object.keys(record.patternProperties));
    stack.push(...Object.values(record));
  }
  return found;
}

function draftOf(schema: Record<string, unknown>): '4' | '7' | '2019-09' | '2020-12' {
  const id = typeof schema.$schema === 'string' ? schema.$schema : '';
  if (id.includes('draft-04')) return '4';
  if (id.includes('draft-06') || id.includes('draft-07')) return '7';
  if (id.includes('2019-09')) return '2019-09';
  return '2020-12';
}

/**
 * The check of one tools/call result. `undefined` when there is nothing to check (no output
 * schema, or an error result, which the spec exempts). Not checkable → invalid is never
 * claimed: `valid: true` with the reason in `errors`, prefixed "not checked:".
 */
export function checkStructuredContent(outputSchema: Record<string, unknown> | undefined, result: unknown): SchemaCheck | undefined {
  if (!outputSchema || !result || typeof result !== 'object') return undefined;
  const r = result as Record<string, unknown>;
  if (r.isError === true) return undefined;
  if (r.structuredContent === undefined) return { valid: false, errors: ['the tool declares an output schema but returned no structuredContent'] };
  const text = safeStringify(outputSchema);
  if (text.includes(`"${TRUNCATED_KEY}":true`)) return { valid: true, errors: [`not checked: the output schema nests deeper than ${LIMITS.carriedDepth} levels`] };
  if (text.length > MAX_SCHEMA_CHARS) return { valid: true, errors: [`not checked: the output schema is ${text.length} characters, over ${MAX_SCHEMA_CHARS}`] };
  if (depthOf(r.structuredContent, LIMITS.carriedDepth) > LIMITS.carriedDepth) return { valid: true, errors: [`not checked: structuredContent nests deeper than ${LIMITS.carriedDepth} levels`] };
  const risky = patternsOf(outputSchema).find((p) => NESTED_QUANTIFIER.test(p));
  if (risky !== undefined) return { valid: true, errors: [`not checked: the pattern ${JSON.stringify(risky.slice(0, 80))} can take unbounded time to match`] };
  try {
    const verdict = new Validator(outputSchema as never, draftOf(outputSchema), false).validate(r.structuredContent);
    if (verdict.valid) return { valid: true, errors: [] };
    // Leaf errors first: the validator reports each wrapper ("properties", "$ref") above the real cause.
    const leaves = verdict.errors.filter((e) => !['properties', '$ref', 'allOf', 'items', 'additionalProperties'].includes(e.keyword) || verdict.errors.length === 1);
    const errors = (leaves.length ? leaves : verdict.errors).slice(0, MAX_ERRORS).map((e) => `${e.instanceLocation.replace(/^#/, '') || '/'}: ${e.error}`);
    return { valid: false, errors };
  } catch (error) {
    return { valid: true, errors: [`not checked: the output schema is broken (${(error instanceof Error ? error.message : String(error)).slice(0, 200)})`] };
  }
}
