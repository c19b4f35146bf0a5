/**
 * MCP tasks: run a tool as a task, follow it (tasks/get polling → `taskStatus` events), fetch
 * its result, cancel it. The tool is resolved through the catalog like an ordinary call.
 */
import { resolveName } from '../catalog/catalog';
import { CoreError, type Handlers } from '../dispatcher';
import { TaskRunner } from '../tasks/task-runner';
import { currentCatalog } from './catalog';
import { findConnection, type CoreContext } from './context';

type TaskHandlers = Pick<Handlers, 'runToolAsTask' | 'getTask' | 'taskResult' | 'cancelTask' | 'listTasks'>;

const failed = (what: string, error: unknown): CoreError => new CoreError('failed', `${what} failed: ${error instanceof Error ? error.message : String(error)}`);

export function taskHandlers(ctx: CoreContext, runner = new TaskRunner({ emit: (payload) => ctx.events.emit('taskStatus', payload) })): TaskHandlers {
  return {
    runToolAsTask: async ({ tool, serverId, args, ttlMs }) => {
      const catalog = currentCatalog(ctx);
      const entry = resolveName(catalog.tools, catalog.slugs, tool, 'tool', serverId);
      if (entry.taskSupport === 'forbidden') throw new CoreError('conflict', `${entry.name} does not support task execution (execution.taskSupport is "forbidden").`);
      const connection = findConnection(ctx, entry.serverId);
      try {
        const info = await runner.start(connection, entry, args, ttlMs);
        return { serverId: info.serverId, taskId: info.taskId, status: info.status };
      } catch (error) {
        throw failed(`${entry.serverName}: tools/call as a task`, error);
      }
    },
    getTask: async ({ serverId, taskId }) => runner.get(findConnection(ctx, serverId), taskId).catch((error: unknown) => Promise.reject(failed('tasks/get', error))),
    taskResult: async ({ serverId, taskId }) => {
      const known = runner.find(serverId, taskId)?.info.result;
      if (known) return { serverId, taskId, result: known };
      try {
        return { serverId, taskId, result: await runner.result(findConnection(ctx, serverId), taskId) };
      } catch (error) {
        throw error instanceof CoreError ? error : failed('tasks/result', error);
      }
    },
    cancelTask: async ({ serverId, taskId }) => runner.cancel(findConnection(ctx, serverId), taskId).catch((error: unknown) => Promise.reject(failed('tasks/cancel', error))),
    listTasks: async () => runner.list(),
  };
}
