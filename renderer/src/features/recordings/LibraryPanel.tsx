/**
 * The Library tab: every recorded session (the live one marked), newest first, searchable by
 * name, tag and server, sortable by column; open one read-only, rename, tag, export, replay,
 * delete, import a file; where the library lives, its size and its retention (editable).
 * Refreshes on `recordingsChanged` (and every few seconds while the live recording grows).
 */
import { ActionIcon, Alert, Badge, Button, Group, Menu, Modal, NumberInput, Stack, Table, TagsInput, Text, TextInput, Tooltip, UnstyledButton } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { RecordingRetention, RecordingSummary } from '../../../../contract';
import { useApi } from '../../api/context';
import { formatBytes, formatCount, formatMs } from '../../components/format';
import { TRACE_FILE_ACCEPT, filesPickedInPage, importRecordingFile } from '../traffic';
import { DEFAULT_SORT, cleanTags, endedView, formatStarted, nextSort, retentionForm, retentionFromForm, visibleRecordings, type Sort, type SortKey } from './library-rules';
import { exportRecording, openRecording, replayRecording } from './recording-actions';
import { otlpSendDialog } from '../otlp';

interface Library {
  recordings: RecordingSummary[];
  dir?: string;
  totalBytes: number;
  retention: RecordingRetention;
}

const LIVE_REFRESH_MS = 3_000;
const errorMessage = (error: unknown) => (error instanceof Error ? error.message : String(error));

