import { ActionIcon, AppShell, Badge, Button, Group, Kbd, Tabs, Text, Title, Tooltip, useMantineColorScheme } from '@mantine/core';
import { spotlight } from '@mantine/spotlight';
import { useEffect, useState } from 'react';
import type { CarrierKind } from '../api/carrier';
import { useApi } from '../api/context';
import { AuthView, SignInPrompts } from '../features/auth';
import { ChartsView } from '../features/charts/ChartsView';
import { getLogStore } from '../features/logs/log-store';
import { LogsView } from '../features/logs/LogsView';
import { CommandPalette } from '../features/palette/CommandPalette';
import { PromptsView } from '../features/prompts/PromptsView';
import { RequestBadge, RequestCenter } from '../features/requests';
import { ResourcesView } from '../features/resources/ResourcesView';
import { ServerSidebar } from '../features/servers/ServerSidebar';
import { TimelineView } from '../features/timeline/TimelineView';
import { ToolsView } from '../features/tools/ToolsView';
import { TrafficView } from '../features/traffic/TrafficView';
import { VIEWS, navigation, useNavigation, type View } from '../state/navigation';
import { useGlobalKeys } from './keyboard';
import { useServers } from './useServers';

const LABELS: Record<View, string> = {
  tools: 'Tools',
  resources: 'Resources',
  prompts: 'Prompts',
  traffic: 'Traffic',
  charts: 'Charts',
  timeline: 'Timeline',
  logs: 'Logs',
  auth: 'Auth',
};

export function App({ carrier, onDisconnect }: { carrier: CarrierKind; onDisconnect(cb: () => void): void }) {
  const { servers, loaded, refresh } = useServers();
  const nav = useNavigation();
  const [lost, setLost] = useState(false);
  useEffect(() => onDisconnect(() => setLost(true)), [onDisconnect]);
  useEffect(() => {
    document.body.dataset.appState = 'ready';
  }, []);
  useGlobalKeys();
  // Log lines are collected from the start, not from the first visit to the Logs view.
  const api = useApi();
  useEffect(() => void getLogStore(api), [api]);

  return (
    <AppShell header={{ height: 48 }} navbar={{ width: 320, breakpoint: 0 }} padding="md">
      <AppShell.Header px="md">
        <Group h="100%" justify="space-between" wrap="nowrap">
          <Group gap="xs" wrap="nowrap">
            <Title order={4}>Switchboard</Title>
            <Badge variant="light" size="sm" data-testid="carrier">
              {carrier === 'electron' ? 'desktop' : 'browser mode'}
            </Badge>
            {nav.source.id !== 'live' && (
              <Group gap={6} wrap="nowrap" data-testid="imported-source">
                <Badge color="orange" variant="filled" size="sm">
                  read-only: {nav.source.name}
                </Badge>
                <Button size="compact-xs" variant="subtle" onClick={() => navigation.useSource({ id: 'live', name: 'Live' })}>
                  Back to live
                </Button>
              </Group>
            )}
          </Group>
          {lost && (
            <Text c="red" size="sm" role="alert">
              Lost the connection to Switchboard's main process. Restart it and reload.
            </Text>
          )}
          <Group gap="xs" wrap="nowrap">
            <RequestBadge />
            <Button variant="default" size="xs" onClick={() => spotlight.open()} rightSection={<Kbd size="xs">Ctrl K</Kbd>} data-testid="open-palette">
              Go to…
            </Button>
            <ThemeToggle />
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="sm">
        <ServerSidebar servers={servers} loaded={loaded} onChanged={refresh} />
      </AppShell.Navbar>
      <AppShell.Main>
        <Tabs value={nav.view} onChange={(v) => v && navigation.show(v as View)} keepMounted={false}>
          <Tabs.List>
            {VIEWS.map((view) => (
              <Tabs.Tab key={view} value={view} data-testid={`view-${view}`}>
                {LABELS[view]}
              </Tabs.Tab>
            ))}
          </Tabs.List>
          <Tabs.Panel value="tools" pt="md">
            <ToolsView servers={servers} />
          </Tabs.Panel>
          <Tabs.Panel value="resources" pt="md">
            <ResourcesView servers={servers} />
          </Tabs.Panel>
          <Tabs.Panel value="prompts" pt="md">
            <PromptsView servers={servers} />
          </Tabs.Panel>
          <Tabs.Panel value="traffic" pt="md">
            <TrafficView servers={servers} />
          </Tabs.Panel>
          <Tabs.Panel value="charts" pt="md">
            <ChartsView servers={servers} />
          </Tabs.Panel>
          <Tabs.Panel value="timeline" pt="md">
            <TimelineView servers={servers} />
          </Tabs.Panel>
          <Tabs.Panel value="logs" pt="md">
            <LogsView servers={servers} />
          </Tabs.Panel>
          <Tabs.Panel value="auth" pt="md">
            <AuthView servers={servers} />
          </Tabs.Panel>
        </Tabs>
      </AppShell.Main>
      <CommandPalette servers={servers} />
      <RequestCenter servers={servers} />
      <SignInPrompts servers={servers} />
    </AppShell>
  );
}

function ThemeToggle() {
  const { colorScheme, setColorScheme } = useMantineColorScheme();
  const next = colorScheme === 'auto' ? 'light' : colorScheme === 'light' ? 'dark' : 'auto';
  const label = colorScheme === 'auto' ? 'Theme: follows the OS' : `Theme: ${colorScheme}`;
  return (
    <Tooltip label={`${label} (click for ${next})`}>
      <ActionIcon variant="default" size="lg" onClick={() => setColorScheme(next)} aria-label={label} data-testid="theme-toggle" data-scheme={colorScheme}>
        {colorScheme === 'auto' ? '◐' : colorScheme === 'light' ? '☀' : '☾'}
      </ActionIcon>
    </Tooltip>
  );
}
