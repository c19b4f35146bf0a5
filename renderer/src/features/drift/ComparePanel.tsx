/**
 * The Compare tab: two interfaces side by side — a live server, a pinned baseline, or a server
 * as a recording saw it — and every change between them, grouped by area, with its severity and
 * the old and new values (schemas as JSON, the lines that differ marked). Opened from the
 * sidebar's drift flag or a server's menu with baseline vs now, and compared at once.
 * Everything shown came from servers: text is shown as text (SafeText).
 */
import { Alert, Badge, Button, Group, Paper, Select, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useEffect, useMemo, useState } from 'react';
import type { InterfaceChange, InterfaceDiff, InterfaceRef, InterfaceSnapshot, RecordingSummary, ServerStatus } from '../../../../contract';
import { useApi } from '../../api/context';
import { SafeText, visibleText } from '../../components/SafeText';
import { useNavigation } from '../../state/navigation';
import { useStore } from '../../state/useStore';
import { decodeRef, encodeRef, groupChanges, isRugPullRisk, markLines, notCompared, refGroups, shownValues, summarize, valueText, withChoice, type RefGroup } from './compare-model';
import { getDriftStore } from './drift-store';

export interface ComparePanelProps {
  servers: ServerStatus[];
  a?: InterfaceRef;
  b?: InterfaceRef;
}

interface Compared {
  a: InterfaceSnapshot;
  b: InterfaceSnapshot;
  diff: InterfaceDiff;
}

const SEVERITY_COLOR: Record<InterfaceChange['severity'], string> = { breaking: 'red', warning: 'orange', info: 'gray' };

export function ComparePanel({ servers, a, b }: ComparePanelProps) {
  const api = useApi();
  const nonce = useNavigation().recordings?.nonce;
  const drift = useStore(getDriftStore(api).statuses);
  const [recordings, setRecordings] = useState<RecordingSummary[]>([]);
  const [left, setLeft] = useState<string | undefined>(a && encodeRef(a));
  const [right, setRight] = useState<string | undefined>(b && encodeRef(b));
  const [result, setResult] = useState<Compared | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    let live = true;
    api.recordingsList().then(
      (list) => live && setRecordings(list.recordings),
      () => undefined, // no library in this run: recordings are simply not offered
    );
    return () => {
      live = false;
    };
  }, [api]);

  const run = (x = left, y = right) => {
    const refA = decodeRef(x);
    const refB = decodeRef(y);
    if (!refA || !refB) return;
    setBusy(true);
    setError(undefined);
    api.interfaceDiff({ a: refA, b: refB }).then(
      (compared) => {
        setResult(compared);
        setBusy(false);
      },
      (e: Error) => {
        setResult(undefined);
        setError(e.message);
        setBusy(false);
      },
    );
  };

  // A request from elsewhere (the drift flag, a server's menu) chooses both sides and compares at once.
  useEffect(() => {
    if (!a || !b) return;
    setLeft(encodeRef(a));
    setRight(encodeRef(b));
    run(encodeRef(a), encodeRef(b));
  }, [nonce]);

  const groups = useMemo(() => refGroups(servers, [...drift.values()], recordings), [servers, drift, recordings]);
  const nameOf = (ref: InterfaceRef | undefined) => (ref && 'serverId' in ref ? (servers.find((s) => s.id === ref.serverId)?.name ?? ref.serverId) : ref?.server ?? '');
  const chosenLabel = (value: string | undefined) => {
    const ref = decodeRef(value);
    return ref ? `${nameOf(ref)} — ${ref.kind === 'live' ? 'now' : ref.kind === 'baseline' ? 'baseline' : 'recording'}` : '';
  };

  return (
    <Stack gap="md" data-testid="compare-panel">
      <Group align="flex-end" wrap="wrap">
        <RefSelect label="A (before)" data={withChoice(groups, left, chosenLabel(left))} value={left} onChange={setLeft} testId="compare-a" />
        <RefSelect label="B (after)" data={withChoice(groups, right, chosenLabel(right))} value={right} onChange={setRight} testId="compare-b" />
        <Button onClick={() => run()} disabled={!decodeRef(left) || !decodeRef(right)} loading={busy} data-testid="compare-run">
          Compare
        </Button>
      </Group>
      {groups.length === 0 && (
        <Text size="sm" c="dimmed">
          Connect a server, pin a baseline (server menu → Pin as baseline) or record a session to have something to compare.
        </Text>
      )}
      {error && (
        <Alert color="red" title="Could not compare" data-testid="compare-error">
          <SafeText text={error} />
        </Alert>
      )}
      {result && <Result compared={result} />}
    </Stack>
  );
}

function RefSelect({ label, data, value, onChange, testId }: { label: string; data: RefGroup[]; value: string | undefined; onChange(value: string | undefined): void; testId: string }) {
  return (
    <Select
      label={label}
      placeholder="A live server, a baseline or a recording"
      data={data}
      value={value ?? null}
      onChange={(v) => onChange(v ?? undefined)}
      searchable
      w={400}
      data-testid={testId}
      comboboxProps={{ withinPortal: true }}
    />
  );
}

