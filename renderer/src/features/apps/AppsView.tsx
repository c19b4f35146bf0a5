/**
 * The Apps view: every tool with an MCP App (`_meta.ui.resourceUri`) of every connected server,
 * grouped by server, each runnable with a form for its arguments and its app running beside the
 * result. The call goes through the tool's session (the Tools view's: same arguments, history and
 * audit). Loaded lazily by the app shell, so the app bridge is not in the first chunk.
 */
import { Grid, Stack, Text } from '@mantine/core';
import { useMemo } from 'react';
import type { ServerStatus } from '../../../../contract';
import { useApi } from '../../api/context';
import { ListHeader } from '../../components/ListHeader';
import { ListStatus } from '../../components/ListStatus';
import { GroupedList, type ListGroup } from '../../components/GroupedList';
import { plural } from '../../components/format';
import { useNavigation } from '../../state/navigation';
import { useConnectedList } from '../../state/useConnectedList';
import { useViewState } from '../../state/useViewState';
import { AppToolDetail } from './view/AppToolDetail';
import { AppToolRow } from './view/AppToolRow';
import { EMPTY_TEXT, appToolGroups, offeredApps, serversWithoutApps, type AppTool } from './view/model';

export function AppsView({ servers }: { servers: ServerStatus[] }) {
  const api = useApi();
  const nav = useNavigation();
  const [query, setQuery] = useViewState('apps.query', '');
  const [selected, setSelected] = useViewState<string | null>('apps.selected', null);
  const connected = servers.filter((s) => s.state === 'connected');
  // A changed tool list (list_changed) changes a server's tool count: list again, as the Tools view does.
  const toolsKey = connected.map((s) => `${s.id}:${s.toolCount ?? ''}`).join(',');
  const { data: tools, error, reload } = useConnectedList(() => api.listTools(), servers, [api, toolsKey]);

  const scope = nav.serverId ? servers.find((s) => s.id === nav.serverId) : undefined;
  const withoutApps = serversWithoutApps(servers);
  const allApps = useMemo(() => offeredApps(tools ?? [], servers), [tools, servers]);
  const groups = useMemo<ListGroup<AppTool>[]>(
    () =>
      appToolGroups(allApps, servers, query, scope?.id).map((g) => ({
        ...g,
        aside: (
          <Text span size="xs" c="dimmed" fw={400} style={{ flex: 'none' }}>
            {plural(g.items.length, 'app')}
          </Text>
        ),
      })),
    [allApps, servers, query, scope?.id],
  );
  const shown = groups.reduce((n, g) => n + g.items.length, 0);
  const tool = allApps.find((t) => t.name === selected);

  const empty =
    allApps.length > 0 ? (
      <Text size="sm" c="dimmed" p="sm">
        Nothing matches the search.
      </Text>
    ) : (
      <Stack gap={6} p="sm" data-testid="apps-empty">
        <Text size="sm" c="dimmed">
          {connected.length === 0 ? 'No connected servers. Connect one in the sidebar to see its apps.' : EMPTY_TEXT}
        </Text>
        {withoutApps.length > 0 && (
          <Text size="xs" c="dimmed" data-testid="apps-disabled-servers">
            The MCP Apps extension is not declared to: {withoutApps.map((s) => s.name.slice(0, 80)).join(', ')} (turn on “MCP Apps” in the server’s settings).
          </Text>
        )}
      </Stack>
    );

  return (
    <Grid gap="md" data-testid="apps-view">
      <Grid.Col span={4}>
        <Stack gap="xs">
          <ListHeader query={query} onQuery={setQuery} placeholder="Search apps" label="Search apps" testId="apps-search" onRefresh={reload} refreshTestId="apps-refresh" />
          <ListStatus
            count={tools ? `${shown} of ${plural(allApps.length, 'app tool')} from ${plural(connected.length, 'connected server')}` : 'Loading…'}
            testId="apps-count"
            scopeName={scope?.name}
            error={error}
            errorTitle="Could not list tools"
          />
          <GroupedList
            groups={groups}
            itemKey={(t) => t.name}
            selectedKey={selected}
            onSelect={(t) => setSelected(t.name)}
            memoryKey="apps.list"
            testId="apps-list"
            itemProps={(t) => ({ 'data-testid': `apps-item-${t.name}`, 'data-tool': t.name, 'data-server-id': t.serverId })}
            renderItem={(t) => <AppToolRow tool={t} />}
            empty={empty}
          />
          {allApps.length > 0 && withoutApps.length > 0 && (
            <Text size="xs" c="dimmed" data-testid="apps-disabled-servers">
              Not shown: the apps of {withoutApps.map((s) => s.name.slice(0, 80)).join(', ')} (MCP Apps is off in its settings).
            </Text>
          )}
        </Stack>
      </Grid.Col>
      <Grid.Col span={8}>
        {tool ? (
          <AppToolDetail key={tool.name} tool={tool} />
        ) : (
          <Text c="dimmed" size="sm" data-testid="apps-none-selected">
            {selected && allApps.length > 0 ? 'That app is not offered by any connected server now.' : allApps.length > 0 ? 'Select an app on the left to run it.' : EMPTY_TEXT}
          </Text>
        )}
      </Grid.Col>
    </Grid>
  );
}
