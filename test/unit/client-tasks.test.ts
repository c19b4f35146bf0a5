/** The receiver side of tasks: Switchboard's own task store for the server's task-augmented questions. */
import { ProtocolError, RELATED_TASK_META_KEY } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { ClientTaskStore } from '../../main/core/tasks/client-tasks';
import { tasksCapability } from '../../main/core/tasks/task-client';

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

describe('ClientTaskStore', () => {
  it('working until the handler answers; tasks/result waits for it and carries the related-task meta', async () => {
    const store = new ClientTaskStore();
    const answer = deferred<Record<string, unknown>>();
    const created = store.create('elicitation/create', 60_000, () => answer.promise);
    expect(created).toMatchObject({ status: 'working', ttl: 60_000, pollInterval: 1000 });
    expect(store.get(created.taskId).status).toBe('working');
    expect(store.list().tasks.map((t) => t.taskId)).toEqual([created.taskId]);
    let settled = false;
    const result = store.result(created.taskId).then((r) => ((settled = true), r));
    await Promise.resolve();
    expect(settled).toBe(false);
    answer.resolve({ action: 'accept', content: { name: 'Ada' } });
    expect(await result).toEqual({ action: 'accept', content: { name: 'Ada' }, _meta: { [RELATED_TASK_META_KEY]: { taskId: created.taskId } } });
    expect(store.get(created.taskId).status).toBe('completed');
    store.close();
  });

  it('a failing handler fails the task; tasks/result answers its error', async () => {
    const store = new ClientTaskStore();
    const created = store.create('sampling/createMessage', undefined, () => Promise.reject(new ProtocolError(-1, 'The user rejected the sampling request.')));
    await expect(store.result(created.taskId)).rejects.toThrow('rejected the sampling request');
    expect(store.get(created.taskId)).toMatchObject({ status: 'failed', statusMessage: expect.stringContaining('rejected') });
    store.close();
  });

  it('tasks/cancel aborts the handler; a second cancel and unknown tasks are invalid params', async () => {
    const store = new ClientTaskStore();
    let signal: AbortSignal | undefined;
    const created = store.create('elicitation/create', 1000, (_id, s) => {
      signal = s;
      return new Promise((_, reject) => s.addEventListener('abort', () => reject(new Error('withdrawn'))));
    });
    expect(store.cancel(created.taskId).status).toBe('cancelled');
    expect(signal!.aborted).toBe(true);
    expect(() => store.cancel(created.taskId)).toThrow(/already cancelled/);
    await expect(store.result(created.taskId)).rejects.toMatchObject({ code: -32602 });
    expect(() => store.get('nope')).toThrow(ProtocolError);
    store.close();
  });

  it('closing cancels open tasks and refuses new ones', () => {
    const store = new ClientTaskStore();
    let signal: AbortSignal | undefined;
    store.create('elicitation/create', 1000, (_id, s) => ((signal = s), new Promise(() => undefined)));
    store.close();
    expect(signal!.aborted).toBe(true);
    expect(() => store.create('elicitation/create', 1000, () => Promise.resolve({}))).toThrow(/closing/);
  });

  it('tasksCapability declares only what is answered', () => {
    expect(tasksCapability({ elicitation: false, sampling: false })).toBeUndefined();
    expect(tasksCapability({ elicitation: true, sampling: false })).toEqual({ list: {}, cancel: {}, requests: { elicitation: { create: {} } } });
    expect(tasksCapability({ elicitation: false, sampling: true })).toEqual({ list: {}, cancel: {}, requests: { sampling: { createMessage: {} } } });
  });
});
