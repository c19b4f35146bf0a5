/**
 * `switchboard check`'s schema checks (#16): each tool's inputSchema and outputSchema as the spec
 * says they are — JSON Schema 2020-12 unless `$schema` says otherwise, an object schema at the
 * root — checked against the 2020-12 meta-schema and compiled with Ajv's 2020 build, so every
 * `$ref` must resolve. A schema that declares draft-07 (or 06) is checked as draft-07 with Ajv's
 * default build; any other declared dialect only for its shape (a warning). Refs are resolved where they point (`#/$defs/…`, an `$id` or `$anchor` in
 * the same schema), never inlined or rewritten: the schema checked is the server's, byte for byte.
 * A ref to anything outside the schema is not fetched (nothing leaves the machine): it fails as
 * unresolvable.
 *
 * The schemas are hostile: one over MAX_SCHEMA_CHARS or nesting deeper than the carried depth
 * is not compiled (said as a failure). One Ajv per dialect checks them in turn (each schema removed
 * after it); a schema carrying an `$id` gets a fresh Ajv, so it cannot shadow another's. Compiling
 * builds regular expressions but never runs them.
 */
import Ajv07 from 'ajv';
import Ajv2020 from 'ajv/dist/2020.js';
import { LIMITS, depthOf } from '../../../contract/bounded-json';

export const MAX_SCHEMA_CHARS = 200_000;
const DRAFT_2020 = '//json-schema.org/draft/2020-12/schema';

export interface SchemaVerdict {
  verdict: 'passed' | 'failed' | 'warning';
  message: string;
}

function errorsText(errors: readonly { instancePath?: string; message?: string; params?: unknown }[] | null | undefined): string {
  return (errors ?? [])
    .slice(0, 5)
    .map((e) => `${e.instancePath || '/'} ${e.message ?? 'invalid'}`)
    .join('; ');
}

type Dialect = '2020-12' | 'draft-07';
type AnyAjv = Ajv2020 | Ajv07;

function newAjv(dialect: Dialect): AnyAjv {
  const options = { strict: false, allErrors: true, validateFormats: false } as const;
  return dialect === '2020-12' ? new Ajv2020(options) : new Ajv07(options);
}

/** Compiling the meta-schema is most of a fresh Ajv's cost (~15 ms a schema, bench/check.ts; ~1 ms with a shared one): one per dialect, each checked schema removed after it. */
const shared = new Map<Dialect, AnyAjv>();
function sharedAjv(dialect: Dialect): AnyAjv {
  let ajv = shared.get(dialect);
  if (!ajv) shared.set(dialect, (ajv = newAjv(dialect)));
  return ajv;
}

/** One schema of one tool. `which`: inputSchema (required) or outputSchema (optional). */
export function checkToolSchema(schema: unknown, which: 'inputSchema' | 'outputSchema'): SchemaVerdict {
  if (schema === undefined) return which === 'inputSchema' ? { verdict: 'failed', message: 'the tool has no inputSchema (the spec requires one; an empty object schema is {"type":"object"})' } : { verdict: 'passed', message: 'no outputSchema' };
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return { verdict: 'failed', message: `${which} is ${Array.isArray(schema) ? 'an array' : typeof schema}, not a JSON Schema object` };
  if (depthOf(schema, LIMITS.carriedDepth + 1) > LIMITS.carriedDepth) return { verdict: 'failed', message: `${which} nests deeper than ${LIMITS.carriedDepth} levels: not compiled` };
  let size: number;
  try {
    size = JSON.stringify(schema).length;
  } catch {
    return { verdict: 'failed', message: `${which} cannot be serialized` };
  }
  if (size > MAX_SCHEMA_CHARS) return { verdict: 'failed', message: `${which} is ${size.toLocaleString('en-US')} characters, over the ${MAX_SCHEMA_CHARS.toLocaleString('en-US')} checked` };
  const record = schema as Record<string, unknown>;
  const problems: string[] = [];
  if (record.type !== 'object') problems.push(`its root "type" is ${JSON.stringify(record.type) ?? 'missing'}, the spec requires "object"`);
  const declared = typeof record.$schema === 'string' ? record.$schema.replace(/#$/, '').replace(/^https?:/, '') : undefined;
  // 2020-12 unless declared otherwise (the spec's default); draft-07 (and 06, a subset) as declared.
  const dialect = declared === undefined || declared === DRAFT_2020 ? '2020-12' : /^\/\/json-schema\.org\/draft-0[67]\/schema$/.test(declared) ? 'draft-07' : undefined;
  if (!dialect) {
    return problems.length ? { verdict: 'failed', message: `${which}: ${problems.join('; ')}` } : { verdict: 'warning', message: `${which} declares $schema ${String(record.$schema).slice(0, 100)}: only its shape was checked (Switchboard checks 2020-12 and draft-07)` };
  }
  // A schema that names itself or a part ($id) gets a validator of its own, so it cannot shadow another's.
  const ajv = /"\$id"\s*:/.test(JSON.stringify(record)) ? newAjv(dialect) : sharedAjv(dialect);
  if (!ajv.validateSchema(record)) problems.push(`not a valid JSON Schema ${dialect}: ${errorsText(ajv.errors)}`);
  else {
    try {
      ajv.compile(record);
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      problems.push(/can't resolve reference/i.test(text) ? `a $ref does not resolve (${text.replace(/^can't resolve reference\s*/i, '').slice(0, 200)}; refs outside the schema are not fetched)` : `does not compile: ${text.slice(0, 300)}`);
    } finally {
      ajv.removeSchema(record);
    }
  }
  if (problems.length) return { verdict: 'failed', message: `${which}: ${problems.join('; ')}` };
  const refs = JSON.stringify(record).match(/"\$ref":/g)?.length ?? 0;
  return { verdict: 'passed', message: `${which} is valid JSON Schema ${dialect}${refs ? ` (${refs} $ref${refs === 1 ? '' : 's'} resolved)` : ''}` };
}
