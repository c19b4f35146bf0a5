/**
 * One tool: what it is (server text shown safely), its schemas, the request (a form generated
 * from the input schema, or raw JSON, kept in sync), the call in flight (progress, elapsed time,
 * cancel) and the response.
 */
import { Accordion, Alert, Badge, Button, Checkbox, Group, List, NumberInput, Popover, Progress, Stack, Tabs, Text, TextInput, Textarea, Title, Tooltip } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { memo, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { ToolEntry } from '../../../../contract';
import { safeStringify } from '../../../../contract/bounded-json';
import { useApi } from '../../api/context';
import { JsonTree } from '../../components/JsonTree';
import { cancelRun, defaultArgs, ensureSession, runCall, savedChanged, setArgs, useToolSession, type RunningCall, type ToolSession } from './calls-store';
import { SafeLabel, SafeText } from '../../components/SafeText';
import { argumentDepthProblem } from './argument-depth';
import { SchemaForm } from './SchemaForm';
import { isObject, pathLabel, type JsonSchema } from './schema';
import { ToolIcon } from './ToolIcon';
import { UrlElicitationRequired, isUrlElicitationRequired } from '../requests';
import { AppHost, hostFeed } from '../apps';
import { VISIBILITY_HINT, isAppTool, visibilityOf, type AppTool } from '../../components/app-tool';
import { formatMs, plural } from '../../components/format';
import { CallErrorView, ToolResultView } from './ToolResultView';
import { getTasksStore, latestRun, runModes, useTasks } from '../tasks';
import { RunAsTaskButton, TaskPanel, TaskRunView } from './TaskPanel';
import classes from './tools.module.css';
import { schemaBounds, validateAgainst, type Issue, type Validation } from './validation';

export const ANNOTATIONS = [
  { key: 'readOnlyHint', label: 'read-only', short: 'RO', color: 'teal', help: 'readOnlyHint: does not modify its environment' },
  { key: 'destructiveHint', label: 'destructive', short: 'DEL', color: 'red', help: 'destructiveHint: may perform destructive updates' },
  { key: 'idempotentHint', label: 'idempotent', short: 'IDEM', color: 'blue', help: 'idempotentHint: calling it again with the same arguments has no additional effect' },
  { key: 'openWorldHint', label: 'open-world', short: 'OPEN', color: 'grape', help: 'openWorldHint: interacts with external entities' },
] as const;

/** Annotation hints the server set to true (hints are untrusted: shown, never relied on). */
export function activeAnnotations(tool: ToolEntry) {
  const a = tool.annotations ?? {};
  return ANNOTATIONS.filter((def) => a[def.key] === true);
}

/** MCP Apps: a tool only its app may call (`_meta.ui.visibility: ["app"]`) is not run from the form. */
const isAppOnly = (tool: ToolEntry) => visibilityOf(tool) === 'app-only';
const APP_ONLY_HELP = `Not run from the form: this tool is ${VISIBILITY_HINT['app-only']} Its app, below, calls it.`;

const NO_ISSUES: Issue[] = [];
const NO_ARGS: Record<string, unknown> = {};
const pretty = (value: unknown) => safeStringify(value, { space: 2 });

export function ToolDetail({ tool }: { tool: ToolEntry }) {
  const api = useApi();
  useEffect(() => ensureSession(api, tool), [api, tool]);
  const session = useToolSession(api, tool.name);
  const args = session?.args ?? NO_ARGS;
  const inputSchema = tool.inputSchema as JsonSchema;
  const bounds = useMemo(() => schemaBounds(inputSchema), [inputSchema]);

  const [tab, setTab] = useState<'form' | 'json'>(bounds.ok ? 'form' : 'json');
  const [jsonText, setJsonText] = useState(() => pretty(args));
  const [jsonError, setJsonError] = useState<string | null>(null);
  const lastFromJson = useRef<unknown>(undefined);
  const [validation, setValidation] = useState<Validation | null>(null);
  const [showAll, setShowAll] = useState(false);
  const [blocked, setBlocked] = useState(false);
  const [checking, setChecking] = useState(false);
  const [timeoutSec, setTimeoutSec] = useState<number | ''>('');
  const [resetOnProgress, setResetOnProgress] = useState(true);
  const depthProblem = useMemo(() => argumentDepthProblem(args), [args]);
  const [depthBlocked, setDepthBlocked] = useState(false);
  useEffect(() => setDepthBlocked(false), [args]);

  // JSON follows the form (and history/saved re-fills); the form follows valid JSON.
  useEffect(() => {
    if (args !== lastFromJson.current) {
      setJsonText(pretty(args));
      setJsonError(null);
    }
  }, [args]);

  // An edit ends the "not sent" state (Run checks again).
  useEffect(() => setBlocked(false), [args]);

  // Live validation, debounced, off the main thread.
  useEffect(() => {
    let live = true;
    const timer = setTimeout(() => {
      void validateAgainst(inputSchema, args).then((v) => live && setValidation(v));
    }, 150);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [inputSchema, args]);

  const onJson = (text: string) => {
    setJsonText(text);
    let parsed: unknown;
    try {
      parsed = text.trim() === '' ? {} : JSON.parse(text);
    } catch (error) {
      setJsonError(`Invalid JSON: ${(error as Error).message}`);
      return;
    }
    if (!isObject(parsed)) {
      setJsonError('Arguments must be a JSON object ({…}).');
      return;
    }
    // Too deep to send (or to show in the form): said here, and kept out of the session.
    const tooDeep = argumentDepthProblem(parsed);
    if (tooDeep) {
      setJsonError(tooDeep);
      return;
    }
    setJsonError(null);
    lastFromJson.current = parsed;
    setArgs(api, tool.name, parsed);
  };

  const tasks = getTasksStore(api);
  const taskRun = useTasks(tasks).runs.get(tool.name);
  const modes = runModes(tool);

  const appOnly = isAppOnly(tool);
  const run = async (force = false) => {
    if (session?.running || checking || appOnly) return;
    if (jsonError && tab === 'json') return;
    if (depthProblem) {
      setDepthBlocked(true);
      return;
    }
    // A tool that requires task execution refuses a plain call (-32601): Ctrl+Enter runs it as a task.
    if (!modes.plain) {
      if (!taskRun?.starting) void tasks.runAsTask(tool, args);
      return;
    }
    // The previous response goes at once: what shows next belongs to this run.
    setChecking(true);
    try {
      const check = await validateAgainst(inputSchema, args);
      setValidation(check);
      if (check.status === 'invalid' && !force) {
        setShowAll(true);
        setBlocked(true);
        return;
      }
      setBlocked(false);
      tasks.clearRun(tool.name); // the Response pane follows this run now
      const started = runCall(api, tool, { args, timeoutMs: timeoutSec === '' ? undefined : Math.round(timeoutSec * 1000), resetTimeoutOnProgress: resetOnProgress });
      setChecking(false);
      await started;
    } finally {
      setChecking(false);
    }
  };

  const issues = validation?.status === 'invalid' ? validation.issues : NO_ISSUES;
  const onFormChange = useCallback((next: Record<string, unknown>) => setArgs(api, tool.name, next), [api, tool.name]);
  const running = session?.running;
  const outcome = session?.outcome;

  return (
    <div
      className={classes.detail}
      data-testid="tool-detail"
      data-tool-name={tool.name}
      onKeyDown={(e) => {
        if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
          e.preventDefault();
          void run();
        }
      }}
    >
      <Stack gap="sm">
        <ToolHeader tool={tool} />
        <Schemas tool={tool} />

        <div className={classes.io}>
          <section className={classes.section} data-testid="tool-request">
            <Tabs value={tab} onChange={(v) => v && setTab(v as 'form' | 'json')} variant="default">
              <div className={classes.sectionHeader} style={{ paddingBottom: 0, alignItems: 'flex-end' }}>
                <Tabs.List style={{ borderBottom: 0, flexWrap: 'nowrap' }}>
                  <Tabs.Tab value="form" disabled={!bounds.ok} data-testid="tool-tab-form">
                    Form
                  </Tabs.Tab>
                  <Tabs.Tab value="json" data-testid="tool-tab-json">
                    JSON
                  </Tabs.Tab>
                </Tabs.List>
                <Tooltip label="Back to the schema's defaults">
                  <Button size="compact-xs" variant="subtle" color="gray" mb={6} onClick={() => setArgs(api, tool.name, defaultArgs(tool), 'defaults')} data-testid="tool-reset-args">
                    Reset
                  </Button>
                </Tooltip>
              </div>
              <div className={classes.sectionBody}>
                <OriginNote origin={session?.origin} />
                {!bounds.ok && (
                  <Alert color="yellow" variant="light" p="xs" mb="sm" title="No form for this schema" data-testid="tool-schema-refused">
                    <Text size="xs">Switchboard does not build a form for, or validate against, this input schema: {bounds.reason}. Write the arguments as JSON; the server checks them.</Text>
                  </Alert>
                )}
                <Tabs.Panel value="form">{bounds.ok && <SchemaForm schema={inputSchema} value={args} onChange={onFormChange} issues={issues} showAll={showAll} />}</Tabs.Panel>
                <Tabs.Panel value="json">
                  <Textarea
                    aria-label="Arguments (JSON)"
                    autosize
                    minRows={6}
                    maxRows={22}
                    value={jsonText}
                    onChange={(e) => onJson(e.currentTarget.value)}
                    error={jsonError && <span data-testid="tool-args-error">{jsonError}</span>}
                    classNames={{ input: 'mono' }}
                    styles={{ input: { fontSize: 12.5 } }}
                    spellCheck={false}
                    data-testid="tool-args"
                  />
                </Tabs.Panel>
                <ValidationSummary validation={validation} showAll={showAll || blocked} />
              </div>
            </Tabs>
            <div className={`${classes.sectionBody} ${classes.runBar}`}>
              <Group gap="xs" align="flex-end" wrap="wrap">
                <NumberInput
                  label="Timeout (s)"
                  size="xs"
                  w={104}
                  min={1}
                  max={3600}
                  allowDecimal={false}
                  placeholder="server's"
                  value={timeoutSec}
                  onChange={(v) => setTimeoutSec(typeof v === 'number' ? v : '')}
                  data-testid="tool-timeout"
                />
                <Tooltip label="Restart the timeout whenever the server reports progress (long-running tools)" multiline maw={260}>
                  <Checkbox size="xs" label="reset on progress" checked={resetOnProgress} onChange={(e) => setResetOnProgress(e.currentTarget.checked)} mb={6} data-testid="tool-reset-on-progress" />
                </Tooltip>
                <div style={{ flex: 1 }} />
                <SaveCall tool={tool} args={args} />
                <RunAsTaskButton tool={tool} args={args} disabled={(!!jsonError && tab === 'json') || depthProblem !== null || appOnly} />
                {modes.plain && (
                  <Tooltip label={appOnly ? APP_ONLY_HELP : 'Run (Ctrl+Enter)'} openDelay={appOnly ? 0 : 600} multiline maw={appOnly ? 340 : undefined}>
                    {/* (a wrapper: a disabled button gets no pointer events, so its tooltip would never show) */}
                    <span data-testid="tool-call-wrap">
                      <Button size="sm" onClick={() => void run()} loading={!!running || checking} disabled={(!!jsonError && tab === 'json') || appOnly} data-testid="tool-call">
                        Run
                      </Button>
                    </span>
                  </Tooltip>
                )}
              </Group>
              {appOnly && (
                <Text size="xs" c="dimmed" mt="xs" data-testid="tool-app-only-note">
                  App-only: its app calls it; Switchboard does not run it from the form.
                </Text>
              )}
              {!modes.plain && (
                <Text size="xs" c="dimmed" mt="xs" data-testid="tool-task-only">
                  This tool runs only as a task (execution.taskSupport: required): a plain tools/call is refused by the server.
                </Text>
              )}
              {depthBlocked && depthProblem && (
                <Text size="xs" c="red" mt="xs" data-testid="tool-args-too-deep">
                  {depthProblem}
                </Text>
              )}
              {blocked && validation?.status === 'invalid' && (
                <Group gap="xs" mt="xs" data-testid="tool-blocked">
                  <Text size="xs" c="red">
                    Not sent: the arguments do not match the input schema.
                  </Text>
                  <Button size="compact-xs" variant="outline" color="red" onClick={() => void run(true)} data-testid="tool-send-anyway">
                    Send anyway
                  </Button>
                </Group>
              )}
            </div>
          </section>

          <section className={`${classes.section} ${classes.response}`} data-testid="tool-response">
            <div className={classes.sectionHeader}>
              <Text size="sm" fw={600}>
                Response
              </Text>
              {outcome && !running && latestRun(outcome, taskRun, false) === 'plain' && (
                <Text size="xs" c="dimmed">
                  {new Date(outcome.at).toLocaleTimeString()}
                </Text>
              )}
            </div>
            <div className={classes.sectionBody}>
              {latestRun(outcome, taskRun, !!running || checking || blocked) === 'task' && taskRun ? (
                <TaskRunView run={taskRun} tool={tool} />
              ) : running ? (
                <RunningView running={running} onCancel={() => void cancelRun(api, tool.name)} />
              ) : checking ? (
                <Text size="sm" c="dimmed" py="lg" ta="center" data-testid="tool-checking">
                  Checking the arguments against the input schema…
                </Text>
              ) : blocked ? (
                <Text size="sm" c="red" py="lg" ta="center">
                  Not sent: fix the arguments, or “Send anyway”.
                </Text>
              ) : outcome?.kind === 'result' ? (
                <ToolResultView value={outcome.value} tool={tool} />
              ) : outcome?.kind === 'error' && isUrlElicitationRequired(outcome.detail) ? (
                <UrlElicitationRequired message={outcome.message} detail={outcome.detail} serverId={tool.serverId} onRetry={() => void run()} />
              ) : outcome?.kind === 'error' ? (
                <CallErrorView outcome={outcome} />
              ) : (
                <Text size="sm" c="dimmed" py="lg" ta="center">
                  Run the tool to see its response here.
                </Text>
              )}
            </div>
          </section>
        </div>
        {isAppTool(tool) && <AppSection tool={tool} session={session} />}
        <TaskPanel serverId={tool.serverId} serverName={tool.serverName} />
      </Stack>
    </div>
  );
}

/** The input and output schemas, collapsed (memoized: progress updates must not re-render them). */
export const Schemas = memo(function Schemas({ tool }: { tool: ToolEntry }) {
  const inputSchema = tool.inputSchema as JsonSchema;
  const bounds = schemaBounds(inputSchema);
  return (
    <Accordion multiple variant="separated" radius="md" chevronPosition="left" defaultValue={[]} styles={{ control: { paddingBlock: 2 }, label: { paddingBlock: 6 } }}>
      <Accordion.Item value="input">
        <Accordion.Control data-testid="tool-input-schema-toggle">
          <Text size="sm" fw={500}>
            Input schema{' '}
            <Text span size="xs" c="dimmed">
              {bounds.ok ? `${plural(Object.keys(isObject(inputSchema.properties) ? inputSchema.properties : {}).length, 'property', 'properties')} · ${bounds.chars.toLocaleString()} chars` : 'too large or deep for a form'}
            </Text>
          </Text>
        </Accordion.Control>
        <Accordion.Panel>
          <div className={classes.schemaBox} data-testid="tool-input-schema">
            <JsonTree value={inputSchema} expandDepth={3} />
          </div>
        </Accordion.Panel>
      </Accordion.Item>
      <Accordion.Item value="output">
        <Accordion.Control disabled={!tool.outputSchema}>
          <Text size="sm" fw={500}>
            Output schema{' '}
            <Text span size="xs" c="dimmed">
              {tool.outputSchema ? 'structuredContent is checked against it' : 'none declared'}
            </Text>
          </Text>
        </Accordion.Control>
        <Accordion.Panel>
          <div className={classes.schemaBox} data-testid="tool-output-schema">
            <JsonTree value={tool.outputSchema ?? null} expandDepth={3} />
          </div>
        </Accordion.Panel>
      </Accordion.Item>
    </Accordion>
  );
});

export const ToolHeader = memo(function ToolHeader({ tool }: { tool: ToolEntry }) {
  const annotations = activeAnnotations(tool);
  return (
    <Stack gap={6}>
      <Group gap="xs" wrap="nowrap" align="center">
        <ToolIcon icons={tool.icons} />
        <Title order={4} className="mono" style={{ minWidth: 0, fontSize: 17 }}>
          <SafeLabel text={tool.name} max={160} />
        </Title>
      </Group>
      <Group gap={6}>
        <Tooltip label={`Server: ${tool.serverName.slice(0, 200)} · original name: ${tool.originalName.slice(0, 200)}`} multiline maw={400}>
          <Badge variant="light" color="indigo" size="sm" style={{ maxWidth: 260 }} data-testid="tool-server-badge">
            <SafeLabel text={tool.serverName} max={60} />
          </Badge>
        </Tooltip>
        {annotations.map((a) => (
          <Tooltip key={a.key} label={`${a.help} (a hint from the server, not a guarantee)`} multiline maw={300}>
            <Badge variant="light" color={a.color} size="sm" data-testid={`annotation-${a.label}`}>
              {a.label}
            </Badge>
          </Tooltip>
        ))}
        {tool.collidesWith && tool.collidesWith.length > 0 && <CollisionBadge tool={tool} />}
        <AppBadge tool={tool} />
      </Group>
      {tool.title && tool.title !== tool.originalName && (
        <Text size="sm" fw={500}>
          <SafeText text={tool.title} clip={300} />
        </Text>
      )}
      {tool.description ? (
        <Text size="sm" component="div" c="dimmed" data-testid="tool-description" style={{ maxHeight: 140, overflow: 'auto' }}>
          <SafeText text={tool.description} clip={600} />
        </Text>
      ) : (
        <Text size="sm" c="dimmed" fs="italic">
          No description.
        </Text>
      )}
    </Stack>
  );
});

export function CollisionBadge({ tool, compact = false }: { tool: ToolEntry; compact?: boolean }) {
  const others = tool.collidesWith ?? [];
  return (
    <Tooltip
      label={
        <span>
          “{tool.originalName.slice(0, 80)}” is also offered as:
          <br />
          {others.slice(0, 20).map((o) => (
            <span key={o} className="mono">
              {o.slice(0, 100)}
              <br />
            </span>
          ))}
          Use the namespaced name to call the one you mean.
        </span>
      }
      multiline
      maw={380}
    >
      <Badge variant={compact ? 'outline' : 'light'} color="orange" size={compact ? 'xs' : 'sm'} data-testid="tool-collision">
        {compact ? `×${others.length + 1}` : `name collision: ${others.length + 1} servers`}
      </Badge>
    </Tooltip>
  );
}

/** The App badge (and app-only marker) of a tool with a UI, here and in the explorer's rows. */
export function AppBadge({ tool, compact = false }: { tool: ToolEntry; compact?: boolean }) {
  const appOnly = isAppOnly(tool);
  if (!isAppTool(tool) && !appOnly) return null;
  return (
    <>
      {isAppTool(tool) && (
        <Tooltip label={`This tool has an interactive UI (MCP App): ${tool.ui.resourceUri.slice(0, 300)}`} multiline maw={380} openDelay={compact ? 300 : 0}>
          <Badge size={compact ? 'xs' : 'sm'} variant={compact ? 'outline' : 'light'} color="cyan" px={compact ? 4 : undefined} data-testid="app-badge">
            App
          </Badge>
        </Tooltip>
      )}
      {appOnly && (
        <Tooltip label={APP_ONLY_HELP} multiline maw={340} openDelay={compact ? 300 : 0}>
          <Badge size={compact ? 'xs' : 'sm'} variant="light" color="gray" px={compact ? 4 : undefined} data-testid="tool-app-only">
            app-only
          </Badge>
        </Tooltip>
      )}
    </>
  );
}

/**
 * The tool's app, fed from the form: the arguments as partial input while they are edited, the
 * call's arguments as input when it starts, its result (or cancellation) when it ends.
 */
function AppSection({ tool, session }: { tool: AppTool; session: ToolSession | undefined }) {
  const feed = useMemo(() => hostFeed(session), [session]);
  return (
    <section className={classes.section} data-testid="tool-app">
      <div className={classes.sectionHeader}>
        <Text size="sm" fw={600}>
          App
        </Text>
        <Text size="xs" c="dimmed" className="mono" style={{ minWidth: 0, overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }}>
          {tool.ui.resourceUri.slice(0, 300)}
        </Text>
      </div>
      <div className={classes.sectionBody}>
        <AppHost tool={tool} {...feed} />
      </div>
    </section>
  );
}

function OriginNote({ origin }: { origin?: string }) {
  const text: Record<string, string> = { remembered: 'Pre-filled with your last input for this tool.', history: 'Filled from history.', saved: 'Filled from a saved call.' };
  if (!origin || !text[origin]) return null;
  return (
    <Text size="xs" c="dimmed" mb={6} data-testid="tool-args-origin" data-origin={origin}>
      {text[origin]}
    </Text>
  );
}

function ValidationSummary({ validation, showAll }: { validation: Validation | null; showAll: boolean }) {
  if (!validation) return null;
  if (validation.status === 'valid') {
    return (
      <Text size="xs" c="teal" mt="xs" data-testid="tool-args-valid">
        ✓ matches the input schema
      </Text>
    );
  }
  if (validation.status === 'skipped') {
    return (
      <Text size="xs" c="yellow.8" mt="xs" data-testid="tool-args-unchecked">
        {validation.reason}
      </Text>
    );
  }
  const shown = showAll ? validation.issues : validation.issues.filter((i) => i.keyword !== 'required');
  return (
    <Stack gap={2} mt="xs" data-testid="tool-args-invalid">
      <Text size="xs" c={showAll ? 'red' : 'dimmed'}>
        {validation.issues.length} {validation.issues.length === 1 ? 'problem' : 'problems'} against the input schema
        {!showAll && validation.issues.length > shown.length ? ` (${validation.issues.length - shown.length} required fields still empty)` : ''}
      </Text>
      {shown.length > 0 && (
        <List size="xs" spacing={0} c={showAll ? 'red' : 'dimmed'}>
          {shown.slice(0, 12).map((issue, i) => (
            <List.Item key={i}>
              <span className="mono">{pathLabel(issue.path)}</span>: <SafeText text={issue.message} clip={200} className="" style={{ display: 'inline' }} />
            </List.Item>
          ))}
        </List>
      )}
    </Stack>
  );
}

function RunningView({ running, onCancel }: { running: RunningCall; onCancel(): void }) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 100);
    return () => clearInterval(timer);
  }, []);
  const p = running.progress;
  const percent = p?.total ? Math.max(0, Math.min(100, (p.progress / p.total) * 100)) : undefined;
  return (
    <Stack gap="xs" data-testid="tool-running">
      <Group justify="space-between">
        <Text size="sm" fw={500}>
          {running.cancelling ? 'Cancelling…' : 'Running…'}
        </Text>
        <Text size="sm" className="mono" data-testid="tool-elapsed">
          {formatMs(now - running.startedAt)}
        </Text>
      </Group>
      <Progress
        value={percent ?? 100}
        animated={percent === undefined}
        striped={percent === undefined}
        size="lg"
        transitionDuration={150}
        data-testid="tool-progress"
        data-value={p ? p.progress : ''}
        data-percent={percent ?? ''}
        aria-label="Call progress"
      />
      <Text size="xs" c="dimmed" data-testid="tool-progress-text">
        {p ? (
          <>
            {p.total ? `${p.progress} / ${p.total}` : `progress ${p.progress} (no total)`}
            {p.message ? ' · ' : ''}
            {p.message && <SafeText text={p.message} clip={200} inline />}
          </>
        ) : (
          'No progress reported yet.'
        )}
      </Text>
      <Group>
        <Button size="xs" color="red" variant="light" onClick={onCancel} disabled={running.cancelling} data-testid="tool-cancel">
          Cancel
        </Button>
      </Group>
    </Stack>
  );
}

