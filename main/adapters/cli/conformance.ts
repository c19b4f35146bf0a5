/**
 * `switchboard conformance --url URL [--header "K: V"]... | --stdio "CMD ARGS" [--scenario S]... [--json] [--junit FILE] [--data-dir DIR]`
 * (#16): the official conformance suite's server scenarios against a server (a stdio one through
 * a stdio→HTTP bridge, main/core/conformance/stdio-bridge.ts), through a
 * recording proxy (the run's recording is kept in the library). A table for people, `--json`
 * the ConformanceReport, `--junit` a JUnit file (one testsuite per scenario, a testcase per check).
 * Ctrl-C cancels: the finished scenarios are reported, the rest skipped.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { CheckProgress, ConformanceReport, ConformanceScenario } from '../../../contract/checks';
import { conformanceJUnit } from '../../core/conformance/junit';
import { runServerConformance, runStdioConformance } from '../../core/conformance/server';
import { splitCommandLine } from '../../../contract/command-line';
import { junitXml } from '../../core/report/junit';
import { EXIT, UsageError, parseHeaders } from './args';
import { cliDataDir, libraryDir } from './recordings';
import type { Screen } from './run';
import { CONFORMANCE_HELP } from './judge-help';

/** Exit codes of `conformance` (0, 2 and 4 as everywhere in the CLI). */
export const CONFORMANCE_EXIT = { ok: 0, failed: 1, usage: EXIT.usage, unreachable: EXIT.unreachable, cannotRun: 7, cancelled: 130 } as const;



const VERDICT_LABEL: Record<ConformanceScenario['verdict'], string> = { passed: 'passed', failed: 'FAILED', warning: 'warning', 'not-applicable': 'n/a', skipped: 'skipped', info: 'info' };

/** The report for people: a line per scenario, the failed (and warning) checks under it. */
export function conformanceTable(report: ConformanceReport): string {
  const lines: string[] = [`Conformance: ${report.url} (@modelcontextprotocol/conformance ${report.suiteVersion}, ${(report.durationMs / 1000).toFixed(1)} s)`];
  if (report.problem) return `${lines[0]}\n${report.problem}\n`;
  const width = Math.min(40, Math.max(10, ...report.scenarios.map((s) => s.name.length)));
  for (const scenario of report.scenarios) {
    const why = scenario.verdict === 'not-applicable' || scenario.verdict === 'skipped' ? `  ${scenario.reason ?? ''}` : '';
    lines.push(`  ${scenario.name.padEnd(width)}  ${VERDICT_LABEL[scenario.verdict].padEnd(7)}${why}`);
    for (const check of scenario.checks) {
      if (check.verdict !== 'failed' && check.verdict !== 'warning') continue;
      lines.push(`      ${check.verdict === 'failed' ? '✗' : '!'} ${check.id}: ${check.message ?? check.name}`);
      for (const ref of check.specRefs) lines.push(`        spec ${ref.id}${ref.url ? ` ${ref.url}` : ''}`);
      if (check.exchange) lines.push(`        exchange: seq ${check.exchange.seq} of ${check.exchange.source}`);
    }
  }
  const c = report.counts;
  lines.push(`${c.passed} passed, ${c.failed} failed, ${c.warning} with warnings, ${c.notApplicable} not applicable, ${c.skipped} skipped`);
  if (report.traceSource) lines.push(`Trace: recording ${report.traceSource.replace(/^rec-/, '')} in the library (open it in the app's Recordings, or: switchboard recordings export ${report.traceSource.replace(/^rec-/, '')} --format har)`);
  return `${lines.join('\n')}\n`;
}

export function conformanceExitCode(report: ConformanceReport, cancelled: boolean): number {
  if (cancelled) return CONFORMANCE_EXIT.cancelled;
  switch (report.problemKind) {
    case undefined:
      return report.counts.failed > 0 ? CONFORMANCE_EXIT.failed : CONFORMANCE_EXIT.ok;
    case 'unreachable':
      return CONFORMANCE_EXIT.unreachable;
    case 'unknown-scenario':
    case 'stdio':
      return CONFORMANCE_EXIT.usage;
    default:
      return CONFORMANCE_EXIT.cannotRun;
  }
}

export async function conformanceCommand(args: string[], io: Screen, signal?: AbortSignal): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        url: { type: 'string' },
        stdio: { type: 'string' },
        header: { type: 'string', multiple: true },
        scenario: { type: 'string', multiple: true },
        json: { type: 'boolean', default: false },
        junit: { type: 'string' },
        'data-dir': { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError(`conformance: ${(error as Error).message}\n${CONFORMANCE_HELP}`);
  }
  if (values.help) {
    io.out(`${CONFORMANCE_HELP}\n`);
    return CONFORMANCE_EXIT.ok;
  }
  if (!values.url === !values.stdio) throw new UsageError(`conformance needs --url (the server's MCP endpoint, e.g. http://127.0.0.1:3000/mcp) or --stdio "CMD ARGS", one of them.\n${CONFORMANCE_HELP}`);
  let target: { url: URL } | { command: string; args: string[] };
  if (values.stdio) {
    if (values.header?.length) throw new UsageError('conformance: --header is for --url (a stdio server gets no HTTP headers).');
    const [command, ...args] = splitCommandLine(values.stdio);
    if (!command) throw new UsageError('conformance: --stdio needs a command.');
    target = { command, args };
  } else {
    let url: URL;
    try {
      url = new URL(values.url!);
    } catch {
      throw new UsageError(`conformance: --url ${JSON.stringify(values.url!.slice(0, 200))} is not a URL.`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`conformance: --url must be http: or https: (got ${url.protocol}); for a local command use --stdio.`);
    if (url.username || url.password) throw new UsageError('conformance: --url must not carry user:password; give credentials with --header.');
    target = { url };
  }
  const headers = Object.entries(parseHeaders(values.header ?? []));

  const controller = new AbortController();
  signal?.addEventListener('abort', () => controller.abort(), { once: true });
  const onSigint = () => controller.abort();
  process.once('SIGINT', onSigint);
  let report: ConformanceReport;
  try {
    const common = {
      ...(values.scenario?.length ? { scenarios: values.scenario } : {}),
      runId: `cli-${Date.now()}`,
      libraryDir: libraryDir(cliDataDir(values['data-dir'])),
      version: io.version,
      signal: controller.signal,
      onProgress: values.json ? undefined : (p: CheckProgress) => p.total !== undefined && p.done < p.total && io.err(`[${p.done}/${p.total} done] ${p.label}\n`),
      log: (line: string) => io.err(`switchboard conformance: ${line}\n`),
    };
    report = 'url' in target ? await runServerConformance({ ...common, url: target.url, headers }) : await runStdioConformance(target, common);
  } finally {
    process.off('SIGINT', onSigint);
  }
  if (values.junit) {
    try {
      writeFileSync(values.junit, junitXml(conformanceJUnit(report)), 'utf8');
    } catch (error) {
      io.err(`switchboard conformance: --junit ${values.junit}: ${(error as Error).message}\n`);
      return CONFORMANCE_EXIT.usage;
    }
  }
  if (values.json) io.json(`${JSON.stringify(report, null, 2)}\n`);
  else io.out(conformanceTable(report));
  return conformanceExitCode(report, controller.signal.aborted);
}
