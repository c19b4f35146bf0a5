/**
 * One app tool in the Apps view: what it is, a form for its arguments (the Tools view's, on the
 * same call session), Run / Cancel, the app itself (AppHost, fed with the input while the person
 * edits, the input and result of a run, or its cancellation), and the result as the Tools view
 * shows it.
 */
import { Alert, Badge, Button, Group, Paper, Stack, Text, Title, Tooltip } from '@mantine/core';
import { useCallback, useEffect, useMemo, useState, type ReactNode } from 'react';
import { useApi } from '../../../api/context';
import { AppBadge, VisibilityBadge } from '../../../components/AppBadge';
import { SafeLabel, SafeText } from '../../../components/SafeText';
import { navigation } from '../../../state/navigation';
import { CallErrorView, SchemaForm, ToolResultView, cancelRun, ensureSession, runCall, schemaBounds, setArgs, useToolSession, validateAgainst, type Issue, type JsonSchema, type Validation } from '../../tools';
import { AppHost } from '../AppHost';
import { hostFeed, runBlockedReason, type AppTool } from './model';

const NO_ARGS: Record<string, unknown> = {};
const NO_ISSUES: Issue[] = [];

export function AppToolDetail({ tool }: { tool: AppTool }) {
  const api = useApi();
  useEffect(() => ensureSession(api, tool), [api, tool]);
  const session = useToolSession(api, tool.name);
  const args = session?.args ?? NO_ARGS;
  const schema = tool.inputSchema as JsonSchema;
  const bounds = useMemo(() => schemaBounds(schema), [schema]);
  const [validation, setValidation] = useState<Validation | null>(null);
  const [tried, setTried] = useState(false);
  const blockedReason = runBlockedReason(tool);
  const running = session?.running;
  const outcome = session?.outcome;
  const feed = useMemo(() => hostFeed(session), [session]);

  // Live validation, debounced, off the main thread (as the Tools view does).
  useEffect(() => {
    let live = true;
    const timer = setTimeout(() => void validateAgainst(schema, args).then((v) => live && setValidation(v)), 150);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [schema, args]);

  const onChange = useCallback((next: Record<string, unknown>) => setArgs(api, tool.name, next), [api, tool.name]);
  const invalid = validation?.status === 'invalid';
  const run = async () => {
    if (running || blockedReason) return;
    const check = await validateAgainst(schema, args);
    setValidation(check);
    if (check.status === 'invalid') {
      setTried(true);
      return;
    }
    setTried(false);
    await runCall(api, tool, { args, resetTimeoutOnProgress: true });
  };

  return (
    <div style={{ height: 'calc(100dvh - 48px - 32px - 52px)', minHeight: 420, overflow: 'auto', paddingRight: 4 }} data-testid="apps-detail" data-tool-name={tool.name}>
      <Stack gap="sm">
        <Stack gap={6}>
          <Title order={4} className="mono" style={{ minWidth: 0, fontSize: 17 }}>
            <SafeLabel text={tool.name} max={160} />
          </Title>
          <Group gap={6}>
            <Badge variant="light" color="indigo" size="sm" style={{ maxWidth: 260 }}>
              <SafeLabel text={tool.serverName} max={60} />
            </Badge>
            <AppBadge ui={tool.ui} size="sm" />
            <VisibilityBadge tool={tool} size="sm" />
            <Button size="compact-xs" variant="subtle" onClick={() => navigation.openTool(tool.name)} data-testid="apps-open-in-tools">
              Open in Tools
            </Button>
          </Group>
          <Text size="xs" c="dimmed" className="mono" style={{ overflowWrap: 'anywhere' }} data-testid="apps-resource-uri">
            <SafeText inline text={tool.ui.resourceUri} clip={300} />
          </Text>
          {tool.description && (
            <Text size="sm" component="div" c="dimmed" style={{ maxHeight: 100, overflow: 'auto' }}>
              <SafeText text={tool.description} clip={400} />
            </Text>
          )}
        </Stack>

        <Section title="Arguments" testId="apps-arguments">
          {bounds.ok ? (
            <SchemaForm schema={schema} value={args} onChange={onChange} issues={invalid ? validation.issues : NO_ISSUES} showAll={tried} />
          ) : (
            <Text size="sm" c="dimmed">
              No form for this input schema ({bounds.reason}): write the arguments as JSON in the Tools view.
            </Text>
          )}
          <Group gap="xs" mt="sm" justify="flex-end" wrap="nowrap">
            {tried && invalid && (
              <Text size="xs" c="red" style={{ flex: 1 }} data-testid="apps-args-invalid">
                Not sent: the arguments do not match the input schema.
              </Text>
            )}
            {running && (
              <Button size="sm" color="red" variant="light" onClick={() => void cancelRun(api, tool.name)} disabled={running.cancelling} data-testid="apps-cancel">
                {running.cancelling ? 'Cancelling…' : 'Cancel'}
              </Button>
            )}
            <Tooltip label={blockedReason} disabled={!blockedReason} multiline maw={340}>
              <Button size="sm" onClick={() => void run()} loading={!!running} disabled={!!blockedReason} data-testid="apps-run">
                Run
              </Button>
            </Tooltip>
          </Group>
        </Section>

        <Section title="App" testId="apps-app" hint={feed.inputPartial ? 'receiving the arguments as you edit them (partial input)' : feed.result ? 'received the input and the result' : feed.cancelled ? 'told the call did not complete (cancelled)' : running ? 'received the input; waiting for the result' : undefined}>
          <AppHost tool={tool} {...feed} />
        </Section>

        <Section title="Result" testId="apps-result">
          {running ? (
            <Text size="sm" c="dimmed" data-testid="apps-running">
              Running…
            </Text>
          ) : outcome?.kind === 'result' ? (
            <ToolResultView value={outcome.value} tool={tool} />
          ) : outcome?.kind === 'error' ? (
            <CallErrorView outcome={outcome} />
          ) : blockedReason ? (
            <Alert color="gray" variant="light" p="xs">
              <Text size="xs">{blockedReason}</Text>
            </Alert>
          ) : (
            <Text size="sm" c="dimmed">
              Run the tool: its app receives the input and the result, shown here too.
            </Text>
          )}
        </Section>
      </Stack>
    </div>
  );
}

function Section({ title, hint, testId, children }: { title: string; hint?: string; testId: string; children: ReactNode }) {
  return (
    <Paper withBorder radius="md" p="sm" data-testid={testId}>
      <Group gap={8} mb={8}>
        <Text size="sm" fw={600}>
          {title}
        </Text>
        {hint && (
          <Text size="xs" c="dimmed">
            {hint}
          </Text>
        )}
      </Group>
      {children}
    </Paper>
  );
}
