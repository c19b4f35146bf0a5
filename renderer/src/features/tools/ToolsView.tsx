/**
 * The Tools view: an explorer of every connected server's tools (with this run's history and
 * the saved calls beside it), and the selected tool's detail — its schemas, a form to call it,
 * the call's progress and its response.
 */
import { Alert, Tabs, Text } from '@mantine/core';
import { useEffect, useState } from 'react';
import type { ServerStatus, ToolEntry } from '../../../../contract';
import { useApi } from '../../api/context';
import { useNavigation } from '../../state/navigation';
import { ensureSession, runCall, setArgs } from './calls-store';
import { HistoryPanel, SavedPanel } from './HistoryPanel';
import { ToolDetail } from './ToolDetail';
import { ToolExplorer, type ExplorerState } from './ToolExplorer';
import './validation-worker';

// Kept across view switches (the view unmounts when another tab shows).
let remembered: { selected: string | null; explorer: ExplorerState; side: string } = {
  selected: null,
  explorer: { query: '', grouping: 'server', collapsed: [] },
  side: 'tools',
};

export function ToolsView({ servers }: { servers: ServerStatus[] }) {
  const api = useApi();
  const nav = useNavigation();
  const [tools, setTools] = useState<ToolEntry[]>([]);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [selected, setSelectedState] = useState<string | null>(remembered.selected);
  const [explorer, setExplorerState] = useState<ExplorerState>(remembered.explorer);
  const [side, setSideState] = useState<string>(remembered.side);
  const [scrollNonce, setScrollNonce] = useState(0);

  const setSelected = (name: string | null) => {
    remembered = { ...remembered, selected: name };
    setSelectedState(name);
  };
  const setExplorer = (next: ExplorerState) => {
    remembered = { ...remembered, explorer: next };
    setExplorerState(next);
  };
  const setSide = (next: string) => {
    remembered = { ...remembered, side: next };
    setSideState(next);
  };

  const connected = servers.filter((s) => s.state === 'connected');
  const connectedKey = connected.map((s) => `${s.id}:${s.toolCount}:${s.name}`).join(',');
  useEffect(() => {
    let live = true;
    api.listTools().then(
      (list) => {
        if (!live) return;
        setTools(list);
        setLoadError(null);
      },
      (e: Error) => live && setLoadError(e.message),
    );
    return () => {
      live = false;
    };
  }, [api, connectedKey]);

  // "Open this tool" from elsewhere (command palette, other views).
  useEffect(() => {
    if (!nav.tool) return;
    setSelected(nav.tool.name);
    setSide('tools');
    if (explorer.query && !nav.tool.name.toLowerCase().includes(explorer.query.toLowerCase())) setExplorer({ ...explorer, query: '' });
    setScrollNonce((n) => n + 1);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [nav.tool?.nonce]);

  const open = (tool: ToolEntry, args: Record<string, unknown>, origin: 'history' | 'saved') => {
    ensureSession(api, tool);
    setArgs(tool.name, args, origin);
    setSelected(tool.name);
    setScrollNonce((n) => n + 1);
  };
  const runWith = (tool: ToolEntry, args: Record<string, unknown>) => {
    open(tool, args, 'history');
    void runCall(api, tool, { args, resetTimeoutOnProgress: true });
  };

  const tool = tools.find((t) => t.name === selected);

  return (
    <div style={{ display: 'flex', gap: 16, height: 'calc(100dvh - 48px - 32px - 52px)', minHeight: 420 }} data-testid="tools-view">
      <div style={{ width: 330, flex: 'none', display: 'flex', flexDirection: 'column', minHeight: 0 }}>
        <Tabs value={side} onChange={(v) => v && setSide(v)} style={{ display: 'flex', flexDirection: 'column', flex: 1, minHeight: 0 }} keepMounted={false}>
          <Tabs.List grow mb={8}>
            <Tabs.Tab value="tools" data-testid="tools-tab-tools">
              Tools
            </Tabs.Tab>
            <Tabs.Tab value="history" data-testid="tools-tab-history">
              History
            </Tabs.Tab>
            <Tabs.Tab value="saved" data-testid="tools-tab-saved">
              Saved
            </Tabs.Tab>
          </Tabs.List>
          <Tabs.Panel value="tools" style={{ flex: 1, minHeight: 0 }}>
            {loadError && (
              <Alert color="red" p="xs" mb="xs">
                Could not list tools: {loadError}
              </Alert>
            )}
            <ToolExplorer
              tools={tools}
              connectedServers={connected.length}
              selected={selected}
              onSelect={setSelected}
              state={explorer}
              onState={setExplorer}
              scrollToNonce={scrollNonce}
            />
          </Tabs.Panel>
          <Tabs.Panel value="history" style={{ flex: 1, minHeight: 0 }}>
            <HistoryPanel tools={tools} onOpen={open} onRunAgain={runWith} />
          </Tabs.Panel>
          <Tabs.Panel value="saved" style={{ flex: 1, minHeight: 0 }}>
            <SavedPanel tools={tools} onOpen={open} onRun={runWith} />
          </Tabs.Panel>
        </Tabs>
      </div>
      <div style={{ flex: 1, minWidth: 0, minHeight: 0 }}>
        {tool ? (
          <ToolDetail key={tool.name} tool={tool} />
        ) : (
          <Text c="dimmed" size="sm" pt="xl" ta="center" data-testid="tool-empty">
            {selected && tools.length > 0
              ? 'That tool is not offered by any connected server now.'
              : tools.length > 0
                ? 'Select a tool on the left (↑/↓ in the search box moves through the list).'
                : 'Connect a server to see its tools.'}
          </Text>
        )}
      </div>
    </div>
  );
}
