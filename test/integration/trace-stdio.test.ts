/**
 * The trace of stdio connections, recorded by our tracked stdio transport around real child
 * processes, driven through the core:
 *   - the "everything" fixture with `--stderr-chatter`: the spawn (pid, env names, env values
 *     redacted unless marked non-secret), every JSON-RPC line each way, stderr lines, the exit;
 *   - a server that writes "Listening on port 3000" (and a JSON non-JSON-RPC line) to stdout
 *     before speaking MCP: flagged as stdout-garbage, the connection still works;
 *   - a process that dies at once with code 3: the exit event says so.
 * A configured secret (an env value) must appear nowhere in the recorded trace.
 */
import { afterEach, describe, expect, it } from 'vitest';

import type { MethodName, Result } from '../../contract';
import type { ServerSnapshot, TraceEvent } from '../../contract/trace';
import { createCore, type Core } from '../../main/core/app';
import { MemorySettingsStore } from '../../main/core/store/settings';
import { FIXTURE_MAIN, TSX_LOADER_URL, stdioFixtureCommand } from '../fixtures/everything/harness';

const SECRET = 'super-secret-value-123';

async function call<M extends MethodName>(core: Core, method: M, args: unknown): Promise<Result<M>> {
  const envelope = await core.dispatch(method, args);
  if (!envelope.ok) throw new Error(`${method} failed: ${envelope.error.message}`);
  return envelope.result as Result<M>;
}

function serverEvents(core: Core, server: string): TraceEvent[] {
  return [...core.trace.store.all()].filter((e) => e.server === server);
}

async function snapshotOf(core: Core, server: string): Promise<ServerSnapshot> {
  const [snapshot] = await call(core, 'snapshots', { server });
  if (!snapshot) throw new Error(`no snapshot for ${server}`);
  return snapshot as ServerSnapshot;
}

function expectNoSecret(core: Core): void {
  const everything = JSON.stringify([...core.trace.store.all()]);
  expect(everything.includes(SECRET), 'the secret env value leaked into the trace').toBe(false);
}

