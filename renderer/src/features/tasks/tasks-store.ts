/**
 * The tasks of this run on the renderer side (one store per API): the list from `listTasks`,
 * fetched again (coalesced) on every `taskStatus` event; and, per tool, its latest "Run as task"
 * (when, which task, or why it could not start) so the tool's Response pane can show it.
 */
import type { TaskInfo, ToolEntry } from '../../../../contract';
import type { SwitchboardApi } from '../../../../contract/client';
import { perApi } from '../../state/per-api';
import { Store } from '../../state/store';
import { useStore } from '../../state/useStore';

export interface TaskRun {
  at: number;
  serverId: string;
  taskId?: string;
  starting: boolean;
  error?: string;
}

export interface TasksSnapshot {
  tasks: TaskInfo[];
  error: string | null;
  /** Tool name → its latest task run. */
  runs: ReadonlyMap<string, TaskRun>;
}

const REFRESH_MS = 100;

export class TasksStore extends Store<TasksSnapshot> {
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly api: SwitchboardApi) {
    super({ tasks: [], error: null, runs: new Map() });
    api.on('taskStatus', () => {
      this.timer ??= setTimeout(() => void this.refresh(), REFRESH_MS);
    });
    void this.refresh();
  }

  async refresh(): Promise<void> {
    this.timer = undefined;
    try {
      const tasks = await this.api.listTasks({});
      this.patch({ tasks, error: null });
    } catch (e) {
      this.patch({ error: e instanceof Error ? e.message : String(e) });
    }
  }

  /** Runs a tool as a task; the run replaces the tool's previous one (and its error). */
  async runAsTask(tool: ToolEntry, args: Record<string, unknown>): Promise<void> {
    this.setRun(tool.name, { at: Date.now(), serverId: tool.serverId, starting: true });
    try {
      const started = await this.api.runToolAsTask({ tool: tool.name, serverId: tool.serverId, args });
      this.setRun(tool.name, { ...this.get().runs.get(tool.name)!, taskId: started.taskId, starting: false });
      await this.refresh();
    } catch (e) {
      this.setRun(tool.name, { ...this.get().runs.get(tool.name)!, starting: false, error: e instanceof Error ? e.message : String(e) });
    }
  }

  /** A plain Run started: the Response pane follows it, not the earlier task run. */
  clearRun(tool: string): void {
    if (!this.get().runs.has(tool)) return;
    const runs = new Map(this.get().runs);
    runs.delete(tool);
    this.patch({ runs });
  }

  private setRun(tool: string, run: TaskRun): void {
    const runs = new Map(this.get().runs);
    runs.set(tool, run);
    this.patch({ runs });
  }
}

export const getTasksStore = perApi((api) => new TasksStore(api));

export function useTasks(store: TasksStore): TasksSnapshot {
  return useStore(store);
}
