/**
 * A check report as JUnit (#16): a `<testsuite>` per server (`check.SERVER`) and one for the
 * checks across servers (`check.cross-server`), a `<testcase>` per check. Failed → `<failure>`
 * whose message says why; a server that did not connect → its `connect` case is an `<error>`;
 * skipped → `<skipped>`; a warning passes, with the reason in `<system-out>` (CI shows it, the
 * build stays green).
 */
import { junitXml, type JUnitCase, type JUnitSuite } from '../report/junit';
import type { CheckItem, CheckReport } from './run';

function caseOf(item: CheckItem, classname: string): JUnitCase {
  const base: JUnitCase = { name: item.name, classname: `${classname}.${item.group}`, timeSeconds: item.durationMs === undefined ? 0 : item.durationMs / 1000 };
  const firstLine = item.message.split('\n')[0]!;
  switch (item.verdict) {
    case 'failed':
      return item.id === 'connect' ? { ...base, error: { message: firstLine, type: 'unreachable', text: item.message } } : { ...base, failure: { message: firstLine, type: item.group, text: item.message } };
    case 'skipped':
      return { ...base, skipped: { message: item.message } };
    case 'warning':
      return { ...base, systemOut: `warning: ${item.message}` };
    default:
      return { ...base, systemOut: item.message };
  }
}

export function checkJUnitSuites(report: CheckReport): JUnitSuite[] {
  const timestamp = new Date(report.startedAt);
  const suites: JUnitSuite[] = report.servers.map((server) => ({
    name: `check.${server.server}`,
    timestamp,
    timeSeconds: server.durationMs / 1000,
    properties: {
      server: server.server,
      tools: String(server.counts.tools),
      prompts: String(server.counts.prompts),
      resources: String(server.counts.resources),
      resourceTemplates: String(server.counts.resourceTemplates),
      ...(server.tokens ? { toolListTokens: String(server.tokens.count), tokenEncoding: server.tokens.encoding } : {}),
    },
    cases: server.items.map((item) => caseOf(item, `check.${server.server}`)),
  }));
  suites.push({ name: 'check.cross-server', timestamp, timeSeconds: 0, cases: report.crossServer.map((item) => caseOf(item, 'check.cross-server')) });
  return suites;
}

export function checkJUnitXml(report: CheckReport): string {
  return junitXml(checkJUnitSuites(report));
}
