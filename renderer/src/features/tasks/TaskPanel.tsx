/**
 * MCP tasks (2025-11-25): "Run as task" for a tool that declares `execution.taskSupport`, and
 * the panel of this run's tasks — status chip, elapsed time, status message, Cancel, and the
 * result once the core has fetched it (tasks/result). The core polls tasks/get and announces
 * every change with `taskStatus`; the panel re-reads `listTasks` on those events (coalesced).
 */
import { Badge, Button, Group, Stack, Text, Tooltip } from '@mantine/core';
import { useEffect, useState } from 'react';
import type { TaskInfo, TaskStatusName, ToolEntry } from '../../../../contract';
import { useApi } from '../../api/context';
import { SafeText } from '../../components/SafeText';
import { ToolResultView, formatMs } from '../tools/ToolResultView';

const STATUS_COLOR: Record<TaskStatusName, string> = { working: 'blue', input_required: 'yellow', completed: 'green', failed: 'red', cancelled: 'gray' };
const TERMINAL = new Set<TaskStatusName>(['completed', 'failed', 'cancelled']);
const MESSAGE_CLIP = 300;

export const supportsTasks = (tool: ToolEntry): boolean => tool.taskSupport === 'optional' || tool.taskSupport === 'required';

const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error));

export function RunAsTaskButton({ tool, args, disabled }: { tool: ToolEntry; args: Record<string, unknown>; disabled?: boolean }) {
  const api = useApi();
  const [starting, setStarting] = useState(false);
  const [error, setError] = useState<string | null>(null);
  if (!supportsTasks(tool)) return null;
  const start = async () => {
    setStarting(true);
    setError(null);
    try {
      await api.runToolAsTask({ tool: tool.name, serverId: tool.serverId, args });
    } catch (e) {
      setError(errorText(e));
    } finally {
      setStarting(false);
    }
  };
  return (
    <Tooltip label={error ?? `tools/call with task: { ttl } — the server runs it in the background; Switchboard polls tasks/get (taskSupport: ${tool.taskSupport})`} multiline maw={320} color={error ? 'red' : undefined} opened={error ? true : undefined}>
      <Button size="sm" variant="light" onClick={() => void start()} loading={starting} disabled={disabled} data-testid="tool-run-as-task">
        Run as task
      </Button>
    </Tooltip>
  );
}

/** This run's tasks (all servers), newest first; nothing while there are none. */
export function TaskPanel() {
  const api = useApi();
  const [tasks, setTasks] = useState<TaskInfo[]>([]);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const refresh = () => {
      timer = undefined;
      api
        .listTasks({})
        .then((list) => live && (setTasks(list), setError(null)))
        .catch((e: unknown) => live && setError(errorText(e)));
    };
    refresh();
    const off = api.on('taskStatus', () => {
      timer ??= setTimeout(refresh, 100);
    });
    return () => {
      live = false;
      off();
      if (timer) clearTimeout(timer);
    };
  }, [api]);

  if (tasks.length === 0 && !error) return null;
  return (
    <section data-testid="task-panel" style={{ border: '1px solid var(--mantine-color-default-border)', borderRadius: 6, padding: 10 }}>
      <Group justify="space-between" mb={6}>
        <Text size="sm" fw={600}>
          Tasks <Text span size="xs" c="dimmed">({tasks.length} this run)</Text>
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

function TaskRow({ task }: { task: TaskInfo }) {
  const api = useApi();
  const [open, setOpen] = useState(false);
  const [cancelling, setCancelling] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const now = useTick(!TERMINAL.has(task.status));
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
  const message = task.statusMessage && task.statusMessage.length > MESSAGE_CLIP ? `${task.statusMessage.slice(0, MESSAGE_CLIP)}…` : task.statusMessage;
  return (
    <div data-testid="task-row" data-task-id={task.taskId} data-status={task.status} style={{ borderTop: '1px solid var(--mantine-color-default-border)', paddingTop: 6 }}>
      <Group gap={8} wrap="nowrap">
        <Badge color={STATUS_COLOR[task.status]} variant={TERMINAL.has(task.status) ? 'light' : 'filled'} size="sm" style={{ flex: 'none' }} data-testid="task-status">
          {task.status.replace('_', ' ')}
        </Badge>
        <Text size="sm" className="mono" style={{ minWidth: 0, overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap', unicodeBidi: 'plaintext' }} title={task.tool}>
          {task.tool}
        </Text>
        <Text size="xs" c="dimmed" className="mono" style={{ flex: 'none' }} data-testid="task-elapsed">
          {formatMs(Math.max(0, elapsed))}
        </Text>
        <Text size="xs" c="dimmed" className="mono" style={{ flex: 'none' }} title={task.taskId}>
          {task.taskId.slice(0, 8)}
        </Text>
        <div style={{ flex: 1 }} />
        {!TERMINAL.has(task.status) && (
          <Button size="compact-xs" color="red" variant="light" onClick={() => void cancel()} loading={cancelling} data-testid="task-cancel">
            Cancel
          </Button>
        )}
        {task.result && (
          <Button size="compact-xs" variant="subtle" onClick={() => setOpen((o) => !o)} data-testid="task-toggle-result">
            {open ? 'Hide result' : 'Result'}
          </Button>
        )}
      </Group>
      {message && (
        <Text size="xs" c="dimmed" mt={2} data-testid="task-status-message" style={{ unicodeBidi: 'plaintext' }}>
          <SafeText text={message} />
        </Text>
      )}
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
