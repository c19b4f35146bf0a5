/**
 * Prompts of every connected server: pick one, fill its arguments (with the server's
 * completions), get it, and read the messages it renders to.
 */
import { safeStringify } from '../../../../contract/bounded-json';
import { ListEmpty, ListHeader, ListSilent } from '../../components/ListHeader';
import { ListStatus } from '../../components/ListStatus';
import { useConnectedList } from '../../state/useConnectedList';
import { Alert, Badge, Button, Grid, Group, Stack, Text, Title } from '@mantine/core';
import { useMemo, useState } from 'react';
import type { PromptEntry, Result, ServerStatus } from '../../../../contract';
import { useApi } from '../../api/context';
import { useNavigation } from '../../state/navigation';
import { useViewState } from '../../state/useViewState';
import { withNewest } from '../../state/view-memory';
import { CompletionInput } from '../../components/CompletionInput';
import { GroupedList, type ListGroup } from '../../components/GroupedList';
import { formatMs, plural } from '../../components/format';
import { RawResult, ResultHeader } from '../../components/ResultHeader';
import classes from '../../components/content.module.css';
import { PromptMessages } from './PromptMessages';

type Outcome =
  | { ok: true; at: number; args: Record<string, string>; value: Result<'getPrompt'> }
  | { ok: false; at: number; args: Record<string, string>; message: string; durationMs: number };

const time = (ts: number) => new Date(ts).toLocaleTimeString([], { hour12: false });

export function PromptsView({ servers }: { servers: ServerStatus[] }) {
  const api = useApi();
  const nav = useNavigation();
  // Kept while another view shows (state/view-memory): the selection, its arguments and results.
  const [query, setQuery] = useViewState('prompts.query', '');
  const [selected, setSelected] = useViewState<string | null>('prompts.selected', null);
  const [values, setValues] = useViewState<Map<string, Record<string, string>>>('prompts.values', () => new Map());
  const [outcomes, setOutcomes] = useViewState<Map<string, Outcome>>('prompts.outcomes', () => new Map());
  const connected = servers.filter((s) => s.state === 'connected');

  const { data: prompts, error: loadError, reload } = useConnectedList(() => api.listPrompts(), servers, [api]);

  const scope = nav.serverId ? servers.find((s) => s.id === nav.serverId) : undefined;
  const all = prompts ?? [];

  const groups = useMemo<ListGroup<PromptEntry>[]>(() => {
    const q = query.trim().toLowerCase();
    const byServer = new Map<string, { name: string; items: PromptEntry[] }>();
    for (const p of all) {
      if (scope && p.serverId !== scope.id) continue;
      if (q && !`${p.name} ${p.title ?? ''} ${p.description ?? ''} ${(p.arguments ?? []).map((a) => a.name).join(' ')}`.toLowerCase().includes(q)) continue;
      const group = byServer.get(p.serverId) ?? { name: p.serverName, items: [] };
      group.items.push(p);
      byServer.set(p.serverId, group);
    }
    return [...byServer.entries()].map(([id, g]) => ({
      id,
      title: g.name,
      aside: (
        <Text span size="xs" c="dimmed" fw={400} style={{ flex: 'none' }}>
          {plural(g.items.length, 'prompt')}
        </Text>
      ),
      items: g.items,
    }));
  }, [all, query, scope]);

  const visibleCount = groups.reduce((n, g) => n + g.items.length, 0);
  const prompt = all.find((p) => p.name === selected);
  const silent = connected.filter((s) => !all.some((p) => p.serverId === s.id));

  return (
    <Grid gap="md">
      <Grid.Col span={4}>
        <Stack gap="xs">
          <ListHeader query={query} onQuery={setQuery} placeholder="Search prompts" label="Search prompts" testId="prompt-search" onRefresh={reload} />
          <ListStatus count={prompts ? `${visibleCount} of ${all.length} prompts from ${connected.length} connected servers` : 'Loading…'} testId="prompt-count" scopeName={scope?.name} error={loadError} errorTitle="Could not list prompts" />
          <GroupedList
            groups={groups}
            itemKey={(p) => p.name}
            selectedKey={selected}
            onSelect={(p) => setSelected(p.name)}
            memoryKey="prompts.list"
            testId="prompt-list"
            itemProps={(p) => ({ 'data-testid': 'prompt-item', 'data-prompt-name': p.name, 'data-server-id': p.serverId })}
            renderItem={(p) => (
              <>
                <div className={classes.itemTop}>
                  <span className={`${classes.itemName} ${classes.oneLine}`}>
                    <bdi>{(p.title ?? p.originalName).slice(0, 300)}</bdi>
                  </span>
                  {(p.arguments?.length ?? 0) > 0 && (
                    <Text span size="xs" c="dimmed" style={{ flex: 'none' }}>
                      {plural(p.arguments!.length, 'arg')}
                    </Text>
                  )}
                </div>
                <div className={`${classes.itemSub} ${classes.oneLine}`}>
                  <bdi>{p.description ? p.description.slice(0, 300) : p.name}</bdi>
                </div>
              </>
            )}
            empty={<ListEmpty connected={connected.length} searching={query !== ''} what="prompts" />}
          />
          {prompts && <ListSilent servers={silent} what="prompts" />}
        </Stack>
      </Grid.Col>
      <Grid.Col span={8}>
        {prompt ? (
          <PromptDetail
            key={prompt.name}
            prompt={prompt}
            server={servers.find((s) => s.id === prompt.serverId)}
            values={values.get(prompt.name) ?? {}}
            onValues={(v) => setValues((old) => new Map(old).set(prompt.name, v))}
            outcome={outcomes.get(prompt.name)}
            onOutcome={(o) => setOutcomes((old) => withNewest(old, prompt.name, o))}
          />
        ) : (
          <Text c="dimmed" size="sm">
            Select a prompt.
          </Text>
        )}
      </Grid.Col>
    </Grid>
  );
}

