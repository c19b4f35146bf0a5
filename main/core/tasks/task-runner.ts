/**
 * MCP tasks (2025-11-25 wire vocabulary) driven by hand: the v2 client SDK parses the task
 * messages but has no task runtime, so this sends `tools/call` with `task: { ttl }` through the
 * live connection, polls `tasks/get` (bounded), fetches `tasks/result` once the task is
 * terminal, and sends `tasks/cancel` on request. Every status change is published as a
 * `taskStatus` event; the record of this run's tasks is kept here (newest first, bounded).
 *
 * `input_required`: the server delivers the questions it has for the task (elicitation,
 * sampling, with the related-task meta) only through `tasks/result`, which it holds open until
 * the task is terminal. So on `input_required` tasks/result is sent at once — once per task; its
 * answer is the task's result — and tasks/get polling goes on meanwhile, so the status (input
 * required → working → completed) stays current while the person answers and the task finishes.
 */
import { z } from 'zod';
import type { EventPayload, TaskInfo, TaskStatusName } from '../../../contract';
import { errorDetailOf } from '../connection/errors';
import type { ServerConnection } from '../connection/server-connection';

export const DEFAULT_TTL_MS = 10 * 60_000;
/** Poll interval when the server suggests none; never faster than MIN, never slower than MAX. */
const POLL_DEFAULT_MS = 500;
const POLL_MIN_MS = 250;
const POLL_MAX_MS = 5_000;
/** Polling stops after this long without a terminal status, or after this many failures in a row. */
const POLL_LIMIT_MS = 30 * 60_000;
const POLL_FAILURES = 3;
const KEEP = 200;

const STATUSES = ['working', 'input_required', 'completed', 'failed', 'cancelled'] as const;
const TERMINAL = new Set<TaskStatusName>(['completed', 'failed', 'cancelled']);

/** The wire Task, loosely: an inspector keeps whatever else the server sent. */
const WireTask = z.looseObject({
  taskId: z.string(),
  status: z.enum(STATUSES),
  statusMessage: z.string().optional(),
  pollInterval: z.number().optional(),
  ttl: z.number().nullable().optional(),
});
/** tools/call with `task`: a CreateTaskResult — or, from a server that ignored `task`, a plain CallToolResult. */
const CreateOrCall = z.looseObject({ task: WireTask.optional() });
const AnyResult = z.looseObject({});

export const isTerminal = (status: TaskStatusName): boolean => TERMINAL.has(status);

interface Tracked {
  info: TaskInfo;
  connection: ServerConnection;
  timer?: NodeJS.Timeout;
  failures: number;
  /** The one tasks/result of this task, once sent. */
  resultRequest?: Promise<Record<string, unknown>>;
}

export interface TaskRunnerDeps {
  emit: (payload: EventPayload<'taskStatus'>) => void;
  now?: () => number;
}

export class TaskRunner {
  private readonly tasks = new Map<string, Tracked>();
  private readonly now: () => number;

  constructor(private readonly deps: TaskRunnerDeps) {
    this.now = deps.now ?? Date.now;
  }

  /** Sends tools/call as a task and starts polling. */
  async start(connection: ServerConnection, entry: { name: string; originalName: string; serverName: string }, args: Record<string, unknown>, ttlMs = DEFAULT_TTL_MS): Promise<TaskInfo> {
    const startedAt = this.now();
    const created = await connection.withClient('tools/call', false, (client, timeout) =>
      client.request({ method: 'tools/call', params: { name: entry.originalName, arguments: args, task: { ttl: ttlMs } } } as never, CreateOrCall, { timeout }),
    );
    const base = { serverId: connection.id, serverName: entry.serverName, tool: entry.name, args, startedAt };
    if (!created.task) {
      // The server ran it as an ordinary call: show it as a finished task with its result.
      const info: TaskInfo = { ...base, taskId: `sync-${startedAt}-${Math.random().toString(36).slice(2, 8)}`, status: created.isError === true ? 'failed' : 'completed', statusMessage: 'The server answered synchronously (it ignored the task request).', endedAt: this.now(), result: created };
      this.remember({ info, connection, failures: 0 });
      this.publish(info);
      return info;
    }
    const task = created.task;
    connection.noteTask(task.taskId, entry.name);
    const info: TaskInfo = { ...base, taskId: task.taskId, status: task.status, statusMessage: task.statusMessage, pollInterval: task.pollInterval, ttl: task.ttl };
    if (!isTerminal(task.status)) info.progressMessage = task.statusMessage;
    const tracked: Tracked = { info, connection, failures: 0 };
    this.remember(tracked);
    this.publish(info);
    if (isTerminal(info.status) || info.status === 'input_required') void this.fetchResult(tracked);
    if (!isTerminal(info.status)) this.schedule(tracked);
    return { ...info };
  }

