/**
 * The field, not our fixtures: the MCP project's published reference servers
 * (`@modelcontextprotocol/server-everything` over stdio and Streamable HTTP, `server-memory`,
 * `server-filesystem`), connected to the built browser-mode host beside a hostile server whose
 * answers nest 5,000 levels deep. Every published server answers its own tools, and keeps
 * answering after the hostile one has done its worst.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { freePort } from '../support/core-calls';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isTruncationMarker } from '../../contract/bounded-json';
import { startBrowserMode, type BrowserModeApp } from '../e2e/support/browser-mode';
import { deepStdioCommand } from '../fixtures/deep/harness';
import { HostClient } from '../support/host-client';

const require = createRequire(import.meta.url);
const bin = (pkg: string) => require.resolve(`@modelcontextprotocol/${pkg}/dist/index.js`);

let app: BrowserModeApp;
let client: HostClient;
let everythingHttp: ChildProcess | undefined;
let files: string;
const ids: Record<string, string> = {};

type CallReply = { result: { content?: { type: string; text?: string }[]; structuredContent?: unknown; isError?: boolean } };


/** server-everything's Streamable HTTP transport on a free port (it says so on stderr). */
async function startEverythingHttp(): Promise<string> {
  const port = await freePort();
  const child = spawn(process.execPath, [bin('server-everything'), 'streamableHttp'], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
  everythingHttp = child;
  await new Promise<void>((done, fail) => {
    let err = '';
    const timer = setTimeout(() => fail(new Error(`server-everything (HTTP) did not start:\n${err}`)), 20_000);
    child.stderr!.on('data', (d) => {
      err += String(d);
      if (err.includes(`${port}`)) {
        clearTimeout(timer);
        done();
      }
    });
    child.once('exit', (code) => fail(new Error(`server-everything (HTTP) exited (${code}):\n${err}`)));
  });
  return `http://127.0.0.1:${port}/mcp`;
}

async function add(name: string, target: Record<string, unknown>): Promise<string> {
  const status = await client.ok<{ id: string }>('addServer', { name, target, retries: 0, pingIntervalSec: 0, requestTimeoutSec: 120 });
  const connected = await client.ok<{ state: string; error?: string }>('connectServer', { id: status.id }, 90_000);
  if (connected.state !== 'connected') throw new Error(`${name} did not connect: ${connected.error ?? connected.state}`);
  return status.id;
}

const call = (serverId: string, tool: string, args: Record<string, unknown> = {}) => client.ok<CallReply>('callTool', { tool, serverId, args }, 90_000);
const text = (reply: CallReply) => (reply.result.content ?? []).map((c) => c.text ?? '').join('\n');

beforeAll(async () => {
  files = mkdtempSync(join(tmpdir(), 'switchboard-field-'));
  writeFileSync(join(files, 'hello.txt'), 'hello from the field\n');
  app = await startBrowserMode();
  client = await HostClient.open(app);
  const url = await startEverythingHttp();
  ids.everythingStdio = await add('everything stdio', { type: 'stdio', command: process.execPath, args: [bin('server-everything'), 'stdio'] });
  ids.everythingHttp = await add('everything http', { type: 'http', url, transport: 'streamable-http' });
  ids.memory = await add('memory', { type: 'stdio', command: process.execPath, args: [bin('server-memory')], env: { MEMORY_FILE_PATH: join(files, 'memory.jsonl') } });
  ids.filesystem = await add('filesystem', { type: 'stdio', command: process.execPath, args: [bin('server-filesystem'), files] });
  ids.hostile = await add('deep', { type: 'stdio', ...deepStdioCommand(), env: {} });
}, 180_000);

afterAll(async () => {
  client?.close();
  await app?.close();
  everythingHttp?.kill();
  if (files) rmSync(files, { recursive: true, force: true });
});

describe('published reference servers beside a hostile one', () => {
  it('each answers its own tools through Switchboard', async () => {
    for (const via of ['everythingStdio', 'everythingHttp'] as const) {
      expect(text(await call(ids[via]!, 'echo', { message: `hi ${via}` }))).toContain(`hi ${via}`);
      const sum = await call(ids[via]!, 'get-sum', { a: 2, b: 40 });
      expect(text(sum)).toContain('42');
    }
    await call(ids.memory!, 'create_entities', { entities: [{ name: 'switchboard', entityType: 'tool', observations: ['inspects MCP servers'] }] });
    expect(text(await call(ids.memory!, 'read_graph'))).toContain('inspects MCP servers');
    const listing = await call(ids.filesystem!, 'list_directory', { path: files });
    expect(text(listing)).toContain('hello.txt');
    expect(text(await call(ids.filesystem!, 'read_text_file', { path: join(files, 'hello.txt') }))).toContain('hello from the field');
  });

  it("server-everything's simulated logging: each line at the level it names, in main's log feed, pushed to a window with a lease", async () => {
    type Line = { id: number; level: string; source: string; serverId?: string; text: string };
    const server = ids.everythingStdio!;
    const pushes: { lines: Line[]; partial?: boolean }[] = [];
    const stop = client.onEvent((event, payload) => event === 'logBatch' && pushes.push(payload as { lines: Line[]; partial?: boolean }));
    const simulated = async () => (await client.ok<{ lines: Line[] }>('recentLogs')).lines.filter((l) => l.serverId === server && l.source === 'server');
    const before = (await simulated()).length;
    try {
      // Every level is sent (the server respects the client's level), and this window holds a log-feed lease.
      await client.ok('setLogLevel', { serverId: server, level: 'debug' });
      expect(await client.ok('logFeed', { lease: 'field-test', full: true })).toMatchObject({ full: true });
      expect(text(await call(server, 'toggle-simulated-logging'))).toContain('Started simulated');
      // One line at once, then one every 5 s.
      const deadline = Date.now() + 30_000;
      let lines = await simulated();
      while (lines.length < before + 2 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 250));
        lines = await simulated();
      }
      const fresh = lines.slice(before);
      expect(fresh.length).toBeGreaterThanOrEqual(2);
      for (const line of fresh) {
        // "Debug-level message", "Alert level-message", …: the level it names is the level it has.
        const named = /^(\w+)[- ]level/i.exec(line.text.replace(/^\[[^\]]*\]\s*/, ''))?.[1]?.toLowerCase();
        expect(named, line.text).toBe(line.level);
      }
      // Main's ids rise, and every one of these lines was pushed, whole, to this window.
      expect(fresh.map((l) => l.id)).toEqual([...fresh.map((l) => l.id)].sort((a, b) => a - b));
      await expect.poll(() => pushes.flatMap((p) => p.lines).filter((l) => fresh.some((f) => f.id === l.id)).length, { timeout: 5_000 }).toBeGreaterThanOrEqual(fresh.length);
      const pushedIds = pushes.flatMap((p) => p.lines.map((l) => l.id));
      expect(new Set(pushedIds).size).toBe(pushedIds.length);
      expect(pushes.some((p) => p.partial)).toBe(false);
    } finally {
      stop();
      await client.call('logFeed', { lease: 'field-test', full: false });
      await client.call('callTool', { tool: 'toggle-simulated-logging', serverId: server, args: {} }, 30_000);
    }
  }, 60_000);

  it('a 5,000-deep answer from the hostile server is cut and shown; every published server still answers', async () => {
    const deep = await call(ids.hostile!, 'deep_structured', { depth: 5000 });
    let node: unknown = deep.result.structuredContent;
    let levels = 0;
    while (node && typeof node === 'object' && !isTruncationMarker(node) && levels < 200) {
      node = Object.values(node as Record<string, unknown>)[0];
      levels++;
    }
    expect(isTruncationMarker(node)).toBe(true);
    expect(text(await call(ids.everythingStdio!, 'echo', { message: 'after' }))).toContain('after');
    expect(text(await call(ids.everythingHttp!, 'echo', { message: 'after' }))).toContain('after');
    expect(text(await call(ids.memory!, 'read_graph'))).toContain('switchboard');
    expect(text(await call(ids.filesystem!, 'list_directory', { path: files }))).toContain('hello.txt');
    const servers = await client.ok<{ name: string; state: string }[]>('listServers');
    expect(servers.map((s) => `${s.name}: ${s.state}`).sort()).toEqual(['deep: connected', 'everything http: connected', 'everything stdio: connected', 'filesystem: connected', 'memory: connected']);
  });
});
