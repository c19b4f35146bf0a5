/**
 * The Tools view while a recording is the source: the tool catalog as it was — each of the
 * recording's servers' tools as the recording saw them (`interfaceSnapshot` of the recording),
 * in the same explorer and detail as live tools, read-only (nothing runs). An imported file has
 * no snapshot of its own: the view says so.
 */
import { Alert, Badge, Button, Group, Stack, Text } from '@mantine/core';
import { useEffect, useState } from 'react';
import type { ToolEntry } from '../../../../contract';
import { useApi } from '../../api/context';
import { formatTime } from '../../components/format';
import { navigation } from '../../state/navigation';
import { Schemas, ToolHeader } from './ToolDetail';
import { ToolExplorer, type ExplorerState } from './ToolExplorer';
import { recordedToolEntries, recordingIdOf } from './recorded-catalog';

interface Catalog {
  tools: ToolEntry[];
  servers: number;
  /** Servers whose snapshot could not be read, or that never listed their tools, and why. */
  problems: string[];
  takenAt?: number;
}

export function RecordedCatalog({ source }: { source: { id: string; name: string } }) {
  const api = useApi();
  const id = recordingIdOf(source.id);
  const [catalog, setCatalog] = useState<Catalog | undefined>();
  const [error, setError] = useState<string | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [explorer, setExplorer] = useState<ExplorerState>({ query: '', grouping: 'server', collapsed: [] });

  useEffect(() => {
    if (!id) return;
    let live = true;
    setCatalog(undefined);
    setError(null);
    void (async () => {
      try {
        const { summary } = await api.recordingOpen({ id });
        const problems: string[] = [];
        let takenAt: number | undefined;
        const snapshots = await Promise.all(
          summary.servers.map(async (server) => {
            try {
              const snapshot = await api.interfaceSnapshot({ ref: { kind: 'recording', id, server: server.id } });
              takenAt = Math.max(takenAt ?? 0, snapshot.takenAt);
              if (snapshot.missing.includes('tools')) problems.push(`${server.name}: the recording has no tools/list answer.`);
              return { serverId: server.id, serverName: server.name, tools: snapshot.tools };
            } catch (e) {
              problems.push(`${server.name}: ${(e as Error).message}`);
              return { serverId: server.id, serverName: server.name, tools: [] };
            }
          }),
        );
        if (live) setCatalog({ tools: recordedToolEntries(snapshots), servers: summary.servers.length, problems, takenAt });
      } catch (e) {
        if (live) setError((e as Error).message);
      }
    })();
    return () => {
      live = false;
    };
  }, [api, id]);

  const tool = catalog?.tools.find((t) => t.name === selected);
  return (
    <Stack gap="xs" style={{ height: 'calc(100dvh - 48px - 32px - 52px)', minHeight: 420 }} data-testid="recorded-catalog" data-source={source.id}>
      <Alert color="orange" variant="light" p="xs" data-testid="tools-read-only">
        <Group gap="xs" justify="space-between" wrap="nowrap">
          <Text size="xs">
            <Badge size="xs" color="orange" variant="filled" mr={6}>
              as recorded
            </Badge>
            The tool catalog as it was in <b data-testid="recorded-catalog-name">{source.name}</b>
            {catalog?.takenAt ? ` (listed at ${formatTime(catalog.takenAt, false)})` : ''}. Nothing is run from here: connect a server and go back to live to call its tools.
          </Text>
          <Button size="compact-xs" variant="subtle" onClick={() => navigation.useSource({ id: 'live', name: 'Live' })} data-testid="tools-back-to-live">
            Back to live
          </Button>
        </Group>
      </Alert>
      {!id && (
        <Text size="sm" c="dimmed" ta="center" pt="xl" data-testid="recorded-catalog-unavailable">
          An imported file keeps no catalog of its own: its tools/list answers are in Traffic. Import it into the library (Recordings → Import…) to see its catalog here.
        </Text>
      )}
      {error && (
        <Alert color="red" p="xs">
          Could not read the recording&apos;s catalog: {error}
        </Alert>
      )}
      {catalog && catalog.problems.length > 0 && (
        <Alert color="yellow" p="xs" data-testid="recorded-catalog-problems">
          {catalog.problems.join(' ')}
        </Alert>
      )}
      {catalog && (
        <div style={{ display: 'flex', flex: 1, minHeight: 0, gap: 12 }}>
          <div style={{ width: 340, flex: 'none', display: 'flex', flexDirection: 'column', minHeight: 0 }}>
            <ToolExplorer tools={catalog.tools} connectedServers={catalog.servers} serversWord="recorded" selected={selected} onSelect={setSelected} state={explorer} onState={setExplorer} scrollToNonce={0} />
          </div>
          <div style={{ flex: 1, minWidth: 0, minHeight: 0, overflow: 'auto' }} data-testid="recorded-tool-detail">
            {tool ? (
              <Stack gap="sm" key={tool.name}>
                <ToolHeader tool={tool} />
                <Schemas tool={tool} />
              </Stack>
            ) : (
              <Text c="dimmed" size="sm" pt="xl" ta="center">
                {catalog.tools.length ? 'Select a tool on the left to see its description and schemas as they were.' : 'The recording lists no tools.'}
              </Text>
            )}
          </div>
        </div>
      )}
    </Stack>
  );
}
