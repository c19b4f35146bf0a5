/**
 * Import servers from the files other MCP clients keep (found on this machine, read-only
 * until you import) or from pasted JSON. Broken entries are listed one by one; the rest import.
 */
import { Alert, Badge, Button, Checkbox, Group, List, Modal, ScrollArea, Stack, Table, Text, Textarea } from '@mantine/core';
import { useEffect, useState } from 'react';
import type { Result } from '../../../../contract';
import { useApi } from '../../api/context';

export function ImportModal({ opened, onClose, onImported }: { opened: boolean; onClose(): void; onImported(): void }) {
  const api = useApi();
  const [found, setFound] = useState<Result<'discoverConfigs'>>([]);
  const [text, setText] = useState('');
  const [connect, setConnect] = useState(true);
  const [outcome, setOutcome] = useState<Result<'importServers'> | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (!opened) return;
    setOutcome(null);
    setError(null);
    api.discoverConfigs().then(setFound, () => setFound([]));
  }, [api, opened]);

  const load = async (path: string) => {
    try {
      setText((await api.readConfigFile({ path })).text);
      setError(null);
    } catch (e) {
      setError((e as Error).message);
    }
  };

  const run = async () => {
    setBusy(true);
    setError(null);
    try {
      const result = await api.importServers({ text, connect });
      setOutcome(result);
      onImported();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal opened={opened} onClose={onClose} title="Import servers" size="lg">
      <Stack gap="sm" data-testid="import-modal">
        <Text size="sm" fw={600}>
          Found on this machine
        </Text>
        <Table fz="xs" withRowBorders={false}>
          <Table.Tbody>
            {found.map((f) => (
              <Table.Tr key={f.path}>
                <Table.Td>{f.client}</Table.Td>
                <Table.Td className="mono" style={{ wordBreak: 'break-all' }}>
                  {f.path}
                </Table.Td>
                <Table.Td>
                  {!f.exists ? (
                    <Text size="xs" c="dimmed">
                      not present
                    </Text>
                  ) : f.error ? (
                    <Badge color="red" size="xs">
                      unreadable
                    </Badge>
                  ) : (
                    <Button size="compact-xs" variant="light" onClick={() => load(f.path)}>
                      Load {f.serverCount} servers
                    </Button>
                  )}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
        <Textarea
          label="Server list (JSON)"
          description='"mcpServers" (Claude Desktop, Cursor, Windsurf, .mcp.json), VS Code "servers", or a Switchboard export'
          autosize
          minRows={6}
          maxRows={14}
          value={text}
          onChange={(e) => setText(e.currentTarget.value)}
          classNames={{ input: 'mono' }}
          data-testid="import-text"
        />
        <Checkbox label="Connect the imported servers" checked={connect} onChange={(e) => setConnect(e.currentTarget.checked)} />
        {error && (
          <Alert color="red" className="pre-wrap">
            {error}
          </Alert>
        )}
        {outcome && (
          <Alert color={outcome.problems.length ? 'yellow' : 'green'} data-testid="import-outcome">
            Imported {outcome.added.length} server{outcome.added.length === 1 ? '' : 's'} ({outcome.format}).
            {outcome.problems.length > 0 && (
              <ScrollArea.Autosize mah={160}>
                <List size="xs" mt={4}>
                  {outcome.problems.map((p, i) => (
                    <List.Item key={i}>
                      <b>{p.name}</b>: {p.message}
                    </List.Item>
                  ))}
                </List>
              </ScrollArea.Autosize>
            )}
          </Alert>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Close
          </Button>
          <Button onClick={run} loading={busy} disabled={!text.trim()} data-testid="import-submit">
            Import
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
