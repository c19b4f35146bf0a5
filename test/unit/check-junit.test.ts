/**
 * A check report as JUnit and as an exit code (#16): each verdict maps to the element CI systems
 * read (failure, error, skipped; a warning passes with its reason in system-out), the document is
 * valid against junit-10.xsd, and the exit code follows the documented precedence.
 */
import { describe, expect, it } from 'vitest';
import { exitCode } from '../../main/adapters/cli/check';
import { checkJUnitXml } from '../../main/core/check/junit';
import type { CheckItem, CheckReport, ServerCheck } from '../../main/core/check/run';
import { validateJUnit } from '../support/junit-schema';

const item = (id: string, verdict: CheckItem['verdict'], message: string, group: CheckItem['group'] = 'expect'): CheckItem => ({ id, group, name: id, verdict, message });
const counts = { tools: 1, resources: 0, resourceTemplates: 0, prompts: 0 };

function server(name: string, items: CheckItem[], connected = true, errorKind?: string): ServerCheck {
  return { server: name, connected, ...(errorKind ? { error: 'Connection refused', errorKind } : {}), counts, items, durationMs: 12 };
}

function report(servers: ServerCheck[]): CheckReport {
  const totals = { passed: 0, failed: 0, warning: 0, skipped: 0 };
  for (const i of servers.flatMap((s) => s.items)) totals[i.verdict]++;
  return { startedAt: new Date(0).toISOString(), durationMs: 30, servers, crossServer: [item('lint.duplicate-name', 'passed', 'no findings', 'lint')], totals, ok: totals.failed === 0 && servers.every((s) => s.connected) };
}

describe('check report → JUnit', () => {
  it('maps each verdict to its element, and validates', async () => {
    const xml = checkJUnitXml(
      report([
        server('a <&> "b"', [
          item('connect', 'passed', 'connected', 'connect'),
          item('tools-present.x', 'failed', 'expected tool "x" is not listed\nsecond line'),
          item('lint.missing-description', 'warning', '1 finding:\ntool "y" has no description', 'lint'),
          item('lint.name-too-long', 'skipped', 'turned off in the expectations file', 'lint'),
        ]),
        server('down', [item('connect', 'failed', 'Connection refused', 'connect')], false, 'unreachable'),
      ]),
    );
    expect(await validateJUnit(xml)).toEqual({ valid: true, errors: [] });
    expect(xml).toContain('<testsuite name="check.a &lt;&amp;&gt; &quot;b&quot;"');
    expect(xml).toMatch(/<testcase name="tools-present.x"[^>]*>\s*<failure message="expected tool &quot;x&quot; is not listed" type="expect">expected tool "x" is not listed\nsecond line<\/failure>/);
    expect(xml).toMatch(/<testcase name="lint.missing-description"[^>]*>\s*<system-out>warning: 1 finding:/);
    expect(xml).toMatch(/<testcase name="lint.name-too-long"[^>]*>\s*<skipped message="turned off in the expectations file"\/>/);
    expect(xml).toMatch(/<testsuite name="check.down"[^>]*tests="1" failures="0" errors="1"/);
    expect(xml).toMatch(/<error message="Connection refused" type="unreachable">/);
    expect(xml).toContain('<testsuite name="check.cross-server"');
    expect(xml).toMatch(/<testsuites name="switchboard" tests="6" failures="1" errors="1"/);
  });
});

describe('exit codes', () => {
  it('0 passed (warnings allowed), 1 a check failed, 4 a server unreachable, 3 when every one down needs sign-in', () => {
    expect(exitCode(report([server('a', [item('x', 'passed', ''), item('w', 'warning', '')])]))).toBe(0);
    expect(exitCode(report([server('a', [item('x', 'failed', '')])]))).toBe(1);
    expect(exitCode(report([server('a', [item('x', 'failed', '')]), server('b', [], false, 'unreachable')]))).toBe(4);
    expect(exitCode(report([server('b', [], false, 'auth')]))).toBe(3);
    expect(exitCode(report([server('b', [], false, 'auth'), server('c', [], false, 'timeout')]))).toBe(4);
  });
});
