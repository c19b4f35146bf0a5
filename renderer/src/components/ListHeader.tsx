/**
 * The toolbar over a list (Prompts, Resources, Logs): the search field the `/` key focuses,
 * the view's own controls beside it, and Refresh when the list can be fetched again.
 */
import { Button, Group, Text, TextInput } from '@mantine/core';
import type { ReactNode } from 'react';

export function ListHeader({
  query,
  onQuery,
  placeholder,
  label,
  testId,
  onRefresh,
  refreshTestId,
  minWidth,
  children,
}: {
  query: string;
  onQuery(next: string): void;
  placeholder: string;
  /** The field's accessible name. */
  label: string;
  testId: string;
  onRefresh?(): void;
  refreshTestId?: string;
  minWidth?: number;
  /** Controls after the search field (filters, pickers). */
  children?: ReactNode;
}) {
  return (
    <Group gap="xs" wrap="nowrap" align="center">
      <TextInput
        size="xs"
        style={{ flex: 1, minWidth }}
        placeholder={`${placeholder}  ( / )`}
        value={query}
        onChange={(e) => onQuery(e.currentTarget.value)}
        aria-label={label}
        data-search-input
        data-testid={testId}
      />
      {children}
      {onRefresh && (
        <Button size="xs" variant="default" onClick={onRefresh} data-testid={refreshTestId}>
          Refresh
        </Button>
      )}
    </Group>
  );
}

/** What an empty list says: no server connected, nothing matches, or no connected server has any. */
export function ListEmpty({ connected, searching, what }: { connected: number; searching: boolean; what: string }) {
  return (
    <Text size="sm" c="dimmed" p="sm">
      {connected === 0 ? `No connected servers. Connect one in the sidebar to see its ${what}.` : searching ? 'Nothing matches the search.' : `No connected server offers ${what}.`}
    </Text>
  );
}

/** Under the list: the connected servers that listed none. */
export function ListSilent({ servers, what }: { servers: readonly { name: string }[]; what: string }) {
  if (servers.length === 0) return null;
  return (
    <Text size="xs" c="dimmed">
      No {what} from: {servers.map((s) => s.name).join(', ')}
    </Text>
  );
}
