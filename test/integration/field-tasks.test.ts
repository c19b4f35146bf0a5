/**
 * MCP tasks against the published reference server (server-everything over stdio, a real
 * process), through the core: a task that needs input gets it through tasks/result (issue #11
 * item 1), the tasks capability makes the task-only tools appear and work through Switchboard's
 * own client-side tasks (item 3), and what the client declares in each era.
 */
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventPayload, PendingRequest } from '../../contract';
import type { TraceEvent } from '../../contract/trace';
import { createCore, type Core } from '../../main/core/app';
import { call, until } from '../support/core-calls';
import { MemorySettingsStore } from '../../main/core/store/settings';
import { askingStdioCommand } from '../fixtures/asking/harness';

const require = createRequire(import.meta.url);
const everything = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');



function messages(core: Core, serverId: string, method: string, dir: 'out' | 'in'): TraceEvent[] {
  return core.trace.store.query({ servers: [serverId], methods: [method], limit: 1000 }).events.filter((e) => e.kind === (dir === 'out' ? 'jsonrpc-out' : 'jsonrpc-in'));
}

const text = (result: Record<string, unknown> | undefined) => ((result?.content as { text?: string }[] | undefined) ?? []).map((c) => c.text ?? '').join('\n');

describe('tasks with server-everything (stdio)', () => {
  let core: Core;
  let id: string;
  const pending: PendingRequest[] = [];
  const statuses: EventPayload<'taskStatus'>[] = [];

  beforeAll(async () => {
    core = createCore({ settings: new MemorySettingsStore(), carrier: 'browser', version: 't' });
    core.events.subscribe((event, payload) => {
      if (event === 'requestPending') pending.push(payload as PendingRequest);
      if (event === 'taskStatus') statuses.push(payload as EventPayload<'taskStatus'>);
    });
    ({ id } = await call(core, 'addServer', { name: 'everything', target: { type: 'stdio', command: process.execPath, args: [everything, 'stdio'] }, pingIntervalSec: 0, retries: 0 }));
    await call(core, 'connectServer', { id });
    expect(core.connections.get(id)!.status()).toMatchObject({ state: 'connected', era: 'legacy' });
  }, 60_000);

  afterAll(async () => {
    await core?.shutdown();
  });

  it('declares tasks (list, cancel, elicitation and sampling requests) in its 2025 initialize', async () => {
    const init = await until('initialize in the trace', () => messages(core, id, 'initialize', 'out').at(-1));
    const params = (init.body as { params: { capabilities: Record<string, unknown> } }).params;
    expect(params.capabilities.tasks).toEqual({ list: {}, cancel: {}, requests: { elicitation: { create: {} }, sampling: { createMessage: {} } } });
  });

  it('lists the task-only tools and their task support', async () => {
    const tools = await call(core, 'listTools', { serverId: id });
    const names = tools.map((t) => t.originalName);
    expect(names).toEqual(expect.arrayContaining(['trigger-elicitation-request-async', 'trigger-sampling-request-async', 'simulate-research-query']));
    expect(tools.find((t) => t.originalName === 'simulate-research-query')!.taskSupport).toBe('required');
  });

  it('a research query that needs input: tasks/result on input_required, the question tied to the task, the answer in the report', async () => {
    const started = await call(core, 'runToolAsTask', { tool: 'simulate-research-query', serverId: id, args: { topic: 'python', ambiguous: true } });
    const question = await until('the elicitation', () => pending.find((r) => r.task?.taskId === started.taskId));
    expect(question).toMatchObject({ kind: 'elicitation-form', task: { taskId: started.taskId, side: 'server', tool: 'everything__simulate-research-query' } });
    expect(question.call).toBeUndefined();
    const during = (await call(core, 'listTasks', {})).find((t) => t.taskId === started.taskId)!;
    expect(during.status).toBe('input_required');
    expect(during.resultPending).toBe(true);
    expect((await call(core, 'answerRequest', { id: question.id, answer: { kind: 'elicitation', action: 'accept', content: { interpretation: 'comedy' } } })).answered).toBe(true);
    const done = await until('the result', async () => (await call(core, 'listTasks', {})).find((t) => t.taskId === started.taskId && t.result && t.status === 'completed'), 30_000);
    expect(text(done.result)).toContain('Clarification**: comedy');
    expect(text(done.result)).not.toContain('elicitation unavailable');
    // One tasks/result for the task; the question came while it was open.
    const results = messages(core, id, 'tasks/result', 'out').filter((e) => JSON.stringify(e.body).includes(started.taskId));
    expect(results).toHaveLength(1);
    expect(statuses.filter((s) => s.taskId === started.taskId).map((s) => s.status)).toEqual(expect.arrayContaining(['working', 'input_required', 'completed']));
    expect(done.progressMessage).toBeDefined();
  }, 60_000);

  it('trigger-elicitation-request-async: the server asks as a task of ours, polls it, and reads the answer from tasks/result', async () => {
    const reply = call(core, 'callTool', { tool: 'trigger-elicitation-request-async', serverId: id, args: {} });
    const question = await until('the async elicitation', () => pending.find((r) => r.task?.side === 'client' && r.kind === 'elicitation-form'));
    expect(question.call?.tool).toBe('trigger-elicitation-request-async');
    // The server already has its CreateTaskResult and polls tasks/get on us while the person thinks.
    await until('a tasks/get from the server', () => messages(core, id, 'tasks/get', 'in').find((e) => JSON.stringify(e.body).includes(question.task!.taskId)));
    await call(core, 'answerRequest', { id: question.id, answer: { kind: 'elicitation', action: 'accept', content: { name: 'Ada', favoriteColor: 'Green' } } });
    const result = await reply;
    const out = text(result.result as Record<string, unknown>);
    expect(out).toContain('[COMPLETED] User provided the requested information!');
    expect(out).toContain('- Name: Ada');
    expect(out).toContain(`Task created: ${question.task!.taskId}`);
  }, 60_000);

  it('trigger-sampling-request-async: the approved model reply comes back through the client task', async () => {
    const reply = call(core, 'callTool', { tool: 'trigger-sampling-request-async', serverId: id, args: { prompt: 'hello', maxTokens: 10 } });
    const question = await until('the async sampling', () => pending.find((r) => r.task?.side === 'client' && r.kind === 'sampling'));
    await call(core, 'answerRequest', { id: question.id, answer: { kind: 'sampling', action: 'approve', result: { model: 'by-hand', stopReason: 'endTurn', content: { type: 'text', text: 'a reply typed by a person' } } } });
    const out = text((await reply).result as Record<string, unknown>);
    expect(out).toContain('a reply typed by a person');
    expect(out).toContain(question.task!.taskId);
  }, 60_000);
});

