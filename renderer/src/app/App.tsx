import { ActionIcon, AppShell, Badge, Button, Group, Kbd, Tabs, Text, Title, Tooltip, useMantineColorScheme } from '@mantine/core';
import { spotlight } from '@mantine/spotlight';
import { Suspense, lazy, useEffect, type ComponentType, type LazyExoticComponent } from 'react';
import type { ServerStatus } from '../../../contract';
import type { CarrierKind } from '../api/carrier';
import { useApi, useLink, useLinkState } from '../api/context';
import { ViewBoundary } from '../components/ViewBoundary';
import { SignInPrompts } from '../features/auth';
import { getSignInStore } from '../features/auth/sign-in-store';
import { getLogStore } from '../features/logs/log-store';
import { CommandPalette } from '../features/palette/CommandPalette';
import { RequestBadge, RequestCenter } from '../features/requests';
import { getRequestStore } from '../features/requests/store';
import { ServerSidebar } from '../features/servers/ServerSidebar';
import { ServerInfoDrawer } from '../features/server-info/ServerInfoDrawer';
import { OtlpSendModal } from '../features/otlp';
import { VIEWS, navigation, useNavigation, type View } from '../state/navigation';
import { useGlobalKeys } from './keyboard';
import { MainGoneBanner } from './MainGoneBanner';
import { useServers } from './useServers';

type ViewComponent = ComponentType<{ servers: ServerStatus[] }>;

/**
 * Every view's code is its own chunk, loaded when first shown (or when its tab is hovered or
 * focused), not with the first script: that one holds the shell, the server list and what the
 * shell always shows (dialogs, palette). Charts its canvas charts, Apps the app bridge and
 * an MCP client, Tools the schema form. Each entry is the dynamic import itself: calling it again
 * returns the module already loaded.
 */
const VIEW_CHUNKS: Record<View, () => Promise<ViewComponent>> = {
  tools: () => import('../features/tools/ToolsView').then((m) => m.ToolsView),
  apps: () => import('../features/apps/AppsView').then((m) => m.AppsView),
  resources: () => import('../features/resources/ResourcesView').then((m) => m.ResourcesView),
  prompts: () => import('../features/prompts/PromptsView').then((m) => m.PromptsView),
  traffic: () => import('../features/traffic/TrafficView').then((m) => m.TrafficView),
  charts: () => import('../features/charts/ChartsView').then((m) => m.ChartsView),
  timeline: () => import('../features/timeline/TimelineView').then((m) => m.TimelineView),
  logs: () => import('../features/logs/LogsView').then((m) => m.LogsView),
  auth: () => import('../features/auth/AuthView').then((m) => m.AuthView),
  recordings: () => import('../features/recordings/RecordingsView').then((m) => m.RecordingsView),
  checks: () => import('../features/checks').then((m) => m.ChecksView),
};

/**
 * React.lazy keeps a failed load for good; a view whose chunk failed (main restarted, the page
 * offline for a moment) gets a fresh lazy component, so the boundary's "Reload this view" loads again.
 */
function lazyComponent(name: View): LazyExoticComponent<ViewComponent> {
  return lazy(() =>
    VIEW_CHUNKS[name]().then(
      (component) => ({ default: component }),
      (error: unknown) => {
        VIEW_COMPONENTS[name] = lazyComponent(name);
        throw error;
      },
    ),
  );
}
const VIEW_COMPONENTS = Object.fromEntries(VIEWS.map((name) => [name, lazyComponent(name)])) as Record<View, LazyExoticComponent<ViewComponent>>;

/** Reads its view's component when it mounts (after a reload too), with a line while the chunk loads. */
function LazyView({ name, servers }: { name: View; servers: ServerStatus[] }) {
  const Component = VIEW_COMPONENTS[name];
  return (
    <Suspense
      fallback={
        <Text size="sm" c="dimmed" data-testid="view-loading">
          Loading the {LABELS[name]} view…
        </Text>
      }
    >
      <Component servers={servers} />
    </Suspense>
  );
}

/** Start loading a view's chunk ahead of its first showing (a tab hovered or focused); a failure shows when the view does. */
function warm(view: View): void {
  VIEW_CHUNKS[view]().catch(() => undefined);
}

// The view the window opens on loads while main.tsx connects to main, not after the first render.
warm(navigation.get().view);

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
  checks: 'Checks',
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
  // The log store follows main from the start (the Logs view then reads what partial pushes left out).
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
  /** A view in its error boundary; its chunk loads when first shown (see VIEW_CHUNKS). */
  const view = (name: View) => (
    <ViewBoundary view={name}>
      <LazyView name={name} servers={servers} />
    </ViewBoundary>
  );

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
              <Tabs.Tab key={view} value={view} data-testid={`view-${view}`} onPointerEnter={() => warm(view)} onFocus={() => warm(view)}>
                {LABELS[view]}
              </Tabs.Tab>
            ))}
          </Tabs.List>
          <Tabs.Panel value="tools" pt="md">
            {view('tools')}
          </Tabs.Panel>
          <Tabs.Panel value="apps" pt="md">
            {view('apps')}
          </Tabs.Panel>
          <Tabs.Panel value="resources" pt="md">
            {view('resources')}
          </Tabs.Panel>
          <Tabs.Panel value="prompts" pt="md">
            {view('prompts')}
          </Tabs.Panel>
          <Tabs.Panel value="traffic" pt="md">
            {view('traffic')}
          </Tabs.Panel>
          <Tabs.Panel value="charts" pt="md">
            {view('charts')}
          </Tabs.Panel>
          <Tabs.Panel value="timeline" pt="md">
            {view('timeline')}
          </Tabs.Panel>
          <Tabs.Panel value="logs" pt="md">
            {view('logs')}
          </Tabs.Panel>
          <Tabs.Panel value="auth" pt="md">
            {view('auth')}
          </Tabs.Panel>
          <Tabs.Panel value="recordings" pt="md">
            {view('recordings')}
          </Tabs.Panel>
          <Tabs.Panel value="checks" pt="md">
            {view('checks')}
          </Tabs.Panel>
        </Tabs>
      </AppShell.Main>
      <ViewBoundary view="otlp-send">
        <OtlpSendModal />
      </ViewBoundary>
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
