/**
 * The toolbar over a list (Prompts, Resources, Logs): the search field the `/` key focuses,
 * the view's own controls beside it, and Refresh when the list can be fetched again.
 */
import { Button, Group, TextInput } from '@mantine/core';
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
