/**
 * What the tasks UI shows, as plain functions (no React): which Run buttons a tool offers, a
 * task's status line, which tasks belong under a server, which questions a task waits on.
 */
import type { PendingRequest, TaskInfo, TaskStatusName, ToolEntry } from '../../../../contract';

const TERMINAL = new Set<TaskStatusName>(['completed', 'failed', 'cancelled']);
export const isTerminalStatus = (status: TaskStatusName): boolean => TERMINAL.has(status);

/**
 * MCP tasks (2025-11-25) `execution.taskSupport`: `required` → only as a task (a plain call is
 * refused with -32601); `optional` → both; `forbidden` or absent → only a plain call.
 */
export function runModes(tool: Pick<ToolEntry, 'taskSupport'>): { plain: boolean; task: boolean } {
  switch (tool.taskSupport) {
    case 'required':
      return { plain: false, task: true };
    case 'optional':
      return { plain: true, task: true };
    default:
      return { plain: true, task: false };
  }
}

const STATUS_WORDS: Record<TaskStatusName, string> = { working: 'working', input_required: 'input required', completed: 'completed', failed: 'failed', cancelled: 'cancelled' };
export const statusWord = (status: TaskStatusName): string => STATUS_WORDS[status];

/**
 * The status line's server message: a running task shows its latest one. A finished task hides the
 * message it was last seen working under ("Generating report…" left standing on a completed task is
 * stale); any other message is shown, labelled as the server's last message, since a poll can miss
 * a stage and no answer says whether its message came with the final status.
 */
export function statusMessageOf(task: Pick<TaskInfo, 'status' | 'statusMessage' | 'progressMessage'>): string | undefined {
  if (!task.statusMessage) return undefined;
  if (!isTerminalStatus(task.status)) return task.statusMessage;
  return task.statusMessage === task.progressMessage ? undefined : task.statusMessage;
}

/** This server's tasks, newest first (the list comes newest first). */
export function tasksOfServer(tasks: readonly TaskInfo[], serverId: string): TaskInfo[] {
  return tasks.filter((t) => t.serverId === serverId);
}

/** The questions a task is waiting on (a server-side task of this run). */
export function questionsFor(pending: readonly PendingRequest[], task: Pick<TaskInfo, 'serverId' | 'taskId'>): PendingRequest[] {
  return pending.filter((r) => r.serverId === task.serverId && r.task?.side === 'server' && r.task.taskId === task.taskId);
}

/** Which run the Response pane shows: the newer of the last plain call and the last task run. */
export function latestRun(plain: { at: number } | undefined, task: { at: number } | undefined, plainRunning: boolean): 'plain' | 'task' | 'none' {
  if (plainRunning) return 'plain';
  if (task && (!plain || task.at >= plain.at)) return 'task';
  return plain ? 'plain' : 'none';
}

/** The request center's words for the task a question belongs to. */
export function taskTieText(task: NonNullable<PendingRequest['task']>): string {
  const id = task.taskId.length > 12 ? `${task.taskId.slice(0, 8)}…` : task.taskId;
  if (task.side === 'client') return `sent as a task of Switchboard's (${id}): the server polls tasks/get for your answer`;
  return task.tool ? `for task ${id} of tool ${task.tool}` : `for task ${id} (not started in this run)`;
}
