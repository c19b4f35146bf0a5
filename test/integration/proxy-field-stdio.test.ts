/**
 * The stdio proxy is invisible, against the published server-everything (#12, first must-show):
 *
 *   - bytes: a fixed client conversation (initialize, tools/list, an echo with non-ASCII text,
 *     a resource read, a prompt, ping) written line by line to the server spawned directly and
 *     to `switchboard proxy -- <the same command>`: stdout is the same, byte for byte, and so is
 *     the exit code;
 *   - trace: the 2.x SDK client over our TrackedStdioTransport (what the app records for its own
 *     stdio connections) and the same client through the proxy: the proxy's recording in the
 *     library holds the same events — every JSON-RPC line each way in the same order with the
 *     same channel, kind, summary and body; the same stderr lines; a spawn of the same command and an exit.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TraceEvent, TraceEventInput } from '../../contract/trace';
import { TrackedStdioTransport } from '../../main/core/transport/tracked-stdio';
import { Redactor } from '../../main/core/trace/redact';
import { rawStdioSession } from '../support/proxy-clients';
import { assertBuilt, EVERYTHING_BIN, readRecording, stdioProxyCommand, waitForRecordings } from '../support/proxy-run';

let root: string;

beforeAll(() => {
  assertBuilt();
  root = mkdtempSync(join(tmpdir(), 'switchboard-proxy-field-stdio-'));
});

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

const SERVER = { command: process.execPath, args: [EVERYTHING_BIN, 'stdio'] };

const CONVERSATION = [
  { id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'field-raw-client', version: '1.0.0' } } },
  { method: 'notifications/initialized' },
  { id: 2, method: 'ping' },
  { id: 3, method: 'tools/list' },
  { id: 4, method: 'tools/call', params: { name: 'echo', arguments: { message: 'héllo wörld ✓ 🙂 "quoted" \\ back\u2028slash' } } },
  { id: 5, method: 'resources/read', params: { uri: 'demo://resource/static/document/features.md' } },
  { id: 6, method: 'prompts/get', params: { name: 'simple-prompt' } },
  { id: 7, method: 'tools/call', params: { name: 'no-such-tool', arguments: {} } },
  { id: 8, method: 'ping' },
];

describe('stdio proxy in front of server-everything: invisible', () => {
  it('the client receives the same bytes with and without the proxy, and the same exit code', async () => {
    const dataDir = mkdtempSync(join(root, 'bytes-'));
    const direct = await rawStdioSession(SERVER.command, SERVER.args, CONVERSATION);
    const proxied = stdioProxyCommand({ name: 'field bytes', dataDir, command: SERVER.command, args: SERVER.args });
    const through = await rawStdioSession(proxied.command, proxied.args, CONVERSATION);

    expect(direct.stdout.length).toBeGreaterThan(1000);
    // Every request answered (the conversation is complete on both sides).
    const ids = (out: Buffer) => out.toString('utf8').split('\n').filter(Boolean).map((line) => (JSON.parse(line) as { id?: number }).id).filter((id) => id !== undefined);
    expect(ids(direct.stdout)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(through.stdout.equals(direct.stdout), `stdout differs through the proxy:\n--- direct ---\n${direct.stdout.toString('utf8').slice(0, 3000)}\n--- proxied ---\n${through.stdout.toString('utf8').slice(0, 3000)}\n--- proxy stderr ---\n${through.stderr.slice(-2000)}`).toBe(true);
    expect(through.code).toBe(direct.code);
    // The server's stderr passes through (the proxy's own lines, if any, are prefixed).
    for (const line of direct.stderr.split('\n').filter(Boolean)) expect(through.stderr).toContain(line);
    for (const line of through.stderr.split('\n').filter(Boolean)) {
      if (!direct.stderr.includes(line)) expect(line).toMatch(/^switchboard proxy:/);
    }

    const [recording] = await waitForRecordings(dataDir, (r) => r.kind === 'proxy');
    expect(recording!.proxy?.client).toEqual({ name: 'field-raw-client', version: '1.0.0' });
  }, 120_000);

  it('the proxy records what a tracked stdio connection records, for the same 2.x SDK client', async () => {
    const plan = async (client: Client) => {
      await client.listTools();
      await client.callTool({ name: 'echo', arguments: { message: 'traced' } });
      await client.readResource({ uri: 'demo://resource/static/document/features.md' });
      await client.getPrompt({ name: 'simple-prompt' });
    };
    const info = { name: 'field-trace-client', version: '1.0.0' };

    // What the app records: its own tracked transport.
    const tracked: TraceEventInput[] = [];
    const trackedClient = new Client(info, { versionNegotiation: { mode: 'legacy' } });
    await trackedClient.connect(new TrackedStdioTransport({ ...SERVER, env: process.env as Record<string, string> }, { server: 'direct', record: (e) => tracked.push(e), redactor: new Redactor() }));
    await plan(trackedClient);
    await trackedClient.close();

    // What the proxy records, for the same client through it.
    const dataDir = mkdtempSync(join(root, 'trace-'));
    const proxiedClient = new Client(info, { versionNegotiation: { mode: 'legacy' } });
    await proxiedClient.connect(new StdioClientTransport({ ...stdioProxyCommand({ name: 'field trace', dataDir, ...SERVER }), stderr: 'pipe' }));
    await plan(proxiedClient);
    await proxiedClient.close();
    const [summary] = await waitForRecordings(dataDir, (r) => r.kind === 'proxy');
    const { events } = await readRecording(dataDir, summary!.id);

    const lines = (list: (TraceEvent | TraceEventInput)[]) =>
      list.filter((e) => e.kind === 'jsonrpc-out' || e.kind === 'jsonrpc-in' || e.kind === 'stdout-garbage').map((e) => ({ channel: e.channel, kind: e.kind, dir: e.dir, rpc: e.rpc, body: e.body, bytes: e.bytes }));
    const stderr = (list: (TraceEvent | TraceEventInput)[]) => list.filter((e) => e.kind === 'stderr').map((e) => e.text).sort();
    const spawnOf = (list: (TraceEvent | TraceEventInput)[]) => list.find((e) => e.kind === 'spawn')?.meta as { command?: string; args?: string[] } | undefined;

    // server-everything registers its conditional tools once initialized and announces them
    // (notifications/tools/list_changed) while the client's first request is on its way: where the
    // announcement falls among the other lines differs from run to run, on either side. Both
    // recorders keep it, wherever it falls; every other line comes in the same order.
    const announcement = (e: TraceEvent | TraceEventInput) => e.dir === 'in' && (e.rpc?.method?.endsWith('/list_changed') ?? false);
    expect(lines(tracked).length).toBeGreaterThan(8);
    expect(lines(events.filter((e) => !announcement(e)))).toEqual(lines(tracked.filter((e) => !announcement(e))));
    expect(lines(events.filter(announcement))).toEqual(lines(tracked.filter(announcement)));
    expect(stderr(events)).toEqual(stderr(tracked));
    expect(spawnOf(events)?.command).toBe(spawnOf(tracked)?.command);
    expect(spawnOf(events)?.args).toEqual(spawnOf(tracked)?.args);
    expect(events.filter((e) => e.kind === 'exit')).toHaveLength(1);
  }, 120_000);
});