function expectGaplessSeq(core: Core): void {
  [...core.trace.store.all()].forEach((event, index) => expect(event.seq).toBe(index + 1));
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Every request sent has exactly one response read back, after it (and vice versa), except a
 * modern-era subscriptions/listen, which stays open for the life of the connection (the server
 * acknowledges it with a notification instead).
 */
function expectRequestsAnswered(events: TraceEvent[]): void {
  const listen = events.find((e) => e.kind === 'jsonrpc-out' && e.rpc?.method === 'subscriptions/listen');
  if (listen) {
    const ack = events.find((e) => e.kind === 'jsonrpc-in' && e.rpc?.method === 'notifications/subscriptions/acknowledged');
    expect(ack!.seq).toBeGreaterThan(listen.seq);
  }
  const out = events.filter((e) => e.kind === 'jsonrpc-out' && e.rpc?.kind === 'request' && e !== listen);
  const answers = events.filter((e) => e.kind === 'jsonrpc-in' && (e.rpc?.kind === 'result' || e.rpc?.kind === 'error'));
  expect(answers).toHaveLength(out.length);
  for (const request of out) {
    const answer = answers.filter((e) => e.rpc!.id === request.rpc!.id);
    expect(answer, `answer to ${request.rpc!.method} #${request.rpc!.id}`).toHaveLength(1);
    expect(answer[0]!.seq).toBeGreaterThan(request.seq);
  }
}

describe('trace: stdio', () => {
  let core: Core | undefined;

  afterEach(async () => {
    await core?.shutdown();
    core = undefined;
  });

  it('records the spawn (env names, values redacted), JSON-RPC lines both ways, stderr lines and the exit', async () => {
    core = createCore({ settings: new MemorySettingsStore(), carrier: 'browser', version: 't' });
    const { command, args } = stdioFixtureCommand(['--stderr-chatter']);
    const { id } = await call(core, 'addServer', {
      name: 'stdio',
      target: { type: 'stdio', command, args, env: { SECRET_TOKEN: SECRET, PLAIN_SETTING: 'plain-value' }, nonSecretEnv: ['PLAIN_SETTING'] },
    });
    const status = await call(core, 'connectServer', { id });
    expect(status.state, status.error).toBe('connected');
    const echo = await call(core, 'callTool', { tool: 'stdio__echo', args: { text: 'over the pipe' } });
    expect(JSON.stringify(echo.result)).toContain('echo: over the pipe');
    await call(core, 'disconnectServer', { id });

    const events = serverEvents(core, id);
    const stdio = events.filter((e) => e.channel === 'stdio');
    expect(stdio.every((e) => e.server === id)).toBe(true);

    // the spawn: first, with the command line, cwd, pid, env names
    const spawn = stdio[0]!;
    expect(spawn.kind).toBe('spawn');
    expect(spawn.meta?.command).toBe(command);
    expect(spawn.meta?.args).toEqual(args);
    expect(spawn.meta?.cwd).toBe(process.cwd());
    const pid = spawn.meta?.pid as number;
    expect(Number.isInteger(pid) && pid > 0).toBe(true);
    const env = spawn.meta?.env as Record<string, string>;
    expect(env.SECRET_TOKEN).toBe('[redacted]');
    expect(env.PLAIN_SETTING).toBe('plain-value');
    for (const [name, value] of Object.entries(env)) if (name !== 'PLAIN_SETTING') expect(value, name).toBe('[redacted]');
    expect(Object.keys(env)).toContain('PATH');

    // stderr: the fixture's chatter, line by line, without the newline
    const stderr = stdio.filter((e) => e.kind === 'stderr').map((e) => e.text);
    expect(stderr).toEqual(expect.arrayContaining([expect.stringMatching(/^everything: starting \(stdio, era=both\)$/), 'everything: ready, waiting for a client on stdin']));
    for (const line of stderr) expect(line).not.toMatch(/\n$/);

    // JSON-RPC lines each way, each with its parsed body and a summary
    const out = stdio.filter((e) => e.kind === 'jsonrpc-out');
    const inbound = stdio.filter((e) => e.kind === 'jsonrpc-in');
    expect(out.every((e) => e.dir === 'out' && e.bytes! > 0 && (e.body as { jsonrpc?: string }).jsonrpc === '2.0')).toBe(true);
    expect(inbound.every((e) => e.dir === 'in' && e.bytes! > 0 && (e.body as { jsonrpc?: string }).jsonrpc === '2.0')).toBe(true);
    const outMethods = out.map((e) => e.rpc?.method);
    expect(outMethods).toEqual(expect.arrayContaining(['tools/list', 'tools/call']));
    expect(outMethods.some((m) => m === 'initialize' || m === 'server/discover')).toBe(true);
    const toolCall = out.find((e) => e.rpc?.method === 'tools/call')!;
    expect(toolCall.body).toMatchObject({ params: { name: 'echo', arguments: { text: 'over the pipe' } } });
    expectRequestsAnswered(stdio);
    expect(stdio.filter((e) => e.kind === 'stdout-garbage')).toEqual([]);

    // the exit: last on the channel, code 0, expected (we closed stdin)
    const exit = stdio.at(-1)!;
    expect(exit.kind).toBe('exit');
    expect(exit.meta).toMatchObject({ code: 0, signal: null, expected: true });
    expect(exit.text).toBe('exited with code 0');
    expect(isAlive(pid)).toBe(false);

    expectNoSecret(core);
    expectGaplessSeq(core);

    const snapshot = await snapshotOf(core, id);
    const requestsOut = out.filter((e) => e.rpc?.kind === 'request' && e.rpc.method !== 'ping').length;
    const resultsIn = inbound.filter((e) => e.rpc?.kind === 'result').length;
    expect(snapshot.channels.stdio).toMatchObject({ requests: requestsOut, responses: resultsIn, state: 'off', openStreams: 0 });
    expect(snapshot.channels.stdio!.notifications).toBe(stdio.filter((e) => e.rpc?.kind === 'notification').length); // both ways
    expect(snapshot.latency['tools/call']!.count).toBe(1);
    expect(snapshot.inFlight).toEqual([]);
    expect(snapshot.buckets.length).toBeGreaterThan(0);
    expect(snapshot.bytesOut).toBe(out.reduce((sum, e) => sum + e.bytes!, 0));
  });

  it('flags non-JSON-RPC stdout lines as stdout-garbage, and the connection still works', async () => {
    core = createCore({ settings: new MemorySettingsStore(), carrier: 'browser', version: 't' });
    // A server that announces itself on stdout before speaking MCP (the classic "won't connect").
    // Its name is the secret too, so the secret flows through args, the spawn line and serverInfo.
    const script = [
      "process.stdout.write('Listening on port 3000\\n');",
      'process.stdout.write(JSON.stringify({ status: "ready" }) + "\\n");',
      `process.argv = [process.argv[0], 'everything', '--transport', 'stdio', '--era', 'legacy', '--name', ${JSON.stringify(SECRET)}];`,
      `await import(${JSON.stringify(FIXTURE_MAIN)});`,
    ].join(' ');
    const { id } = await call(core, 'addServer', {
      name: 'noisy',
      target: { type: 'stdio', command: process.execPath, args: ['--import', TSX_LOADER_URL, '--input-type=module', '-e', script], env: { SECRET_TOKEN: SECRET } },
      era: 'legacy',
    });
    const status = await call(core, 'connectServer', { id });
    expect(status.state, status.error).toBe('connected');
    const echo = await call(core, 'callTool', { tool: 'noisy__echo', args: { text: 'still fine' } });
    expect(JSON.stringify(echo.result)).toContain('echo: still fine');
    await call(core, 'disconnectServer', { id });

    const events = serverEvents(core, id);
    const garbage = events.filter((e) => e.kind === 'stdout-garbage');
    expect(garbage.map((e) => [e.text, e.meta?.reason])).toEqual([
      ['Listening on port 3000', 'not JSON'],
      ['{"status":"ready"}', 'JSON but not JSON-RPC'],
    ]);
    for (const g of garbage) {
      expect(g).toMatchObject({ channel: 'stdio', dir: 'in' });
      expect(g.bytes).toBe(g.text!.length);
    }
    const firstIn = events.find((e) => e.kind === 'jsonrpc-in')!;
    expect(garbage[1]!.seq).toBeLessThan(firstIn.seq);
    expectRequestsAnswered(events);
    expect(events.filter((e) => e.kind === 'exit').map((e) => e.meta?.code)).toEqual([0]);

    // the spawn line and the server's self-description carried the secret: both redacted
    const spawn = events.find((e) => e.kind === 'spawn')!;
    expect(spawn.text).toContain('[redacted]');
    const era = events.find((e) => e.kind === 'era')!;
    expect((era.meta?.serverInfo as { name?: string }).name).toBe('[redacted]');
    expectNoSecret(core);
    expectGaplessSeq(core);

    const snapshot = await snapshotOf(core, id);
    expect(snapshot.channels.stdio!.errors).toBeGreaterThanOrEqual(2);
    expect(snapshot.buckets.reduce((sum, b) => sum + b.errors.transport, 0)).toBe(2);
    expect(snapshot.inFlight).toEqual([]);
  });

  it('records an unexpected exit with its code', async () => {
    core = createCore({ settings: new MemorySettingsStore(), carrier: 'browser', version: 't' });
    const { id } = await call(core, 'addServer', {
      name: 'dying',
      target: { type: 'stdio', command: process.execPath, args: ['-e', "process.stderr.write('fatal: no config\\n'); process.exit(3)"], env: { SECRET_TOKEN: SECRET } },
      retries: 0,
    });
    const status = await call(core, 'connectServer', { id });
    expect(status.state).toBe('error');

    const events = serverEvents(core, id);
    const exits = events.filter((e) => e.kind === 'exit');
    expect(exits.length).toBeGreaterThanOrEqual(1);
    for (const exit of exits) {
      expect(exit.meta).toMatchObject({ code: 3, signal: null, expected: false });
      expect(exit.text).toBe('exited with code 3');
    }
    expect(events.filter((e) => e.kind === 'stderr').map((e) => e.text)).toContain('fatal: no config');
    // each spawn is followed by its own exit
    expect(events.filter((e) => e.kind === 'spawn')).toHaveLength(exits.length);
    const snapshot = await snapshotOf(core, id);
    expect(snapshot.channels.stdio?.state).toBe('error');
    expect(snapshot.channels.stdio?.lastError).toBe('exited with code 3');
    expectNoSecret(core);
    expectGaplessSeq(core);
  });
});
