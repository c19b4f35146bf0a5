/**
 * The official conformance suite's server scenarios against this server (#16): Run, progress,
 * then the counts and a table of scenarios, each expandable to its checks with the suite's
 * message, the spec reference (opened in the browser) and, for a failing check, "Show exchange in
 * Traffic" (the run's recording opened as the trace source, focused on the deciding event).
 * Not-applicable scenarios are dimmed with their reason.
 */
import { Alert, Anchor, Badge, Button, Code, Group, Progress, Stack, Table, Text, UnstyledButton } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useEffect, useRef, useState } from 'react';
import type { ServerStatus } from '../../../../contract';
import type { CheckVerdict, ConformanceCheck, ConformanceReport, ConformanceScenario } from '../../../../contract/checks';
import type { SwitchboardApi } from '../../../../contract/client';
import { useApi } from '../../api/context';
import { navigation } from '../../state/navigation';
import { useSelect } from '../../state/useStore';
import { importedServers } from '../traffic';
import { conformanceRuns } from './conformance-store';

const VERDICT: Record<CheckVerdict, { label: string; color: string }> = {
  passed: { label: 'passed', color: 'green' },
  failed: { label: 'failed', color: 'red' },
  warning: { label: 'warning', color: 'yellow' },
  'not-applicable': { label: 'not applicable', color: 'gray' },
  skipped: { label: 'skipped', color: 'gray' },
  info: { label: 'info', color: 'blue' },
};

function VerdictBadge({ verdict }: { verdict: CheckVerdict }) {
  const v = VERDICT[verdict];
  return (
    <Badge size="sm" variant={verdict === 'failed' ? 'filled' : 'light'} color={v.color} style={{ flex: 'none', maxWidth: 'none', overflow: 'visible' }}>
      {v.label}
    </Badge>
  );
}

/** Opens the run's recording as the trace source and shows the event in Traffic. */
async function showExchange(api: SwitchboardApi, source: string, seq: number): Promise<void> {
  try {
    const id = source.replace(/^rec-/, '');
    const opened = await api.recordingOpen({ id });
    if (opened.source !== 'live') importedServers.set(opened.source, opened.summary.servers);
    navigation.useSource({ id: opened.source, name: opened.summary.name });
    navigation.showTraffic({ kind: 'seq', seq });
  } catch (error) {
    notifications.show({ color: 'red', title: 'Could not open the run’s recording', message: error instanceof Error ? error.message : String(error) });
  }
}

function CheckRow({ check }: { check: ConformanceCheck }) {
  const api = useApi();
  const [details, setDetails] = useState(false);
  const exchange = check.exchange;
  return (
    <Table.Tr data-testid="conformance-check" data-verdict={check.verdict} data-check={check.id} style={{ verticalAlign: 'top' }}>
      <Table.Td />
      <Table.Td>
        <Text size="xs" ff="monospace">
          {check.id}
        </Text>
        {check.description && (
          <Text size="xs" c="dimmed">
            {check.description}
          </Text>
        )}
      </Table.Td>
      <Table.Td>
        <VerdictBadge verdict={check.verdict} />
      </Table.Td>
      <Table.Td>
        <Stack gap={4}>
          {check.message && (
            <Text size="xs" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }} data-testid="conformance-check-message">
              {check.message}
            </Text>
          )}
          {check.specRefs.length > 0 && (
            <Group gap="xs">
              {check.specRefs.map((ref) =>
                ref.url && /^https?:\/\//i.test(ref.url) ? (
                  <Anchor key={ref.id} size="xs" href={ref.url} target="_blank" rel="noopener noreferrer" data-testid="conformance-spec-link">
                    {ref.id}
                  </Anchor>
                ) : (
                  <Text key={ref.id} size="xs" c="dimmed">
                    {ref.id}
                  </Text>
                ),
              )}
            </Group>
          )}
          {check.details && (
            <div>
              <Anchor component="button" size="xs" onClick={() => setDetails((d) => !d)} data-testid="conformance-check-details-toggle">
                {details ? 'Hide the suite’s details' : 'The suite’s details'}
              </Anchor>
              {details && (
                <Code block fz="xs" mah={240} style={{ overflow: 'auto' }} data-testid="conformance-check-details">
                  {check.details}
                </Code>
              )}
            </div>
          )}
          {exchange && (
            <Group gap="xs">
              <Button size="compact-xs" variant="light" color={check.verdict === 'failed' ? 'red' : 'yellow'} onClick={() => void showExchange(api, exchange.source, exchange.seq)} data-testid="conformance-show-exchange">
                Show exchange in Traffic
              </Button>
              <Text size="xs" c="dimmed">
                event #{exchange.seq}
              </Text>
            </Group>
          )}
        </Stack>
      </Table.Td>
    </Table.Tr>
  );
}

