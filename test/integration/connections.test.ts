/**
 * Connection behaviour against real servers and processes: many at once with failures kept
 * apart, retries with growing delays, configuration errors not retried, an expired session
 * renewed (and a tools/call not repeated), missed pings healed, idle disconnects that
 * reconnect on use, and no orphaned processes after shutdown.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ServerStatus } from '../../contract';
import { createCore, type Core } from '../../main/core/app';
import { ServerConnection } from '../../main/core/connection/server-connection';
import { MemorySettingsStore } from '../../main/core/store/settings';
import { TraceStore } from '../../main/core/trace/store';
import { startFixture, stdioFixtureCommand, type RunningFixture } from '../fixtures/everything/harness';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function core(options: { backoffBaseMs?: number } = {}): Core {
  const c = createCore({ settings: new MemorySettingsStore(), carrier: 'browser', version: 't', ...options });
  cleanups.push(() => c.shutdown());
  return c;
}

async function fixture(opts: Parameters<typeof startFixture>[0]): Promise<RunningFixture> {
  const f = await startFixture(opts);
  cleanups.push(() => f.close());
  return f;
}

async function add(c: Core, input: Record<string, unknown>): Promise<string> {
  const reply = await c.dispatch('addServer', input);
  if (!reply.ok) throw new Error(reply.error.message);
  return (reply.result as ServerStatus).id;
}

function states(c: Core, id: string): ServerStatus[] {
  const seen: ServerStatus[] = [];
  c.events.subscribe((event, payload) => {
    if (event === 'serverState' && (payload as ServerStatus).id === id) seen.push(payload as ServerStatus);
  });
  return seen;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('connections', () => {
  it('connects several servers in parallel; a broken one fails alone', async () => {
    const c = core();
    const http = await fixture({ transport: 'http', era: 'legacy' });
    const modern = await fixture({ transport: 'http', era: 'modern' });
    const { command, args } = stdioFixtureCommand();
    const ids = [
      await add(c, { name: 'stdio', target: { type: 'stdio', command, args } }),
      await add(c, { name: 'legacy', target: { type: 'http', url: http.url } }),
      await add(c, { name: 'modern', target: { type: 'http', url: modern.url } }),
      await add(c, { name: 'broken', target: { type: 'stdio', command: 'no-such-command-xyz' } }),
    ];
    await Promise.all(ids.map((id) => c.dispatch('connectServer', { id })));
    const byName = Object.fromEntries(c.connections.all().map((x) => [x.config.name, x.status()]));
    expect(byName.stdio!.state).toBe('connected');
    expect(byName.legacy).toMatchObject({ state: 'connected', era: 'legacy', protocolVersion: '2025-11-25' });
    expect(byName.modern).toMatchObject({ state: 'connected', era: 'modern', protocolVersion: '2026-07-28' });
    expect(byName.broken).toMatchObject({ state: 'error', errorKind: 'config' });
    const reply = await c.dispatch('callTool', { tool: 'modern__echo', args: { text: 'ok' } });
    expect(reply.ok).toBe(true);
  });

  it('retries with growing delays, then gives up with a readable error', async () => {
    const c = core({ backoffBaseMs: 100 });
    const id = await add(c, { name: 'down', target: { type: 'http', url: 'http://127.0.0.1:59997/mcp', transport: 'streamable-http' }, retries: 3 });
    const seen = states(c, id);
    await c.dispatch('connectServer', { id });
    await expect.poll(() => c.connections.get(id)!.status().state, { timeout: 10_000 }).toBe('error');
    const reconnecting = seen.filter((s) => s.state === 'reconnecting');
    expect(reconnecting.map((s) => s.attempt)).toEqual([2, 3, 4]);
    const delays = c.trace.store.query({ servers: [id], kinds: ['reconnect'] }).events.map((e) => e.meta?.delayMs);
    expect(delays).toEqual([100, 200, 400]);
    for (const s of reconnecting) expect(s.nextAttemptAt).toBeGreaterThan(s.since);
    expect(c.connections.get(id)!.status().error).toMatch(/Connection refused .* Switchboard gave up after 4 attempts/);
  });

  it('does not retry configuration errors: missing command, unresolvable host', async () => {
    const c = core({ backoffBaseMs: 50 });
    const missing = await add(c, { name: 'missing', target: { type: 'stdio', command: 'no-such-command-xyz' }, retries: 5 });
    const nxdomain = await add(c, { name: 'nx', target: { type: 'http', url: 'http://does-not-exist.invalid/mcp' }, retries: 5 });
    await c.dispatch('connectServer', { id: missing });
    await c.dispatch('connectServer', { id: nxdomain });
    await new Promise((r) => setTimeout(r, 300));
    expect(c.connections.get(missing)!.status()).toMatchObject({ state: 'error', errorKind: 'config' });
    expect(c.connections.get(missing)!.status().error).toContain('Command not found: "no-such-command-xyz"');
    expect(c.connections.get(missing)!.status().error).toContain('Switchboard did not retry, because');
    expect(c.connections.get(nxdomain)!.status()).toMatchObject({ state: 'error', errorKind: 'config' });
    expect(c.trace.store.query({ kinds: ['reconnect'], text: 'attempt' }).events).toEqual([]);
  });

  it('renews an expired session: a list is repeated on the new session, a tools/call is not', async () => {
    const c = core();
    const http = await fixture({ transport: 'http', era: 'legacy', sessions: true });
    const id = await add(c, { name: 'legacy', target: { type: 'http', url: http.url }, pingIntervalSec: 0 });
    await c.dispatch('connectServer', { id });
    const connection = c.connections.get(id)!;
    const expire = async () => {
      const session = c.trace.store.query({ servers: [id], kinds: ['session'], order: 'desc', limit: 1 }).events[0]!.meta!.sessionId as string;
      // End the session behind the client's back, as a server restart or expiry would.
      const res = await fetch(http.url, { method: 'DELETE', headers: { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' } });
      expect(res.status).toBe(200);
      return session;
    };
    const first = await expire();
    const tools = await connection.withClient('tools/list', true, (client) => client.listTools());
    expect(tools.tools.length).toBeGreaterThan(0);
    const second = await expire();
    expect(second).not.toBe(first);
    const call = await c.dispatch('callTool', { tool: 'legacy__echo', args: { text: 'once' } });
    expect(call.ok).toBe(false);
    if (!call.ok) expect(call.error.message).toMatch(/ended the session \(HTTP 404\) during tools\/call.*was not repeated/);
    const sessionEvents = c.trace.store.query({ servers: [id], kinds: ['session'] }).events.map((e) => [e.meta?.event, e.meta?.sessionId]);
    // Each old id is marked expired, then the new one is issued: three distinct sessions.
    expect(sessionEvents.map(([event]) => event)).toEqual(['issued', 'expired', 'issued', 'expired', 'issued']);
    expect(sessionEvents[1]![1]).toBe(sessionEvents[0]![1]);
    expect(new Set(sessionEvents.filter(([e]) => e === 'issued').map(([, sid]) => sid)).size).toBe(3);
    // The tools/call went out exactly once.
    const calls = c.trace.store.query({ servers: [id], methods: ['tools/call'], kinds: ['http-request'] }).events;
    expect(calls).toHaveLength(1);
    // And the connection is healthy again.
    const again = await c.dispatch('callTool', { tool: 'legacy__echo', args: { text: 'twice' } });
    expect(again.ok).toBe(true);
  });

  it('reconnects a server whose pings go unanswered', async () => {
    const store = new TraceStore();
    cleanups.push(() => store.close());
    // A real stdio MCP server that answers everything but ping.
    const script = `
      const rl = require('readline').createInterface({ input: process.stdin });
      rl.on('line', (line) => {
        const m = JSON.parse(line);
        if (m.method === 'initialize') process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'deaf', version: '1' } } }) + '\\n');
      });`;
    const seen: ServerStatus[] = [];
    const connection = new ServerConnection(
      { id: 'deaf', name: 'deaf', era: 'legacy', target: { type: 'stdio', command: process.execPath, args: ['-e', script], env: {}, nonSecretEnv: [] }, requestTimeoutSec: 1, connectTimeoutSec: 5, retries: 1, pingIntervalSec: 0.2 as never, pingMisses: 2, idleTimeoutSec: 0, disabled: false, elicitation: 'ask', sampling: 'ask', roots: [], connectAtStart: true, apps: true },
      { observer: { onStatus: (s) => seen.push(s), onStderrLine: () => undefined, onError: () => undefined }, record: (e) => store.append(e), backoffBaseMs: 50 },
    );
    cleanups.push(() => connection.disconnect());
    await connection.connect();
    await expect.poll(() => seen.some((s) => s.state === 'reconnecting'), { timeout: 10_000 }).toBe(true);
    const missed = store.query({ text: 'ping missed' }).events;
    expect(missed.length).toBeGreaterThanOrEqual(2);
    expect(seen.find((s) => s.state === 'reconnecting')!.error).toMatch(/2 pings in a row went unanswered/);
    await expect.poll(() => connection.status().state, { timeout: 10_000 }).toBe('connected');
  });

  it('disconnects after the idle timeout and reconnects on the next use', async () => {
    const store = new TraceStore();
    cleanups.push(() => store.close());
    const { command, args } = stdioFixtureCommand(['--era', 'legacy']);
    const connection = new ServerConnection(
      { id: 'idle', name: 'idle', era: 'legacy', target: { type: 'stdio', command, args, env: {}, nonSecretEnv: [] }, requestTimeoutSec: 10, connectTimeoutSec: 10, retries: 0, pingIntervalSec: 0, pingMisses: 3, idleTimeoutSec: 0.4 as never, disabled: false, elicitation: 'ask', sampling: 'ask', roots: [], connectAtStart: true, apps: true },
      { observer: { onStatus: () => undefined, onStderrLine: () => undefined, onError: () => undefined }, record: (e) => store.append(e) },
    );
    cleanups.push(() => connection.disconnect());
    await connection.connect();
    expect(connection.status().state).toBe('connected');
    await expect.poll(() => connection.status().state, { timeout: 5_000 }).toBe('disconnected');
    expect(connection.status().reason).toMatch(/idle/);
    const result = await connection.callTool('echo', { text: 'back' });
    expect(JSON.stringify(result)).toContain('echo: back');
    expect(connection.status().state).toBe('connected');
    expect(store.query({ kinds: ['spawn'] }).events).toHaveLength(2);
  });

  it('leaves no orphaned stdio processes after shutdown', async () => {
    const c = createCore({ settings: new MemorySettingsStore(), carrier: 'browser', version: 't' });
    const { command, args } = stdioFixtureCommand(['--era', 'legacy']);
    const ids = [await add(c, { name: 'one', target: { type: 'stdio', command, args } }), await add(c, { name: 'two', target: { type: 'stdio', command, args } })];
    await Promise.all(ids.map((id) => c.dispatch('connectServer', { id })));
    const pids = c.trace.store.query({ kinds: ['spawn'] }).events.map((e) => e.meta!.pid as number);
    expect(pids).toHaveLength(2);
    expect(pids.every(alive)).toBe(true);
    await c.shutdown();
    await expect.poll(() => pids.filter(alive), { timeout: 5_000 }).toEqual([]);
  });
});
