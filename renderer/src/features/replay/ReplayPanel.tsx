/**
 * Replay: recorded requests sent again, old and new side by side. Pick the recording (this
 * session, a trace opened read-only, or a recording of the library), the target server, the
 * requests (all, none, by method, one by one); Run asks first when tool calls are among them,
 * naming the tools; the results list every request with what differs highlighted (the changed
 * paths, an error where a result was, latency bars, the output-schema check).
 */
import { Alert, Badge, Button, Checkbox, Group, Menu, Modal, MultiSelect, Paper, Select, Stack, Switch, Table, Text, Tooltip } from '@mantine/core';
import { useEffect, useMemo, useState } from 'react';
import type { RecordingSummary, ReplayCandidate, ReplayDifference, ReplayItem, ReplayReport, ServerStatus } from '../../../../contract';
import { useApi } from '../../api/context';
import { SafeText } from '../../components/SafeText';
import { formatMs, plural } from '../../components/format';
import { useNavigation } from '../../state/navigation';
import { changedPaths, defaultTarget, differenceRow, itemState, latencyBars, markedLines, methodsOf, recordedServers, shownItems, toolsToCall, visibleCandidates } from './replay-model';
import classes from './replay.module.css';

export interface ReplayPanelProps {
  servers: ServerStatus[];
  /** The recording (or trace source) to replay from; absent: the panel asks for one. */
  source?: { id: string; name: string };
}

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

interface SourceOption {
  value: string;
  label: string;
  /** A library recording not opened yet: opened when chosen. */
  recordingId?: string;
}

