/**
 * A proxied session in a running app (#12), with real processes: the SDK 1.x client (a client
 * nobody here wrote) launches `switchboard proxy` (the built bin) in front of our everything
 * fixture, recording into a fresh data dir; a core over that data dir's library mirrors it —
 * the session with its client's name, its events in the live trace as `px-<id>`, its stderr in
 * the logs; a fault switched on through the core's contract reaches the proxy through the
 * control files and the client's next call fails with it; the client leaving ends the session
 * with its events kept.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProxySession } from '../../contract';
import type { TraceEvent } from '../../contract/trace';
import { createCore, type Core } from '../../main/core/app';
import { MemorySettingsStore } from '../../main/core/store/settings';
import { stdioFixtureCommand } from '../fixtures/everything/harness';
import { sleep } from '../fixtures/everything/server';
import { waitFor } from './support/trace';

const ROOT = join(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/switchboard.mjs');

let dir: string;
let core: Core;
let client: Client;
const pushes: ProxySession[][] = [];

async function sessions(): Promise<ProxySession[]> {
  const envelope = await core.dispatch('proxySessions', {});
  if (!envelope.ok) throw new Error(envelope.error.message);
  return envelope.result as ProxySession[];
}

/** Polls the core's own contract until the probe answers (no time asserted: a bound only against hanging). */
async function sessionWhere(what: string, probe: (s: ProxySession) => boolean, timeoutMs = 15_000): Promise<ProxySession> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = (await sessions()).find(probe);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(await sessions())}`);
    await sleep(25);
  }
}

const mirrored = (id: string): TraceEvent[] => core.trace.store.query({ servers: [id], limit: 10_000 }).events;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sb-proxy-live-'));
  core = createCore({ settings: new MemorySettingsStore(), carrier: 'browser', version: 't', connectAtStart: false, recordings: { dir: join(dir, 'recordings') } });
  core.events.subscribe((event, payload) => {
    if (event === 'proxySessionsChanged') pushes.push((payload as { sessions: ProxySession[] }).sessions);
  });
  const server = stdioFixtureCommand();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'proxy', '--name', 'Echo through the proxy', '--data-dir', dir, '--', server.command, ...server.args],
    stderr: 'pipe',
  });
  client = new Client({ name: 'sdk-v1-client', version: '1.2.3' });
  await client.connect(transport);
}, 60_000);

afterAll(async () => {
  await client?.close().catch(() => undefined);
  await core?.shutdown();
  rmSync(dir, { recursive: true, force: true });
});

describe('a proxied session in the app', () => {
  let id: string;

  it('appears with its client, and its traffic is in the live trace as px-<recording id>', async () => {
    const result = (await client.callTool({ name: 'echo', arguments: { text: 'through the proxy' } })) as { content: { text: string }[] };
    expect(result.content[0]!.text).toBe('echo: through the proxy');
    const found = await sessionWhere('the proxied session with its client', (s) => s.info.client?.name === 'sdk-v1-client');
    expect(found).toMatchObject({ state: 'live', info: { name: 'Echo through the proxy', transport: 'stdio', client: { name: 'sdk-v1-client', version: '1.2.3' } } });
    expect(found.id).toBe(`px-${found.recordingId}`);
    expect(found.supportedFaults).toContain('jsonrpc-error');
    id = found.id;
    // Every event of the session, with the answer the client got.
    const answer = await waitFor('the echo answer mirrored', () => mirrored(id).find((e) => e.kind === 'jsonrpc-in' && JSON.stringify(e.body).includes('echo: through the proxy')), 10_000);
    expect(answer.server).toBe(id);
    const kinds = new Set(mirrored(id).map((e) => e.kind));
    expect(kinds.has('spawn')).toBe(true);
    expect(kinds.has('jsonrpc-out')).toBe(true);
    expect(mirrored(id).some((e) => e.rpc?.method === 'initialize')).toBe(true);
    expect(pushes.some((list) => list.some((s) => s.id === id))).toBe(true);
  }, 30_000);

  it('switches a fault on in the proxy through the contract, and the client sees it', async () => {
    const set = await core.dispatch('proxySetFaults', { id, faults: [{ type: 'jsonrpc-error', method: 'tools/call', code: -32042, message: 'injected from the app' }] });
    expect(set.ok).toBe(true);
    await sessionWhere('the proxy to report the fault in force', (s) => s.id === id && s.faults.length === 1);
    await expect(client.callTool({ name: 'echo', arguments: { text: 'again' } })).rejects.toThrow(/injected from the app/);
    // A call the fault does not scope still goes through.
    const tools = await client.listTools();
    expect(tools.tools.some((t) => t.name === 'echo')).toBe(true);
    // Traffic shows what was injected.
    await waitFor('the fault events mirrored', () => mirrored(id).filter((e) => e.kind === 'fault').length >= 2 || undefined, 10_000);
    const hit = await sessionWhere('the hit counted', (s) => s.id === id && (s.faults[0]?.hits ?? 0) >= 1);
    expect(hit.faults[0]!.fault).toMatchObject({ type: 'jsonrpc-error', method: 'tools/call', code: -32042 });

    // A fault this transport cannot inject is refused before anything is written.
    const refused = await core.dispatch('proxySetFaults', { id, faults: [{ type: 'http-error', status: 503 }] });
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.error.message).toMatch(/cannot inject "http-error"/);
  }, 30_000);

  it('ends when the client leaves, keeping every event', async () => {
    const before = mirrored(id).length;
    await client.close();
    const ended = await sessionWhere('the session to end', (s) => s.id === id && s.state === 'ended');
    expect(ended.events).toBeGreaterThanOrEqual(before);
    expect(mirrored(id).some((e) => e.kind === 'exit')).toBe(true);
    const refused = await core.dispatch('proxySetFaults', { id, faults: [] });
    expect(refused.ok).toBe(false);
  }, 30_000);
});

describe('a proxy that dies', () => {
  it('leaves its session ended with every event it wrote; the app goes on', async () => {
    const server = stdioFixtureCommand();
    const other = new Client({ name: 'sdk-v1-second', version: '2' });
    await other.connect(
      new StdioClientTransport({ command: process.execPath, args: [BIN, 'proxy', '--name', 'Killed proxy', '--data-dir', dir, '--', server.command, ...server.args], stderr: 'pipe' }),
    );
    try {
      await other.callTool({ name: 'echo', arguments: { text: 'last words' } });
      const live = await sessionWhere('the second session', (s) => s.info.name === 'Killed proxy' && s.state === 'live');
      await waitFor('its answer mirrored', () => mirrored(live.id).find((e) => JSON.stringify(e.body ?? '').includes('echo: last words')), 10_000);
      process.kill(live.info.pid, 'SIGKILL');
      const ended = await sessionWhere('the killed session to end', (s) => s.id === live.id && s.state === 'ended');
      expect(ended.events).toBeGreaterThanOrEqual(mirrored(live.id).length);
      expect(mirrored(live.id).some((e) => JSON.stringify(e.body ?? '').includes('echo: last words'))).toBe(true);
      // The app still answers.
      expect((await core.dispatch('appInfo', {})).ok).toBe(true);
    } finally {
      await other.close().catch(() => undefined);
    }
  }, 30_000);
});
