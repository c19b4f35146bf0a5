/**
 * MCP tasks (2025-11-25): "Run as task" for a tool that declares `execution.taskSupport`, the
 * tool's latest task run in its Response pane, and the panel of this server's tasks — status
 * chip, elapsed time, status line, "waiting for you" with the way to the question a task waits
 * on, Cancel, and the result once the core has fetched it (tasks/result). The core polls
 * tasks/get and announces every change with `taskStatus`; the store re-reads `listTasks`.
 */
import { Badge, Button, Group, Stack, Text, Tooltip } from '@mantine/core';
import { useEffect, useState } from 'react';
import type { TaskInfo, TaskStatusName, ToolEntry } from '../../../../contract';
import { useApi } from '../../api/context';
import { SafeText } from '../../components/SafeText';
import { getRequestStore, showRequest, useRequests } from '../requests';
import { getTasksStore, isTerminalStatus, questionsFor, runModes, statusMessageOf, statusWord, tasksOfServer, useTasks, type TaskRun } from '../tasks';
import { formatMs } from '../../components/format';
import { ToolResultView } from './ToolResultView';

const STATUS_COLOR: Record<TaskStatusName, string> = { working: 'blue', input_required: 'yellow', completed: 'green', failed: 'red', cancelled: 'gray' };
const MESSAGE_CLIP = 300;

export const supportsTasks = (tool: ToolEntry): boolean => runModes(tool).task;

const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error));

export function RunAsTaskButton({ tool, args, disabled }: { tool: ToolEntry; args: Record<string, unknown>; disabled?: boolean }) {
  const api = useApi();
  const store = getTasksStore(api);
  const run = useTasks(store).runs.get(tool.name);
  const modes = runModes(tool);
  if (!modes.task) return null;
  const only = !modes.plain;
  return (
    <Tooltip
      label={`tools/call with task: { ttl } — the server runs it in the background; Switchboard polls tasks/get${only ? ' (taskSupport: required — this tool runs only as a task; Ctrl+Enter)' : ` (taskSupport: ${tool.taskSupport})`}`}
      multiline
      maw={320}
      openDelay={400}
    >
      <Button size="sm" variant={only ? 'filled' : 'light'} onClick={() => void store.runAsTask(tool, args)} loading={run?.starting} disabled={disabled} data-testid="tool-run-as-task">
        Run as task
      </Button>
    </Tooltip>
  );
}

/** The Response pane after "Run as task": the task as it goes, its result once it is there, or why it did not start. */
export function TaskRunView({ run, tool }: { run: TaskRun; tool: ToolEntry }) {
  const api = useApi();
  const { tasks } = useTasks(getTasksStore(api));
  if (run.error) {
    return (
      <Stack gap={4} data-testid="task-run-error">
        <Text size="sm" c="red" fw={500}>
          Could not start the task
        </Text>
        <Text size="xs" c="red" style={{ whiteSpace: 'pre-wrap' }}>
          <SafeText text={run.error} clip={2_000} />
        </Text>
      </Stack>
    );
  }
  const task = run.taskId ? tasks.find((t) => t.serverId === run.serverId && t.taskId === run.taskId) : undefined;
  if (!task) {
    return (
      <Text size="sm" c="dimmed" py="lg" ta="center" data-testid="task-run-starting">
        Starting the task (tools/call with task)…
      </Text>
    );
  }
  return (
    <Stack gap="xs" data-testid="task-run" data-task-id={task.taskId} data-status={task.status}>
      <TaskRow task={task} resultOpen compact />
      {!task.result && !isTerminalStatus(task.status) && (
        <Text size="xs" c="dimmed">
          The result shows here when the task finishes{task.resultPending ? ' (tasks/result is open: the server answers it then)' : ''}.
        </Text>
      )}
      {task.result && <ToolResultView value={{ serverId: task.serverId, tool: tool.name, durationMs: Math.max(0, (task.endedAt ?? Date.now()) - task.startedAt), result: task.result }} tool={tool} />}
    </Stack>
  );
}

/** This server's tasks of this run, newest first; nothing while there are none. */
export function TaskPanel({ serverId, serverName }: { serverId: string; serverName: string }) {
  const api = useApi();
  const store = getTasksStore(api);
  const { tasks: all, error } = useTasks(store);
  useEffect(() => void store.refresh(), [store]);
  const tasks = tasksOfServer(all, serverId);

  if (tasks.length === 0 && !error) return null;
  return (
    <section data-testid="task-panel" data-server-id={serverId} style={{ border: '1px solid var(--mantine-color-default-border)', borderRadius: 6, padding: 10 }}>
      <Group justify="space-between" mb={6}>
        <Text size="sm" fw={600}>
          Tasks on <SafeText text={serverName} clip={80} inline />{' '}
          <Text span size="xs" c="dimmed">
            ({tasks.length} this run)
          </Text>
        </Text>
        {error && (
          <Text size="xs" c="red" data-testid="task-panel-error">
            {error}
          </Text>
        )}
      </Group>
      <Stack gap={6} style={{ maxHeight: 420, overflow: 'auto' }}>
        {tasks.map((task) => (
          <TaskRow key={`${task.serverId}/${task.taskId}`} task={task} />
        ))}
      </Stack>
    </section>
  );
}

