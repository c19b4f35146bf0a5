/**
 * JSON Schema validation of tool arguments and structured results, bounded for untrusted
 * schemas: too-large or too-deep schemas are refused up front, and the check itself runs in a
 * worker that is terminated after VALIDATION_TIMEOUT_MS (a pathological `pattern` cannot hang
 * the page; see validation-worker.ts). Without a worker it falls back to the main thread.
 */
import { Validator } from '@cfworker/json-schema';
import { LIMITS, depthOf } from '../../../../contract/bounded-json';
import { checkSchemaBounds, pathFromPointer, pathKey, schemaDraft, type JsonSchema, type Path, type SchemaBounds } from './schema';

export const VALIDATION_TIMEOUT_MS = 2_000;

export interface ValidateRequest {
  id: number;
  schema: unknown;
  draft: '4' | '7' | '2019-09' | '2020-12';
  instance: unknown;
}
export type ValidateReply = { id: number; ok: true; errors: RawError[] } | { id: number; ok: false; message: string };
interface RawError {
  instanceLocation: string;
  keyword: string;
  error: string;
}

export interface Issue {
  path: Path;
  keyword: string;
  message: string;
}

export type Validation =
  | { status: 'valid' }
  | { status: 'invalid'; issues: Issue[] }
  /** Not checked: the schema is out of bounds, broken, or too slow to check. */
  | { status: 'skipped'; reason: string };

const boundsCache = new WeakMap<object, SchemaBounds>();
const tooSlow = new WeakSet<object>();

export function schemaBounds(schema: JsonSchema): SchemaBounds {
  let bounds = boundsCache.get(schema);
  if (!bounds) {
    bounds = checkSchemaBounds(schema);
    boundsCache.set(schema, bounds);
  }
  return bounds;
}

// --- where checks run -----------------------------------------------------------------------

/** Runs one check off the main thread; null when it cannot (then the check runs here). */
export type Runner = (request: Omit<ValidateRequest, 'id'>) => Promise<ValidateReply> | null;
let runner: Runner = () => null;

/** Installed by `validation-worker.ts` in the renderer (tests run without it). */
export function installRunner(next: Runner): void {
  runner = next;
}

function runHere(request: Omit<ValidateRequest, 'id'>): ValidateReply {
  try {
    const result = new Validator(request.schema as never, request.draft, false).validate(request.instance);
    return { id: 0, ok: true, errors: result.valid ? [] : result.errors.map((e) => ({ instanceLocation: e.instanceLocation, keyword: e.keyword, error: e.error })) };
  } catch (error) {
    return { id: 0, ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}

// --- the API ------------------------------------------------------------------------------

/** Validates `instance` against an untrusted `schema`; never throws, never hangs the page. */
export async function validateAgainst(schema: JsonSchema, instance: unknown): Promise<Validation> {
  const bounds = schemaBounds(schema);
  if (!bounds.ok) return { status: 'skipped', reason: `Not validated: ${bounds.reason}.` };
  // The validator walks the value recursively (and the worker clones it): a value deeper than
  // anything Switchboard carries is not checked, and the caller says why (see argument-depth.ts).
  if (depthOf(instance, LIMITS.carriedDepth) > LIMITS.carriedDepth) return { status: 'skipped', reason: `Not validated: the value nests deeper than ${LIMITS.carriedDepth} levels.` };
  if (tooSlow.has(schema)) return { status: 'skipped', reason: `Not validated: checking this schema took over ${VALIDATION_TIMEOUT_MS / 1000} s before (a pathological pattern?).` };
  const request = { schema, draft: schemaDraft(schema), instance };
  let reply = await runner(request);
  if (reply && !reply.ok && reply.message === 'worker-unavailable') reply = null;
  reply ??= runHere(request);
  if (!reply.ok) {
    if (reply.message === 'timeout') {
      tooSlow.add(schema);
      return { status: 'skipped', reason: `Not validated: checking took over ${VALIDATION_TIMEOUT_MS / 1000} s and was stopped (a pathological pattern in the schema?).` };
    }
    // A schema that refers to itself without consuming the value (`{"$ref": "#"}`) recurses until the stack ends.
    if (/call stack|too much recursion/i.test(reply.message)) return { status: 'skipped', reason: 'Not validated: the schema refers to itself without end (a $ref cycle that never reaches a value).' };
    return { status: 'skipped', reason: `Not validated: the schema is broken (${reply.message.slice(0, 300)}).` };
  }
  return reply.errors.length ? { status: 'invalid', issues: toIssues(reply.errors) } : { status: 'valid' };
}

const WRAPPERS = new Set(['$ref', '$recursiveRef', 'properties', 'items', 'prefixItems', 'additionalItems', 'allOf', 'patternProperties', 'dependentSchemas', 'unevaluatedProperties', 'unevaluatedItems', 'if', 'then', 'else']);
const REQUIRED = /required property "((?:[^"\\]|\\.)*)"/;

/** Leaf issues only: "customer.email: format" rather than "customer does not match". */
export function toIssues(errors: RawError[]): Issue[] {
  const issues: Issue[] = errors.map((e) => {
    const path = pathFromPointer(e.instanceLocation);
    if (e.keyword === 'required') {
      const match = REQUIRED.exec(e.error);
      if (match) return { path: [...path, match[1]!], keyword: 'required', message: 'Required.' };
    }
    return { path, keyword: e.keyword, message: e.error };
  });
  const keys = issues.map((i) => pathKey(i.path));
  const specificAt = new Set(issues.filter((i) => !WRAPPERS.has(i.keyword)).map((i) => pathKey(i.path)));
  const seen = new Set<string>();
  return issues.filter((issue, index) => {
    const key = keys[index]!;
    const prefix = key.slice(0, -1);
    const hasDeeper = keys.some((other) => other.length > key.length && other.startsWith(prefix) && other[prefix.length] === (prefix.length > 1 ? ',' : '"'));
    if (hasDeeper && WRAPPERS.has(issue.keyword)) return false;
    if (hasDeeper && issue.path.length === 0 && issue.message.includes('does not match')) return false;
    if (WRAPPERS.has(issue.keyword) && specificAt.has(key)) return false;
    const dedupe = `${key}|${issue.message}`;
    if (seen.has(dedupe)) return false;
    seen.add(dedupe);
    return true;
  });
}
