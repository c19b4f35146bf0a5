/** The outcome of one `resources/read`: its contents by type, timing, and the raw response. */
import { Alert, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import type { Result } from '../../../contract';
import { JsonTree } from './JsonTree';
import { ContentItemView, asContentItem } from './ContentView';
import { formatMs, plural } from './format';
import { RawResult, ResultHeader } from './ResultHeader';
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
      <ResultHeader
        summary={`${formatMs(durationMs)} · ${plural(contents.length, 'item')} · read at ${new Date(outcome.at).toLocaleTimeString([], { hour12: false })}`}
        summaryTestId="resource-duration"
        raw={raw}
        onRaw={setRaw}
        rawToggleTestId="resource-raw-toggle"
      />
      {raw && <RawResult value={result} expandDepth={3} testId="resource-raw" />}
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
