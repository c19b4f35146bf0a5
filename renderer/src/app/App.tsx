import { ActionIcon, AppShell, Badge, Button, Group, Kbd, Tabs, Text, Title, Tooltip, useMantineColorScheme } from '@mantine/core';
import { spotlight } from '@mantine/spotlight';
import { Suspense, lazy, useEffect, type ReactNode } from 'react';
import type { CarrierKind } from '../api/carrier';
import { useApi, useLink, useLinkState } from '../api/context';
import { ViewBoundary } from '../components/ViewBoundary';
import { AuthView, SignInPrompts } from '../features/auth';
import { getSignInStore } from '../features/auth/sign-in-store';
import { ChartsView } from '../features/charts/ChartsView';
import { getLogStore } from '../features/logs/log-store';
import { LogsView } from '../features/logs/LogsView';
import { CommandPalette } from '../features/palette/CommandPalette';
import { PromptsView } from '../features/prompts/PromptsView';
import { RequestBadge, RequestCenter } from '../features/requests';
import { getRequestStore } from '../features/requests/store';
import { ResourcesView } from '../features/resources/ResourcesView';
import { ServerSidebar } from '../features/servers/ServerSidebar';
import { ServerInfoDrawer } from '../features/server-info/ServerInfoDrawer';
import { TimelineView } from '../features/timeline/TimelineView';
import { RecordingsView } from '../features/recordings';
import { ToolsView } from '../features/tools/ToolsView';
import { TrafficView } from '../features/traffic/TrafficView';
import { VIEWS, navigation, useNavigation, type View } from '../state/navigation';
import { useGlobalKeys } from './keyboard';
import { MainGoneBanner } from './MainGoneBanner';
import { useServers } from './useServers';

/** MCP Apps' view (and the app bridge it brings) loads when first shown, not with the first chunk. */
const AppsView = lazy(() => import('../features/apps/AppsView').then((m) => ({ default: m.AppsView })));

const LABELS: Record<View, string> = {
  tools: 'Tools',
  apps: 'Apps',
  resources: 'Resources',
  prompts: 'Prompts',
  traffic: 'Traffic',
  charts: 'Charts',
  timeline: 'Timeline',
  logs: 'Logs',
  auth: 'Auth',
  recordings: 'Recordings',
};

export function App({ carrier }: { carrier: CarrierKind }) {
  const { servers, loaded, refresh } = useServers();
  const nav = useNavigation();
  const link = useLink();
  const { status, epoch } = useLinkState();
  useEffect(() => {
    document.body.dataset.appState = 'ready';
  }, []);
  useGlobalKeys();
  // Log lines are collected from the start, not from the first visit to the Logs view.
  const api = useApi();
  useEffect(() => void getLogStore(api), [api]);
  // Main is back: fetch again what lives outside the views (the views remount, see `key`).
  // Pushes held back while the page read slowly (resync): the same, without remounting the views.
  useEffect(() => {
    const reload = () => {
      refresh();
      void getLogStore(api).resync();
      void getRequestStore(api).reload();
      void getSignInStore(api).reload();
    };
    const offReconnected = link.onReconnected(reload);
    const offResync = link.onResync(reload);
    return () => {
      offReconnected();
      offResync();
    };
  }, [link, api, refresh]);
  const view = (name: View, node: ReactNode) => <ViewBoundary view={name}>{node}</ViewBoundary>;

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
          <Group gap="xs" wrap="nowrap">
            <RequestBadge />
            <Button variant="default" size="xs" onClick={() => spotlight.open()} rightSection={<Kbd size="xs">Ctrl K</Kbd>} data-testid="open-palette">
              Commands…
            </Button>
            <ThemeToggle />
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="sm">
        <ViewBoundary view="servers">
          <ServerSidebar servers={servers} loaded={loaded} onChanged={refresh} linkUp={status === 'connected'} />
        </ViewBoundary>
      </AppShell.Navbar>
      <AppShell.Main className="app-main">
        <MainGoneBanner />
        {/* A new epoch (main came back) remounts the views: each fetches what it shows again. */}
        <Tabs key={epoch} className="app-tabs" value={nav.view} onChange={(v) => v && navigation.show(v as View)} keepMounted={false}>
          <Tabs.List>
            {VIEWS.map((view) => (
              <Tabs.Tab key={view} value={view} data-testid={`view-${view}`}>
                {LABELS[view]}
              </Tabs.Tab>
            ))}
          </Tabs.List>
          <Tabs.Panel value="tools" pt="md">
            {view('tools', <ToolsView servers={servers} />)}
          </Tabs.Panel>
          <Tabs.Panel value="apps" pt="md">
            {view(
              'apps',
              <Suspense fallback={<Text size="sm" c="dimmed">Loading the Apps view…</Text>}>
                <AppsView servers={servers} />
              </Suspense>,
            )}
          </Tabs.Panel>
          <Tabs.Panel value="resources" pt="md">
            {view('resources', <ResourcesView servers={servers} />)}
          </Tabs.Panel>
          <Tabs.Panel value="prompts" pt="md">
            {view('prompts', <PromptsView servers={servers} />)}
          </Tabs.Panel>
          <Tabs.Panel value="traffic" pt="md">
            {view('traffic', <TrafficView servers={servers} />)}
          </Tabs.Panel>
          <Tabs.Panel value="charts" pt="md">
            {view('charts', <ChartsView servers={servers} />)}
          </Tabs.Panel>
          <Tabs.Panel value="timeline" pt="md">
            {view('timeline', <TimelineView servers={servers} />)}
          </Tabs.Panel>
          <Tabs.Panel value="logs" pt="md">
            {view('logs', <LogsView servers={servers} />)}
          </Tabs.Panel>
          <Tabs.Panel value="auth" pt="md">
            {view('auth', <AuthView servers={servers} />)}
          </Tabs.Panel>
          <Tabs.Panel value="recordings" pt="md">
            {view('recordings', <RecordingsView servers={servers} />)}
          </Tabs.Panel>
        </Tabs>
      </AppShell.Main>
      <ViewBoundary view="palette">
        <CommandPalette servers={servers} />
      </ViewBoundary>
      <ViewBoundary view="requests">
        <RequestCenter servers={servers} />
      </ViewBoundary>
      <ViewBoundary view="sign-in">
        <SignInPrompts servers={servers} />
      </ViewBoundary>
      <ViewBoundary view="server-info">
        <ServerInfoDrawer servers={servers} />
      </ViewBoundary>
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
