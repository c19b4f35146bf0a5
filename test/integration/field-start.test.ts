/**
 * Issue #11 items 4, 5 and 7 at the core, through the real SDK (its version probe, its
 * transports) and real sockets: a connect failure reads as full sentences for each cause the
 * probe wraps; "Test connection" reaches the server's published status at once; the servers
 * left connected come back at the next start (the published reference servers over stdio), a
 * server the person disconnected or switched off "Connect at start" does not, and one broken
 * server never holds the others back.
 */
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import { createRequire } from 'node:module';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ServerConfigInput, ServerStatus } from '../../contract';
import { createCore, type Core } from '../../main/core/app';
import { ConfSettingsStore } from '../../main/core/store/conf-settings';
import { MemorySettingsStore, parseSettingsDocument, SETTINGS_VERSION, type SettingsStore } from '../../main/core/store/settings';

const require = createRequire(import.meta.url);
const bin = (pkg: string) => require.resolve(`@modelcontextprotocol/${pkg}/dist/index.js`);

const cores: Core[] = [];
afterEach(async () => {
  await Promise.all(cores.splice(0).map((c) => c.shutdown()));
});

function core(settings: SettingsStore = new MemorySettingsStore()): Core {
  const c = createCore({ settings, carrier: 'browser', version: 'test', backoffBaseMs: 10 });
  cores.push(c);
  return c;
}

async function call<T>(c: Core, method: string, args: unknown = {}): Promise<T> {
  const reply = await c.dispatch(method as never, args as never);
  if (!reply.ok) throw new Error(`${method}: ${reply.error.message}`);
  return reply.result as T;
}

const http = (name: string, url: string, extra: Partial<ServerConfigInput> = {}): ServerConfigInput => ({ name, target: { type: 'http', url, headers: {}, transport: 'streamable-http' }, retries: 1, ...extra }) as ServerConfigInput;
const stdio = (name: string, args: string[], extra: Partial<ServerConfigInput> = {}): ServerConfigInput => ({ name, target: { type: 'stdio', command: process.execPath, args, env: {} }, ...extra }) as ServerConfigInput;