  list(): TaskInfo[] {
    return [...this.tasks.values()].map((t) => ({ ...t.info })).reverse();
  }

  find(serverId: string, taskId: string): Tracked | undefined {
    return this.tasks.get(key(serverId, taskId));
  }

  /** tasks/get now; for a task this run did not start, a record is made from the answer. */
  async get(connection: ServerConnection, taskId: string): Promise<TaskInfo> {
    const task = await connection.withClient('tasks/get', true, (client, timeout) => client.request({ method: 'tasks/get', params: { taskId } } as never, WireTask, { timeout }));
    const tracked = this.find(connection.id, taskId);
    if (!tracked) return { serverId: connection.id, serverName: connection.config.name, taskId, tool: '', args: {}, status: task.status, statusMessage: task.statusMessage, startedAt: this.now(), pollInterval: task.pollInterval, ttl: task.ttl };
    this.apply(tracked, task);
    return { ...tracked.info };
  }

  /**
   * tasks/result (the server holds it until the task is terminal, delivering the task's questions
   * through it meanwhile). For a task of this run, the one request already open is joined.
   */
  async result(connection: ServerConnection, taskId: string): Promise<Record<string, unknown>> {
    const tracked = this.find(connection.id, taskId);
    if (tracked?.resultRequest) return tracked.resultRequest;
    const request = connection.withClient('tasks/result', true, (client, timeout) =>
      client.request({ method: 'tasks/result', params: { taskId } } as never, AnyResult, { timeout: Math.max(timeout, Math.min(POLL_LIMIT_MS, tracked?.info.ttl ?? DEFAULT_TTL_MS)) }),
    );
    if (!tracked) return request;
    tracked.resultRequest = request;
    tracked.info.resultPending = true;
    try {
      const result = await request;
      tracked.info.result = result;
      tracked.info.resultError = undefined;
      tracked.info.resultErrorDetail = undefined;
      return result;
    } catch (error) {
      tracked.resultRequest = undefined; // a failed one may be asked again (Refresh, the panel)
      throw error;
    } finally {
      tracked.info.resultPending = undefined;
    }
  }

  async cancel(connection: ServerConnection, taskId: string): Promise<TaskInfo> {
    const task = await connection.withClient('tasks/cancel', true, (client, timeout) => client.request({ method: 'tasks/cancel', params: { taskId } } as never, WireTask, { timeout }));
    const tracked = this.find(connection.id, taskId);
    if (!tracked) return { serverId: connection.id, serverName: connection.config.name, taskId, tool: '', args: {}, status: task.status, statusMessage: task.statusMessage, startedAt: this.now() };
    this.apply(tracked, task);
    return { ...tracked.info };
  }

  /** Stops every poll (core shutdown). */
  close(): void {
    for (const tracked of this.tasks.values()) clearTimeout(tracked.timer);
  }

  // ------------------------------------------------------------------------------------

  private remember(tracked: Tracked): void {
    this.tasks.set(key(tracked.info.serverId, tracked.info.taskId), tracked);
    while (this.tasks.size > KEEP) {
      const oldest = this.tasks.keys().next().value as string;
      clearTimeout(this.tasks.get(oldest)?.timer);
      this.tasks.delete(oldest);
    }
  }

