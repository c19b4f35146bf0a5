/**
 * Structured errors across the contract, against real fixture servers: a JSON-RPC error carries
 * its code and data, an HTTP 5xx its status, a timeout its kind, a refused port reads as one, a
 * -32042 its links — all in the envelope's `detail`, none parsed from a message. And every call
 * knows its own request and response in the trace, even two calls in flight at once to the same
 * server (checked by the events' JSON-RPC ids and arguments).
 */
import { execFile } from 'node:child_process';
import { freePort } from '../support/core-calls';
import { join } from 'node:path';
import { AsyncLocalStorage } from 'node:async_hooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ContractErrorShape, Envelope, LastCheck, MethodName, Result, ServerStatus } from '../../contract';
import type { TraceEvent } from '../../contract/trace';
import { createCore, type Core } from '../../main/core/app';
import { MemorySettingsStore } from '../../main/core/store/settings';
import { startAskingFixture, LINK_URL, type RunningAskingFixture } from '../fixtures/asking/harness';
import { startFixture, stdioFixtureCommand, type RunningFixture } from '../fixtures/everything/harness';
import { startFlaky, type RunningFlaky } from '../fixtures/flaky-server/harness';

async function call<M extends MethodName>(core: Core, method: M, args: unknown): Promise<Result<M>> {
  const envelope = await core.dispatch(method, args);
  if (!envelope.ok) throw new Error(`${method} failed: ${envelope.error.message}`);
  return envelope.result as Result<M>;
}

async function failure(core: Core, method: MethodName, args: unknown): Promise<ContractErrorShape> {
  const envelope: Envelope = await core.dispatch(method, args);
  if (envelope.ok) throw new Error(`${method} was expected to fail`);
  return envelope.error;
}

function newCore(): Core {
  return createCore({ settings: new MemorySettingsStore(), carrier: 'browser', version: 't', backoffBaseMs: 50 });
}

function event(core: Core, seq: number | undefined): TraceEvent {
  expect(seq).toBeTypeOf('number');
  const found = core.trace.store.get(seq!);
  expect(found).toBeDefined();
  return found!;
}

/** The JSON-RPC message with this id in an event's body (a batch, or one message). */
function message(e: TraceEvent, id: unknown): Record<string, unknown> | undefined {
  const body = Array.isArray(e.body) ? e.body : [e.body];
  return body.find((m) => (m as { id?: unknown })?.id === id) as Record<string, unknown> | undefined;
}

/** The request event at `requestSeq` is a tools/call of `tool` with `args`; the event at `responseSeq` answers that very id. */
function expectOwnExchange(core: Core, requestSeq: number | undefined, responseSeq: number | undefined, tool: string, args: Record<string, unknown>, answer: 'result' | 'error') {
  const request = event(core, requestSeq);
  expect(request.dir).toBe('out');
  expect(request.rpc).toMatchObject({ kind: 'request', method: 'tools/call' });
  const id = request.rpc!.id;
  expect(message(request, id)).toMatchObject({ method: 'tools/call', params: { name: tool, arguments: args } });
  const response = event(core, responseSeq);
  expect(response.dir).toBe('in');
  expect(response.seq).toBeGreaterThan(request.seq);
  const rpcs = response.batch ?? [response.rpc!];
  expect(rpcs.find((r) => r.id === id)).toMatchObject({ kind: answer });
  expect(message(response, id)).toBeDefined();
}