/** Connects and waits until the server settles in `error` (retries exhausted, or not retried). */
async function failedStatus(c: Core, input: ServerConfigInput): Promise<ServerStatus> {
  const { id } = await call<ServerStatus>(c, 'addServer', input);
  await call(c, 'connectServer', { id });
  await expect.poll(() => c.connections.get(id)!.status().state, { timeout: 15_000 }).toBe('error');
  return c.connections.get(id)!.status();
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('a refused, unknown, TLS-broken or silent server: full sentences from the SDK probe error', () => {
  let plain: Server;
  let plainPort: number;
  let silent: TcpServer;
  let silentPort: number;
  const sockets: Socket[] = [];
  beforeAll(async () => {
    plain = createHttpServer((_req, res) => res.end('plain http'));
    await new Promise<void>((done) => plain.listen(0, '127.0.0.1', done));
    plainPort = (plain.address() as { port: number }).port;
    // Accepts the connection and never answers.
    silent = createTcpServer((socket) => sockets.push(socket));
    await new Promise<void>((done) => silent.listen(0, '127.0.0.1', done));
    silentPort = (silent.address() as { port: number }).port;
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((done) => plain.close(() => done()));
    await new Promise<void>((done) => silent.close(() => done()));
  });

  it('connection refused: the cause, then "Switchboard gave up after 2 attempts." as its own sentence', async () => {
    const probe = createTcpServer();
    await new Promise<void>((done) => probe.listen(0, '127.0.0.1', done));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((done) => probe.close(() => done()));
    const url = `http://127.0.0.1:${port}/mcp`;
    const status = await failedStatus(core(), http('refused', url));
    expect(status.error).toBe(`Connection refused at ${url}: nothing is listening there. Switchboard gave up after 2 attempts.`);
    expect(status.errorKind).toBe('unreachable');
  });

  it('a host name that does not resolve: the no-such-host sentence, not retried, and why', async () => {
    const url = 'http://does-not-exist.invalid/mcp';
    const status = await failedStatus(core(), http('nohost', url));
    expect(status.error).toBe(`No such host: "does-not-exist.invalid" does not resolve (DNS lookup failed for ${url}). Check the host name. Switchboard did not retry, because the host name does not resolve.`);
  });

  it('https to a plain HTTP port: the TLS sentence', async () => {
    const url = `https://127.0.0.1:${plainPort}/mcp`;
    const status = await failedStatus(core(), http('tls', url, { retries: 0 }));
    expect(status.error).toMatch(new RegExp(`^The TLS handshake with ${escape(url)} failed \\((ERR_SSL_WRONG_VERSION_NUMBER|EPROTO)\\): it does not speak TLS on this port \\(is the URL http:, not https:\\?\\)\\.$`));
  });

  it('a server that accepts and never answers: the connect timeout, in seconds', async () => {
    const url = `http://127.0.0.1:${silentPort}/mcp`;
    const status = await failedStatus(core(), http('silent', url, { retries: 0, connectTimeoutSec: 1 }));
    expect(status.error).toMatch(new RegExp(`^${escape(url)} did not answer within 1 s \\(connect timeout\\)\\.$`));
    expect(status.errorKind).toBe('timeout');
  });
});

describe('"Test connection" is in the published status at once (item 5)', () => {
  it('server-everything: listServers and the serverState event carry the new lastCheck', async () => {
    const c = core();
    const pushed: ServerStatus[] = [];
    c.events.subscribe((event, payload) => {
      if (event === 'serverState') pushed.push(payload as ServerStatus);
    });
    const { id } = await call<ServerStatus>(c, 'addServer', stdio('everything', [bin('server-everything'), 'stdio']));
    const check = await call<{ ok: boolean; toolCount: number; at: number }>(c, 'testServer', { id });
    expect(check).toMatchObject({ ok: true });
    expect(check.toolCount).toBeGreaterThan(5);
    const [listed] = await call<ServerStatus[]>(c, 'listServers');
    expect(listed!.config.lastCheck).toEqual(check);
    expect(pushed.at(-1)!.config.lastCheck).toEqual(check);
  });

  it('server-everything: the check\'s throwaway connection is marked in the trace and leaves the live connection\'s server info alone', async () => {
    const c = core();
    const { id } = await call<ServerStatus>(c, 'addServer', stdio('everything', [bin('server-everything'), 'stdio']));
    await call(c, 'connectServer', { id });
    const before = await call<{ known: boolean; era?: string; protocolVersion?: string }>(c, 'serverInfo', { id });
    expect(before).toMatchObject({ known: true, era: 'legacy' });
    const { total } = await call<{ total: number }>(c, 'traceQuery', { servers: [id], limit: 1 });
    await call(c, 'testServer', { id });
    const after = await call<{ known: boolean; era?: string; protocolVersion?: string }>(c, 'serverInfo', { id });
    expect(after).toMatchObject({ known: true, era: before.era, protocolVersion: before.protocolVersion });
    // The check's own process and handshake (spawn, initialize, the era, its exit) are marked as the check's;
    // what the live connection does meanwhile (a tools/list after list_changed) is not.
    const { events } = await call<{ events: { kind: string; dir: string; meta?: Record<string, unknown>; rpc?: { method?: string } }[] }>(c, 'traceQuery', { servers: [id], order: 'asc', limit: 5000 });
    const during = events.slice(total);
    const marked = during.filter((e) => e.meta?.check === true);
    const markedKinds = new Set(marked.map((e) => e.kind));
    expect(['spawn', 'era', 'exit', 'state', 'jsonrpc-out', 'jsonrpc-in'].filter((kind) => !markedKinds.has(kind))).toEqual([]);
    expect(marked.some((e) => e.rpc?.method === 'initialize')).toBe(true);
    const unmarked = during.filter((e) => e.meta?.check !== true);
    expect(unmarked.filter((e) => ['spawn', 'era', 'exit'].includes(e.kind) || e.rpc?.method === 'initialize')).toEqual([]);
  });
});

describe('saved servers come back (item 7)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sb-field-start-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('the servers left connected reconnect at start; a disconnected one and one with "Connect at start" off stay down; a broken one holds nobody back', async () => {
    const first = core(new ConfSettingsStore({ cwd: dir }));
    const everything = await call<ServerStatus>(first, 'addServer', stdio('everything', [bin('server-everything'), 'stdio']));
    const memory = await call<ServerStatus>(first, 'addServer', stdio('memory', [bin('server-memory')]));
    const manual = await call<ServerStatus>(first, 'addServer', stdio('manual', [bin('server-memory')], { connectAtStart: false }));
    const dropped = await call<ServerStatus>(first, 'addServer', stdio('dropped', [bin('server-everything'), 'stdio']));
    const broken = await call<ServerStatus>(first, 'addServer', stdio('broken', ['-e', 'process.exit(3)'], { retries: 0 }));
    for (const s of [everything, memory, manual, dropped, broken]) await call(first, 'connectServer', { id: s.id });
    await call(first, 'disconnectServer', { id: dropped.id });
    expect(first.connections.get(everything.id)!.status().state).toBe('connected');
    await first.shutdown();
    cores.splice(cores.indexOf(first), 1);
    // Quitting disconnected everything but changed nobody's choice.
    const saved = JSON.parse(readFileSync(join(dir, 'settings.json'), 'utf8')) as { connectedServers: string[] };
    expect(new Set(saved.connectedServers)).toEqual(new Set([everything.id, memory.id, manual.id, broken.id]));

    const second = core(new ConfSettingsStore({ cwd: dir }));
    // Ready at once: nothing has answered yet, the app already answers.
    const states = (await call<ServerStatus[]>(second, 'listServers')).map((s) => s.state);
    expect(states).not.toContain('connected');
    await expect.poll(() => second.connections.get(everything.id)!.status().state, { timeout: 20_000 }).toBe('connected');
    await expect.poll(() => second.connections.get(memory.id)!.status().state, { timeout: 20_000 }).toBe('connected');
    await expect.poll(() => second.connections.get(broken.id)!.status().state, { timeout: 20_000 }).toBe('error');
    expect(second.connections.get(manual.id)!.status().state).toBe('disconnected');
    expect(second.connections.get(dropped.id)!.status().state).toBe('disconnected');

    // Disconnect all: nothing comes back at the next start.
    const off = await call<{ servers: ServerStatus[] }>(second, 'disconnectAll');
    expect(off.servers.map((s) => s.name).sort()).toEqual(['broken', 'everything', 'memory']);
    expect(second.connections.all().map((c) => c.status().state).filter((s) => s !== 'disconnected')).toEqual([]);
    expect((JSON.parse(readFileSync(join(dir, 'settings.json'), 'utf8')) as { connectedServers: string[] }).connectedServers).toEqual([]);
    // Connect all: every enabled one, concurrently; the broken one fails alone.
    const on = await call<{ servers: ServerStatus[]; skippedDisabled: number }>(second, 'connectAll');
    expect(Object.fromEntries(on.servers.map((s) => [s.name, s.state]))).toEqual({ everything: 'connected', memory: 'connected', manual: 'connected', dropped: 'connected', broken: 'error' });
    expect(on.skippedDisabled).toBe(0);
  }, 60_000);

  it('a version-1 settings file: every server gets "Connect at start", the enabled ones count as left connected', () => {
    const server = (id: string, disabled: boolean) => ({ id, name: id, disabled, target: { type: 'stdio', command: 'node', args: [], env: {} } });
    const parsed = parseSettingsDocument({ version: 1, servers: [server('a', false), server('b', true)] });
    expect(parsed.changed).toBe(true);
    expect(parsed.settings.version).toBe(SETTINGS_VERSION);
    expect(parsed.settings.servers.map((s) => s.connectAtStart)).toEqual([true, true]);
    expect(parsed.settings.connectedServers).toEqual(['a']);
    // A current file is left as it is: nobody is added to the list.
    const current = parseSettingsDocument({ version: SETTINGS_VERSION, servers: [server('a', false)], connectedServers: [] });
    expect(current.settings.connectedServers).toEqual([]);
  });

  it('skips disabled servers in Connect all', async () => {
    const c = core();
    await call(c, 'addServer', stdio('off', [bin('server-memory')], { disabled: true }));
    const result = await call<{ servers: ServerStatus[]; skippedDisabled: number }>(c, 'connectAll');
    expect(result).toEqual({ servers: [], skippedDisabled: 1 });
  });
});
