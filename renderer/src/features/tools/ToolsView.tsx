import { Alert, Badge, Button, Code, Grid, Group, NavLink, ScrollArea, Stack, Text, TextInput, Textarea, Title } from '@mantine/core';
import { useEffect, useMemo, useState } from 'react';
import type { Result, ServerStatus, ToolEntry } from '../../../../contract';
import { useApi } from '../../api/context';
import { ToolResultView } from './ToolResultView';

/** The namespaced tools of every connected server; pick one, write its arguments, call it. */
export function ToolsView({ servers }: { servers: ServerStatus[] }) {
  const api = useApi();
  const [tools, setTools] = useState<ToolEntry[]>([]);
  const [selected, setSelected] = useState<string | null>(null);
  const [filter, setFilter] = useState('');
  const connectedKey = servers
    .filter((s) => s.state === 'connected')
    .map((s) => `${s.id}:${s.toolCount}`)
    .join(',');

  useEffect(() => {
    api.listTools().then(setTools, () => setTools([]));
  }, [api, connectedKey]);

  const visible = useMemo(() => {
    const q = filter.trim().toLowerCase();
    return q ? tools.filter((t) => `${t.name} ${t.title ?? ''} ${t.description ?? ''}`.toLowerCase().includes(q)) : tools;
  }, [tools, filter]);
  const tool = tools.find((t) => t.name === selected);

  return (
    <Grid gap="md">
      <Grid.Col span={4}>
        <Stack gap="xs">
          <TextInput size="xs" placeholder="Search tools" value={filter} onChange={(e) => setFilter(e.currentTarget.value)} aria-label="Search tools" />
          <Text size="xs" c="dimmed" data-testid="tool-count">
            {tools.length} tools from {servers.filter((s) => s.state === 'connected').length} connected servers
          </Text>
          <ScrollArea h="calc(100vh - 190px)">
            <div data-testid="tool-list">
              {visible.map((t) => (
                <NavLink
                  key={t.name}
                  active={t.name === selected}
                  onClick={() => setSelected(t.name)}
                  label={<span className="mono">{t.name}</span>}
                  description={t.title ?? t.description?.slice(0, 80)}
                  data-testid="tool-item"
                  data-tool-name={t.name}
                />
              ))}
            </div>
          </ScrollArea>
        </Stack>
      </Grid.Col>
      <Grid.Col span={8}>{tool ? <ToolDetail key={tool.name} tool={tool} /> : <Text c="dimmed">Select a tool.</Text>}</Grid.Col>
    </Grid>
  );
}

function exampleArgs(schema: Record<string, unknown>): string {
  const properties = (schema.properties ?? {}) as Record<string, { default?: unknown }>;
  const example: Record<string, unknown> = {};
  for (const [key, prop] of Object.entries(properties)) if (prop && 'default' in prop) example[key] = prop.default;
  return JSON.stringify(example, null, 2);
}

function ToolDetail({ tool }: { tool: ToolEntry }) {
  const api = useApi();
  const [argsText, setArgsText] = useState(() => exampleArgs(tool.inputSchema));
  const [running, setRunning] = useState(false);
  const [outcome, setOutcome] = useState<{ ok: true; value: Result<'callTool'> } | { ok: false; message: string } | null>(null);

  const call = async () => {
    let args: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(argsText || '{}');
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('Arguments must be a JSON object');
      args = parsed as Record<string, unknown>;
    } catch (e) {
      setOutcome({ ok: false, message: `Invalid JSON: ${(e as Error).message}` });
      return;
    }
    setRunning(true);
    setOutcome(null);
    try {
      setOutcome({ ok: true, value: await api.callTool({ tool: tool.name, args }) });
    } catch (e) {
      setOutcome({ ok: false, message: (e as Error).message });
    } finally {
      setRunning(false);
    }
  };

  return (
    <Stack gap="sm" data-testid="tool-detail">
      <Group gap="xs">
        <Title order={4} className="mono">
          {tool.name}
        </Title>
        <Badge variant="light" size="sm">
          {tool.serverName}
        </Badge>
      </Group>
      {tool.description && (
        <Text size="sm" className="pre-wrap">
          {tool.description}
        </Text>
      )}
      <Text size="xs" fw={600}>
        Input schema
      </Text>
      <Code block mah={200} style={{ overflow: 'auto' }}>
        {JSON.stringify(tool.inputSchema, null, 2)}
      </Code>
      <Textarea
        label="Arguments (JSON)"
        autosize
        minRows={3}
        maxRows={14}
        value={argsText}
        onChange={(e) => setArgsText(e.currentTarget.value)}
        classNames={{ input: 'mono' }}
        data-testid="tool-args"
      />
      <Group>
        <Button onClick={call} loading={running} data-testid="tool-call">
          Call
        </Button>
      </Group>
      {outcome && !outcome.ok && (
        <Alert color="red" title="Call failed" data-testid="tool-error" className="pre-wrap">
          {outcome.message}
        </Alert>
      )}
      {outcome?.ok && <ToolResultView value={outcome.value} />}
    </Stack>
  );
}
