/**
 * The SDK client with the receiver side of MCP tasks (2025-11-25) for server-to-client requests.
 *
 * The SDK's `Client._wrapHandler` validates the result of `elicitation/create` and
 * `sampling/createMessage` handlers as an ElicitResult / CreateMessageResult, so a handler could
 * never answer a task-augmented request with a CreateTaskResult. This subclass overrides that
 * protected hook: a request whose params carry `task` is answered with `{ task }` at once, and
 * the SDK's own validated handler (request and result checks unchanged) runs inside the task —
 * its result is what `tasks/result` returns. Requests without `task` go the SDK's way untouched.
 *
 * Eras: the 2026-07-28 era has no task methods (the SDK drops its server-to-client requests and
 * strips `tasks` from what servers declare there), and the SDK sends the constructor's
 * capabilities verbatim in both eras (2025 initialize, 2026 discover probe and `_meta` envelope),
 * so `tasks` is kept out of them and added to the 2025 initialize only.
 */
import { Client, type ClientCapabilities, type ClientContext } from '@modelcontextprotocol/client';
import { SwitchboardClient } from '../connection/sdk-client';
import { z } from 'zod';
import { ClientTaskStore } from './client-tasks';

/** Where the task id of a request being answered inside a client-side task travels to its handler. */
const CLIENT_TASK = Symbol('switchboard.clientTask');
const TASK_AUGMENTABLE = new Set(['elicitation/create', 'sampling/createMessage']);

/** The client-side task a server-to-client request is being answered in, if any. */
export function clientTaskOf(ctx: unknown): string | undefined {
  const id = (ctx as { [CLIENT_TASK]?: unknown } | undefined)?.[CLIENT_TASK];
  return typeof id === 'string' ? id : undefined;
}

/** The `tasks` capability for what Switchboard really answers as a task (none when neither is offered). */
export function tasksCapability(options: { elicitation: boolean; sampling: boolean }): ClientCapabilities['tasks'] | undefined {
  if (!options.elicitation && !options.sampling) return undefined;
  return {
    list: {},
    cancel: {},
    requests: {
      ...(options.elicitation ? { elicitation: { create: {} } } : {}),
      ...(options.sampling ? { sampling: { createMessage: {} } } : {}),
    },
  };
}

export class TaskAwareClient extends SwitchboardClient {
  /** Answers task-augmented requests, once `answerTasks` was called. */
  clientTasks: ClientTaskStore | undefined;
  /** The `tasks` capability, told only in the 2025 initialize. */
  private legacyTasks: ClientCapabilities['tasks'] | undefined;

  /**
   * Before connecting: answer the server's task-augmented questions of these kinds (the handlers
   * for them are the ordinary ones) and declare it. Nothing when neither kind is offered.
   */
  answerTasks(kinds: { elicitation: boolean; sampling: boolean }): void {
    this.legacyTasks = tasksCapability(kinds);
    if (!this.legacyTasks) return;
    this.clientTasks = new ClientTaskStore();
    installTaskHandlers(this, this.clientTasks);
  }

  protected override _wrapHandler(method: string, handler: Parameters<Client['_wrapHandler']>[1]): ReturnType<Client['_wrapHandler']> {
    const wrapped = super._wrapHandler(method, handler);
    if (!TASK_AUGMENTABLE.has(method)) return wrapped;
    return async (request, ctx) => {
      const task = (request.params as { task?: unknown } | undefined)?.task;
      const store = this.clientTasks;
      if (task === undefined || !store) return wrapped(request, ctx);
      const ttl = typeof task === 'object' && task !== null && typeof (task as { ttl?: unknown }).ttl === 'number' ? (task as { ttl: number }).ttl : undefined;
      const created = store.create(method, ttl, (taskId, signal) => wrapped(request, { ...ctx, mcpReq: { ...ctx.mcpReq, signal }, [CLIENT_TASK]: taskId } as ClientContext) as Promise<Record<string, unknown>>);
      return { task: created };
    };
  }

  /**
   * The 2025 initialize (sent from the SDK's private handshake through `request`) carries the
   * `tasks` capability; nothing else does — neither the 2026 `server/discover` probe nor the
   * 2026 per-request `_meta` envelope, which are built from the constructor's capabilities.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- one pass-through over the SDK's overload set (each caller keeps its typed overload)
  override request(...args: any[]): any {
    const [first, ...rest] = args as [{ method?: string; params?: { capabilities?: ClientCapabilities } }, ...unknown[]];
    const request = first?.method === 'initialize' && this.legacyTasks && first.params ? { ...first, params: { ...first.params, capabilities: { ...first.params.capabilities, tasks: this.legacyTasks } } } : first;
    return (super.request as (...a: unknown[]) => unknown)(request, ...rest);
  }

  /** The connection closed: the server can no longer follow its tasks here. */
  protected override _onclose(): void {
    super._onclose();
    this.clientTasks?.close();
  }
}

const TaskIdParams = z.looseObject({ taskId: z.string() });
const ListParams = z.looseObject({ cursor: z.string().optional() });

/** tasks/get, tasks/result, tasks/list and tasks/cancel from the server, answered from the store. */
export function installTaskHandlers(client: Client, store: ClientTaskStore): void {
  // The typed surface leaves task methods out (no SDK runtime): the schema form registers them.
  client.setRequestHandler('tasks/get', { params: TaskIdParams }, (params) => ({ ...store.get(params.taskId) }));
  client.setRequestHandler('tasks/result', { params: TaskIdParams }, (params) => store.result(params.taskId));
  client.setRequestHandler('tasks/list', { params: ListParams }, () => ({ ...store.list() }));
  client.setRequestHandler('tasks/cancel', { params: TaskIdParams }, (params) => ({ ...store.cancel(params.taskId) }));
}