function SaveCall({ tool, args }: { tool: ToolEntry; args: Record<string, unknown> }) {
  const api = useApi();
  const [opened, setOpened] = useState(false);
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const save = async () => {
    try {
      await api.saveCall({ name: name.trim(), serverName: tool.serverName, tool: tool.originalName, args });
      setOpened(false);
      setError(null);
      savedChanged(api);
      notifications.show({ message: `Saved "${name.trim().slice(0, 80)}" in ${tool.serverName.slice(0, 80)}'s collection.`, color: 'green' });
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <Popover opened={opened} onChange={setOpened} position="top-end" withArrow trapFocus shadow="md">
      <Popover.Target>
        <Button
          size="sm"
          variant="default"
          onClick={() => {
            setName(`${tool.originalName} ${new Date().toLocaleTimeString()}`.slice(0, 200));
            setOpened((o) => !o);
          }}
          data-testid="tool-save"
        >
          Save…
        </Button>
      </Popover.Target>
      <Popover.Dropdown>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void save();
          }}
        >
          <Stack gap="xs" w={280}>
            <Text size="xs" c="dimmed">
              Save these arguments in the collection of <b>{tool.serverName.slice(0, 80)}</b>.
            </Text>
            <TextInput size="xs" label="Name" value={name} onChange={(e) => setName(e.currentTarget.value)} error={error} data-autofocus data-testid="tool-save-name" />
            <Group justify="flex-end">
              <Button size="xs" type="submit" disabled={!name.trim()} data-testid="tool-save-confirm">
                Save
              </Button>
            </Group>
          </Stack>
        </form>
      </Popover.Dropdown>
    </Popover>
  );
}
