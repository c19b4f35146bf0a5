/** The tasks UI's pure rules: Run buttons by task support, the status line, scoping, ties. */
import { describe, expect, it } from 'vitest';
import type { PendingRequest, TaskInfo } from '../../contract';
import { latestRun, questionsFor, runModes, statusMessageOf, taskTieText, tasksOfServer } from '../../renderer/src/features/tasks/task-view';

const task = (over: Partial<TaskInfo>): TaskInfo => ({ serverId: 's1', serverName: 'one', taskId: 't1', tool: 'one__research', args: {}, status: 'working', startedAt: 0, ...over });
const question = (over: Partial<PendingRequest>): PendingRequest => ({ id: 'q', serverId: 's1', serverName: 'one', kind: 'elicitation-form', params: {}, era: 'legacy', receivedAt: 0, deadline: 1, ...over });

describe('task view', () => {
  it('runModes: required → only as a task; optional → both; forbidden or absent → plain only', () => {
    expect(runModes({ taskSupport: 'required' })).toEqual({ plain: false, task: true });
    expect(runModes({ taskSupport: 'optional' })).toEqual({ plain: true, task: true });
    expect(runModes({ taskSupport: 'forbidden' })).toEqual({ plain: true, task: false });
    expect(runModes({})).toEqual({ plain: true, task: false });
  });

  it('statusMessageOf: a running task shows its message; a finished one hides the progress message left standing', () => {
    expect(statusMessageOf(task({ status: 'working', statusMessage: 'Generating report...', progressMessage: 'Generating report...' }))).toBe('Generating report...');
    expect(statusMessageOf(task({ status: 'completed', statusMessage: 'Generating report...', progressMessage: 'Generating report...' }))).toBeUndefined();
    expect(statusMessageOf(task({ status: 'failed', statusMessage: 'disk on fire', progressMessage: 'Generating report...' }))).toBe('disk on fire');
    expect(statusMessageOf(task({ status: 'cancelled', statusMessage: 'cancelled by you' }))).toBe('cancelled by you');
    expect(statusMessageOf(task({ status: 'completed' }))).toBeUndefined();
  });

  it('tasksOfServer keeps one server\'s tasks, in order', () => {
    const list = [task({ taskId: 'a', serverId: 's2' }), task({ taskId: 'b' }), task({ taskId: 'c', serverId: 's2' }), task({ taskId: 'd' })];
    expect(tasksOfServer(list, 's1').map((t) => t.taskId)).toEqual(['b', 'd']);
    expect(tasksOfServer(list, 's3')).toEqual([]);
  });

  it('questionsFor: only server-side questions of that task on that server', () => {
    const pending = [
      question({ id: '1', task: { taskId: 't1', side: 'server', tool: 'one__research' } }),
      question({ id: '2', task: { taskId: 't1', side: 'client' } }),
      question({ id: '3', serverId: 's2', task: { taskId: 't1', side: 'server' } }),
      question({ id: '4' }),
      question({ id: '5', task: { taskId: 't2', side: 'server' } }),
    ];
    expect(questionsFor(pending, task({})).map((q) => q.id)).toEqual(['1']);
  });

  it('latestRun: the newer of the plain call and the task run; a plain call in flight wins', () => {
    expect(latestRun(undefined, undefined, false)).toBe('none');
    expect(latestRun({ at: 5 }, undefined, false)).toBe('plain');
    expect(latestRun({ at: 5 }, { at: 6 }, false)).toBe('task');
    expect(latestRun({ at: 7 }, { at: 6 }, false)).toBe('plain');
    expect(latestRun(undefined, { at: 6 }, true)).toBe('plain');
  });

  it('taskTieText names the task and its tool, or says the server polls a task of ours', () => {
    expect(taskTieText({ taskId: '1234567890abcdef', side: 'server', tool: 'one__research' })).toBe('for task 12345678… of tool one__research');
    expect(taskTieText({ taskId: 'short', side: 'server' })).toBe('for task short (not started in this run)');
    expect(taskTieText({ taskId: 'abc', side: 'client' })).toContain('the server polls tasks/get');
  });
});
