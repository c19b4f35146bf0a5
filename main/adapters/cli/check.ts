/**
 * `switchboard check --config FILE [--expect FILE] [--junit FILE] [--json] [--data-dir DIR]`
 * (#16): a CI gate. Connects every server of the config, lists everything, validates every tool
 * schema, lints the tools, counts the tool list's tokens and compares with the expectations file
 * (main/core/check/). A readable report on stdout (or the report as JSON with --json), JUnit to
 * --junit FILE.
 *
 * Exit codes: 0 every check passed (warnings allowed) · 1 a check failed · 2 usage, config or
 * expectations error · 3 a server needs sign-in · 4 a server could not be reached. When several
 * apply, the first of 2, 3/4, 1 wins: a server that did not connect is its own answer.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ServerConfigInput } from '../../../contract';
import type { Core } from '../../core/app';
import { runCheck, type CheckItem, type CheckReport } from '../../core/check/run';
import { checkJUnitXml } from '../../core/check/junit';
import { ExpectationsError, parseExpectations, type Expectations } from '../../core/check/expectations';
import { BASELINES_FILE, readBaselines } from '../../core/drift/baselines';
import { EXIT, SERVER_OPTIONS, UsageError, serversFromFlags } from './args';
import { settled } from './diff';
import { cliDataDir } from './recordings';
import type { Screen } from './run';
import { CHECK_HELP } from './judge-help';



export const CHECK_OPTIONS = { ...SERVER_OPTIONS, expect: { type: 'string' }, junit: { type: 'string' } } as const;

/** A check failed (the other codes are the CLI's shared ones). */
export const CHECK_FAILED = 1;

/** What run.ts lends: its argument parser and its connect-every-server. */
export interface CheckDeps {
  parse(args: string[], options: typeof CHECK_OPTIONS): { values: Record<string, unknown>; positionals: string[] };
  connectAll(flags: Record<string, unknown>, options: { quiet: boolean; servers: ServerConfigInput[] }): Promise<{ core: Core }>;
}

const MARK: Record<CheckItem['verdict'], string> = { passed: 'PASS', failed: 'FAIL', warning: 'WARN', skipped: 'SKIP' };

export async function checkCommand(args: string[], io: Screen, deps: CheckDeps): Promise<number> {
  const { values } = deps.parse(args, CHECK_OPTIONS);
  if (values.help) {
    io.out(CHECK_HELP + '\n');
    return EXIT.ok;
  }
  const expectations = values.expect ? readExpectations(values.expect as string) : undefined;
  // The servers first (config errors are usage errors), then names in the expectations must exist.
  const servers = serversFromFlags(values);
  const unknown = Object.keys(expectations?.servers ?? {}).filter((name) => !servers.some((s) => s.name === name));
  if (unknown.length) throw new UsageError(`${values.expect}: no server named ${unknown.map((n) => `"${n}"`).join(', ')} in the config (it has: ${servers.map((s) => s.name).join(', ') || 'none'}).`);
  const wantsBaseline = Object.values(expectations?.servers ?? {}).some((s) => s.baseline !== undefined && s.baseline !== false);
  let baselines;
  if (wantsBaseline) {
    const read = readBaselines(join(cliDataDir(values['data-dir'] as string | undefined), BASELINES_FILE));
    for (const problem of read.problems) io.err(`warning: ${problem}\n`);
    baselines = read.baselines;
  }
  const { core } = await deps.connectAll(values, { quiet: true, servers });
  let report: CheckReport;
  try {
    // Some servers add tools right after initialize: read the lists once they stay put.
    await Promise.all(core.connections.all().filter((c) => c.status().state === 'connected').map((c) => settled(core, c.id)));
    report = await runCheck({ connections: core.connections.all(), store: core.trace.store, expectations, baselines });
  } finally {
    await core.shutdown();
  }
  if (values.junit) {
    try {
      writeFileSync(values.junit as string, checkJUnitXml(report), 'utf8');
    } catch (error) {
      throw new UsageError(`Cannot write --junit ${values.junit}: ${(error as Error).message}`);
    }
  }
  if (values.json) io.json(JSON.stringify(report, null, 2) + '\n');
  else io.out(describe(report, values.junit as string | undefined));
  return exitCode(report);
}

function readExpectations(path: string): Expectations {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`Cannot read --expect ${path}: ${(error as Error).message}`);
  }
  try {
    return parseExpectations(text, path);
  } catch (error) {
    if (error instanceof ExpectationsError) throw new UsageError(error.message);
    throw error;
  }
}

export function exitCode(report: CheckReport): number {
  const down = report.servers.filter((s) => !s.connected);
  if (down.length) return down.every((s) => s.errorKind === 'auth') ? EXIT.auth : EXIT.unreachable;
  return report.totals.failed > 0 ? CHECK_FAILED : EXIT.ok;
}

function describe(report: CheckReport, junit: string | undefined): string {
  const lines: string[] = [];
  const block = (item: CheckItem) => {
    const [first, ...rest] = item.message.split('\n');
    lines.push(`  ${MARK[item.verdict]}  ${item.name}${item.verdict === 'passed' ? '' : `: ${first}`}`);
    if (item.verdict !== 'passed') for (const line of rest.slice(0, 20)) lines.push(`          ${line}`);
  };
  for (const server of report.servers) {
    const { counts } = server;
    lines.push(`${server.server}: ${server.connected ? `${counts.tools} tools, ${counts.prompts} prompts, ${counts.resources} resources, ${counts.resourceTemplates} templates${server.tokens ? `, tool list ${server.tokens.count.toLocaleString('en-US')} tokens (${server.tokens.encoding})` : ''}` : 'not connected'}`);
    // Passed schema and lint items are many and say little: only their count.
    const folded = (i: CheckItem) => (i.group === 'schema' || i.group === 'lint') && i.verdict === 'passed';
    for (const item of server.items) if (!folded(item)) block(item);
    const schemas = server.items.filter((i) => folded(i) && i.group === 'schema').length;
    const rules = server.items.filter((i) => folded(i) && i.group === 'lint').length;
    if (schemas) lines.push(`  PASS  schemas of ${schemas} tool${schemas === 1 ? '' : 's'}`);
    if (rules) lines.push(`  PASS  lint: ${rules} rule${rules === 1 ? '' : 's'} without findings`);
    lines.push('');
  }
  lines.push('across servers:');
  for (const item of report.crossServer) block(item);
  const t = report.totals;
  lines.push('', `${t.passed} passed, ${t.failed} failed, ${t.warning} warnings, ${t.skipped} skipped in ${(report.durationMs / 1000).toFixed(1)} s${junit ? ` · JUnit: ${junit}` : ''}`);
  const down = report.servers.filter((s) => !s.connected).map((s) => s.server);
  lines.push(down.length ? `check: ${down.join(', ')} did not connect` : report.ok ? 'check: passed' : 'check: FAILED');
  return lines.join('\n') + '\n';
}