export function LibraryPanel({ focusId }: { focusId?: string }) {
  const api = useApi();
  const [library, setLibrary] = useState<Library | undefined>();
  const [loadError, setLoadError] = useState<string | null>(null);
  const [query, setQuery] = useState('');
  const [sort, setSort] = useState<Sort>(DEFAULT_SORT);
  const [renaming, setRenaming] = useState<RecordingSummary | undefined>();
  const [tagging, setTagging] = useState<RecordingSummary | undefined>();
  const [deleting, setDeleting] = useState<RecordingSummary | undefined>();

  const reload = useCallback(() => {
    api.recordingsList().then(
      (list) => {
        setLibrary(list);
        setLoadError(null);
      },
      (e: Error) => setLoadError(e.message),
    );
  }, [api]);
  useEffect(() => {
    reload();
    return api.on('recordingsChanged', reload);
  }, [api, reload]);
  // The live recording's counts grow without a library change.
  const hasLive = library?.recordings.some((r) => r.live) ?? false;
  useEffect(() => {
    if (!hasLive) return;
    const timer = setInterval(reload, LIVE_REFRESH_MS);
    return () => clearInterval(timer);
  }, [hasLive, reload]);

  const rows = useMemo(() => visibleRecordings(library?.recordings ?? [], query, sort), [library, query, sort]);

  const refusal = (title: string) => (error: unknown) => notifications.show({ color: 'red', title, message: errorMessage(error), 'data-testid': 'recording-refused' });
  const remove = async (r: RecordingSummary) => {
    try {
      await api.recordingDelete({ id: r.id });
      notifications.show({ title: `Deleted ${r.name}`, message: `${formatBytes(r.bytes)} freed.` });
      reload();
    } catch (error) {
      refusal(`${r.name} was not deleted`)(error);
    }
  };

  return (
    <Stack gap="sm" data-testid="recordings-library">
      <LibraryHeader library={library} onRetention={(retention) => setLibrary((old) => (old ? { ...old, retention } : old))} onImported={reload} />
      {loadError && (
        <Alert color="red" p="xs">
          Could not list the recordings: {loadError}
        </Alert>
      )}
      <Group gap="xs" wrap="nowrap">
        <TextInput
          size="xs"
          style={{ flex: 1 }}
          placeholder="Search name, tag or server (tag:flaky server:everything)"
          value={query}
          onChange={(e) => setQuery(e.currentTarget.value)}
          aria-label="Search recordings"
          data-testid="recordings-search"
        />
        <Text size="xs" c="dimmed" data-testid="recordings-count">
          {library ? `${formatCount(rows.length)} of ${formatCount(library.recordings.length)}` : 'Loading…'}
        </Text>
      </Group>
      <Table.ScrollContainer minWidth={980}>
        <Table striped highlightOnHover verticalSpacing={6} fz="xs" data-testid="recordings-table">
          <Table.Thead>
            <Table.Tr>
              <SortHeader label="Name" column="name" sort={sort} onSort={setSort} />
              <SortHeader label="Started" column="started" sort={sort} onSort={setSort} />
              <SortHeader label="Duration" column="duration" sort={sort} onSort={setSort} />
              <Table.Th>Servers</Table.Th>
              <SortHeader label="Events" column="events" sort={sort} onSort={setSort} right />
              <SortHeader label="Errors" column="errors" sort={sort} onSort={setSort} right />
              <SortHeader label="Size" column="bytes" sort={sort} onSort={setSort} right />
              <Table.Th>Ended</Table.Th>
              <Table.Th />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((r) => (
              <RecordingRow
                key={r.id}
                r={r}
                focused={r.id === focusId}
                onOpen={() => void openRecording(api, r)}
                onExport={(format) => void exportRecording(api, r, format)}
                onReplay={() => void replayRecording(api, r)}
                onRename={() => setRenaming(r)}
                onTags={() => setTagging(r)}
                // The live one is refused by main, which says why: no confirmation for what cannot happen.
                onDelete={() => (r.live ? void remove(r) : setDeleting(r))}
              />
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {library && rows.length === 0 && (
        <Text size="sm" c="dimmed" ta="center" py="md" data-testid="recordings-empty">
          {library.recordings.length ? 'No recording matches the search.' : library.dir ? 'No recordings yet: every session is recorded here as it happens.' : 'This run records nothing: it was started without a data directory.'}
        </Text>
      )}
      <EditModal edit="name" recording={renaming} onClose={() => setRenaming(undefined)} onDone={reload} />
      <EditModal edit="tags" recording={tagging} onClose={() => setTagging(undefined)} onDone={reload} />
      <Modal opened={!!deleting} onClose={() => setDeleting(undefined)} title="Delete this recording?" data-testid="recording-delete-confirm">
        {deleting && (
          <Stack gap="sm">
            <Text size="sm">
              <b>{deleting.name}</b> ({formatCount(deleting.events)} events, {formatBytes(deleting.bytes)}) is removed from disk. This cannot be undone; export it first to keep a copy.
            </Text>
            <Group justify="flex-end" gap="xs">
              <Button variant="default" size="xs" onClick={() => setDeleting(undefined)}>
                Keep it
              </Button>
              <Button
                color="red"
                size="xs"
                data-testid="recording-delete-yes"
                onClick={() => {
                  const r = deleting;
                  setDeleting(undefined);
                  void remove(r);
                }}
              >
                Delete
              </Button>
            </Group>
          </Stack>
        )}
      </Modal>
    </Stack>
  );
}

function SortHeader({ label, column, sort, onSort, right }: { label: string; column: SortKey; sort: Sort; onSort(sort: Sort): void; right?: boolean }) {
  const active = sort.key === column;
  return (
    <Table.Th style={{ textAlign: right ? 'right' : undefined, whiteSpace: 'nowrap' }} aria-sort={active ? (sort.desc ? 'descending' : 'ascending') : 'none'}>
      <UnstyledButton onClick={() => onSort(nextSort(sort, column))} fz="xs" fw={700} data-testid={`recordings-sort-${column}`}>
        {label}
        {active ? (sort.desc ? ' ↓' : ' ↑') : ''}
      </UnstyledButton>
    </Table.Th>
  );
}

function RecordingRow({
  r,
  focused,
  onOpen,
  onExport,
  onReplay,
  onRename,
  onTags,
  onDelete,
}: {
  r: RecordingSummary;
  focused: boolean;
  onOpen(): void;
  onExport(format: 'jsonl' | 'har' | 'otlp'): void;
  onReplay(): void;
  onRename(): void;
  onTags(): void;
  onDelete(): void;
}) {
  const ended = endedView(r);
  const row = useRef<HTMLTableRowElement>(null);
  useEffect(() => {
    if (focused) row.current?.scrollIntoView({ block: 'nearest' });
  }, [focused]);
  return (
    <Table.Tr
      ref={row}
      data-testid="recording-row"
      data-recording-id={r.id}
      data-ended={r.ended}
      data-events={r.events}
      data-live={r.live}
      style={focused ? { outline: '2px solid var(--mantine-color-blue-filled)' } : undefined}
    >
      <Table.Td style={{ maxWidth: 280 }}>
        <Group gap={6} wrap="nowrap">
          <Text size="xs" fw={500} truncate="end" title={r.name} data-testid="recording-name">
            {r.name}
          </Text>
          {r.live && (
            <Badge size="xs" color="red" variant="filled" data-testid="recording-live-badge">
              live
            </Badge>
          )}
          {r.kind !== 'app' && (
            <Badge size="xs" variant="outline" color="gray">
              {r.kind}
            </Badge>
          )}
        </Group>
        {r.tags.length > 0 && (
          <Group gap={4} mt={2} data-testid="recording-tag-list">
            {r.tags.map((t) => (
              <Badge key={t} size="xs" variant="light" data-testid="recording-tag">
                {t}
              </Badge>
            ))}
          </Group>
        )}
        {r.ended === 'unexpected' && r.notes.length > 0 && (
          <Text size="xs" c="orange" mt={2} data-testid="recording-notes">
            {r.notes.join(' ')}
          </Text>
        )}
      </Table.Td>
      <Table.Td style={{ whiteSpace: 'nowrap' }} title={new Date(r.startedAt).toISOString()}>
        {formatStarted(r.startedAt)}
      </Table.Td>
      <Table.Td style={{ whiteSpace: 'nowrap' }}>{formatMs(r.durationMs)}</Table.Td>
      <Table.Td style={{ maxWidth: 200 }}>
        <Text size="xs" truncate="end" title={r.servers.map((s) => s.name).join(', ')}>
          {r.servers.length ? r.servers.map((s) => s.name).join(', ') : '—'}
        </Text>
      </Table.Td>
      <Table.Td style={{ textAlign: 'right' }} data-testid="recording-events">
        {formatCount(r.events)}
      </Table.Td>
      <Table.Td style={{ textAlign: 'right' }}>
        <Text size="xs" c={r.errors ? 'red' : undefined} span>
          {formatCount(r.errors)}
        </Text>
      </Table.Td>
      <Table.Td style={{ textAlign: 'right', whiteSpace: 'nowrap' }}>{formatBytes(r.bytes)}</Table.Td>
      <Table.Td>
        <Tooltip label={ended.hint} multiline w={320}>
          <Badge size="sm" color={ended.color} variant={r.ended === 'unexpected' ? 'filled' : 'light'} data-testid="recording-ended">
            {ended.label}
          </Badge>
        </Tooltip>
      </Table.Td>
      <Table.Td style={{ whiteSpace: 'nowrap' }}>
        <Group gap={4} wrap="nowrap" justify="flex-end">
          <Button size="compact-xs" variant="light" onClick={onOpen} data-testid="recording-open">
            Open
          </Button>
          <Button size="compact-xs" variant="default" onClick={onReplay} data-testid="recording-replay">
            Replay
          </Button>
          <Menu position="bottom-end" withinPortal>
            <Menu.Target>
              <ActionIcon size="sm" variant="subtle" aria-label={`More for ${r.name}`} data-testid="recording-menu">
                ⋯
              </ActionIcon>
            </Menu.Target>
            <Menu.Dropdown>
              <Menu.Item onClick={onRename} data-testid="recording-rename">
                Rename…
              </Menu.Item>
              <Menu.Item onClick={onTags} data-testid="recording-tags">
                Tags…
              </Menu.Item>
              <Menu.Label>Export, secrets redacted</Menu.Label>
              <Menu.Item onClick={() => onExport('jsonl')} data-testid="recording-export-jsonl">
                Export JSONL
              </Menu.Item>
              <Menu.Item onClick={() => onExport('har')} data-testid="recording-export-har">
                Export HAR
              </Menu.Item>
              <Menu.Item onClick={() => onExport('otlp')} data-testid="recording-export-otlp">
                Export OTLP JSON
              </Menu.Item>
              <Menu.Item onClick={() => otlpSendDialog.open({ recordingId: r.id, name: r.name })} data-testid="recording-send-otlp">
                Send to an OpenTelemetry collector…
              </Menu.Item>
              <Menu.Divider />
              <Menu.Item color="red" onClick={onDelete} data-testid="recording-delete">
                {r.live ? 'Delete (not while recording)' : 'Delete…'}
              </Menu.Item>
            </Menu.Dropdown>
          </Menu>
        </Group>
      </Table.Td>
    </Table.Tr>
  );
}

/** Where the library is, how big, its retention (editable) and the Import button. */
function LibraryHeader({ library, onRetention, onImported }: { library?: Library; onRetention(r: RecordingRetention): void; onImported(): void }) {
  const api = useApi();
  const [editing, setEditing] = useState(false);
  const [form, setForm] = useState<{ gib: number; days: number }>({ gib: 2, days: 30 });
  const [error, setError] = useState<string | null>(null);
  const picker = useRef<HTMLInputElement>(null);
  // Browser mode: the page's own file input; Electron: main's dialog (importRecordingFile without a file).
  const imported = (added: RecordingSummary | undefined) => added && onImported();

  const save = () => {
    const retention = retentionFromForm(form.gib, form.days);
    api.updateSettings({ recordingRetention: retention }).then(
      (settings) => {
        onRetention(settings.recordingRetention);
        setEditing(false);
        setError(null);
      },
      (e: Error) => setError(e.message),
    );
  };
  const retention = library?.retention;
  return (
    <Group justify="space-between" align="flex-start" wrap="nowrap" gap="md">
      <Stack gap={2} style={{ minWidth: 0 }}>
        <Text size="xs" c="dimmed" truncate="end" data-testid="recordings-dir" title={library?.dir}>
          {library ? (library.dir ? `Library: ${library.dir}` : 'No library: this run has no data directory.') : 'Loading…'}
        </Text>
        {library && retention && (
          <Text size="xs" c="dimmed" data-testid="recordings-retention">
            {formatBytes(library.totalBytes)} on disk · kept up to {formatBytes(retention.maxBytes)}
            {retention.maxAgeDays ? ` and ${plural(retention.maxAgeDays)}` : ', whatever their age'}; the oldest go first, never the live session.
          </Text>
        )}
        {editing && (
          <Group gap="xs" align="flex-end" mt={4}>
            <NumberInput
              size="xs"
              w={140}
              label="Library size (GiB)"
              min={0.0625}
              max={1024}
              step={0.5}
              decimalScale={2}
              value={form.gib}
              onChange={(v) => setForm((f) => ({ ...f, gib: Number(v) }))}
              data-testid="retention-size"
            />
            <NumberInput
              size="xs"
              w={160}
              label="Keep for (days, 0: always)"
              min={0}
              max={3650}
              value={form.days}
              onChange={(v) => setForm((f) => ({ ...f, days: Number(v) }))}
              data-testid="retention-days"
            />
            <Button size="xs" onClick={save} data-testid="retention-save">
              Save
            </Button>
            <Button size="xs" variant="default" onClick={() => setEditing(false)}>
              Cancel
            </Button>
          </Group>
        )}
        {error && (
          <Text size="xs" c="red">
            {error}
          </Text>
        )}
      </Stack>
      <Group gap="xs" wrap="nowrap">
        <Button
          size="xs"
          variant="default"
          disabled={!retention}
          onClick={() => {
            if (retention) setForm(retentionForm(retention));
            setEditing((e) => !e);
          }}
          data-testid="retention-edit"
        >
          Retention…
        </Button>
        <Tooltip label="Add a JSONL trace file (exported here or by the CLI) to the library">
          <Button size="xs" variant="default" disabled={!library?.dir} onClick={() => (filesPickedInPage() ? picker.current?.click() : void importRecordingFile(api).then(imported))} data-testid="recordings-import">
            Import…
          </Button>
        </Tooltip>
        <input
          ref={picker}
          type="file"
          accept={TRACE_FILE_ACCEPT}
          style={{ display: 'none' }}
          data-testid="recordings-import-input"
          onChange={(e) => {
            const file = e.currentTarget.files?.[0];
            e.currentTarget.value = '';
            if (file) void importRecordingFile(api, file).then(imported);
          }}
        />
      </Group>
    </Group>
  );
}

const plural = (days: number) => `${formatCount(days)} day${days === 1 ? '' : 's'}`;

/** Rename (`edit: 'name'`) or tag (`edit: 'tags'`) one recording: the one patch main keeps on disk. */
function EditModal({ recording, edit, onClose, onDone }: { recording?: RecordingSummary; edit: 'name' | 'tags'; onClose(): void; onDone(): void }) {
  const api = useApi();
  const [name, setName] = useState('');
  const [tags, setTags] = useState<string[]>([]);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setName(recording?.name ?? '');
    setTags(recording?.tags ?? []);
    setError(null);
  }, [recording]);
  const ready = edit === 'tags' || name.trim().length > 0;
  const save = () => {
    if (!recording || !ready) return;
    api.recordingUpdate(edit === 'name' ? { id: recording.id, name: name.trim() } : { id: recording.id, tags: cleanTags(tags) }).then(
      () => {
        onClose();
        onDone();
      },
      (e: Error) => setError(e.message),
    );
  };
  return (
    <Modal opened={!!recording} onClose={onClose} title={edit === 'name' ? 'Rename the recording' : `Tags of ${recording?.name ?? ''}`} data-testid={`recording-${edit === 'name' ? 'rename' : 'tags'}-modal`}>
      <Stack gap="sm">
        {edit === 'name' ? (
          <TextInput
            label="Name"
            value={name}
            maxLength={200}
            onChange={(e) => setName(e.currentTarget.value)}
            onKeyDown={(e) => e.key === 'Enter' && save()}
            error={error}
            data-autofocus
            data-testid="recording-rename-input"
          />
        ) : (
          <TagsInput
            label="Tags"
            description="Enter adds one; Backspace removes the last. Up to 20, 40 characters each."
            value={tags}
            onChange={(v) => setTags(cleanTags(v))}
            maxTags={20}
            clearable
            error={error}
            data-autofocus
            data-testid="recording-tags-input"
          />
        )}
        <Group justify="flex-end" gap="xs">
          <Button size="xs" variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button size="xs" disabled={!ready} onClick={save} data-testid={edit === 'name' ? 'recording-rename-save' : 'recording-tags-save'}>
            {edit === 'name' ? 'Rename' : 'Save tags'}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
