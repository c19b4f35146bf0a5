/**
 * MCP tasks (2025-11-25) through the core (`createCore` … `dispatch`, `taskStatus` events),
 * against the tasks fixture (v1 SDK task runtime, Streamable HTTP with sessions) as a real
 * separate process: tools/call with `task`, tasks/get polling, tasks/result, tasks/cancel.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { EventPayload } from '../../contract';
import type { TraceEvent } from '../../contract/trace';
import { createCore, type Core } from '../../main/core/app';
import { call, until } from '../support/core-calls';
import { MemorySettingsStore } from '../../main/core/store/settings';
import { startTasksFixture } from '../fixtures/tasks/harness';

type ListeningFixture = Awaited<ReturnType<typeof startTasksFixture>>;



/** The JSON-RPC messages Switchboard sent, as they appear in the trace. */
function sent(core: Core, serverId: string, method: string): TraceEvent[] {
  return core.trace.store.query({ servers: [serverId], methods: [method], limit: 1000 }).events.filter((e) => e.kind === 'jsonrpc-out' || e.kind === 'http-request');
}

describe('MCP tasks through the core', () => {
  let fx: ListeningFixture;
  let core: Core;
  let id: string;
  const statuses: EventPayload<'taskStatus'>[] = [];

  beforeAll(async () => {
    fx = await startTasksFixture();
    core = createCore({ settings: new MemorySettingsStore(), carrier: 'browser', version: 't' });
    core.events.subscribe((event, payload) => {
      if (event === 'taskStatus') statuses.push(payload as EventPayload<'taskStatus'>);
    });
    ({ id } = await call(core, 'addServer', { name: 'tasks', target: { type: 'http', url: fx.url }, pingIntervalSec: 0 }));
    await call(core, 'connectServer', { id });
    expect(core.connections.get(id)!.status()).toMatchObject({ state: 'connected', protocolVersion: '2025-11-25' });
  }, 30_000);

  afterAll(async () => {
    await core?.shutdown();
    await fx?.close();
  });

  it('tools/list keeps execution.taskSupport; ToolEntry exposes it', async () => {
    const tools = await call(core, 'listTools', {});
    expect(tools.map((t) => [t.originalName, t.taskSupport])).toEqual([
      ['long_job', 'optional'],
      ['doomed_job', 'optional'],
    ]);
  });

  it('long_job as a task: working → completed, then the result; the trace shows tools/call with task, tasks/get polls, tasks/result', async () => {
    const started = await call(core, 'runToolAsTask', { tool: 'long_job', serverId: id, args: { seconds: 1.5 } });
    expect(started).toMatchObject({ serverId: id, status: 'working' });
    expect(started.taskId).toMatch(/\w+/);
    const mine = () => statuses.filter((s) => s.taskId === started.taskId);
    await until('completed', () => mine().find((s) => s.status === 'completed'));
    expect(mine()[0]).toMatchObject({ status: 'working', tool: 'tasks__long_job', serverId: id });
    const info = await until('result', async () => (await call(core, 'listTasks', {})).find((t) => t.taskId === started.taskId && t.result));
    expect(info).toMatchObject({ status: 'completed', tool: 'tasks__long_job', args: { seconds: 1.5 } });
    expect(info.endedAt! - info.startedAt).toBeGreaterThanOrEqual(1000);
    expect(info.result!.content).toEqual([{ type: 'text', text: 'long_job finished after 1.5 s' }]);
    const viaMethod = await call(core, 'taskResult', { serverId: id, taskId: started.taskId });
    expect(viaMethod.result.content).toEqual(info.result!.content);
    const got = await call(core, 'getTask', { serverId: id, taskId: started.taskId });
    expect(got.status).toBe('completed');

    await until('trace flushed', () => (sent(core, id, 'tasks/result').length > 0 ? true : undefined));
    const callOut = sent(core, id, 'tools/call').find((e) => e.kind === 'jsonrpc-out') ?? sent(core, id, 'tools/call')[0]!;
    const body = JSON.stringify(callOut.body);
    expect(body).toContain('"task":{"ttl":');
    expect(body).toContain('long_job');
    expect(sent(core, id, 'tasks/get').length).toBeGreaterThanOrEqual(2);
    expect(sent(core, id, 'tasks/result').length).toBeGreaterThanOrEqual(1);
  }, 30_000);

  it('cancel a running long_job → cancelled; polling stops', async () => {
    const started = await call(core, 'runToolAsTask', { tool: 'tasks__long_job', args: { seconds: 30 } });
    await new Promise((r) => setTimeout(r, 700));
    const cancelled = await call(core, 'cancelTask', { serverId: id, taskId: started.taskId });
    expect(cancelled.status).toBe('cancelled');
    expect(statuses.filter((s) => s.taskId === started.taskId).at(-1)!.status).toBe('cancelled');
    const polls = sent(core, id, 'tasks/get').length;
    await new Promise((r) => setTimeout(r, 1200));
    expect(sent(core, id, 'tasks/get').length).toBe(polls);
    expect(sent(core, id, 'tasks/cancel').length).toBe(1);
    const info = (await call(core, 'listTasks', {})).find((t) => t.taskId === started.taskId)!;
    expect(info).toMatchObject({ status: 'cancelled' });
    expect(info.result).toBeUndefined();
  }, 30_000);

  it('doomed_job → failed, with its error result', async () => {
    const started = await call(core, 'runToolAsTask', { tool: 'doomed_job', serverId: id, args: { seconds: 0.5 } });
    await until('failed', () => statuses.find((s) => s.taskId === started.taskId && s.status === 'failed'));
    const info = await until('result', async () => (await call(core, 'listTasks', {})).find((t) => t.taskId === started.taskId && t.result));
    expect(info.status).toBe('failed');
    expect(info.result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'doomed_job failed: the disk is on fire' }] });
  }, 30_000);

  it('listTasks: newest first; unknown task → readable error', async () => {
    const tasks = await call(core, 'listTasks', {});
    expect(tasks.map((t) => t.tool)).toEqual(['tasks__doomed_job', 'tasks__long_job', 'tasks__long_job']);
    const envelope = await core.dispatch('getTask', { serverId: id, taskId: 'nope' });
    expect(envelope.ok).toBe(false);
    if (!envelope.ok) expect(envelope.error.message).toMatch(/tasks\/get failed/);
  });
});