describe('the everything fixture: JSON-RPC errors and concurrent calls', () => {
  let http: RunningFixture;
  let core: Core;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    http = await startFixture({ transport: 'http', era: 'both' });
    core = newCore();
    const { command, args } = stdioFixtureCommand();
    ids.legacy = (await call(core, 'addServer', { name: 'legacy', target: { type: 'http', url: http.url }, era: 'legacy', pingIntervalSec: 0 })).id;
    ids.modern = (await call(core, 'addServer', { name: 'modern', target: { type: 'http', url: http.url }, era: 'modern', pingIntervalSec: 0 })).id;
    ids.stdio = (await call(core, 'addServer', { name: 'stdio', target: { type: 'stdio', command, args }, pingIntervalSec: 0 })).id;
    for (const id of Object.values(ids)) await call(core, 'connectServer', { id });
    for (const id of Object.values(ids)) expect(core.connections.get(id)!.status().state).toBe('connected');
  }, 60_000);

  afterAll(async () => {
    await core?.shutdown();
    await http?.close();
  });

  for (const server of ['legacy', 'modern', 'stdio']) {
    it(`${server}: a JSON-RPC error carries its code and data, and its own request and response`, async () => {
      const args = { message: `refused on ${server}` };
      const error = await failure(core, 'callTool', { serverId: ids[server], tool: 'protocol_error', args });
      expect(error.message).toBe(`refused on ${server}`);
      expect(error.detail).toMatchObject({ kind: 'rpc', rpcCode: -32602, rpcData: { fixture: 'protocol_error' }, retryable: false });
      expect(error.detail!.durationMs).toBeGreaterThan(0);
      expectOwnExchange(core, error.detail!.requestSeq, error.detail!.responseSeq, 'protocol_error', args, 'error');
      // The history entry points at the same events.
      const entry = (await call(core, 'listHistory', {})).find((h) => h.serverId === ids[server] && h.tool.endsWith('protocol_error'));
      expect(entry).toMatchObject({ outcome: 'rpc-error', traceSeq: error.detail!.requestSeq, responseSeq: error.detail!.responseSeq });
    });

    it(`${server}: two concurrent calls each get their own request and response seqs`, async () => {
      // The slower call is sent first and answered last: a seq taken by order would swap them.
      const slow = { steps: 3, delayMs: 120 };
      const fast = { steps: 1, delayMs: 10 };
      const [a, b] = await Promise.all([
        call(core, 'callTool', { serverId: ids[server], tool: 'slow_count', args: slow }),
        call(core, 'callTool', { serverId: ids[server], tool: 'slow_count', args: fast }),
      ]);
      expect(a.result.content).toEqual([{ type: 'text', text: 'counted to 3' }]);
      expect(b.result.content).toEqual([{ type: 'text', text: 'counted to 1' }]);
      expect(a.traceSeq).not.toBe(b.traceSeq);
      expectOwnExchange(core, a.traceSeq, a.responseSeq, 'slow_count', slow, 'result');
      expectOwnExchange(core, b.traceSeq, b.responseSeq, 'slow_count', fast, 'result');
      // They were both in flight at once: the fast one was answered before the slow one.
      expect(b.responseSeq!).toBeLessThan(a.responseSeq!);
      expect(Math.max(a.traceSeq!, b.traceSeq!)).toBeLessThan(b.responseSeq!);
    });
  }

  it('calls that start and end staggered, with moments when none runs, each keep their own seqs', async () => {
    // (A second after the last call the request context is switched off; the next call switches it on again.)
    const disable = vi.spyOn(AsyncLocalStorage.prototype, 'disable');
    const before = await call(core, 'callTool', { serverId: ids.legacy, tool: 'slow_count', args: { steps: 1, delayMs: 5 } });
    expectOwnExchange(core, before.traceSeq, before.responseSeq, 'slow_count', { steps: 1, delayMs: 5 }, 'result');
    await new Promise((r) => setTimeout(r, 1_200));
    const slow = { steps: 4, delayMs: 60 };
    const a = call(core, 'callTool', { serverId: ids.legacy, tool: 'slow_count', args: slow });
    const fast = { steps: 1, delayMs: 20 };
    const b = await call(core, 'callTool', { serverId: ids.modern, tool: 'slow_count', args: fast });
    const late = { steps: 2, delayMs: 30 };
    const c = call(core, 'callTool', { serverId: ids.legacy, tool: 'slow_count', args: late });
    const [doneA, doneC] = await Promise.all([a, c]);
    expectOwnExchange(core, doneA.traceSeq, doneA.responseSeq, 'slow_count', slow, 'result');
    expectOwnExchange(core, b.traceSeq, b.responseSeq, 'slow_count', fast, 'result');
    expectOwnExchange(core, doneC.traceSeq, doneC.responseSeq, 'slow_count', late, 'result');
    await new Promise((r) => setTimeout(r, 1_200));
    expect(disable.mock.calls.length).toBeGreaterThanOrEqual(2); // after `before`, and after a and c
    disable.mockRestore();
    const after = await call(core, 'callTool', { serverId: ids.modern, tool: 'slow_count', args: { steps: 1, delayMs: 1 } });
    expectOwnExchange(core, after.traceSeq, after.responseSeq, 'slow_count', { steps: 1, delayMs: 1 }, 'result');
  });

  it('concurrent failures too: each JSON-RPC error names its own request', async () => {
    const first = { message: 'first' };
    const second = { message: 'second' };
    const [x, y] = await Promise.all([failure(core, 'callTool', { serverId: ids.legacy, tool: 'protocol_error', args: first }), failure(core, 'callTool', { serverId: ids.legacy, tool: 'protocol_error', args: second })]);
    expectOwnExchange(core, x.detail!.requestSeq, x.detail!.responseSeq, 'protocol_error', first, 'error');
    expectOwnExchange(core, y.detail!.requestSeq, y.detail!.responseSeq, 'protocol_error', second, 'error');
  });

  it('a timeout carries its kind (and its request), not a JSON-RPC code', async () => {
    const error = await failure(core, 'callTool', { serverId: ids.modern, tool: 'slow_count', args: { steps: 1, delayMs: 5_000 }, timeoutMs: 200 });
    expect(error.detail).toMatchObject({ kind: 'timeout', retryable: true });
    expect(error.detail!.rpcCode).toBeUndefined();
    expect(event(core, error.detail!.requestSeq).rpc).toMatchObject({ method: 'tools/call' });
    expect(error.detail!.responseSeq).toBeUndefined();
  });

  it('a JSON-RPC error in an HTTP error body (tasks/get on the modern era: 404 + -32601): the code from the paired response, the status from the error', async () => {
    const error = await failure(core, 'getTask', { serverId: ids.modern, taskId: 'any' });
    expect(error.detail).toMatchObject({ kind: 'rpc', rpcCode: -32601, httpStatus: 404, retryable: false });
    const request = event(core, error.detail!.requestSeq);
    expect(request.rpc).toMatchObject({ method: 'tasks/get' });
    expect((event(core, error.detail!.responseSeq).batch ?? [event(core, error.detail!.responseSeq).rpc!]).find((r) => r.id === request.rpc!.id)).toMatchObject({ kind: 'error', errorCode: -32601 });
  });

  it('resources/read of an unknown resource: a JSON-RPC error with its seqs', async () => {
    const error = await failure(core, 'readResource', { serverId: ids.legacy, uri: 'fixture://no-such-resource' });
    expect(error.detail).toMatchObject({ kind: 'rpc', rpcCode: expect.any(Number) });
    const request = event(core, error.detail!.requestSeq);
    expect(request.rpc).toMatchObject({ method: 'resources/read' });
    expect((event(core, error.detail!.responseSeq).batch ?? [event(core, error.detail!.responseSeq).rpc!]).find((r) => r.id === request.rpc!.id)).toMatchObject({ kind: 'error' });
  });
});

