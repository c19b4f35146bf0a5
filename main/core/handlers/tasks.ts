/**
 * MCP tasks: run a tool as a task, follow it (tasks/get polling → `taskStatus` events), fetch
 * its result, cancel it. The tool is resolved through the catalog like an ordinary call.
 */
import { resolveName } from '../catalog/catalog';
import type { Handlers } from '../dispatcher';
import { CoreError } from '../errors';
import { TaskRunner } from '../tasks/task-runner';
import type { ServerConnection } from '../connection/server-connection';
import { currentCatalog } from './catalog';
import { findConnection, trackedRequest, type CoreContext } from './context';

type TaskHandlers = Pick<Handlers, 'runToolAsTask' | 'getTask' | 'taskResult' | 'cancelTask' | 'listTasks'>;

export function taskHandlers(ctx: CoreContext, runner = new TaskRunner({ emit: (payload) => ctx.events.emit('taskStatus', payload) })): TaskHandlers {
  const tracked = <T>(connection: ServerConnection, method: string, what: string, run: () => Promise<T>) => trackedRequest(ctx, connection, method, what, run);

  return {
    runToolAsTask: async ({ tool, serverId, args, ttlMs }) => {
      const catalog = currentCatalog(ctx);
      const entry = resolveName(catalog.tools, catalog.slugs, tool, 'tool', serverId);
      if (entry.taskSupport === 'forbidden') throw new CoreError('conflict', `${entry.name} does not support task execution (execution.taskSupport is "forbidden").`);
      const connection = findConnection(ctx, entry.serverId);
      const info = await tracked(connection, 'tools/call', `${entry.serverName}: tools/call as a task`, () => runner.start(connection, entry, args, ttlMs));
      return { serverId: info.serverId, taskId: info.taskId, status: info.status };
    },
    getTask: async ({ serverId, taskId }) => {
      const connection = findConnection(ctx, serverId);
      return tracked(connection, 'tasks/get', 'tasks/get', () => runner.get(connection, taskId));
    },
    taskResult: async ({ serverId, taskId }) => {
      const known = runner.find(serverId, taskId)?.info.result;
      if (known) return { serverId, taskId, result: known };
      const connection = findConnection(ctx, serverId);
      return { serverId, taskId, result: await tracked(connection, 'tasks/result', 'tasks/result', () => runner.result(connection, taskId)) };
    },
    cancelTask: async ({ serverId, taskId }) => {
      const connection = findConnection(ctx, serverId);
      return tracked(connection, 'tasks/cancel', 'tasks/cancel', () => runner.cancel(connection, taskId));
    },
    listTasks: async () => runner.list(),
  };
}