function ScenarioRows({ scenario, open, toggle }: { scenario: ConformanceScenario; open: boolean; toggle: () => void }) {
  const dim = scenario.verdict === 'not-applicable' || scenario.verdict === 'skipped';
  const failed = scenario.checks.filter((c) => c.verdict === 'failed').length;
  const expandable = scenario.checks.length > 0;
  return (
    <>
      <Table.Tr data-testid="conformance-scenario" data-verdict={scenario.verdict} data-scenario={scenario.name} style={dim ? { opacity: 0.6 } : undefined}>
        <Table.Td w={28}>
          {expandable && (
            <UnstyledButton onClick={toggle} aria-expanded={open} aria-label={`${open ? 'Hide' : 'Show'} the checks of ${scenario.name}`} data-testid="conformance-scenario-toggle">
              <Text size="xs">{open ? '▾' : '▸'}</Text>
            </UnstyledButton>
          )}
        </Table.Td>
        <Table.Td>
          <Text size="sm" ff="monospace" style={{ whiteSpace: 'nowrap' }}>
            {scenario.name}
          </Text>
        </Table.Td>
        <Table.Td>
          <VerdictBadge verdict={scenario.verdict} />
        </Table.Td>
        <Table.Td>
          <Text size="xs" c={dim ? 'dimmed' : undefined} data-testid="conformance-scenario-note">
            {scenario.verdict === 'not-applicable' || scenario.verdict === 'skipped'
              ? scenario.reason
              : `${scenario.checks.length} check${scenario.checks.length === 1 ? '' : 's'}${failed ? `, ${failed} failed` : ''} · ${Math.round(scenario.durationMs)} ms${scenario.reason ? ` · ${scenario.reason}` : ''}`}
          </Text>
        </Table.Td>
      </Table.Tr>
      {open && scenario.checks.map((check) => <CheckRow key={check.id} check={check} />)}
    </>
  );
}

function Summary({ report }: { report: ConformanceReport }) {
  const c = report.counts;
  return (
    <Group gap="xs" data-testid="conformance-summary">
      <Badge color="green" variant="light">
        {c.passed} passed
      </Badge>
      <Badge color="red" variant={c.failed ? 'filled' : 'light'}>
        {c.failed} failed
      </Badge>
      <Badge color="yellow" variant="light">
        {c.warning} warnings
      </Badge>
      <Badge color="gray" variant="light">
        {c.notApplicable} not applicable
      </Badge>
      {c.skipped > 0 && (
        <Badge color="gray" variant="outline">
          {c.skipped} skipped
        </Badge>
      )}
      <Text size="xs" c="dimmed">
        suite {report.suiteVersion} · {(report.durationMs / 1000).toFixed(1)} s · {new Date(report.startedAt).toLocaleTimeString()}
      </Text>
    </Group>
  );
}

/** `runNonce`: set when a request asked to start at once (a new value each time). */
export function ConformancePanel({ server, runNonce }: { server: ServerStatus; runNonce?: number }) {
  const api = useApi();
  const runs = conformanceRuns(api);
  const state = useSelect(runs, () => runs.get(server.id));
  const [open, setOpen] = useState<Set<string>>(() => new Set());
  const started = useRef<number | undefined>(undefined);
  const stdio = server.config.target.type === 'stdio';

  useEffect(() => {
    if (runNonce === undefined || started.current === runNonce) return;
    started.current = runNonce;
    void runs.run(server.id);
  }, [runNonce]);

  // A new report opens its failing scenarios.
  const report = state.report;
  useEffect(() => {
    if (report) setOpen(new Set(report.scenarios.filter((s) => s.verdict === 'failed').map((s) => s.name)));
  }, [report]);

  const running = state.running;
  const progress = running?.progress;
  const toggle = (name: string) =>
    setOpen((was) => {
      const next = new Set(was);
      if (next.has(name)) next.delete(name);
      else next.add(name);
      return next;
    });

  return (
    <Stack gap="sm" data-testid="conformance-panel">
      <Group gap="sm" wrap="nowrap">
        <Button size="xs" onClick={() => void runs.run(server.id)} loading={!!running} data-testid="conformance-run">
          {report ? 'Run again' : 'Run the conformance suite'}
        </Button>
        {running && (
          <Button size="xs" variant="default" onClick={() => void runs.cancel(server.id)} disabled={running.cancelling} data-testid="conformance-cancel">
            {running.cancelling ? 'Cancelling…' : 'Cancel'}
          </Button>
        )}
        <Text size="xs" c="dimmed">
          The official MCP conformance suite’s server scenarios, through a recording proxy: every exchange is kept in Recordings.
        </Text>
      </Group>
      {stdio && (
        <Text size="xs" c="dimmed" data-testid="conformance-stdio">
          This server runs over stdio; the suite’s client connects to a URL, so Switchboard serves the command behind a stdio→HTTP bridge (a fresh process for each of the suite’s sessions). The DNS rebinding scenario does not apply.
        </Text>
      )}
      {running && (
        <Stack gap={4} data-testid="conformance-progress">
          <Progress size="sm" value={progress?.total ? (100 * progress.done) / progress.total : 5} animated />
          <Text size="xs" c="dimmed">
            {progress ? `${progress.total ? `${progress.done}/${progress.total} · ` : ''}${progress.label}` : 'starting…'}
          </Text>
        </Stack>
      )}
      {state.error && (
        <Alert color="red" title="The run could not start" data-testid="conformance-error">
          {state.error}
        </Alert>
      )}
      {report?.problem && (
        <Alert color="orange" title={report.scenarios.length ? 'The run stopped' : 'No scenario could run'} data-testid="conformance-problem">
          {report.problem}
        </Alert>
      )}
      {report && report.scenarios.length > 0 && (
        <>
          <Summary report={report} />
          <Table striped={false} highlightOnHover verticalSpacing={4} data-testid="conformance-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th />
                <Table.Th>Scenario</Table.Th>
                <Table.Th w={140}>Verdict</Table.Th>
                <Table.Th>Details</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {report.scenarios.map((scenario) => (
                <ScenarioRows key={scenario.name} scenario={scenario} open={open.has(scenario.name)} toggle={() => toggle(scenario.name)} />
              ))}
            </Table.Tbody>
          </Table>
        </>
      )}
    </Stack>
  );
}
