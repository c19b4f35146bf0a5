/**
 * A conformance report as JUnit (`switchboard conformance --junit FILE`): one testsuite per
 * scenario, a testcase per check. A failed check is a <failure> (message, spec references and the
 * exchange in its text); a warning passes with the warning in <system-out>; a scenario that does
 * not apply is one skipped testcase carrying the reason; a cancelled one likewise.
 */
import type { ConformanceCheck, ConformanceReport, ConformanceScenario } from '../../../contract/checks';
import type { JUnitCase, JUnitSuite } from '../report/junit';

function checkText(check: ConformanceCheck): string {
  const lines: string[] = [];
  if (check.message) lines.push(check.message);
  for (const ref of check.specRefs) lines.push(`spec: ${ref.id}${ref.url ? ` ${ref.url}` : ''}`);
  if (check.exchange) lines.push(`exchange: ${check.exchange.source} seq ${check.exchange.seq}`);
  return lines.join('\n');
}

function cases(scenario: ConformanceScenario): JUnitCase[] {
  const classname = `conformance.${scenario.name}`;
  if (scenario.verdict === 'not-applicable' || scenario.checks.length === 0) {
    const why = scenario.verdict === 'not-applicable' ? `not applicable: ${scenario.reason ?? 'the server lacks what it needs'}` : (scenario.reason ?? scenario.verdict);
    return [{ name: scenario.name, classname, timeSeconds: scenario.durationMs / 1000, ...(scenario.verdict === 'failed' ? { failure: { message: why } } : { skipped: { message: why } }) }];
  }
  const each = scenario.durationMs / 1000 / scenario.checks.length;
  return scenario.checks.map((check): JUnitCase => {
    const base = { name: check.id, classname, timeSeconds: each };
    const text = checkText(check);
    if (check.verdict === 'failed') return { ...base, failure: { message: check.message ?? `${check.name} failed`, type: 'conformance', text } };
    if (check.verdict === 'skipped') return { ...base, skipped: { message: check.message ?? 'skipped by the suite' } };
    if (check.verdict === 'warning' || check.verdict === 'info') return { ...base, systemOut: `${check.verdict}: ${text}` };
    return base;
  });
}

export function conformanceJUnit(report: ConformanceReport): JUnitSuite[] {
  const timestamp = new Date(report.startedAt);
  const properties = { url: report.url, suite: `@modelcontextprotocol/conformance ${report.suiteVersion}`, ...(report.traceSource ? { trace: report.traceSource } : {}) };
  if (report.problem) return [{ name: 'conformance', timestamp, properties, cases: [{ name: 'run', classname: 'conformance', error: { message: report.problem, type: report.problemKind ?? 'problem' } }] }];
  return report.scenarios.map((scenario) => ({ name: scenario.name, timestamp, timeSeconds: scenario.durationMs / 1000, properties, cases: cases(scenario) }));
}
