/**
 * A virtualized list grouped by server (collapsible headers, fixed row heights, arrow keys
 * move the selection). Shared by the Resources and Prompts views. With `memoryKey`, which groups
 * are collapsed and where the list was scrolled outlive the view (state/view-memory).
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useLayoutEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useViewState } from '../state/useViewState';
import { viewMemory } from '../state/view-memory';
import classes from './content.module.css';

export interface ListGroup<T> {
  id: string;
  title: string;
  /** Shown after the title (counts, era). */
  aside?: ReactNode;
  items: T[];
}

type Row<T> = { type: 'group'; group: ListGroup<T>; collapsed: boolean } | { type: 'item'; item: T; key: string };

const GROUP_HEIGHT = 28;
const ITEM_HEIGHT = 48;

export function GroupedList<T>({
  groups,
  itemKey,
  renderItem,
  selectedKey,
  onSelect,
  testId,
  itemProps,
  empty,
  memoryKey,
}: {
  groups: ListGroup<T>[];
  itemKey(item: T): string;
  renderItem(item: T): ReactNode;
  selectedKey: string | null;
  onSelect(item: T): void;
  testId: string;
  /** Extra attributes on each row (test ids, data-*). */
  itemProps?(item: T): Record<string, string | undefined>;
  empty: ReactNode;
  /** Remember collapsed groups and the scroll position under this key. */
  memoryKey?: string;
}) {
  const [localCollapsed, setLocalCollapsed] = useState<Set<string>>(() => new Set());
  const [keptCollapsed, setKeptCollapsed] = useViewState<Set<string>>(`${memoryKey ?? ''}.collapsed`, () => new Set());
  const collapsed = memoryKey ? keptCollapsed : localCollapsed;
  const setCollapsed = memoryKey ? setKeptCollapsed : setLocalCollapsed;
  const viewport = useRef<HTMLDivElement>(null);
  const rows = useMemo(() => {
    const out: Row<T>[] = [];
    for (const group of groups) {
      const isCollapsed = collapsed.has(group.id);
      out.push({ type: 'group', group, collapsed: isCollapsed });
      if (!isCollapsed) for (const item of group.items) out.push({ type: 'item', item, key: itemKey(item) });
    }
    return out;
  }, [groups, collapsed, itemKey]);

  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => viewport.current,
    estimateSize: (i) => (rows[i]?.type === 'group' ? GROUP_HEIGHT : ITEM_HEIGHT),
    overscan: 12,
  });

  // Back where it was: once the rows are there (the list arrives after the view mounts).
  const hasRows = rows.length > 0;
  const restored = useRef(false);
  useLayoutEffect(() => {
    if (!memoryKey || restored.current || !hasRows || !viewport.current) return;
    restored.current = true;
    const top = viewMemory.get<number>(`${memoryKey}.scroll`);
    if (top) viewport.current.scrollTop = top;
  }, [memoryKey, hasRows]);

  const toggle = (id: string) =>
    setCollapsed((old) => {
      const next = new Set(old);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  const onKeyDown = (event: React.KeyboardEvent) => {
    if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
    const items = rows.map((r, i) => [r, i] as const).filter(([r]) => r.type === 'item');
    if (!items.length) return;
    event.preventDefault();
    const current = items.findIndex(([r]) => r.type === 'item' && r.key === selectedKey);
    const next = current < 0 ? 0 : Math.max(0, Math.min(items.length - 1, current + (event.key === 'ArrowDown' ? 1 : -1)));
    const [row, index] = items[next]!;
    if (row.type === 'item') {
      onSelect(row.item);
      virtualizer.scrollToIndex(index, { align: 'auto' });
    }
  };

  if (!groups.length) return <div className={classes.listViewport}>{empty}</div>;

  return (
    <div
      ref={viewport}
      className={classes.listViewport}
      data-testid={testId}
      tabIndex={0}
      onKeyDown={onKeyDown}
      role="listbox"
      onScroll={memoryKey ? (e) => viewMemory.set(`${memoryKey}.scroll`, e.currentTarget.scrollTop) : undefined}
    >
      <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
        {virtualizer.getVirtualItems().map((v) => {
          const row = rows[v.index]!;
          const style = { position: 'absolute' as const, top: 0, left: 0, right: 0, height: v.size, transform: `translateY(${v.start}px)` };
          if (row.type === 'group') {
            return (
              <button
                key={`g:${row.group.id}`}
                type="button"
                className={classes.groupHeader}
                style={{ ...style, border: 0, borderBottom: '1px solid var(--mantine-color-default-border)' }}
                onClick={() => toggle(row.group.id)}
                aria-expanded={!row.collapsed}
                data-testid="list-group"
                data-group={row.group.title}
              >
                <span style={{ width: 10, color: 'var(--mantine-color-dimmed)' }}>{row.collapsed ? '▸' : '▾'}</span>
                <span className={classes.oneLine} style={{ flex: 1 }}>
                  {row.group.title}
                </span>
                {row.group.aside}
              </button>
            );
          }
          const active = row.key === selectedKey;
          return (
            <div
              key={`i:${row.key}`}
              className={`${classes.item} ${active ? classes.itemActive : ''}`}
              style={style}
              onClick={() => onSelect(row.item)}
              role="option"
              aria-selected={active}
              {...itemProps?.(row.item)}
            >
              {renderItem(row.item)}
            </div>
          );
        })}
      </div>
    </div>
  );
}
