/**
 * `logging/setLevel` per server. Only for servers that declared the `logging` capability at
 * initialize (any other answers "Method not found"), and legacy era only: the modern era has no
 * such method (the level travels with each request). Every other row says why it has no picker.
 */
import { Badge, Button, Group, NativeSelect, Popover, Stack, Table, Text, Tooltip } from '@mantine/core';
import { useState } from 'react';
import { LogLevel, type ServerStatus } from '../../../../contract';
import { useApi } from '../../api/context';
import type { LogStore } from './log-store';
import { levelPickerFor } from './level-picker';

const LEVELS = LogLevel.options;

export function LogLevelControl({ servers, store }: { servers: ServerStatus[]; store: LogStore }) {
  const connected = servers.filter((s) => s.state === 'connected');
  const settable = connected.filter((s) => levelPickerFor(s).settable).length;
  return (
    <Popover position="bottom-end" width={640} shadow="md" withArrow>
      <Popover.Target>
        <Button size="compact-sm" variant="default" data-testid="log-levels-open">
          Server log levels{settable ? ` (${settable})` : ''}
        </Button>
      </Popover.Target>
      <Popover.Dropdown data-testid="log-levels">
        <Stack gap="xs">
          <Text size="xs" c="dimmed">
            Asks a server to send log notifications at this level and above (<span className="mono">logging/setLevel</span>). Only servers that declared the{' '}
            <span className="mono">logging</span> capability, in the legacy era: in the modern era there is no such method — the level travels with each request.
          </Text>
          {connected.length === 0 ? (
            <Text size="sm" c="dimmed">
              No connected servers.
            </Text>
          ) : (
            <Table withRowBorders={false} verticalSpacing={4} horizontalSpacing={6}>
              <Table.Tbody>
                {connected.map((server) => (
                  <LevelRow key={server.id} server={server} store={store} />
                ))}
              </Table.Tbody>
            </Table>
          )}
        </Stack>
      </Popover.Dropdown>
    </Popover>
  );
}

function LevelRow({ server, store }: { server: ServerStatus; store: LogStore }) {
  const api = useApi();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const current = store.levels.get(server.id);
  const picker = levelPickerFor(server);
  const set = async (level: LogLevel) => {
    setBusy(true);
    setError(null);
    try {
      const result = await api.setLogLevel({ serverId: server.id, level });
      store.setLevel(server.id, result.level);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Table.Tr data-testid="log-level-row" data-server-name={server.name} data-era={server.era ?? ''} data-settable={picker.settable} data-reason={picker.reason ?? ''}>
      <Table.Td style={{ maxWidth: 180 }}>
        <Text size="sm" fw={500} truncate style={{ unicodeBidi: 'isolate' }}>
          {server.name}
        </Text>
      </Table.Td>
      <Table.Td>
        <Badge size="xs" variant="outline" color={server.era === 'modern' ? 'gray' : 'indigo'} style={{ overflow: 'visible' }}>
          {server.era ?? '?'}
        </Badge>
      </Table.Td>
      <Table.Td>
        <Tooltip label={picker.reason} disabled={picker.settable} multiline maw={280}>
          <NativeSelect
            size="xs"
            w={140}
            disabled={!picker.settable || busy}
            value={current?.level ?? ''}
            onChange={(e) => e.currentTarget.value && void set(e.currentTarget.value as LogLevel)}
            data={picker.settable ? [{ value: '', label: 'server default', disabled: true }, ...LEVELS.map((l) => ({ value: l, label: l }))] : [{ value: '', label: picker.short ?? 'n/a' }]}
            aria-label={`Log level for ${server.name}`}
            data-testid="log-level-select"
          />
        </Tooltip>
      </Table.Td>
      <Table.Td>
        {error ? (
          <Text size="xs" c="red" className="pre-wrap" data-testid="log-level-error">
            {error.slice(0, 400)}
          </Text>
        ) : !picker.settable ? (
          <Text size="xs" c="dimmed" maw={260} data-testid="log-level-why">
            {picker.reason}
          </Text>
        ) : current ? (
          <Group gap={4} wrap="nowrap">
            <Text size="xs" c="teal" data-testid="log-level-status">
              set to {current.level}
            </Text>
            <Text size="xs" c="dimmed">
              at {new Date(current.at).toLocaleTimeString([], { hour12: false })}
            </Text>
          </Group>
        ) : (
          <Text size="xs" c="dimmed">
            not set here
          </Text>
        )}
      </Table.Td>
    </Table.Tr>
  );
}
