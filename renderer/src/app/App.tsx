import { AppShell, Badge, Group, Tabs, Text, Title } from '@mantine/core';
import { useEffect, useState } from 'react';
import type { CarrierKind } from '../api/carrier';
import { LogsView } from '../features/logs/LogsView';
import { ServerSidebar } from '../features/servers/ServerSidebar';
import { ToolsView } from '../features/tools/ToolsView';
import { useServers } from './useServers';

export function App({ carrier, onDisconnect }: { carrier: CarrierKind; onDisconnect(cb: () => void): void }) {
  const { servers, refresh } = useServers();
  const [lost, setLost] = useState(false);
  useEffect(() => onDisconnect(() => setLost(true)), [onDisconnect]);
  useEffect(() => {
    document.body.dataset.appState = 'ready';
  }, []);

  return (
    <AppShell header={{ height: 48 }} navbar={{ width: 320, breakpoint: 0 }} padding="md">
      <AppShell.Header px="md">
        <Group h="100%" justify="space-between">
          <Group gap="xs">
            <Title order={4}>Switchboard</Title>
            <Badge variant="light" size="sm" data-testid="carrier">
              {carrier === 'electron' ? 'desktop' : 'browser mode'}
            </Badge>
          </Group>
          {lost && (
            <Text c="red" size="sm" role="alert">
              Lost the connection to Switchboard's main process. Restart it and reload.
            </Text>
          )}
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="sm">
        <ServerSidebar servers={servers} onChanged={refresh} />
      </AppShell.Navbar>
      <AppShell.Main>
        <Tabs defaultValue="tools" keepMounted={false}>
          <Tabs.List>
            <Tabs.Tab value="tools">Tools</Tabs.Tab>
            <Tabs.Tab value="logs">Logs</Tabs.Tab>
          </Tabs.List>
          <Tabs.Panel value="tools" pt="md">
            <ToolsView servers={servers} />
          </Tabs.Panel>
          <Tabs.Panel value="logs" pt="md">
            <LogsView servers={servers} />
          </Tabs.Panel>
        </Tabs>
      </AppShell.Main>
    </AppShell>
  );
}
