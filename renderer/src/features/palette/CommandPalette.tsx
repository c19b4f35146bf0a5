/** Ctrl/Cmd+K: run a command, or jump to a view, a server, or a tool. */
import { useComputedColorScheme, useMantineColorScheme } from '@mantine/core';
import { Spotlight, type SpotlightActionGroupData } from '@mantine/spotlight';
import { useEffect, useMemo, useState } from 'react';
import type { ServerStatus, ToolEntry } from '../../../../contract';
import { useApi } from '../../api/context';
import { VIEWS, navigation, useNavigation } from '../../state/navigation';
import { otlpSendDialog } from '../otlp';
import { bulkConnect } from '../servers';
import { exportTraceFile, pickAndImportTrace } from '../traffic';
import { COMMANDS, flippedScheme, type CommandId } from './commands';
import { SettingsModal } from './SettingsModal';

export function CommandPalette({ servers }: { servers: ServerStatus[] }) {
  const api = useApi();
  const nav = useNavigation();
  const { setColorScheme } = useMantineColorScheme();
  const onScreen = useComputedColorScheme('light');
  const [settingsOpen, setSettingsOpen] = useState(false);
  const [tools, setTools] = useState<ToolEntry[]>([]);
  const connected = servers.filter((s) => s.state === 'connected').map((s) => `${s.id}:${s.toolCount}`).join(',');
  useEffect(() => {
    api.listTools().then(setTools, () => setTools([]));
  }, [api, connected]);

  const source = nav.source;
  const actions = useMemo<SpotlightActionGroupData[]>(() => {
    const run: Record<CommandId, () => void> = {
      theme: () => setColorScheme(flippedScheme(onScreen)),
      'connect-all': () => void bulkConnect(api, 'connect'),
      'disconnect-all': () => void bulkConnect(api, 'disconnect'),
      'open-trace': () => navigation.show('traffic'),
      'export-jsonl': () => void exportTraceFile(api, 'jsonl', source.id),
      'export-har': () => void exportTraceFile(api, 'har', source.id),
      'export-otlp': () => void exportTraceFile(api, 'otlp', source.id),
      'send-otlp': () => otlpSendDialog.open({ sourceId: source.id, name: source.name }),
      'import-trace': () => pickAndImportTrace(api),
      'back-to-live': () => navigation.useSource({ id: 'live', name: 'Live' }),
      settings: () => setSettingsOpen(true),
    };
    const commands = COMMANDS.filter((c) => c.id !== 'back-to-live' || source.id !== 'live').map((c) => ({
      id: `command:${c.id}`,
      label: c.label,
      description: (c.id.startsWith('export') || c.id === 'send-otlp') && source.id !== 'live' ? `${c.description} (${source.name})` : c.description,
      keywords: [...c.keywords],
      onClick: run[c.id],
      'data-command': c.id,
    }));
    return [
      { group: 'Commands', actions: commands },
      { group: 'Views', actions: VIEWS.map((view) => ({ id: `view:${view}`, label: `Go to ${view[0]!.toUpperCase()}${view.slice(1)}`, description: 'View', onClick: () => navigation.show(view) })) },
      {
        group: 'Servers',
        actions: servers.map((s) => ({
          id: `server:${s.id}`,
          label: s.name,
          description: `Server · ${s.state}`,
          onClick: () => {
            navigation.selectServer(s.id);
            document.querySelector<HTMLElement>(`[data-testid="server-item"][data-server-id="${s.id}"]`)?.scrollIntoView({ block: 'nearest' });
          },
        })),
      },
      { group: 'Tools', actions: tools.map((t) => ({ id: `tool:${t.name}`, label: t.name, description: `Tool · ${t.title ?? t.description?.slice(0, 60) ?? t.serverName}`, onClick: () => navigation.openTool(t.name) })) },
    ].filter((g) => g.actions.length > 0);
  }, [api, servers, tools, onScreen, setColorScheme, source]);

  return (
    <>
      <Spotlight actions={actions} nothingFound="Nothing found" highlightQuery limit={50} shortcut={['mod + K', 'mod + shift + P']} searchProps={{ placeholder: 'Run a command, go to a view, server or tool…', 'data-testid': 'palette-search' } as never} />
      <SettingsModal opened={settingsOpen} onClose={() => setSettingsOpen(false)} />
    </>
  );
}