  private schedule(tracked: Tracked): void {
    clearTimeout(tracked.timer);
    const interval = Math.min(POLL_MAX_MS, Math.max(POLL_MIN_MS, tracked.info.pollInterval ?? POLL_DEFAULT_MS));
    tracked.timer = setTimeout(() => void this.poll(tracked), interval);
    tracked.timer.unref?.();
  }

  private async poll(tracked: Tracked): Promise<void> {
    tracked.timer = undefined;
    if (isTerminal(tracked.info.status)) return;
    if (this.now() - tracked.info.startedAt > POLL_LIMIT_MS) {
      tracked.info.pollError = `Stopped polling after ${POLL_LIMIT_MS / 60_000} minutes without a final status; use Refresh to ask again.`;
      this.publish(tracked.info);
      return;
    }
    try {
      const task = await tracked.connection.withClient('tasks/get', true, (client, timeout) =>
        client.request({ method: 'tasks/get', params: { taskId: tracked.info.taskId } } as never, WireTask, { timeout }),
      );
      tracked.failures = 0;
      this.apply(tracked, task);
    } catch (error) {
      tracked.failures++;
      if (tracked.failures >= POLL_FAILURES) {
        tracked.info.pollError = `tasks/get failed ${tracked.failures} times in a row; stopped polling: ${tracked.connection.redactor.text(error instanceof Error ? error.message : String(error))}`;
        tracked.info.pollErrorDetail = errorDetailOf(error);
        this.publish(tracked.info);
        return;
      }
    }
    if (!isTerminal(tracked.info.status)) this.schedule(tracked);
  }

  /** Takes a tasks/get (or tasks/cancel) answer; publishes a change; fetches the result of a finished task. */
  private apply(tracked: Tracked, task: z.output<typeof WireTask>): void {
    const info = tracked.info;
    const changed = info.status !== task.status || info.statusMessage !== task.statusMessage;
    const wasTerminal = isTerminal(info.status);
    info.status = task.status;
    info.statusMessage = task.statusMessage;
    if (!isTerminal(task.status)) info.progressMessage = task.statusMessage;
    if (task.pollInterval !== undefined) info.pollInterval = task.pollInterval;
    if (task.ttl !== undefined) info.ttl = task.ttl;
    if (isTerminal(task.status)) {
      clearTimeout(tracked.timer);
      tracked.timer = undefined;
      info.endedAt ??= this.now();
    }
    if (changed) this.publish(info);
    const wantsResult = task.status === 'input_required' || (!wasTerminal && (task.status === 'completed' || task.status === 'failed'));
    if (wantsResult && !tracked.resultRequest && !info.result) void this.fetchResult(tracked);
  }

  private async fetchResult(tracked: Tracked): Promise<void> {
    if (tracked.info.status === 'cancelled') return;
    const opened = !tracked.resultRequest;
    const pending = this.result(tracked.connection, tracked.info.taskId);
    if (opened) this.publish(tracked.info); // "tasks/result open": the server may now ask its questions
    try {
      await pending;
    } catch (error) {
      if (isCancelled(tracked.info)) return;
      tracked.info.resultError = tracked.connection.redactor.text(error instanceof Error ? error.message : String(error));
      tracked.info.resultErrorDetail = errorDetailOf(error);
    }
    // The answer means the task is terminal: learn its final status now rather than at the next poll.
    if (!isTerminal(tracked.info.status)) {
      clearTimeout(tracked.timer);
      await this.poll(tracked);
    }
    this.publish(tracked.info);
  }

  private publish(info: TaskInfo): void {
    this.deps.emit({ serverId: info.serverId, taskId: info.taskId, tool: info.tool, status: info.status, statusMessage: info.statusMessage, ts: this.now() });
  }
}

const isCancelled = (info: TaskInfo): boolean => info.status === 'cancelled';
const key = (serverId: string, taskId: string): string => `${serverId}\u0000${taskId}`;