function Result({ compared }: { compared: Compared }) {
  const { a, b, diff } = compared;
  const groups = groupChanges(diff.changes);
  const skipped = notCompared(a, b);
  const rugPull = diff.changes.some(isRugPullRisk);
  return (
    <Stack gap="sm" data-testid="compare-result" data-same={diff.same}>
      <Text size="xs" c="dimmed">
        A: <SafeText inline text={a.serverName} clip={120} /> at {new Date(a.takenAt).toLocaleString()} ({a.tools.length} tools, {a.resources.length} resources, {a.resourceTemplates.length} templates, {a.prompts.length} prompts) · B:{' '}
        <SafeText inline text={b.serverName} clip={120} /> at {new Date(b.takenAt).toLocaleString()} ({b.tools.length} tools, {b.resources.length} resources, {b.resourceTemplates.length} templates, {b.prompts.length} prompts)
      </Text>
      {diff.same ? (
        <Alert color="green" title="No differences" data-testid="compare-same">
          The two interfaces are the same: every tool, resource, template and prompt, their schemas and descriptions, the capabilities and the server info.
        </Alert>
      ) : (
        <Title order={5} data-testid="compare-summary">
          {summarize(diff)}
        </Title>
      )}
      {rugPull && (
        <Alert color="orange" title="A description changed" data-testid="compare-rug-pull">
          Text a model reads (a tool's description, the server's instructions) changed. A description that changes without notice is how "rug pull" attacks work: read the new text before you let a model use this server again.
        </Alert>
      )}
      {skipped && (
        <Text size="sm" c="dimmed" data-testid="compare-not-compared">
          {skipped}
        </Text>
      )}
      {[...(a.notes ?? []).map((n) => `A: ${n}`), ...(b.notes ?? []).map((n) => `B: ${n}`)].map((note) => (
        <Text key={note} size="xs" c="dimmed">
          <SafeText inline text={note} clip={300} />
        </Text>
      ))}
      {groups.map((group) => (
        <Stack key={group.area} gap={6} data-testid="interface-change-group" data-area={group.area}>
          <Group gap={8}>
            <Title order={6}>{group.label}</Title>
            {group.breaking > 0 && (
              <Badge size="xs" color="red" variant="light">
                {group.breaking} breaking
              </Badge>
            )}
            {group.warning > 0 && (
              <Badge size="xs" color="orange" variant="light">
                {group.warning} warning{group.warning === 1 ? '' : 's'}
              </Badge>
            )}
          </Group>
          {group.changes.map((change, i) => (
            <ChangeRow key={`${change.item ?? ''}-${change.field ?? ''}-${i}`} change={change} values={shownValues(change, a, b)} />
          ))}
        </Stack>
      ))}
    </Stack>
  );
}

function ChangeRow({ change, values }: { change: InterfaceChange; values: { old: unknown; new: unknown } }) {
  const [open, setOpen] = useState(change.severity !== 'info');
  const hasValues = values.old !== undefined || values.new !== undefined;
  return (
    <Paper withBorder p="xs" data-testid="interface-change" data-area={change.area} data-change={change.change} data-severity={change.severity} data-item={change.item}>
      <Group gap={8} wrap="nowrap" align="flex-start">
        <Badge size="sm" color={SEVERITY_COLOR[change.severity]} variant={change.severity === 'info' ? 'light' : 'filled'} style={{ flex: 'none' }}>
          {change.severity}
        </Badge>
        <Text size="sm" style={{ flex: 1, overflowWrap: 'anywhere' }}>
          <SafeText inline text={change.message} clip={600} />
        </Text>
        {hasValues && (
          <Button size="compact-xs" variant="subtle" onClick={() => setOpen((o) => !o)} style={{ flex: 'none' }}>
            {open ? 'Hide' : 'Show'} values
          </Button>
        )}
      </Group>
      {open && hasValues && <SideBySide old={values.old} next={values.new} />}
    </Paper>
  );
}

function SideBySide({ old, next }: { old: unknown; next: unknown }) {
  const lines = markLines(valueText(old), valueText(next));
  return (
    <SimpleGrid cols={2} spacing="xs" mt={6} data-testid="interface-change-values">
      <Column title="A (before)" lines={lines.old} empty={old === undefined} tone="red" />
      <Column title="B (after)" lines={lines.new} empty={next === undefined} tone="green" />
    </SimpleGrid>
  );
}

function Column({ title, lines, empty, tone }: { title: string; lines: { text: string; changed: boolean }[]; empty: boolean; tone: 'red' | 'green' }) {
  return (
    <Stack gap={2} style={{ minWidth: 0 }}>
      <Text size="xs" c="dimmed">
        {title}
      </Text>
      {empty ? (
        <Text size="xs" c="dimmed" fs="italic">
          (none)
        </Text>
      ) : (
        <pre style={{ margin: 0, fontSize: 12, maxHeight: 260, overflow: 'auto', background: 'var(--mantine-color-default-hover)', borderRadius: 4, padding: 6, whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
          {lines.map((line, i) => (
            <div key={i} data-changed={line.changed || undefined} style={line.changed ? { background: `var(--mantine-color-${tone}-light)`, color: `var(--mantine-color-${tone}-light-color)` } : undefined}>
              {visibleText(line.text, 2_000) || ' '}
            </div>
          ))}
        </pre>
      )}
    </Stack>
  );
}