function TaskRow({ task, resultOpen = false, compact = false }: { task: TaskInfo; resultOpen?: boolean; compact?: boolean }) {
  const api = useApi();
  const { pending } = useRequests(getRequestStore(api));
  const questions = questionsFor(pending, task);
  const [open, setOpen] = useState(false);
  const [cancelling, setCancelling] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const terminal = isTerminalStatus(task.status);
  const now = useTick(!terminal);
  const elapsed = (task.endedAt ?? now) - task.startedAt;
  const cancel = async () => {
    setCancelling(true);
    setError(null);
    try {
      await api.cancelTask({ serverId: task.serverId, taskId: task.taskId });
    } catch (e) {
      setError(errorText(e));
    } finally {
      setCancelling(false);
    }
  };
  const raw = statusMessageOf(task);
  const message = raw && raw.length > MESSAGE_CLIP ? `${raw.slice(0, MESSAGE_CLIP)}…` : raw;
  const waiting = questions.length > 0;
  return (
    <div data-testid="task-row" data-task-id={task.taskId} data-status={task.status} data-waiting={waiting} style={compact ? undefined : { borderTop: '1px solid var(--mantine-color-default-border)', paddingTop: 6 }}>
      <Group gap={8} wrap={compact ? 'wrap' : 'nowrap'}>
        <Badge color={STATUS_COLOR[task.status]} variant={terminal ? 'light' : 'filled'} size="sm" style={{ flex: 'none' }} data-testid="task-status">
          {statusWord(task.status)}
        </Badge>
        {!compact && (
          <Text size="sm" className="mono" style={{ minWidth: 0, overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap', unicodeBidi: 'plaintext' }} title={task.tool}>
            {task.tool}
          </Text>
        )}
        <Text size="xs" c="dimmed" className="mono" style={{ flex: 'none' }} data-testid="task-elapsed">
          {formatMs(Math.max(0, elapsed))}
        </Text>
        <Text size="xs" c="dimmed" className="mono" style={{ flex: 'none' }} title={task.taskId}>
          {task.taskId.slice(0, 8)}
        </Text>
        <div style={{ flex: 1 }} />
        {waiting && (
          <Button size="compact-xs" color="orange" onClick={() => showRequest(questions[0]!.id)} data-testid="task-answer" style={{ flex: 'none' }}>
            Answer…
          </Button>
        )}
        {!terminal && (
          <Button size="compact-xs" color="red" variant="light" onClick={() => void cancel()} loading={cancelling} data-testid="task-cancel" style={{ flex: 'none' }}>
            Cancel
          </Button>
        )}
        {task.result && !resultOpen && (
          <Button size="compact-xs" variant="subtle" onClick={() => setOpen((o) => !o)} data-testid="task-toggle-result" style={{ flex: 'none' }}>
            {open ? 'Hide result' : 'Result'}
          </Button>
        )}
      </Group>
      {waiting && (
        <Text size="xs" c="orange" fw={600} mt={2} data-testid="task-waiting">
          Waiting for you: the server asks {questions.length === 1 ? 'a question' : `${questions.length} questions`} for this task (request center).
        </Text>
      )}
      <Text size="xs" c="dimmed" mt={2} data-testid="task-status-message" style={{ unicodeBidi: 'plaintext' }}>
        {terminal ? `${statusWord(task.status)[0]!.toUpperCase()}${statusWord(task.status).slice(1)} after ${formatMs(Math.max(0, elapsed))}` : null}
        {/* The server may leave any earlier message standing when it finishes (server-everything leaves "Generating report..."), and a poll can miss it while the task works: so a finished task's message is labelled as the server's, never read as its status. */}
        {terminal && message ? ' · last message from the server: ' : null}
        {message && <SafeText text={message} inline={terminal} />}
        {!terminal && !message ? 'No status message from the server.' : null}
      </Text>
      {(error ?? task.resultError ?? task.pollError) && (
        <Text size="xs" c="red" mt={2} data-testid="task-error">
          {error ?? task.resultError ?? task.pollError}
        </Text>
      )}
      {open && task.result && (
        <div style={{ marginTop: 6 }} data-testid="task-result">
          <ToolResultView value={{ serverId: task.serverId, tool: task.tool, durationMs: Math.max(0, elapsed), result: task.result }} />
        </div>
      )}
    </div>
  );
}

function useTick(active: boolean): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(timer);
  }, [active]);
  return active ? now : Date.now();
}
