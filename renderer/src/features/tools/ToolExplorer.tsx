/**
 * Every tool of every connected server, by namespaced name: grouped by server or flat,
 * searchable by name, title and description, virtualized (a server can offer thousands). A row
 * cut by the explorer's width shows its whole name (and title) on hover.
 */
import { Badge, CloseButton, Group, SegmentedControl, Text, TextInput, Tooltip, UnstyledButton } from '@mantine/core';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef } from 'react';
import type { ToolEntry } from '../../../../contract';
import { SafeLabel, SafeText, reveal } from '../../components/SafeText';
import { useApi } from '../../api/context';
import { preloadApp } from '../apps';
import { AppBadge, CollisionBadge, activeAnnotations } from './ToolDetail';
import { ToolIcon } from './ToolIcon';
import classes from './tools.module.css';

type Row = { kind: 'header'; serverId: string; serverName: string; count: number; collapsed: boolean } | { kind: 'tool'; tool: ToolEntry };

const HEADER_HEIGHT = 28;
const ROW_HEIGHT = 54;
/** Searching looks at this much of each description (some are megabytes). */
const SEARCH_CHARS = 20_000;

export interface ExplorerState {
  query: string;
  grouping: 'server' | 'flat';
  collapsed: string[];
}

export function ToolExplorer({
  tools,
  connectedServers,
  selected,
  onSelect,
  state,
  onState,
  scrollToNonce,
  serversWord = 'connected',
}: {
  tools: ToolEntry[];
  connectedServers: number;
  selected: string | null;
  onSelect(name: string): void;
  state: ExplorerState;
  onState(next: ExplorerState): void;
  /** Changes when the selected tool should be scrolled into view. */
  scrollToNonce: number;
  /** How the count names the servers: "connected", or "recorded" for a catalog as it was. */
  serversWord?: string;
}) {
  const haystacks = useMemo(() => new Map(tools.map((t) => [t.name, `${t.name}\n${t.title ?? ''}\n${(t.description ?? '').slice(0, SEARCH_CHARS)}`.toLowerCase()])), [tools]);
  const visible = useMemo(() => {
    const terms = state.query.trim().toLowerCase().split(/\s+/).filter(Boolean);
    return terms.length ? tools.filter((t) => terms.every((term) => haystacks.get(t.name)!.includes(term))) : tools;
  }, [tools, haystacks, state.query]);

  const rows = useMemo<Row[]>(() => {
    if (state.grouping === 'flat') return [...visible].sort((a, b) => a.name.localeCompare(b.name)).map((tool) => ({ kind: 'tool', tool }));
    const groups = new Map<string, ToolEntry[]>();
    for (const tool of visible) groups.set(tool.serverId, [...(groups.get(tool.serverId) ?? []), tool]);
    const out: Row[] = [];
    for (const [serverId, list] of groups) {
      const collapsed = state.collapsed.includes(serverId) && !state.query;
      out.push({ kind: 'header', serverId, serverName: list[0]!.serverName, count: list.length, collapsed });
      if (!collapsed) for (const tool of list) out.push({ kind: 'tool', tool });
    }
    return out;
  }, [visible, state.grouping, state.collapsed, state.query]);

  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: (i) => (rows[i]?.kind === 'header' ? HEADER_HEIGHT : ROW_HEIGHT),
    overscan: 12,
  });
  useEffect(() => virtualizer.measure(), [rows, virtualizer]);

  useEffect(() => {
    if (!selected) return;
    const index = rows.findIndex((r) => r.kind === 'tool' && r.tool.name === selected);
    if (index >= 0) virtualizer.scrollToIndex(index, { align: 'auto' });
    // Deliberately only these dependencies.
  }, [scrollToNonce]);

  const toolRows = rows.filter((r): r is Extract<Row, { kind: 'tool' }> => r.kind === 'tool');
  const move = (delta: number) => {
    if (toolRows.length === 0) return;
    const current = toolRows.findIndex((r) => r.tool.name === selected);
    const next = toolRows[Math.max(0, Math.min(toolRows.length - 1, current < 0 ? 0 : current + delta))]!;
    onSelect(next.tool.name);
    const index = rows.indexOf(next);
    virtualizer.scrollToIndex(index, { align: 'auto' });
  };

  return (
    <div className={classes.explorer}>
      <TextInput
        size="xs"
        placeholder="Search name, title, description   ( / )"
        value={state.query}
        onChange={(e) => onState({ ...state, query: e.currentTarget.value })}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
            e.preventDefault();
            move(e.key === 'ArrowDown' ? 1 : -1);
          } else if (e.key === 'Escape') onState({ ...state, query: '' });
        }}
        aria-label="Search tools"
        data-search-input
        data-testid="tool-search"
        rightSection={state.query ? <CloseButton size="xs" aria-label="Clear search" onClick={() => onState({ ...state, query: '' })} /> : undefined}
      />
      <Group justify="space-between" mt={6} mb={4} wrap="nowrap" gap={6}>
        <Text size="xs" c="dimmed" data-testid="tool-count" style={{ whiteSpace: 'nowrap', overflow: 'hidden', textOverflow: 'ellipsis' }}>
          {visible.length === tools.length ? `${tools.length} tools` : `${visible.length} of ${tools.length} tools`} from {connectedServers} {serversWord} {connectedServers === 1 ? 'server' : 'servers'}
        </Text>
        <SegmentedControl
          size="xs"
          value={state.grouping}
          onChange={(v) => onState({ ...state, grouping: v as 'server' | 'flat' })}
          data={[
            { value: 'server', label: 'By server' },
            { value: 'flat', label: 'Flat' },
          ]}
          data-testid="tool-grouping"
        />
      </Group>
      <div
        ref={scrollRef}
        className={classes.listViewport}
        data-testid="tool-list"
        role="listbox"
        aria-label="Tools"
        tabIndex={0}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
            e.preventDefault();
            move(e.key === 'ArrowDown' ? 1 : -1);
          }
        }}
      >
        {tools.length === 0 && (
          <Text size="sm" c="dimmed" p="sm">
            No tools yet. Connect a server (left) and its tools appear here.
          </Text>
        )}
        {tools.length > 0 && visible.length === 0 && (
          <Text size="sm" c="dimmed" p="sm">
            No tool matches “{state.query.slice(0, 80)}”.
          </Text>
        )}
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {virtualizer.getVirtualItems().map((item) => {
            const row = rows[item.index]!;
            return (
              <div key={item.key} style={{ position: 'absolute', top: 0, left: 0, right: 0, height: item.size, transform: `translateY(${item.start}px)` }}>
                {row.kind === 'header' ? (
                  <UnstyledButton
                    className={classes.groupHeader}
                    style={{ width: '100%' }}
                    onClick={() => onState({ ...state, collapsed: row.collapsed ? state.collapsed.filter((c) => c !== row.serverId) : [...state.collapsed, row.serverId] })}
                    data-testid="tool-group"
                    data-server-id={row.serverId}
                    aria-expanded={!row.collapsed}
                  >
                    <span>{row.collapsed ? '▸' : '▾'}</span>
                    <span style={{ minWidth: 0, flex: 1, overflow: 'hidden' }}>
                      <SafeLabel text={row.serverName} max={80} />
                    </span>
                    <span>{row.count}</span>
                  </UnstyledButton>
                ) : (
                  <ToolRow tool={row.tool} active={row.tool.name === selected} onSelect={onSelect} />
                )}
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}

function ToolRow({ tool, active, onSelect }: { tool: ToolEntry; active: boolean; onSelect(name: string): void }) {
  const api = useApi();
  const annotations = activeAnnotations(tool);
  const sub = tool.title ?? tool.description ?? '';
  // One tooltip for the row (name and title): the row's own labels are plain, so nothing doubles.
  return (
    <Tooltip
      label={
        <span className={classes.rowTooltip} data-testid="tool-name-tooltip">
          <span className={classes.toolName}>{reveal(tool.name.slice(0, 1_000))}</span>
          {tool.title && <span className={classes.rowTooltipTitle}>{reveal(tool.title.slice(0, 300))}</span>}
        </span>
      }
      openDelay={400}
      position="right"
      multiline
      maw={520}
      withinPortal
    >
      <UnstyledButton
        className={classes.toolRow}
        data-active={active}
        onClick={() => {
          // An app tool's resource starts loading now; the AppHost that mounts claims it.
          if (!active) preloadApp(api, tool);
          onSelect(tool.name);
        }}
        data-testid="tool-item"
        data-tool-name={tool.name}
        role="option"
        aria-selected={active}
      >
        <ToolIcon icons={tool.icons} />
        <span className={classes.toolRowText}>
          <Group gap={4} wrap="nowrap" justify="space-between">
            <span className={classes.toolName} style={{ minWidth: 0, overflow: 'hidden' }} data-testid="tool-item-name">
              <SafeText text={tool.name} clip={140} inline />
            </span>
            <span className={classes.rowBadges}>
              <AppBadge tool={tool} compact />
              {tool.collidesWith && tool.collidesWith.length > 0 && <CollisionBadge tool={tool} compact />}
              {annotations.map((a) => (
                <Tooltip key={a.key} label={a.help} openDelay={300}>
                  <Badge size="xs" variant="light" color={a.color} px={4}>
                    {a.short}
                  </Badge>
                </Tooltip>
              ))}
            </span>
          </Group>
          <span className={classes.toolSub}>
            <SafeText text={sub.slice(0, 300).replace(/\s+/g, ' ')} clip={160} inline />
          </span>
        </span>
      </UnstyledButton>
    </Tooltip>
  );
}
