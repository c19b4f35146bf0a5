/**
 * The line over a read or get result (Resources, Prompts): "Result", how long it took and what
 * came back, and the switch that shows the raw response as a tree under it.
 */
import { Button, Group, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { JsonTree } from './JsonTree';
import classes from './content.module.css';

export function ResultHeader({ summary, summaryTestId, raw, onRaw, rawToggleTestId }: { summary: ReactNode; summaryTestId: string; raw: boolean; onRaw(next: boolean): void; rawToggleTestId?: string }) {
  return (
    <Group gap="xs" justify="space-between">
      <Group gap="xs">
        <Text size="sm" fw={600}>
          Result
        </Text>
        <Text size="xs" c="dimmed" data-testid={summaryTestId}>
          {summary}
        </Text>
      </Group>
      <Button size="compact-xs" variant="subtle" onClick={() => onRaw(!raw)} data-testid={rawToggleTestId}>
        {raw ? 'Hide raw response' : 'Raw response'}
      </Button>
    </Group>
  );
}

/** The raw response under a ResultHeader, in a bordered scrolling box. */
export function RawResult({ value, expandDepth, testId }: { value: unknown; expandDepth: number; testId?: string }) {
  return (
    <div className={classes.jsonBox}>
      <JsonTree value={value} expandDepth={expandDepth} testId={testId} />
    </div>
  );
}
