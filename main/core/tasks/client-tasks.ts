/**
 * The receiver side of MCP tasks (2025-11-25), for requests a server sends to Switchboard with
 * `params.task` (task-augmented `elicitation/create` and `sampling/createMessage`): the request is
 * answered at once with a CreateTaskResult while the person answers in the request center, and
 * the server follows the task with `tasks/get`, `tasks/result` (held until the task is terminal),
 * `tasks/list` and `tasks/cancel`. One store per connection (a task belongs to its session); the
 * store keeps each task until its TTL runs out (bounded), and closing it cancels what is open.
 *
 * Status: `working` while the person has not answered — `input_required` would say that the
 * receiver waits for the *requestor* (the server), which is not the case here.
 */
import { randomUUID } from 'node:crypto';
import { ProtocolError, RELATED_TASK_META_KEY } from '@modelcontextprotocol/client';

export type ClientTaskStatus = 'working' | 'completed' | 'failed' | 'cancelled';

/** The wire Task, as `tasks/get` returns it. */
export interface WireClientTask {
  taskId: string;
  status: ClientTaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttl: number | null;
  pollInterval: number;
}

interface Entry {
  task: WireClientTask;
  method: string;
  controller: AbortController;
  done: Promise<void>;
  result?: Record<string, unknown>;
  error?: unknown;
  expiry?: NodeJS.Timeout;
}

/** JSON-RPC invalid params: the spec's answer for an unknown task or a task that cannot be cancelled. */
const INVALID_PARAMS = -32602;
const DEFAULT_TTL_MS = 10 * 60_000;
const MAX_TTL_MS = 60 * 60_000;
const POLL_INTERVAL_MS = 1_000;
const KEEP = 100;
const TERMINAL = new Set<ClientTaskStatus>(['completed', 'failed', 'cancelled']);

export class ClientTaskStore {
  private readonly tasks = new Map<string, Entry>();
  private closed = false;

  constructor(private readonly now: () => number = Date.now) {}

  /**
   * Starts a task that runs `run` (the validated request handler) and returns the wire Task for
   * the CreateTaskResult. `ttl` is the server's request, capped; the result is kept that long.
   */
  create(method: string, requestedTtl: number | undefined, run: (taskId: string, signal: AbortSignal) => Promise<Record<string, unknown>>): WireClientTask {
    if (this.closed) throw new ProtocolError(-32603, 'The connection is closing.');
    const ttl = Math.min(MAX_TTL_MS, requestedTtl !== undefined && Number.isFinite(requestedTtl) && requestedTtl > 0 ? requestedTtl : DEFAULT_TTL_MS);
    const at = new Date(this.now()).toISOString();
    const taskId = randomUUID();
    const task: WireClientTask = { taskId, status: 'working', statusMessage: waitingMessage(method), createdAt: at, lastUpdatedAt: at, ttl, pollInterval: POLL_INTERVAL_MS };
    const controller = new AbortController();
    const entry: Entry = { task, method, controller, done: Promise.resolve() };
    entry.done = (async () => {
      try {
        const result = await run(taskId, controller.signal);
        if (entry.task.status !== 'cancelled') {
          entry.result = result;
          this.finish(entry, 'completed', undefined);
        }
      } catch (error) {
        if (entry.task.status !== 'cancelled') {
          entry.error = error;
          this.finish(entry, 'failed', error instanceof Error ? error.message : String(error));
        }
      }
    })();
    this.tasks.set(taskId, entry);
    entry.expiry = setTimeout(() => this.forget(taskId), ttl);
    entry.expiry.unref?.();
    while (this.tasks.size > KEEP) {
      const oldest = this.tasks.keys().next().value as string;
      this.forget(oldest);
    }
    return { ...task };
  }

  get(taskId: string): WireClientTask {
    return { ...this.entry(taskId).task };
  }

  /** Waits until the task is terminal; its result (with the related-task meta), or the error its request would have answered. */
  async result(taskId: string): Promise<Record<string, unknown>> {
    const entry = this.entry(taskId);
    await entry.done;
    if (entry.task.status === 'cancelled') throw new ProtocolError(INVALID_PARAMS, `Task ${taskId} was cancelled.`);
    if (entry.task.status === 'failed') throw entry.error instanceof ProtocolError ? entry.error : new ProtocolError(-32603, entry.task.statusMessage ?? 'The task failed.');
    const result = entry.result ?? {};
    const meta = typeof result._meta === 'object' && result._meta !== null ? (result._meta as Record<string, unknown>) : {};
    return { ...result, _meta: { ...meta, [RELATED_TASK_META_KEY]: { taskId } } };
  }

  list(): { tasks: WireClientTask[] } {
    return { tasks: [...this.tasks.values()].map((e) => ({ ...e.task })) };
  }

  cancel(taskId: string): WireClientTask {
    const entry = this.entry(taskId);
    if (TERMINAL.has(entry.task.status)) throw new ProtocolError(INVALID_PARAMS, `Task ${taskId} is already ${entry.task.status}; it cannot be cancelled.`);
    this.finish(entry, 'cancelled', 'Cancelled by the server (tasks/cancel).');
    entry.controller.abort(new Error('The server cancelled the task.'));
    return { ...entry.task };
  }

  /** The connection is going away: open tasks are cancelled (their questions withdrawn). */
  close(): void {
    this.closed = true;
    for (const entry of this.tasks.values()) {
      clearTimeout(entry.expiry);
      if (!TERMINAL.has(entry.task.status)) {
        this.finish(entry, 'cancelled', 'The connection closed.');
        entry.controller.abort(new Error('The connection closed.'));
      }
    }
    this.tasks.clear();
  }

  private entry(taskId: unknown): Entry {
    const entry = typeof taskId === 'string' ? this.tasks.get(taskId) : undefined;
    if (!entry) throw new ProtocolError(INVALID_PARAMS, `No task ${String(taskId).slice(0, 100)} (unknown, or its TTL ran out).`);
    return entry;
  }

  private finish(entry: Entry, status: ClientTaskStatus, message: string | undefined): void {
    entry.task = { ...entry.task, status, statusMessage: message, lastUpdatedAt: new Date(this.now()).toISOString() };
  }

  private forget(taskId: string): void {
    const entry = this.tasks.get(taskId);
    if (!entry) return;
    clearTimeout(entry.expiry);
    if (!TERMINAL.has(entry.task.status)) {
      this.finish(entry, 'cancelled', 'Its TTL ran out.');
      entry.controller.abort(new Error('The task expired.'));
    }
    this.tasks.delete(taskId);
  }
}

function waitingMessage(method: string): string {
  return method === 'sampling/createMessage' ? 'Waiting for the person to approve a model reply in Switchboard.' : 'Waiting for the person to answer in Switchboard.';
}
