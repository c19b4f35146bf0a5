/** Ctrl/Cmd+K: jump to a view, a server, or a tool. */
import { Spotlight, type SpotlightActionData } from '@mantine/spotlight';
import { useEffect, useMemo, useState } from 'react';
import type { ServerStatus, ToolEntry } from '../../../../contract';
import { useApi } from '../../api/context';
import { VIEWS, navigation } from '../../state/navigation';

export function CommandPalette({ servers }: { servers: ServerStatus[] }) {
  const api = useApi();
  const [tools, setTools] = useState<ToolEntry[]>([]);
  const connected = servers.filter((s) => s.state === 'connected').map((s) => `${s.id}:${s.toolCount}`).join(',');
  useEffect(() => {
    api.listTools().then(setTools, () => setTools([]));
  }, [api, connected]);

  const actions = useMemo<SpotlightActionData[]>(
    () => [
      ...VIEWS.map((view) => ({ id: `view:${view}`, label: `Go to ${view[0]!.toUpperCase()}${view.slice(1)}`, description: 'View', onClick: () => navigation.show(view) })),
      ...servers.map((s) => ({
        id: `server:${s.id}`,
        label: s.name,
        description: `Server · ${s.state}`,
        onClick: () => {
          navigation.selectServer(s.id);
          document.querySelector<HTMLElement>(`[data-testid="server-item"][data-server-id="${s.id}"]`)?.scrollIntoView({ block: 'nearest' });
        },
      })),
      ...tools.map((t) => ({ id: `tool:${t.name}`, label: t.name, description: `Tool · ${t.title ?? t.description?.slice(0, 60) ?? t.serverName}`, onClick: () => navigation.openTool(t.name) })),
    ],
    [servers, tools],
  );

  return <Spotlight actions={actions} nothingFound="Nothing found" highlightQuery limit={50} shortcut={['mod + K']} searchProps={{ placeholder: 'Go to a view, server or tool…' }} />;
}