function PromptDetail({
  prompt,
  server,
  values,
  onValues,
  outcome,
  onOutcome,
}: {
  prompt: PromptEntry;
  server?: ServerStatus;
  values: Record<string, string>;
  onValues(values: Record<string, string>): void;
  outcome?: Outcome;
  onOutcome(outcome: Outcome): void;
}) {
  const api = useApi();
  const [running, setRunning] = useState(false);
  const [tried, setTried] = useState(false);
  const [raw, setRaw] = useState(false);
  const args = prompt.arguments ?? [];
  const missing = args.filter((a) => a.required && !values[a.name]);
  const filled = (except?: string) => Object.fromEntries(Object.entries(values).filter(([k, v]) => k !== except && v !== ''));

  const get = async () => {
    setTried(true);
    if (missing.length) return;
    setRunning(true);
    const sent = filled();
    const at = Date.now();
    const started = performance.now();
    try {
      onOutcome({ ok: true, at, args: sent, value: await api.getPrompt({ name: prompt.name, serverId: prompt.serverId, args: sent }) });
    } catch (e) {
      onOutcome({ ok: false, at, args: sent, message: (e as Error).message, durationMs: performance.now() - started });
    } finally {
      setRunning(false);
    }
  };

  const result = outcome?.ok ? outcome.value.result : undefined;
  const messages: unknown[] = result && Array.isArray(result.messages) ? result.messages : [];

  return (
    <Stack gap="sm" data-testid="prompt-detail">
      <Group gap="xs">
        <Badge variant="light" size="sm" style={{ textTransform: 'none' }}>
          {prompt.serverName}
          {server?.era ? ` · ${server.era}` : ''}
        </Badge>
        <Text size="xs" c="dimmed" className="mono">
          {prompt.name}
        </Text>
      </Group>
      <Title order={4} className={classes.hostile}>
        {(prompt.title ?? prompt.originalName).slice(0, 300)}
      </Title>
      {prompt.description && (
        <Text size="sm" className={classes.hostile} lineClamp={8}>
          {prompt.description.slice(0, 5000)}
        </Text>
      )}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void get();
        }}
      >
        <Stack gap="xs">
          <Text size="xs" fw={600}>
            Arguments{' '}
            <Text span size="xs" c="dimmed" fw={400}>
              {args.length === 0 ? '— none' : `(${args.filter((a) => a.required).length} required)`}
            </Text>
          </Text>
          {args.map((a) => (
            <CompletionInput
              key={a.name}
              serverId={prompt.serverId}
              sessionKey={String(server?.since ?? '')}
              completionRef={{ type: 'ref/prompt', name: prompt.originalName }}
              argName={a.name}
              label={<span className="mono">{a.name.slice(0, 200)}</span>}
              description={a.description ? <span className={classes.hostile}>{a.description.slice(0, 500)}</span> : undefined}
              required={a.required === true}
              value={values[a.name] ?? ''}
              onChange={(value) => onValues({ ...values, [a.name]: value })}
              context={filled(a.name)}
              error={tried && a.required && !values[a.name] ? `${a.name} is required` : undefined}
              placeholder={a.required ? 'required' : 'optional'}
              testId={`prompt-arg-${a.name}`}
            />
          ))}
          <Group gap="sm">
            <Button type="submit" loading={running} data-testid="prompt-get">
              Get
            </Button>
            {tried && missing.length > 0 && (
              <Text size="xs" c="red">
                Fill the required arguments: {missing.map((a) => a.name).join(', ')}
              </Text>
            )}
          </Group>
        </Stack>
      </form>

      {outcome && !outcome.ok && (
        <Alert color="red" title="prompts/get failed" data-testid="prompt-error">
          <Text size="xs" c="dimmed" mb={4}>
            at {time(outcome.at)} after {formatMs(outcome.durationMs)} · arguments {safeStringify(outcome.args).slice(0, 300)}
          </Text>
          <Text size="sm" className={classes.hostile}>
            {outcome.message.slice(0, 5000)}
          </Text>
        </Alert>
      )}
      {outcome?.ok && result && (
        <Stack gap="xs" data-testid="prompt-result">
          <ResultHeader summary={`${formatMs(outcome.value.durationMs)} · ${plural(messages.length, 'message')} · at ${time(outcome.at)}`} summaryTestId="prompt-duration" raw={raw} onRaw={setRaw} />
          {typeof result.description === 'string' && (
            <Text size="sm" c="dimmed" className={classes.hostile} data-testid="prompt-result-description">
              {result.description.slice(0, 5000)}
            </Text>
          )}
          {raw && <RawResult value={result} expandDepth={4} />}
          <PromptMessages messages={messages} />
        </Stack>
      )}
    </Stack>
  );
}
