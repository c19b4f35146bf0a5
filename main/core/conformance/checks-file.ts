/**
 * A scenario's `checks.json`, as the official runner writes it (`server --scenario S -o DIR` →
 * `DIR/server-S-<time>/checks.json`): read defensively. The file is the runner's, but what is in
 * it came from the server under test (error messages quote its answers), so it is bounded in
 * size, parsed with zod, and every string is cut to the contract's limits.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { CheckVerdict, ConformanceCheck } from '../../../contract/checks';

/** A checks.json larger than this is not read (a scenario writes a few KiB). */
export const MAX_CHECKS_FILE_BYTES = 4 * 1024 * 1024;
const MAX_CHECKS = 500;

const cut = (max: number) => (value: string) => (value.length > max ? `${value.slice(0, max - 1)}…` : value);

/** A spec reference's link is shown as a link: http(s) only (a `javascript:` URL from a hostile file is dropped). */
const RawCheck = z.object({
  id: z.string().transform(cut(200)),
  name: z.string().transform(cut(300)).optional(),
  description: z.string().transform(cut(2000)).optional(),
  status: z.string(),
  errorMessage: z.string().transform(cut(4000)).optional().nullable(),
  specReferences: z
    .array(z.object({ id: z.string().transform(cut(200)), url: z.string().max(2048).regex(/^https?:\/\/[^\s]+$/i).optional().catch(undefined) }).passthrough())
    .optional()
    .catch([]),
  details: z.unknown().optional(),
});

/** The runner's statuses, in the words of the report. */
export function verdictOf(status: string): CheckVerdict {
  switch (status.toUpperCase()) {
    case 'SUCCESS':
      return 'passed';
    case 'FAILURE':
      return 'failed';
    case 'WARNING':
      return 'warning';
    case 'SKIPPED':
      return 'skipped';
    case 'INFO':
      return 'info';
    default:
      return 'failed';
  }
}

function detailsText(details: unknown): string | undefined {
  if (details === undefined) return undefined;
  let text: string;
  try {
    text = JSON.stringify(details, null, 2) ?? '';
  } catch {
    return undefined;
  }
  return text.length > 20_000 ? `${text.slice(0, 19_990)}\n… (cut)` : text;
}

/** Parses the text of a checks.json; throws an Error saying what is wrong with it. */
export function parseChecks(text: string, scrub: (text: string) => string = (t) => t): ConformanceCheck[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error('checks.json is not JSON');
  }
  if (!Array.isArray(json)) throw new Error('checks.json is not an array of checks');
  const out: ConformanceCheck[] = [];
  for (const item of json.slice(0, MAX_CHECKS)) {
    const parsed = RawCheck.safeParse(item);
    if (!parsed.success) continue;
    const c = parsed.data;
    const details = detailsText(c.details);
    out.push({
      id: c.id,
      name: c.name ?? c.id,
      ...(c.description ? { description: scrub(c.description).slice(0, 2000) } : {}),
      verdict: verdictOf(c.status),
      ...(c.errorMessage ? { message: scrub(c.errorMessage).slice(0, 4000) } : {}),
      specRefs: (c.specReferences ?? []).slice(0, 20).map((r) => ({ id: r.id, ...(r.url ? { url: r.url } : {}) })),
      ...(details ? { details: scrub(details).slice(0, 20_000) } : {}),
    });
  }
  return out;
}

/** The checks.json under an output directory (the runner names its folder after the scenario and the time). */
export function findChecksFile(dir: string, depth = 3): string | undefined {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return undefined;
  }
  if (entries.includes('checks.json')) return join(dir, 'checks.json');
  if (depth <= 0) return undefined;
  for (const entry of entries.slice(0, 50)) {
    const path = join(dir, entry);
    try {
      if (!statSync(path).isDirectory()) continue;
    } catch {
      continue;
    }
    const found = findChecksFile(path, depth - 1);
    if (found) return found;
  }
  return undefined;
}

/** Reads and parses one scenario's checks, bounded; throws an Error in plain words. */
export function readChecks(dir: string, scrub?: (text: string) => string): ConformanceCheck[] {
  const file = findChecksFile(dir);
  if (!file) throw new Error('the runner wrote no checks.json');
  const size = statSync(file).size;
  if (size > MAX_CHECKS_FILE_BYTES) throw new Error(`checks.json is ${size} bytes (more than ${MAX_CHECKS_FILE_BYTES} are not read)`);
  return parseChecks(readFileSync(file, 'utf8'), scrub);
}

/** A scenario's verdict from its checks: failed if one failed, then warning, passed, info; skipped when all were. */
export function scenarioVerdict(checks: ConformanceCheck[]): CheckVerdict {
  if (checks.length === 0) return 'failed';
  const has = (v: CheckVerdict) => checks.some((c) => c.verdict === v);
  if (has('failed')) return 'failed';
  if (has('warning')) return 'warning';
  if (has('passed')) return 'passed';
  if (has('info')) return 'info';
  return 'skipped';
}
