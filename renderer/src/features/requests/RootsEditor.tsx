/**
 * A server's roots (what `roots/list` answers): one row per root, a URI and an optional name.
 * Saving calls `setRoots`: main stores them and, in the 2025 era, sends
 * notifications/roots/list_changed; going from no roots to some reconnects (the capability is
 * declared at connect). Text fields only — the desktop app would offer a folder picker. A plain
 * absolute path is taken and shown as the file: URI the server will get (the contract's schema
 * converts it the same way in main); a relative path or ~ is refused, with the reason, as typed.
 */
import { ActionIcon, Alert, Button, Group, Modal, NativeSelect, Stack, Text, TextInput, Tooltip } from '@mantine/core';
import { useEffect, useState } from 'react';
import type { ServerStatus } from '../../../../contract';
import { ContractError } from '../../../../contract/client';
import { toRootUri } from '../../../../contract/field-checks';
import { useApi } from '../../api/context';
import { visible } from './safe';

interface Row {
  uri: string;
  name: string;
}

export function RootsEditor({ opened, onClose, servers, serverId }: { opened: boolean; onClose(): void; servers: ServerStatus[]; serverId?: string }) {
  const api = useApi();
  const [selected, setSelected] = useState(serverId ?? servers[0]?.id ?? '');
  const server = servers.find((s) => s.id === selected);
  const [rows, setRows] = useState<Row[]>([]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<{ message: string; rows: Record<number, string> } | null>(null);
  const [saved, setSaved] = useState<string | null>(null);

  useEffect(() => {
    if (opened && serverId) setSelected(serverId);
  }, [opened, serverId]);
  useEffect(() => {
    if (!selected && servers[0]) setSelected(servers[0].id);
  }, [selected, servers]);
  // Reload the rows when the server changes (or the modal opens), not on every status push.
  const configuredRoots = JSON.stringify(server?.config.roots ?? []);
  useEffect(() => {
    const roots = JSON.parse(configuredRoots) as { uri: string; name?: string }[];
    setRows(roots.map((r) => ({ uri: r.uri, name: r.name ?? '' })));
    setError(null);
    setSaved(null);
    // Deliberately only these dependencies.
  }, [selected, opened]);

  const update = (i: number, patch: Partial<Row>) => {
    setRows(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
    // What main said was about the rows as they were: an edit makes it stale.
    if (error) setError(null);
    if (saved) setSaved(null);
  };

  const save = async () => {
    if (!server) return;
    setBusy(true);
    setError(null);
    setSaved(null);
    const roots = rows.filter((r) => r.uri.trim() !== '' || r.name.trim() !== '').map((r) => ({ uri: r.uri.trim(), ...(r.name.trim() ? { name: r.name.trim() } : {}) }));
    try {
      const status = await api.setRoots({ serverId: server.id, roots });
      setSaved(
        roots.length === 0
          ? 'Saved: no roots. The server sees none (the capability is declared again on the next connect).'
          : status.era === 'modern'
            ? 'Saved. The 2026 era has no change notification: the server gets them the next time it asks.'
            : 'Saved. The server was told (notifications/roots/list_changed).',
      );
    } catch (e) {
      const rowErrors: Record<number, string> = {};
      if (e instanceof ContractError) for (const issue of e.issues ?? []) {
        const m = /^roots\.(\d+)/.exec(issue.path);
        if (m) rowErrors[Number(m[1])] = issue.message;
      }
      setError({ message: (e as Error).message, rows: rowErrors });
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal opened={opened} onClose={onClose} title="Roots" size="lg" attributes={{ content: { 'data-testid': 'roots-editor' } as Record<string, string> }}>
      <Stack gap="sm">
        <Text size="sm" c="dimmed">
          The directories (or other URIs) a server may work in, sent when it asks (<span className="mono">roots/list</span>): an absolute folder path (sent as a <span className="mono">file://</span> URI) or
          a URI. Adding the first root reconnects the server: the capability is declared at connect.
        </Text>
        <NativeSelect
          label="Server"
          value={selected}
          onChange={(e) => setSelected(e.currentTarget.value)}
          data={servers.map((s) => ({ value: s.id, label: `${visible(s.name, 80)}${s.state === 'connected' ? '' : ` (${s.state})`}` }))}
          data-testid="roots-server"
        />
        {rows.length === 0 && (
          <Text size="sm" c="dimmed" data-testid="roots-empty">
            No roots: this server is not offered the roots capability.
          </Text>
        )}
        {rows.map((row, i) => (
          <Group key={i} gap="xs" align="flex-start" wrap="nowrap" data-testid="root-row">
            <RootInput index={i} value={row.uri} onChange={(uri) => update(i, { uri })} serverError={error?.rows[i]} />
            <TextInput style={{ flex: 2 }} placeholder="name (optional)" aria-label={`Root ${i + 1} name`} value={row.name} onChange={(e) => update(i, { name: e.currentTarget.value })} data-testid="root-name" />
            <Tooltip label="Remove this root">
              <ActionIcon variant="subtle" color="red" size="lg" onClick={() => setRows(rows.filter((_, j) => j !== i))} aria-label={`Remove root ${i + 1}`} data-testid="root-remove">
                ✕
              </ActionIcon>
            </Tooltip>
          </Group>
        ))}
        <Group>
          <Button variant="default" size="xs" onClick={() => setRows([...rows, { uri: '', name: '' }])} data-testid="root-add">
            Add a root
          </Button>
        </Group>
        {error && (
          <Alert color="red" className="pre-wrap" data-testid="roots-error">
            {error.message}
          </Alert>
        )}
        {saved && (
          <Alert color="green" data-testid="roots-saved">
            {saved}
          </Alert>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Close
          </Button>
          <Button onClick={() => void save()} loading={busy} disabled={!server} data-testid="roots-save">
            Save roots
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

/** One root's path or URI, with the URI the server will get (or why it cannot be one) as it is typed. */
function RootInput({ index, value, onChange, serverError }: { index: number; value: string; onChange(uri: string): void; serverError?: string }) {
  const root = value.trim() ? toRootUri(value) : undefined;
  const local = root && !root.ok ? root.error : undefined;
  return (
    <TextInput
      style={{ flex: 3 }}
      placeholder="/home/me/project or file:///home/me/project"
      aria-label={`Root ${index + 1} path or URI`}
      value={value}
      onChange={(e) => onChange(e.currentTarget.value)}
      error={serverError ?? local}
      description={
        root?.ok && root.uri !== value.trim() ? (
          <span data-testid="root-uri-preview">
            sent as <span className="mono">{visible(root.uri, 300)}</span>
          </span>
        ) : undefined
      }
      inputWrapperOrder={['label', 'input', 'description', 'error']}
      classNames={{ input: 'mono' }}
      data-testid="root-uri"
    />
  );
}