describe('the CLI (built: npx electron-vite build) decides its exit code from the detail', () => {
  let fixture: RunningFixture;
  beforeAll(async () => {
    fixture = await startFixture({ transport: 'http', era: 'legacy' });
  });
  afterAll(async () => {
    await fixture?.close();
  });
  const cli = (args: string[]) =>
    new Promise<{ code: number; stderr: string }>((resolve) => {
      const root = join(import.meta.dirname, '../..');
      execFile(process.execPath, [join(root, 'bin/switchboard.mjs'), ...args], { cwd: root, timeout: 60_000 }, (error, _stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stderr }));
    });

  it('a timeout exits 6; a JSON-RPC error whose message says "timed out" is not a timeout (exit 5)', async () => {
    const timedOut = await cli(['call', 'slow_count', '--args', '{"steps":1,"delayMs":5000}', '--timeout', '300ms', '--url', fixture.url]);
    expect(timedOut.code).toBe(6);
    const rpc = await cli(['call', 'protocol_error', '--args', '{"message":"the upstream timed out"}', '--url', fixture.url]);
    expect(rpc.stderr).toContain('the upstream timed out');
    expect(rpc.code).toBe(5);
  });
});

describe('the fault lab: HTTP statuses', () => {
  let lab: RunningFlaky;
  let core: Core;
  let id: string;

  beforeAll(async () => {
    lab = await startFlaky({ era: 'both', name: 'lab' });
    core = newCore();
    id = (await call(core, 'addServer', { name: 'lab', target: { type: 'http', url: lab.url }, era: 'legacy', pingIntervalSec: 0, retries: 0 })).id;
    await call(core, 'connectServer', { id });
    expect(core.connections.get(id)!.status().state).toBe('connected');
  }, 60_000);

  afterAll(async () => {
    await core?.shutdown();
    await lab?.close();
  });

  it('an HTTP 503 on tools/call carries its status (and is retryable)', async () => {
    await lab.setFaults({ type: 'http-error', status: 503, method: 'tools/call', times: 1 });
    const tools = await call(core, 'listTools', { serverId: id });
    const tool = tools[0]!;
    const error = await failure(core, 'callTool', { serverId: id, tool: tool.originalName, args: {} });
    expect(error.detail).toMatchObject({ httpStatus: 503, retryable: true });
    expect(error.detail!.rpcCode).toBeUndefined();
    const request = event(core, error.detail!.requestSeq);
    expect(request).toMatchObject({ kind: 'http-request', rpc: { method: 'tools/call' } });
    const answered = core.trace.store.query({ servers: [id], exchange: request.exchange, kinds: ['http-response'] }).events[0];
    expect(answered?.http?.status).toBe(503);
  });

  it('a 5xx at connect: the status on the server\'s state', async () => {
    const other = newCore();
    try {
      await lab.setFaults({ type: 'http-error', status: 502 });
      const down = (await call(other, 'addServer', { name: 'down', target: { type: 'http', url: lab.url, transport: 'streamable-http' }, retries: 0 })).id;
      const status = await call(other, 'connectServer', { id: down });
      expect(status.state).toBe('error');
      expect(status.errorDetail).toMatchObject({ httpStatus: 502 });
      expect(status.error).toContain('answered HTTP 502');
    } finally {
      await lab.reset();
      await other.shutdown();
    }
  });
});

