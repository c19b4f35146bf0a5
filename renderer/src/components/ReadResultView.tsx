/** The outcome of one `resources/read`: its contents by type, timing, and the raw response. */
import { Alert, Button, Group, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import type { Result } from '../../../contract';
import { JsonTree } from './JsonTree';
import { ContentItemView, asContentItem } from './ContentView';
import classes from './content.module.css';

export type ReadOutcome =
  | { ok: true; serverId: string; uri: string; at: number; value: Result<'readResource'> }
  | { ok: false; serverId: string; uri: string; at: number; message: string };

export function ReadResultView({ outcome }: { outcome: ReadOutcome }) {
  const [raw, setRaw] = useState(false);
  if (!outcome.ok) {
    return (
      <Alert color="red" title="Read failed" data-testid="resource-error">
        <Text size="xs" c="dimmed" mb={4}>
          <span className={`mono ${classes.isolate}`}>{outcome.uri.slice(0, 500)}</span> at {new Date(outcome.at).toLocaleTimeString([], { hour12: false })}
        </Text>
        <Text size="sm" className={classes.hostile}>
          {outcome.message.slice(0, 5000)}
        </Text>
      </Alert>
    );
  }
  const { result, durationMs } = outcome.value;
  const contents: unknown[] = Array.isArray(result.contents) ? result.contents : [];
  return (
    <Stack gap="xs" data-testid="resource-result">
      <Group gap="xs" justify="space-between">
        <Group gap="xs">
          <Text size="sm" fw={600}>
            Result
          </Text>
          <Text size="xs" c="dimmed" data-testid="resource-duration">
            {durationMs.toFixed(0)} ms · {contents.length} {contents.length === 1 ? 'item' : 'items'} · read at {new Date(outcome.at).toLocaleTimeString([], { hour12: false })}
          </Text>
        </Group>
        <Button size="compact-xs" variant="subtle" onClick={() => setRaw(!raw)} data-testid="resource-raw-toggle">
          {raw ? 'Hide raw response' : 'Raw response'}
        </Button>
      </Group>
      {raw && (
        <div className={classes.jsonBox}>
          <JsonTree value={result} expandDepth={3} testId="resource-raw" />
        </div>
      )}
      {!Array.isArray(result.contents) && (
        <Alert color="orange" variant="light" p="xs">
          The response has no <code>contents</code> array; see the raw response.
        </Alert>
      )}
      {Array.isArray(result.contents) && contents.length === 0 && (
        <Text size="sm" c="dimmed">
          The server returned no contents.
        </Text>
      )}
      {contents.map((entry, i) => {
        const item = asContentItem(entry);
        return item ? (
          <ContentItemView key={i} item={item} />
        ) : (
          <Alert key={i} color="orange" variant="light" p="xs" title={`Content ${i + 1} has neither text nor blob`}>
            <JsonTree value={entry} />
          </Alert>
        );
      })}
    </Stack>
  );
}
