import { Badge, Group, ScrollArea, Stack, Text } from '@mantine/core';
import { useEffect, useState } from 'react';
import type { LogLine, ServerStatus } from '../../../../contract';
import { useApi } from '../../api/context';

const KEEP = 2_000;

export function LogsView({ servers }: { servers: ServerStatus[] }) {
  const api = useApi();
  const [lines, setLines] = useState<LogLine[]>([]);
  useEffect(() => {
    let live: LogLine[] = [];
    let loaded = false;
    api.recentLogs().then(({ lines: history }) => {
      loaded = true;
      setLines([...history, ...live].slice(-KEEP));
    });
    return api.on('logBatch', ({ lines: batch }) => {
      if (!loaded) live = [...live, ...batch];
      else setLines((old) => [...old, ...batch].slice(-KEEP));
    });
  }, [api]);
  const nameOf = (id?: string) => servers.find((s) => s.id === id)?.name ?? 'switchboard';
  return (
    <ScrollArea h="calc(100vh - 140px)">
      <Stack gap={2} data-testid="log-lines">
        {lines.length === 0 && <Text c="dimmed">No log lines yet.</Text>}
        {lines.map((line, i) => (
          <Group key={i} gap="xs" wrap="nowrap" align="flex-start">
            <Text size="xs" c="dimmed" className="mono" style={{ flex: 'none' }}>
              {new Date(line.ts).toLocaleTimeString()}
            </Text>
            <Badge size="xs" variant="light" color={line.level === 'error' ? 'red' : line.source === 'stderr' ? 'yellow' : 'gray'} style={{ flex: 'none' }}>
              {line.source}
            </Badge>
            <Text size="xs" fw={500} style={{ flex: 'none' }}>
              {nameOf(line.serverId)}
            </Text>
            <Text size="xs" className="mono pre-wrap" data-testid="log-line">
              {line.text}
            </Text>
          </Group>
        ))}
      </Stack>
    </ScrollArea>
  );
}
