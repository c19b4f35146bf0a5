/**
 * The expectations file of `switchboard check --expect FILE` (#16): JSON (comments and trailing
 * commas allowed), at most MAX_EXPECT_BYTES. Its format, in full:
 *
 *   {
 *     "servers": {
 *       "NAME": {                                 // a server of --config, by name
 *         "tools":     { "present": ["echo"], "absent": ["debug_eval"] },
 *         "prompts":   { "present": [...], "absent": [...] },
 *         "resources": { "present": ["file:///a"], "absent": [...] },   // by uri
 *         "calls": [                              // measured on a real tools/call
 *           { "tool": "echo", "args": { "text": "hi" }, "maxMs": 500, "timeoutMs": 10000 }
 *         ],
 *         "maxToolTokens": 4000,                  // the tool list's o200k token count at most
 *         "baseline": true                        // the pinned baseline of this name in --data-dir
 *                                                 // (or "OTHER" for another name or id); fails on
 *                                                 // breaking changes, or any with {"server":…, "failOn":"any"}
 *       }
 *     },
 *     "lint": { "missing-description": "warning", "model-instructions": "error", "name-too-long": "off" }
 *   }
 *
 * A server named here but not in the config is a usage error (a typo must not pass). A call whose
 * result is `isError` fails, as does one that takes longer than `maxMs` (the time of the whole
 * request, measured here) or `timeoutMs` (default 30 s).
 */
import { parse as parseJsonc, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { z } from 'zod';
import { LINT_RULES } from './lint';

export const MAX_EXPECT_BYTES = 1024 * 1024;

const name = z.string().min(1).max(1_000);
const names = z.array(name).max(10_000);
const presence = z.strictObject({ present: names.optional(), absent: names.optional() });

export const ExpectedCall = z.strictObject({
  tool: name,
  args: z.record(z.string(), z.unknown()).optional(),
  maxMs: z.number().positive().max(3_600_000),
  timeoutMs: z.number().positive().max(3_600_000).optional(),
});
export type ExpectedCall = z.output<typeof ExpectedCall>;

export const ServerExpectations = z.strictObject({
  tools: presence.optional(),
  prompts: presence.optional(),
  resources: presence.optional(),
  calls: z.array(ExpectedCall).max(100).optional(),
  maxToolTokens: z.number().int().positive().optional(),
  baseline: z.union([z.boolean(), name, z.strictObject({ server: name.optional(), failOn: z.enum(['breaking', 'any']).optional() })]).optional(),
});
export type ServerExpectations = z.output<typeof ServerExpectations>;

export const LintLevel = z.enum(['error', 'warning', 'off']);
export type LintLevel = z.output<typeof LintLevel>;

export const Expectations = z.strictObject({
  $schema: z.string().max(2_000).optional(),
  servers: z.record(name, ServerExpectations).optional(),
  lint: z.partialRecord(z.enum(LINT_RULES as [string, ...string[]]), LintLevel).optional(),
});
export type Expectations = z.output<typeof Expectations>;

export class ExpectationsError extends Error {}

/** Parses an expectations file's text; throws ExpectationsError saying where it is wrong. */
export function parseExpectations(text: string, label = 'expectations'): Expectations {
  if (Buffer.byteLength(text, 'utf8') > MAX_EXPECT_BYTES) throw new ExpectationsError(`${label} is larger than ${MAX_EXPECT_BYTES.toLocaleString('en-US')} bytes.`);
  const errors: ParseError[] = [];
  const raw: unknown = parseJsonc(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length) {
    const first = errors[0]!;
    const line = text.slice(0, first.offset).split('\n').length;
    throw new ExpectationsError(`${label}:${line}: not valid JSON (${printParseErrorCode(first.error)}).`);
  }
  const parsed = Expectations.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ExpectationsError(`${label}: ${issue.path.map(String).join('.') || '(top)'}: ${issue.message}`);
  }
  return parsed.data;
}
