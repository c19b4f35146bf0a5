/**
 * The connection doctor (#16): Run walks the server's connection step by step in main
 * (`doctorRun`); each step is a row with its verdict, timing, what was seen, the hint and the facts.
 * The first failing step is highlighted and its hint stands on top (`doctor-summary`).
 * `runNonce` (a "Diagnose" request) starts a run at once.
 */
import { Alert, Badge, Box, Button, Group, Stack, Table, Text, UnstyledButton } from '@mantine/core';
import { useEffect, useRef, useState } from 'react';
import type { ServerStatus } from '../../../../contract';
import type { DoctorReport, DoctorStep, DoctorVerdict } from '../../../../contract/checks';
import { useApi } from '../../api/context';

const MARK: Record<DoctorVerdict, string> = { ok: '✓', failed: '✗', warning: '!', skipped: '–', info: 'i' };
const COLOR: Record<DoctorVerdict, string> = { ok: 'teal', failed: 'red', warning: 'yellow', skipped: 'gray', info: 'blue' };

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

function newRunId(): string {
  return `doctor-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}

/** `runNonce`: set when a request asked to start at once (a new value each time). */
export function DoctorPanel({ server, runNonce }: { server: ServerStatus; runNonce?: number }) {
  const api = useApi();
  const [report, setReport] = useState<DoctorReport | undefined>();
  const [running, setRunning] = useState(false);
  const [progress, setProgress] = useState<{ done: number; total?: number; label: string } | undefined>();
  const [error, setError] = useState<string | undefined>();
  const runId = useRef<string | undefined>(undefined);
  const mounted = useRef(true);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);

  useEffect(
    () =>
      api.on('checkProgress', (p) => {
        if (p.kind === 'doctor' && p.runId === runId.current) setProgress({ done: p.done, total: p.total, label: p.label });
      }),
    [api],
  );

  const run = async () => {
    if (running) return;
    const id = newRunId();
    runId.current = id;
    setRunning(true);
    setError(undefined);
    setProgress(undefined);
    try {
      const result = await api.doctorRun({ serverId: server.id, runId: id });
      if (mounted.current && runId.current === id) setReport(result);
    } catch (e) {
      if (mounted.current) setError(errorText(e));
    } finally {
      if (mounted.current) setRunning(false);
    }
  };

  const lastNonce = useRef<number | undefined>(undefined);
  useEffect(() => {
    if (runNonce === undefined || runNonce === lastNonce.current) return;
    lastNonce.current = runNonce;
    void run();
  }, [runNonce]);

  return (
    <Stack gap="sm" data-testid="doctor-panel">
      <Group gap="sm" wrap="nowrap">
        <Button size="xs" onClick={() => void run()} loading={running} data-testid="doctor-run">
          {report ? 'Run again' : 'Run doctor'}
        </Button>
        <Text size="xs" c="dimmed" data-testid="doctor-status">
          {running
            ? progress
              ? `Step ${Math.min(progress.done + 1, progress.total ?? progress.done + 1)}${progress.total ? ` of about ${progress.total}` : ''}: ${progress.label}…`
              : 'Starting…'
            : report
              ? `${report.transport === 'http' ? 'URL' : 'Command'}: ${report.target} · ${Math.round(report.durationMs)} ms · ${new Date(report.startedAt).toLocaleTimeString()}`
              : `Walks ${server.name}'s connection step by step and says where it breaks. Nothing is changed on the server.`}
        </Text>
      </Group>
      {error && (
        <Alert color="red" p="xs" title="The doctor could not run" data-testid="doctor-error">
          {error}
        </Alert>
      )}
      {report && <Summary report={report} />}
      {report && (
        <Stack gap={4} data-testid="doctor-steps">
          {report.steps.map((step) => (
            <StepRow key={step.id} step={step} first={step.id === report.firstFailure} />
          ))}
        </Stack>
      )}
    </Stack>
  );
}

function Summary({ report }: { report: DoctorReport }) {
  const first = report.steps.find((s) => s.id === report.firstFailure);
  const warnings = report.steps.filter((s) => s.verdict === 'warning').length;
  if (first) {
    return (
      <Alert color="red" p="sm" title={`Breaks at: ${first.title}`} data-testid="doctor-summary" data-first-failure={first.id}>
        <Text size="sm">{first.detail}</Text>
        {first.hint && (
          <Text size="sm" fw={600} mt={4} data-testid="doctor-summary-hint">
            Try: {first.hint}
          </Text>
        )}
      </Alert>
    );
  }
  return (
    <Alert color={warnings > 0 ? 'yellow' : 'teal'} p="sm" title={warnings > 0 ? 'Works, with warnings' : 'Healthy'} data-testid="doctor-summary">
      <Text size="sm">{report.summary}</Text>
    </Alert>
  );
}

function StepRow({ step, first }: { step: DoctorStep; first: boolean }) {
  const [open, setOpen] = useState(first);
  const color = COLOR[step.verdict];
  const muted = step.verdict === 'skipped';
  return (
    <Box
      data-testid="doctor-step"
      data-step-id={step.id}
      data-verdict={step.verdict}
      data-first={first || undefined}
      p={6}
      style={{
        borderRadius: 6,
        border: `1px solid ${first ? 'var(--mantine-color-red-filled)' : 'var(--mantine-color-default-border)'}`,
        background: first ? 'var(--mantine-color-red-light)' : undefined,
      }}
    >
      <UnstyledButton onClick={() => setOpen((o) => !o)} w="100%" aria-expanded={open} disabled={step.facts.length === 0 && !step.hint}>
        <Group gap="xs" wrap="nowrap" align="flex-start">
          <Badge color={color} variant={muted ? 'outline' : 'filled'} size="sm" w={22} px={0} style={{ flexShrink: 0, textTransform: 'none' }} aria-label={step.verdict}>
            {MARK[step.verdict]}
          </Badge>
          <Text size="sm" fw={600} w={260} style={{ flexShrink: 0 }} c={muted ? 'dimmed' : undefined}>
            {step.title}
          </Text>
          <Text size="xs" c="dimmed" w={64} ta="right" style={{ flexShrink: 0, fontVariantNumeric: 'tabular-nums' }} data-testid="doctor-step-ms">
            {muted ? '' : `${step.durationMs < 10 ? step.durationMs.toFixed(1) : Math.round(step.durationMs)} ms`}
          </Text>
          <Text size="sm" c={muted ? 'dimmed' : undefined} style={{ flex: 1, minWidth: 0, overflowWrap: 'anywhere' }} data-testid="doctor-step-detail">
            {step.detail}
          </Text>
        </Group>
      </UnstyledButton>
      {open && (step.hint || step.facts.length > 0) && (
        <Box pl={32} pt={4}>
          {step.hint && (
            <Text size="sm" c={first ? 'red' : undefined} fw={first ? 600 : undefined} data-testid="doctor-step-hint">
              → {step.hint}
            </Text>
          )}
          {step.facts.length > 0 && (
            <Table fz="xs" withRowBorders={false} verticalSpacing={1} mt={2} data-testid="doctor-step-facts">
              <Table.Tbody>
                {step.facts.map((fact, i) => (
                  <Table.Tr key={i}>
                    <Table.Td c="dimmed" w={220} style={{ verticalAlign: 'top', overflowWrap: 'anywhere' }}>
                      {fact.label}
                    </Table.Td>
                    <Table.Td style={{ fontFamily: 'var(--mantine-font-family-monospace)', overflowWrap: 'anywhere' }}>{fact.value}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          )}
        </Box>
      )}
    </Box>
  );
}
