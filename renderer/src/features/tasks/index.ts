/** MCP tasks in the renderer: the store of task runs and what the tasks UI shows (the tools view draws it, the request center names a question's task). */
export { getTasksStore, useTasks, type TaskRun } from './tasks-store';
export { isTerminalStatus, latestRun, questionsFor, runModes, statusMessageOf, statusWord, taskTieText, tasksOfServer } from './task-view';
