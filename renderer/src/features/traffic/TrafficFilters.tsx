/** The filter bar: free text (debounced; `/` focuses it), server, channel, kind, method, status class, errors, time and exchange chips. */
import { Badge, Button, Chip, CloseButton, Group, MultiSelect, TagsInput, TextInput, type ComboboxData } from '@mantine/core';
import { memo, useContext, useEffect, useRef, useState, type ReactNode } from 'react';
import { CHANNELS, EVENT_KINDS, type Channel, type EventKind } from '../../../../contract/trace';
import { LiveContext } from '../../state/live';
import { formatTime } from '../../components/format';
import { hasFilters, traffic, type TrafficFilters as Filters } from './traffic-store';

const COMMON_METHODS = [
  'initialize',
  'notifications/initialized',
  'ping',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'resources/subscribe',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'logging/setLevel',
  'notifications/message',
  'notifications/progress',
  'notifications/cancelled',
  'notifications/tools/list_changed',
  'notifications/resources/updated',
  'server/discover',
  'subscriptions/listen',
];

const TEXT_DEBOUNCE_MS = 250;

/** Picked values stay on one line (the bar keeps its height); the dropdown shows them all. */
const oneLine = { root: { minWidth: 0 }, input: { overflow: 'hidden' }, pillsList: { flexWrap: 'nowrap', overflow: 'hidden' }, inputField: { minWidth: 40 } } as const;

/** One multi-valued filter (server, channel, kind): its name as the placeholder until something is picked. */
function FilterSelect({ name, what, width, data, value, onChange }: { name: string; what: string; width: number; data: ComboboxData; value: string[]; onChange(value: string[]): void }) {
  return (
    <MultiSelect
      size="xs"
      placeholder={value.length ? undefined : name}
      data={data}
      value={value}
      onChange={onChange}
      searchable
      clearable
      aria-label={`Filter by ${what}`}
      style={{ flex: `0 1 ${width}px`, minWidth: 0 }}
      styles={oneLine}
      data-testid={`traffic-filter-${what}`}
    />
  );
}

/** A filter set from elsewhere (a time range from the charts, an exchange from the detail), removable. */
function FilterChip({ color, what, onRemove, testId, removeTestId, children }: { color: string; what: string; onRemove(): void; testId: string; removeTestId?: string; children: ReactNode }) {
  return (
    <Badge variant="light" color={color} size="md" style={{ textTransform: 'none' }} rightSection={<CloseButton size="xs" aria-label={`Remove ${what} filter`} onClick={onRemove} data-testid={removeTestId} />} data-testid={testId}>
      {children}
    </Badge>
  );
}

export const TrafficFilters = memo(function TrafficFilters({ filters, serverOptions, actions }: { filters: Filters; serverOptions: { value: string; label: string }[]; actions?: ReactNode }) {
  const live = useContext(LiveContext);
  const [text, setText] = useState(filters.text);
  const pending = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const [methodOptions, setMethodOptions] = useState(COMMON_METHODS);

  // The store changed under us (Clear filters, an intent): show it.
  useEffect(() => {
    if (!pending.current) setText(filters.text);
  }, [filters.text]);
  useEffect(() => () => clearTimeout(pending.current), []);

  const onText = (value: string) => {
    setText(value);
    clearTimeout(pending.current);
    pending.current = setTimeout(() => {
      pending.current = undefined;
      traffic.setFilters({ text: value });
    }, TEXT_DEBOUNCE_MS);
  };

  /** Methods seen recently, for the method filter's suggestions. */
  const refreshMethods = () => {
    const seen = new Set(COMMON_METHODS);
    const events = live?.trace.events ?? [];
    for (let i = events.length - 1, n = 0; i >= 0 && n < 5000; i--, n++) {
      const method = events[i]!.rpc?.method;
      if (method && method.length <= 200) seen.add(method);
      if (seen.size > 300) break;
    }
    setMethodOptions([...seen].sort());
  };

  const knownServers = new Set(serverOptions.map((o) => o.value));
  const servers = [...serverOptions, ...filters.servers.filter((s) => !knownServers.has(s)).map((s) => ({ value: s, label: s }))];

  return (
    <div data-testid="traffic-filters" style={{ minWidth: 0 }}>
      <Group gap={6} wrap="nowrap" align="flex-start">
        <TextInput
          size="xs"
          placeholder="Filter: any text in the event  ( / )"
          value={text}
          onChange={(e) => onText(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === 'Escape') {
              onText('');
              e.currentTarget.blur();
            }
          }}
          rightSection={text ? <CloseButton size="xs" aria-label="Clear text filter" onClick={() => onText('')} /> : null}
          style={{ flex: '1 1 220px', minWidth: 160 }}
          aria-label="Filter traffic by text"
          data-search-input
          data-testid="traffic-search"
        />
        <FilterSelect name="Server" what="server" width={180} data={servers} value={filters.servers} onChange={(value) => traffic.setFilters({ servers: value })} />
        <FilterSelect name="Channel" what="channel" width={160} data={[...CHANNELS]} value={filters.channels} onChange={(value) => traffic.setFilters({ channels: value as Channel[] })} />
        <FilterSelect name="Kind" what="kind" width={160} data={[...EVENT_KINDS]} value={filters.kinds} onChange={(value) => traffic.setFilters({ kinds: value as EventKind[] })} />
        <TagsInput
          size="xs"
          placeholder={filters.methods.length ? undefined : 'Method'}
          data={methodOptions}
          value={filters.methods}
          onChange={(value) => traffic.setFilters({ methods: value.map((m) => m.trim()).filter(Boolean).slice(0, 50) })}
          onDropdownOpen={refreshMethods}
          clearable
          aria-label="Filter by JSON-RPC method"
          style={{ flex: '0 1 190px', minWidth: 0 }}
          styles={oneLine}
          data-testid="traffic-filter-method"
        />
      </Group>
      <Group gap={6} mt={6} wrap="wrap" justify="space-between" align="center">
      <Group gap={6} wrap="wrap">
        <Chip.Group multiple value={filters.statusClass.map(String)} onChange={(value) => traffic.setFilters({ statusClass: value.map(Number).sort() })}>
          {[2, 3, 4, 5].map((c) => (
            <Chip key={c} value={String(c)} size="xs" variant="outline" data-testid={`traffic-status-${c}`}>
              {c}xx
            </Chip>
          ))}
        </Chip.Group>
        <Chip size="xs" color="red" variant="outline" checked={filters.errorsOnly} onChange={(checked) => traffic.setFilters({ errorsOnly: checked })} data-testid="traffic-errors-only">
          Errors only
        </Chip>
        {filters.time && (
          <FilterChip color="grape" what="time" onRemove={() => traffic.setFilters({ time: undefined })} testId="traffic-time-chip" removeTestId="traffic-time-chip-remove">
            {formatTime(filters.time.fromTs)} – {formatTime(filters.time.toTs)}
          </FilterChip>
        )}
        {filters.exchange && (
          <FilterChip color="cyan" what="exchange" onRemove={() => traffic.setFilters({ exchange: undefined })} testId="traffic-exchange-chip">
            exchange {filters.exchange}
          </FilterChip>
        )}
        {hasFilters(filters) && (
          <Button
            size="compact-xs"
            variant="subtle"
            onClick={() => {
              clearTimeout(pending.current);
              pending.current = undefined;
              traffic.clearFilters();
            }}
            data-testid="traffic-clear-filters"
          >
            Clear filters
          </Button>
        )}
      </Group>
      {actions}
      </Group>
    </div>
  );
});
