/**
 * The Tools view: an explorer of every connected server's tools (with this run's history and
 * the saved calls beside it), and the selected tool's detail — its schemas, a form to call it,
 * the call's progress and its response. The explorer is as wide as the splitter beside it says
 * (dragged, or arrow keys when focused; remembered across reloads); the selection, search and
 * panel outlive a switch to another view (state/view-memory).
 */
import { Alert, Tabs, Text } from '@mantine/core';
import { useEffect, useRef, useState, type KeyboardEvent, type PointerEvent } from 'react';
import type { ServerStatus, ToolEntry } from '../../../../contract';
import { useApi } from '../../api/context';
import { useNavigation } from '../../state/navigation';
import { useViewState } from '../../state/useViewState';
import { ensureSession, runCall, setArgs } from './calls-store';
import { HistoryPanel, SavedPanel } from './HistoryPanel';
import { RecordedCatalog } from './RecordedCatalog';
import { ToolDetail } from './ToolDetail';
import { EXPLORER_WIDTH, clampWidth, loadWidth, maxWidthFor, saveWidth, widthAfterKey } from './explorer-width';
import { ToolExplorer, type ExplorerState } from './ToolExplorer';
import classes from './tools.module.css';
import './validation-worker';

export function ToolsView({ servers }: { servers: ServerStatus[] }) {
  const api = useApi();
  const nav = useNavigation();
  const [tools, setTools] = useState<ToolEntry[]>([]);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [selected, setSelected] = useViewState<string | null>('tools.selected', null);
  const [explorer, setExplorer] = useViewState<ExplorerState>('tools.explorer', { query: '', grouping: 'server', collapsed: [] });
  const [side, setSide] = useViewState<string>('tools.side', 'tools');
  const [scrollNonce, setScrollNonce] = useState(0);
  const view = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(loadWidth);
  // The view's width bounds the explorer's (the detail keeps its room when the window narrows).
  const [viewWidth, setViewWidth] = useState<number | undefined>(undefined);
  useEffect(() => {
    const el = view.current;
    if (!el) return;
    const observer = new ResizeObserver(() => setViewWidth(el.clientWidth));
    observer.observe(el);
    setViewWidth(el.clientWidth);
    return () => observer.disconnect();
  }, []);

  const connected = servers.filter((s) => s.state === 'connected');
  const connectedKey = connected.map((s) => `${s.id}:${s.toolCount}:${s.name}`).join(',');
  useEffect(() => {
    let live = true;
    api.listTools().then(
      (list) => {
        if (!live) return;
        // The first list after a remount: bring the remembered selection into view.
        setTools((old) => {
          if (old.length === 0 && list.length > 0) setScrollNonce((n) => n + 1);
          return list;
        });
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
    // Deliberately only these dependencies.
  }, [nav.tool?.nonce]);

  const open = (tool: ToolEntry, args: Record<string, unknown>, origin: 'history' | 'saved') => {
    ensureSession(api, tool);
    setArgs(api, tool.name, args, origin);
    setSelected(tool.name);
    setScrollNonce((n) => n + 1);
  };
  const runWith = (tool: ToolEntry, args: Record<string, unknown>) => {
    open(tool, args, 'history');
    void runCall(api, tool, { args, resetTimeoutOnProgress: true });
  };

  const tool = tools.find((t) => t.name === selected);
  // A recording (or an imported file) is the source: its catalog as it was, read-only; back to live restores this.
  if (nav.source.id !== 'live') return <RecordedCatalog key={nav.source.id} source={nav.source} />;

  return (
    <div ref={view} style={{ display: 'flex', height: 'calc(100dvh - 48px - 32px - 52px)', minHeight: 420 }} data-testid="tools-view">
      <div style={{ width: clampWidth(width, viewWidth), flex: 'none', display: 'flex', flexDirection: 'column', minHeight: 0 }} data-testid="tool-explorer-pane">
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
      <ExplorerSplitter width={width} onWidth={setWidth} viewWidth={viewWidth} />
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

/**
 * The bar between the explorer and the detail: drag it, or focus it and use ←/→ (Shift: bigger
 * steps), Home/End (narrowest/widest), Enter (back to the default). Saved when a move ends.
 */
function ExplorerSplitter({ width, onWidth, viewWidth }: { width: number; onWidth(width: number): void; viewWidth: number | undefined }) {
  const drag = useRef<{ startX: number; startWidth: number; pointer: number } | null>(null);
  const shown = clampWidth(width, viewWidth);
  const onPointerDown = (e: PointerEvent<HTMLDivElement>) => {
    if (e.button !== 0) return;
    e.preventDefault();
    e.currentTarget.setPointerCapture(e.pointerId);
    e.currentTarget.focus();
    drag.current = { startX: e.clientX, startWidth: shown, pointer: e.pointerId };
  };
  const onPointerMove = (e: PointerEvent<HTMLDivElement>) => {
    if (!drag.current || drag.current.pointer !== e.pointerId) return;
    onWidth(clampWidth(drag.current.startWidth + e.clientX - drag.current.startX, viewWidth));
  };
  const end = (e: PointerEvent<HTMLDivElement>) => {
    if (!drag.current || drag.current.pointer !== e.pointerId) return;
    const next = clampWidth(drag.current.startWidth + e.clientX - drag.current.startX, viewWidth);
    drag.current = null;
    onWidth(next);
    saveWidth(next);
  };
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const next = widthAfterKey(shown, e.key, e.shiftKey, viewWidth);
    if (next === null) return;
    e.preventDefault();
    onWidth(next);
    saveWidth(next);
  };
  return (
    <div
      className={classes.splitter}
      role="separator"
      aria-orientation="vertical"
      aria-label="Resize the tool explorer"
      aria-valuemin={EXPLORER_WIDTH.min}
      aria-valuemax={maxWidthFor(viewWidth)}
      aria-valuenow={shown}
      aria-valuetext={`${shown} pixels wide`}
      title="Drag to resize the explorer (or focus and use ←/→; Enter resets)"
      tabIndex={0}
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={end}
      onPointerCancel={end}
      onDoubleClick={() => {
        onWidth(EXPLORER_WIDTH.initial);
        saveWidth(EXPLORER_WIDTH.initial);
      }}
      onKeyDown={onKeyDown}
      data-testid="tool-explorer-splitter"
    />
  );
}
