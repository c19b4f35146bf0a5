import { ActionIcon, Badge, Button, Divider, Group, ScrollArea, Stack, Text, Tooltip } from '@mantine/core';
import type { ServerStatus } from '../../../../contract';
import { useApi } from '../../api/context';
import { AddServerForm } from './AddServerForm';

function stateLabel(server: ServerStatus): string {
  if (server.state === 'error') return `error: ${server.error ?? 'unknown'}`;
  return server.state;
}

export function ServerSidebar({ servers, onChanged }: { servers: ServerStatus[]; onChanged(): void }) {
  const api = useApi();
  return (
    <Stack h="100%" gap="sm">
      <Text fw={600} size="sm">
        Servers
      </Text>
      <ScrollArea style={{ flex: 1 }}>
        <Stack gap={6} data-testid="server-list">
          {servers.length === 0 && (
            <Text size="xs" c="dimmed">
              No servers yet. Add one below.
            </Text>
          )}
          {servers.map((server) => (
            <Stack key={server.id} gap={4} p={6} data-testid="server-item" data-server-name={server.name} data-state={server.state} style={{ borderRadius: 6, border: '1px solid var(--mantine-color-default-border)' }}>
              <Group gap={8} wrap="nowrap">
                <Tooltip label={stateLabel(server)} multiline maw={300}>
                  <span className={`state-dot state-${server.state}`} aria-label={server.state} />
                </Tooltip>
                <Text size="sm" fw={500} truncate style={{ flex: 1 }}>
                  {server.name}
                </Text>
                {server.era && (
                  <Tooltip label={`Protocol ${server.protocolVersion ?? 'unknown'}`}>
                    <Badge size="xs" variant="outline" data-testid="server-era">
                      {server.era}
                    </Badge>
                  </Tooltip>
                )}
                <ActionIcon
                  size="sm"
                  variant="subtle"
                  color="red"
                  aria-label={`Remove ${server.name}`}
                  onClick={() => api.removeServer({ id: server.id }).then(onChanged)}
                >
                  ×
                </ActionIcon>
              </Group>
              <Group gap={6}>
                <Text size="xs" c="dimmed" className="mono" truncate style={{ flex: 1 }}>
                  {server.config.target.type === 'stdio' ? server.config.target.command : server.config.target.url}
                </Text>
                {server.state === 'connected' || server.state === 'connecting' ? (
                  <Button size="compact-xs" variant="light" onClick={() => api.disconnectServer({ id: server.id })}>
                    Disconnect
                  </Button>
                ) : (
                  <Button size="compact-xs" variant="light" onClick={() => api.connectServer({ id: server.id })} data-testid="server-connect">
                    Connect
                  </Button>
                )}
              </Group>
              {server.state === 'error' && server.error && (
                <Text size="xs" c="red" className="pre-wrap" data-testid="server-error">
                  {server.error}
                </Text>
              )}
            </Stack>
          ))}
        </Stack>
      </ScrollArea>
      <Divider label="Add a server" labelPosition="left" />
      <AddServerForm onAdded={onChanged} />
    </Stack>
  );
}