describe('a refused port', () => {
  it('reads "Connection refused at …: nothing is listening there." when connecting and when testing', async () => {
    const core = newCore();
    try {
      const url = `http://127.0.0.1:${await freePort()}/mcp`;
      const id = (await call(core, 'addServer', { name: 'down', target: { type: 'http', url }, retries: 1 })).id;
      await call(core, 'connectServer', { id });
      await expect.poll(() => core.connections.get(id)!.status().state, { timeout: 10_000 }).toBe('error');
      const status: ServerStatus = core.connections.get(id)!.status();
      expect(status.error).toBe(`Connection refused at ${url}: nothing is listening there. Switchboard gave up after 2 attempts.`);
      expect(status.errorDetail).toMatchObject({ kind: 'unreachable', retryable: true });
      const check: LastCheck = await call(core, 'testServer', { id });
      expect(check).toMatchObject({ ok: false, error: `Connection refused at ${url}: nothing is listening there.`, errorDetail: { kind: 'unreachable' } });
    } finally {
      await core.shutdown();
    }
  });
});

describe('-32042: URL elicitation required', () => {
  let asking: RunningAskingFixture;
  beforeAll(async () => {
    asking = await startAskingFixture({ era: 'both' });
  }, 30_000);
  afterAll(async () => {
    await asking?.close();
  });

  it('the links travel in the detail, with the code and the request', async () => {
    const core = newCore();
    try {
      const id = (await call(core, 'addServer', { name: 'linked', target: { type: 'http', url: asking.url }, era: 'legacy', pingIntervalSec: 0 })).id;
      await call(core, 'connectServer', { id });
      const error = await failure(core, 'callTool', { serverId: id, tool: 'needs_link', args: { account: 'zeta' } });
      expect(error.message).not.toContain('elicitations: [');
      expect(error.detail).toMatchObject({ kind: 'rpc', rpcCode: -32042, retryable: true, elicitations: [{ url: `${LINK_URL}?account=zeta`, elicitationId: expect.stringMatching(/^link-/) }] });
      expectOwnExchange(core, error.detail!.requestSeq, error.detail!.responseSeq, 'needs_link', { account: 'zeta' }, 'error');
    } finally {
      await core.shutdown();
    }
  });
  it('a method the server did not declare (completions): JSON-RPC -32601 with its seqs, which the renderer reads as "no completions"', async () => {
    const core = newCore();
    try {
      const id = (await call(core, 'addServer', { name: 'asking', target: { type: 'http', url: asking.url }, era: 'legacy', pingIntervalSec: 0 })).id;
      await call(core, 'connectServer', { id });
      expect(core.connections.get(id)!.serverCapabilities()?.completions).toBeUndefined();
      const error = await failure(core, 'complete', { serverId: id, ref: { type: 'ref/prompt', name: 'anything' }, argument: { name: 'a', value: 'b' } });
      expect(error.detail).toMatchObject({ kind: 'rpc', rpcCode: -32601, retryable: false });
      expect(event(core, error.detail!.requestSeq).rpc).toMatchObject({ method: 'completion/complete' });
      expect(error.detail!.responseSeq).toBeGreaterThan(error.detail!.requestSeq!);
    } finally {
      await core.shutdown();
    }
  });
});
