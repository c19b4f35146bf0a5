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
 * strips `tasks` from what servers declare there), so the `tasks` capability is declared only for
 * the 2025 initialize: on a modern connection it is taken out of every request's `_meta` envelope.
 */
import { CLIENT_CAPABILITIES_META_KEY, Client, type ClientCapabilities, type ClientContext } from '@modelcontextprotocol/client';
import { z } from 'zod';
import type { ClientTaskStore } from './client-tasks';

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

export class TaskAwareClient extends Client {
  /** Set before connecting when this client answers task-augmented requests. */
  clientTasks: ClientTaskStore | undefined;

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

  /** The connection closed: the server can no longer follow its tasks here. */
  protected override _onclose(): void {
    super._onclose();
    this.clientTasks?.close();
  }

  protected override _outboundMetaEnvelope(): Readonly<Record<string, unknown>> | undefined {
    const envelope = super._outboundMetaEnvelope();
    const caps = envelope?.[CLIENT_CAPABILITIES_META_KEY] as Record<string, unknown> | undefined;
    if (!envelope || !caps || !('tasks' in caps)) return envelope;
    const { tasks: _dropped, ...rest } = caps;
    return { ...envelope, [CLIENT_CAPABILITIES_META_KEY]: rest };
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