describe('what the client declares in each era (the asking fixture speaks both)', () => {
  /** The client capabilities the server was told: initialize (2025) or every request's _meta envelope (2026). */
  async function declared(era: 'auto' | 'legacy' | 'modern'): Promise<{ era: string; caps: Record<string, unknown>[] }> {
    const core = createCore({ settings: new MemorySettingsStore(), carrier: 'browser', version: 't' });
    try {
      const { id } = await call(core, 'addServer', { name: `asking ${era}`, target: { type: 'stdio', ...askingStdioCommand('both') }, era, pingIntervalSec: 0, retries: 0 });
      await call(core, 'connectServer', { id });
      const negotiated = core.connections.get(id)!.status().era!;
      await call(core, 'listTools', { serverId: id });
      const bodies = core.trace.store.query({ servers: [id], limit: 1000 }).events.filter((e) => e.kind === 'jsonrpc-out').map((e) => e.body as { method?: string; params?: { capabilities?: Record<string, unknown>; _meta?: Record<string, Record<string, unknown>> } });
      const caps = negotiated === 'legacy' ? bodies.filter((b) => b.method === 'initialize').map((b) => b.params!.capabilities!) : bodies.filter((b) => b.params?._meta?.['io.modelcontextprotocol/clientCapabilities']).map((b) => b.params!._meta!['io.modelcontextprotocol/clientCapabilities']!);
      return { era: negotiated, caps };
    } finally {
      await core.shutdown();
    }
  }

  it('2025 (legacy): tasks declared in initialize', async () => {
    const { era, caps } = await declared('legacy');
    expect(era).toBe('legacy');
    expect(caps).toHaveLength(1);
    expect(caps[0]!.tasks).toMatchObject({ requests: { elicitation: { create: {} }, sampling: { createMessage: {} } } });
  }, 30_000);

  it.each(['modern', 'auto'] as const)('2026 (%s): no request carries tasks (the era has no task methods)', async (mode) => {
    const { era, caps } = await declared(mode);
    expect(era).toBe('modern');
    expect(caps.length).toBeGreaterThan(0);
    for (const c of caps) {
      expect(c.tasks).toBeUndefined();
      expect(c.elicitation).toBeDefined();
    }
  }, 30_000);
});