export function ReplayPanel({ servers, source }: ReplayPanelProps) {
  const api = useApi();
  const nav = useNavigation();
  const [recordings, setRecordings] = useState<RecordingSummary[]>([]);
  const [sourceId, setSourceId] = useState<string>(source?.id ?? 'live');
  const [candidates, setCandidates] = useState<ReplayCandidate[]>([]);
  const [total, setTotal] = useState(0);
  const [loadError, setLoadError] = useState<string>();
  const [loading, setLoading] = useState(false);
  const [recordedServer, setRecordedServer] = useState<string | null>(null);
  const [methods, setMethods] = useState<string[]>([]);
  const [selected, setSelected] = useState<ReadonlySet<number>>(new Set());
  const [target, setTarget] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<string[] | undefined>();
  const [running, setRunning] = useState(false);
  const [runError, setRunError] = useState<string>();
  const [report, setReport] = useState<ReplayReport>();
  const [onlyDiffering, setOnlyDiffering] = useState(false);

  useEffect(() => {
    if (source) setSourceId(source.id);
  }, [source]);

  useEffect(() => {
    let live = true;
    api.recordingsList().then(
      (list) => live && setRecordings(list.recordings.filter((r) => !r.live)),
      () => live && setRecordings([]),
    );
    return () => {
      live = false;
    };
  }, [api]);

  const options = useMemo<SourceOption[]>(() => {
    const list: SourceOption[] = [{ value: 'live', label: 'This session (live)' }];
    const add = (option: SourceOption) => {
      if (!list.some((o) => o.value === option.value)) list.push(option);
    };
    if (source && source.id !== 'live') add({ value: source.id, label: source.name });
    if (nav.source.id !== 'live') add({ value: nav.source.id, label: `${nav.source.name} (opened)` });
    for (const r of recordings) add({ value: `rec-${r.id}`, label: `${r.name} · ${new Date(r.startedAt).toLocaleString()}`, recordingId: r.id });
    return list;
  }, [source, nav.source, recordings]);

  // The candidates of the chosen source (a library recording is opened read-only first).
  useEffect(() => {
    let live = true;
    setLoading(true);
    setLoadError(undefined);
    setReport(undefined);
    const option = options.find((o) => o.value === sourceId);
    const opened = option?.recordingId ? api.recordingOpen({ id: option.recordingId }).then((r) => r.source) : Promise.resolve(sourceId);
    opened
      .then((id) => api.replayCandidates({ source: id }))
      .then(
        (answer) => {
          if (!live) return;
          setCandidates(answer.candidates);
          setTotal(answer.total);
          // Everything but tool calls, until the person picks them.
          setSelected(new Set(answer.candidates.filter((c) => c.method !== 'tools/call').map((c) => c.seq)));
          const names = recordedServers(answer.candidates);
          setRecordedServer(names.length > 1 ? names[0]! : null);
        },
        (error) => live && (setCandidates([]), setTotal(0), setLoadError(errorText(error))),
      )
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
    // options change as recordings load; only the chosen source matters here
  }, [api, sourceId]);

  const servedNames = recordedServers(candidates);
  const visible = visibleCandidates(candidates, { server: recordedServer ?? undefined, methods });
  const chosen = visible.filter((c) => selected.has(c.seq));
  const tools = toolsToCall(visible, selected);
  const recordedName = recordedServer ?? servedNames[0];
  useEffect(() => {
    setTarget((current) => (current && servers.some((s) => s.id === current) ? current : (defaultTarget(servers, recordedName) ?? null)));
  }, [servers, recordedName]);
  const targetServer = servers.find((s) => s.id === target);

  const toggle = (seq: number, on: boolean) =>
    setSelected((prev) => {
      const next = new Set(prev);
      if (on) next.add(seq);
      else next.delete(seq);
      return next;
    });
  const selectWhere = (pick: (c: ReplayCandidate) => boolean, on: boolean) =>
    setSelected((prev) => {
      const next = new Set(prev);
      for (const c of visible) {
        if (!pick(c)) continue;
        if (on) next.add(c.seq);
        else next.delete(c.seq);
      }
      return next;
    });

  const run = async (confirmTools: string[]) => {
    setConfirming(undefined);
    if (!target) return;
    setRunning(true);
    setRunError(undefined);
    try {
      const option = options.find((o) => o.value === sourceId);
      const from = option?.recordingId ? (await api.recordingOpen({ id: option.recordingId })).source : sourceId;
      setReport(await api.replayRun({ source: from, seqs: chosen.map((c) => c.seq), serverId: target, confirmTools }));
    } catch (error) {
      setRunError(errorText(error));
    } finally {
      setRunning(false);
    }
  };
  const start = () => (tools.length ? setConfirming(tools) : void run([]));

  const methodList = methodsOf(visible);
  const targetOptions = servers.map((s) => ({ value: s.id, label: `${s.name}${s.state === 'connected' ? '' : ` (${s.state})`}`, disabled: s.state !== 'connected' && s.state !== 'disconnected' }));

  return (
    <Stack gap="sm" data-testid="replay-panel" data-source={sourceId}>
      <Group align="flex-end" gap="sm" wrap="wrap">
        <Select label="Replay from" data={options.map(({ value, label }) => ({ value, label }))} value={sourceId} onChange={(v) => v && setSourceId(v)} allowDeselect={false} w={280} data-testid="replay-source" comboboxProps={{ withinPortal: true }} />
        {servedNames.length > 1 && (
          <Select label="Recorded server" data={servedNames} value={recordedServer} onChange={(v) => setRecordedServer(v)} allowDeselect={false} w={180} data-testid="replay-recorded-server" />
        )}
        <Select label="Send to" placeholder="a connected server" data={targetOptions} value={target} onChange={setTarget} w={220} data-testid="replay-target" />
        <MultiSelect label="Methods" placeholder={methods.length ? undefined : 'all'} data={methodsOf(candidates).map((m) => m.method)} value={methods} onChange={setMethods} w={260} clearable data-testid="replay-methods" />
      </Group>

      {loadError && (
        <Alert color="red" title="Could not read the recording's requests">
          {loadError}
        </Alert>
      )}

      <Paper withBorder p="xs">
        <Group justify="space-between" mb={4}>
          <Text size="sm" data-testid="replay-selection">
            {loading ? 'Reading the recorded requests…' : `${chosen.length} of ${plural(visible.length, 'request')} selected${total > candidates.length ? ` (${total} in all; the first ${candidates.length} listed)` : ''}${tools.length ? ` · calls ${plural(tools.length, 'tool')}: ${tools.join(', ')}` : ''}`}
          </Text>
          <Group gap={4}>
            <Button size="compact-xs" variant="default" onClick={() => selectWhere(() => true, true)} data-testid="replay-select-all">
              All
            </Button>
            <Button size="compact-xs" variant="default" onClick={() => selectWhere(() => true, false)} data-testid="replay-select-none">
              None
            </Button>
            <Menu position="bottom-end" withinPortal>
              <Menu.Target>
                <Button size="compact-xs" variant="default" data-testid="replay-select-method" disabled={methodList.length === 0}>
                  By method
                </Button>
              </Menu.Target>
              <Menu.Dropdown>
                {methodList.map((m) => (
                  <Menu.Item key={m.method} onClick={() => selectWhere((c) => c.method === m.method, !visible.filter((c) => c.method === m.method).every((c) => selected.has(c.seq)))} data-testid={`replay-select-method-${m.method}`}>
                    {m.method} ({m.count})
                  </Menu.Item>
                ))}
              </Menu.Dropdown>
            </Menu>
          </Group>
        </Group>
        <div className={classes.candidates}>
          <Table striped highlightOnHover withRowBorders={false} verticalSpacing={2} fz="sm">
            <Table.Tbody>
              {visible.map((c) => (
                <Table.Tr key={c.seq} data-testid="replay-candidate" data-seq={c.seq} data-method={c.method} data-selected={selected.has(c.seq)}>
                  <Table.Td w={28}>
                    <Checkbox size="xs" checked={selected.has(c.seq)} onChange={(e) => toggle(c.seq, e.currentTarget.checked)} aria-label={`replay #${c.seq}`} />
                  </Table.Td>
                  <Table.Td w={70} c="dimmed">
                    #{c.seq}
                  </Table.Td>
                  <Table.Td w={170}>
                    <Badge variant="light" color={c.method === 'tools/call' ? 'orange' : 'gray'} size="sm" tt="none">
                      {c.method}
                    </Badge>
                  </Table.Td>
                  <Table.Td className={classes.summary}>
                    <SafeText text={c.summary === c.method ? '' : c.summary} inline clip={200} />
                  </Table.Td>
                  <Table.Td w={140} c="dimmed">
                    {servedNames.length > 1 ? c.serverName : ''}
                    {c.responseSeq === undefined ? ' never answered' : ''}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
          {!loading && visible.length === 0 && !loadError && (
            <Text size="sm" c="dimmed" p="xs">
              Nothing to replay here: no requests that can be sent again (tools/call, resources/read, prompts/get, lists, completions).
            </Text>
          )}
        </div>
        <Group mt="xs" gap="sm">
          <Button onClick={start} disabled={!target || chosen.length === 0 || running} loading={running} data-testid="replay-run">
            Replay {plural(chosen.length, 'request')}
            {targetServer ? ` to ${targetServer.name}` : ''}
          </Button>
          {!target && <Text size="sm" c="dimmed">Connect a server to send them to.</Text>}
        </Group>
      </Paper>

      {runError && (
        <Alert color="red" title="Replay failed" data-testid="replay-error">
          {runError}
        </Alert>
      )}

      {report && <Results report={report} onlyDiffering={onlyDiffering} setOnlyDiffering={setOnlyDiffering} />}

      <Modal opened={confirming !== undefined} onClose={() => setConfirming(undefined)} title={<Text fw={600}>Call these tools again?</Text>} data-testid="replay-confirm">
        <Stack gap="sm">
          <Text size="sm">
            This replay calls {plural(confirming?.length ?? 0, 'tool')} on <b>{targetServer?.name}</b> again, with the recorded arguments. A tool call may change things on the server (write, send, delete). These tools would be called:
          </Text>
          <Stack gap={2} data-testid="replay-confirm-tools">
            {(confirming ?? []).map((tool) => (
              <Text key={tool} size="sm" ff="monospace">
                • <SafeText text={tool} inline />
              </Text>
            ))}
          </Stack>
          <Group justify="flex-end" gap="xs">
            <Button variant="default" onClick={() => setConfirming(undefined)}>
              Cancel
            </Button>
            <Button variant="default" onClick={() => void run([])} data-testid="replay-confirm-skip">
              Replay without tool calls
            </Button>
            <Button color="orange" onClick={() => void run(confirming ?? [])} data-testid="replay-confirm-yes">
              Call {plural(confirming?.length ?? 0, 'tool')}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}

/** Answers of at most this many lines (both sides) are shown at once. */
const ANSWERS_OPEN_LINES = 40;

function answerLines(item: ReplayItem): number {
  const none = new Set<string>();
  return Math.max(markedLines(item.old.error ?? item.old.result, none, ANSWERS_OPEN_LINES + 1).length, markedLines(item.new.error ?? item.new.result, none, ANSWERS_OPEN_LINES + 1).length);
}

const STATE_COLOR = { same: 'green', differs: 'red', skipped: 'gray', error: 'red' } as const;

function Results({ report, onlyDiffering, setOnlyDiffering }: { report: ReplayReport; onlyDiffering: boolean; setOnlyDiffering: (on: boolean) => void }) {
  const items = shownItems(report.items, onlyDiffering);
  const same = report.items.filter((i) => !i.skipped && i.same).length;
  return (
    <Stack gap="xs" data-testid="replay-results">
      <Group justify="space-between">
        <Text size="sm" data-testid="replay-summary">
          Against <b>{report.target.serverName}</b>: {report.sent} sent · <span className={report.differ ? classes.bad : undefined}>{report.differ} differ</span> · {same} same · {report.skipped} skipped
        </Text>
        <Switch label="Only differing" checked={onlyDiffering} onChange={(e) => setOnlyDiffering(e.currentTarget.checked)} data-testid="replay-only-differing" />
      </Group>
      {items.map((item) => (
        <ItemCard key={item.candidate.seq} item={item} />
      ))}
      {items.length === 0 && (
        <Text size="sm" c="dimmed">
          No request differs.
        </Text>
      )}
    </Stack>
  );
}

function ItemCard({ item }: { item: ReplayItem }) {
  // A differing item opens with its answers side by side when they are short; a long list opens on its differences.
  const [showAnswers, setShowAnswers] = useState(() => !item.same && !item.skipped && answerLines(item) <= ANSWERS_OPEN_LINES);
  const state = itemState(item);
  const c = item.candidate;
  const bars = latencyBars(item.old.latencyMs, item.new.latencyMs);
  const rows = item.differences.map(differenceRow);
  const changed = changedPaths(item);
  return (
    <Paper withBorder p="xs" className={state === 'same' || state === 'skipped' ? undefined : classes.differs} data-testid="replay-item" data-same={item.same} data-state={state} data-seq={c.seq}>
      <Group justify="space-between" wrap="nowrap" gap="sm">
        <Group gap="xs" wrap="nowrap" style={{ minWidth: 0 }}>
          <Badge color={STATE_COLOR[state]} variant={state === 'same' ? 'light' : 'filled'} size="sm">
            {state}
          </Badge>
          <Text size="sm" fw={500}>
            {c.method}
          </Text>
          <Text size="sm" c="dimmed" truncate>
            <SafeText text={c.summary === c.method ? '' : c.summary} inline clip={160} />
          </Text>
          <Text size="xs" c="dimmed">
            #{c.seq}
            {item.new.seq !== undefined ? ` → #${item.new.seq}` : ''}
          </Text>
        </Group>
        {!item.skipped && (
          <div className={classes.latency} data-testid="replay-latency">
            <LatencyBar side="old" label="recorded" ms={item.old.latencyMs} width={bars.old} />
            <LatencyBar side="new" label="now" ms={item.new.latencyMs} width={bars.new} />
          </div>
        )}
      </Group>
      {item.skipped && (
        <Text size="xs" c="dimmed" mt={4} data-testid="replay-skipped">
          {item.skipped}
        </Text>
      )}
      {(item.old.schema || item.new.schema) && (
        <Group gap={6} mt={4}>
          <Text size="xs" c="dimmed">
            output schema:
          </Text>
          <SchemaBadge side="old" check={item.old.schema} />
          <SchemaBadge side="new" check={item.new.schema} />
        </Group>
      )}
      {rows.length > 0 && (
        <Table mt={6} fz="xs" layout="fixed" withTableBorder withColumnBorders verticalSpacing={2} data-testid="replay-diff">
          <Table.Thead>
            <Table.Tr>
              <Table.Th w="26%">where</Table.Th>
              <Table.Th w="37%">old</Table.Th>
              <Table.Th w="37%">new</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((row, i) => (
              <Table.Tr key={i} data-testid="replay-diff-row" data-kind={item.differences[i]!.kind} data-path={item.differences[i]!.path}>
                <Table.Td ff="monospace">
                  {row.where}
                  {row.note && (
                    <Text size="xs" c="dimmed" ff="sans-serif">
                      <SafeText text={row.note} inline clip={300} />
                    </Text>
                  )}
                </Table.Td>
                <Table.Td ff="monospace" className={cellClass(item.differences[i]!, row.old, 'old')}>
                  <SafeText text={row.old} inline clip={400} />
                </Table.Td>
                <Table.Td ff="monospace" className={cellClass(item.differences[i]!, row.new, 'new')}>
                  <SafeText text={row.new} inline clip={400} />
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {!item.skipped && (
        <>
          <Button size="compact-xs" variant="subtle" mt={4} onClick={() => setShowAnswers((v) => !v)} data-testid="replay-toggle-answers">
            {showAnswers ? 'Hide the answers' : 'Show the answers side by side'}
          </Button>
          {showAnswers && (
            <div className={classes.sideBySide}>
              <Answer title="recorded" value={item.old.error ? item.old.error : item.old.result} changed={changed} side="old" />
              <Answer title="now" value={item.new.error ? item.new.error : item.new.result} changed={changed} side="new" />
            </div>
          )}
        </>
      )}
    </Paper>
  );
}

function LatencyBar({ side, label, ms, width }: { side: 'old' | 'new'; label: string; ms: number | undefined; width: number }) {
  return (
    <Tooltip label={`${label}: ${formatMs(ms)}`}>
      <div className={classes.barRow}>
        <span className={classes.barLabel}>{side}</span>
        <span className={classes.barTrack}>
          <span className={side === 'old' ? classes.barOld : classes.barNew} style={{ width: `${width}%` }} />
        </span>
        <span className={classes.barValue}>{formatMs(ms)}</span>
      </div>
    </Tooltip>
  );
}

/** Removed red, added green; a schema check's verdict is not an addition: only an invalid one is marked. */
function cellClass(d: ReplayDifference, text: string, side: 'old' | 'new'): string | undefined {
  if (d.kind === 'latency' || text === '—') return undefined;
  if (d.kind === 'schema') return text.startsWith('invalid') ? classes.oldCell : undefined;
  return side === 'old' ? classes.oldCell : classes.newCell;
}

function SchemaBadge({ side, check }: { side: 'old' | 'new'; check?: { valid: boolean; errors: string[] } }) {
  if (!check)
    return (
      <Badge size="xs" variant="outline" color="gray">
        {side}: —
      </Badge>
    );
  const unchecked = check.valid && check.errors.length > 0;
  return (
    <Tooltip label={check.errors.join('\n') || 'matches the output schema'} multiline maw={420}>
      <Badge size="xs" variant={check.valid ? 'light' : 'filled'} color={unchecked ? 'gray' : check.valid ? 'green' : 'red'} data-testid={`replay-schema-${side}`} data-valid={check.valid}>
        {side}: {unchecked ? 'not checked' : check.valid ? 'valid' : 'invalid'}
      </Badge>
    </Tooltip>
  );
}

function Answer({ title, value, changed, side }: { title: string; value: unknown; changed: ReadonlySet<string>; side: 'old' | 'new' }) {
  const lines = useMemo(() => markedLines(value, changed), [value, changed]);
  return (
    <div className={classes.answer} data-testid={`replay-answer-${side}`}>
      <Text size="xs" c="dimmed" mb={2}>
        {title}
      </Text>
      <pre className={classes.pre}>
        {value === undefined ? (
          <span className={classes.none}>no answer</span>
        ) : (
          lines.map((line, i) => (
            <div key={i} className={line.changed ? (side === 'old' ? classes.lineOld : classes.lineNew) : undefined} data-changed={line.changed || undefined}>
              {line.text}
            </div>
          ))
        )}
      </pre>
    </div>
  );
}
