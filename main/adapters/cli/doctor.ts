/**
 * `switchboard doctor URL | --stdio "CMD ARGS" [--header "K: V"]... [--json]` (#16): walks a
 * connection step by step (core/doctor) and names where it breaks. One line per step, the hint
 * under the first failure; `--json` prints the DoctorReport (contract/checks.ts) as it is.
 */
import { parseArgs } from 'node:util';
import type { DoctorReport, DoctorVerdict } from '../../../contract/checks';
import { HttpTarget, ServerTarget } from '../../../contract';
import { runDoctor } from '../../core/doctor';
import { EXIT, parseHeaders, serversFromFlags, UsageError } from './args';
import type { Screen } from './run';
import { DOCTOR_HELP } from './judge-help';



/** A step failed. */
const FAILED = 1;

const MARK: Record<DoctorVerdict, string> = { ok: '✓', failed: '✗', warning: '!', skipped: '–', info: '·' };

const OPTIONS = {
  stdio: { type: 'string' },
  config: { type: 'string' },
  server: { type: 'string', multiple: true },
  header: { type: 'string', multiple: true },
  transport: { type: 'string' },
  timeout: { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

function timeoutMs(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const match = /^(\d+(?:\.\d+)?)(ms|s)?$/.exec(value.trim());
  if (!match) throw new UsageError(`--timeout takes a duration such as 5s or 800ms, not "${value}".`);
  const ms = Number(match[1]) * (match[2] === 'ms' ? 1 : 1000);
  if (ms < 100 || ms > 120_000) throw new UsageError('--timeout must be between 100ms and 120s.');
  return ms;
}

export async function doctorCommand(args: string[], io: Screen): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.out(`${DOCTOR_HELP}\n`);
    return EXIT.ok;
  }
  const ways = [positionals.length > 0, values.stdio !== undefined, values.config !== undefined].filter(Boolean).length;
  if (ways !== 1 || positionals.length > 1) throw new UsageError('doctor takes one URL, --stdio "CMD ARGS", or --config FILE [--server NAME].');
  let target;
  if (values.config !== undefined || values.stdio !== undefined) {
    if (values.header?.length || values.transport) throw new UsageError('--header and --transport go with a URL (a config file names its own).');
    // The shared server flags (a stdio command line split as every command splits it).
    const servers = serversFromFlags({ config: values.config, server: values.server, stdio: values.stdio });
    if (servers.length !== 1) throw new UsageError(`${values.config} lists ${servers.length} servers: pick one with --server NAME.`);
    const checked = ServerTarget.safeParse(servers[0]!.target);
    if (!checked.success) throw new UsageError(`${values.config ?? '--stdio'}: ${checked.error.issues[0]?.message ?? 'not a server'}`);
    target = checked.data;
  } else {
    // A URL the contract would refuse is still diagnosed (the config step says what is wrong with it).
    const raw = { type: 'http' as const, url: positionals[0]!, headers: parseHeaders(values.header ?? []), transport: values.transport ?? 'auto' };
    const checked = HttpTarget.safeParse(raw);
    if (!checked.success && checked.error.issues.some((i) => i.path[0] === 'transport')) throw new UsageError('--transport is auto, streamable-http or sse.');
    target = checked.success ? checked.data : { ...raw, transport: 'auto' as const, nonSecretHeaders: undefined, oauth: undefined };
  }
  const step = timeoutMs(values.timeout);
  const report = await runDoctor(target, { stepTimeoutMs: step, protocolTimeoutMs: step ? step * 2 : undefined });
  if (values.json) io.json(`${JSON.stringify(report, null, 2)}\n`);
  else io.out(formatReport(report));
  return report.firstFailure ? FAILED : EXIT.ok;
}

export function formatReport(report: DoctorReport): string {
  const width = Math.max(...report.steps.map((s) => s.id.length));
  const lines = [`doctor: ${report.target} (${report.transport})`];
  for (const step of report.steps) {
    const ms = step.verdict === 'skipped' ? '' : `${Math.round(step.durationMs)} ms`;
    lines.push(`${MARK[step.verdict]} ${step.id.padEnd(width)} ${ms.padStart(8)}  ${step.detail}`);
    if (step.id === report.firstFailure && step.hint) lines.push(`  ${' '.repeat(width)} ${' '.repeat(8)}  → ${step.hint}`);
  }
  lines.push('', report.summary, '');
  return lines.join('\n');
}
