/**
 * Replay against real servers (separate processes over stdio): our "everything" fixture, a
 * changed variant of it (test/fixtures/replay/changed.ts), and the published
 * `@modelcontextprotocol/server-everything`. From the live trace and from an imported JSONL
 * trace (`import-N`): the same server diffs empty for deterministic requests, the changed one
 * reports its differences with paths, a tools/call without confirmation never reaches the server.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReplayReport } from '../../contract';
import { createCore, type Core } from '../../main/core/app';
import { MemorySettingsStore } from '../../main/core/store/settings';
import { stdioFixtureCommand } from '../fixtures/everything/harness';
import { tsxNodeArgs } from '../fixtures/spawn-listening';
import { call, until } from '../support/core-calls';

const require = createRequire(import.meta.url);
const HERE = dirname(fileURLToPath(import.meta.url));
const CHANGED = join(HERE, '../fixtures/replay/changed.ts');
const everythingBin = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');

function newCore(): Core {
  return createCore({ settings: new MemorySettingsStore(), carrier: 'browser', version: 't', backoffBaseMs: 50 });
}

async function addStdio(core: Core, name: string, command: string, args: string[]): Promise<string> {
  const { id } = await call(core, 'addServer', { name, target: { type: 'stdio', command, args }, pingIntervalSec: 0, retries: 0 });
  const status = await call(core, 'connectServer', { id });
  expect(status.state, status.error).toBe('connected');
  return id;
}

/** tools/call requests the live trace holds for a server after `afterSeq` (what reached the server's stdin). */
function toolCallsSent(core: Core, serverId: string, afterSeq: number): number {
  return core.trace.store.query({ servers: [serverId], kinds: ['jsonrpc-out'], methods: ['tools/call'], cursor: afterSeq, limit: 5000 }).events.length;
}

function item(report: ReplayReport, method: string, tool?: string) {
  const found = report.items.find((i) => i.candidate.method === method && (tool === undefined || i.candidate.tool === tool));
  expect(found, `${method} ${tool ?? ''} in the report`).toBeDefined();
  return found!;
}

describe('replay against the everything fixture', () => {
  let core: Core;
  let fixtureId: string;
  let changedId: string;
  let changedStderr: () => string;

  beforeAll(async () => {
    core = newCore();
    const { command, args } = stdioFixtureCommand();
    fixtureId = await addStdio(core, 'fixture', command, args);
    changedId = await addStdio(core, 'changed', process.execPath, tsxNodeArgs(CHANGED, []));
    changedStderr = () =>
      core.trace.store
        .query({ servers: [changedId], kinds: ['stderr'], limit: 5000 })
        .events.map((e) => e.text ?? '')
        .join('\n');
    // The session to replay: deterministic requests only.
    await call(core, 'callTool', { tool: 'echo', serverId: fixtureId, args: { text: 'hello' } });
    await call(core, 'callTool', { tool: 'add', serverId: fixtureId, args: { a: 2, b: 3 } });
    await call(core, 'getPrompt', { name: 'greet', serverId: fixtureId, args: { name: 'Ada' } });
    await call(core, 'readResource', { serverId: fixtureId, uri: 'fixture://readme' });
    await call(core, 'complete', { serverId: fixtureId, ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'name', value: 'A' } });
  }, 60_000);

  afterAll(async () => {
    await core?.shutdown();
  });

  it('lists what can be sent again, paired with the recorded answers, never initialize or notifications', async () => {
    const { candidates, tools, total } = await call(core, 'replayCandidates', { source: 'live' });
    const mine = candidates.filter((c) => c.serverId === fixtureId);
    const methods = mine.map((c) => c.method);
    expect(methods).toEqual(expect.arrayContaining(['tools/list', 'tools/call', 'prompts/get', 'resources/read', 'completion/complete']));
    expect(methods).not.toContain('initialize');
    expect(methods.some((m) => m.startsWith('notifications/'))).toBe(false);
    expect(methods).not.toContain('ping');
    expect(tools).toEqual(['add', 'echo']);
    expect(total).toBe(candidates.length);
    for (const c of mine) {
      expect(c.responseSeq, `${c.method} answered`).toBeGreaterThan(c.seq);
      const request = core.trace.store.get(c.seq)!;
      expect(request.dir).toBe('out');
      expect(request.rpc?.method).toBe(c.method);
      const response = core.trace.store.get(c.responseSeq!)!;
      expect(response.dir).toBe('in');
      expect(response.rpc?.id).toBe(request.rpc?.id);
    }
    expect(mine.find((c) => c.tool === 'echo')?.summary).toBe('echo({"text":"hello"})');
    // Narrowed by method.
    const onlyCalls = await call(core, 'replayCandidates', { source: 'live', only: ['tools/call'] });
    expect(new Set(onlyCalls.candidates.map((c) => c.method))).toEqual(new Set(['tools/call']));
  });

  it('against the same server: every deterministic answer is the same, and the replayed requests are in the live trace', async () => {
    const { candidates } = await call(core, 'replayCandidates', { source: 'live' });
    const seqs = candidates.filter((c) => c.serverId === fixtureId).map((c) => c.seq);
    const before = core.trace.store.size;
    const report = await call(core, 'replayRun', { source: 'live', seqs, confirmTools: ['echo', 'add'] });
    expect(report.target).toEqual({ serverId: fixtureId, serverName: 'fixture' });
    expect(report.skipped).toBe(0);
    expect(report.sent).toBe(seqs.length);
    for (const i of report.items) expect({ method: i.candidate.method, differences: i.differences.filter((d) => d.kind !== 'latency') }).toEqual({ method: i.candidate.method, differences: [] });
    expect(report.differ).toBe(0);
    expect(report.items.every((i) => i.same)).toBe(true);
    const add = item(report, 'tools/call', 'add');
    expect(add.old.schema).toEqual({ valid: true, errors: [] });
    expect(add.new.schema).toEqual({ valid: true, errors: [] });
    for (const i of report.items) {
      expect(i.old.seq).toBe(i.candidate.seq);
      expect(i.new.seq).toBeGreaterThan(before);
      expect(core.trace.store.get(i.new.seq!)?.rpc?.method).toBe(i.candidate.method);
      expect(i.new.latencyMs).toBeGreaterThanOrEqual(0);
      expect(i.old.latencyMs).toBeGreaterThanOrEqual(0);
    }
    expect(toolCallsSent(core, fixtureId, before)).toBe(2);
  });

  it('a tools/call without confirmation is not sent: skipped with why, and no tools/call reached the server', async () => {
    const before = core.trace.store.size;
    const report = await call(core, 'replayRun', { source: 'live', only: ['tools/call', 'prompts/get'], serverId: changedId, confirmTools: ['echo'] });
    const add = report.items.filter((i) => i.candidate.tool === 'add');
    expect(add.length).toBeGreaterThan(0);
    for (const i of add) {
      expect(i.skipped).toMatch(/not confirmed/);
      expect(i.new).toEqual({});
    }
    const echo = report.items.filter((i) => i.candidate.tool === 'echo');
    expect(echo.every((i) => !i.skipped)).toBe(true);
    // From the live trace: only the echo calls went out; from the server's side: it counted only echo.
    expect(toolCallsSent(core, changedId, before)).toBe(echo.length);
    await until('the changed server to report its calls', () => (changedStderr().includes('tools/call') ? true : undefined));
    expect(changedStderr()).not.toMatch(/tools\/call #\d+ add/);

    const none = await call(core, 'replayRun', { source: 'live', only: ['tools/call'], serverId: changedId });
    expect(none.sent).toBe(0);
    expect(none.skipped).toBe(none.items.length);
    expect(toolCallsSent(core, changedId, before)).toBe(echo.length);
  });

  it('from an imported JSONL trace against a changed server: differences reported with their paths', async () => {
    // The session as a file, streamed out and back in (browser mode's HTTP routes do the same).
    const exported = core.traceBulk.exportStream('jsonl');
    const imported = await core.traceBulk.importStream('session.jsonl', exported.chunks);
    const { candidates } = await call(core, 'replayCandidates', { source: imported.source });
    // The first session's requests to the fixture, as the file has them (its connect's lists, the four calls).
    const firstReplay = candidates.filter((c) => c.serverName === 'fixture');
    const original = firstReplay.filter((c) => c.seq < firstReplay.find((x) => x.method === 'resources/read')!.seq + 2);
    const report = await call(core, 'replayRun', { source: imported.source, seqs: original.map((c) => c.seq), serverId: changedId, confirmTools: ['echo', 'add'] });
    expect(report.source).toBe(imported.source);

    const echo = item(report, 'tools/call', 'echo');
    expect(echo.same).toBe(false);
    expect(echo.differences).toContainEqual(expect.objectContaining({ kind: 'result', path: '/content/0/text', old: 'echo: hello', new: 'ECHO: hello' }));

    const add = item(report, 'tools/call', 'add');
    expect(add.same).toBe(false);
    expect(add.new.schema?.valid).toBe(false);
    expect(add.new.schema?.errors.join('\n')).toMatch(/sum/);
    expect(add.differences).toContainEqual(expect.objectContaining({ kind: 'schema', path: '/structuredContent' }));
    expect(add.differences).toContainEqual(expect.objectContaining({ kind: 'result', path: '/structuredContent/sum', old: 5, new: '5' }));

    const greet = item(report, 'prompts/get');
    expect(greet.differences).toContainEqual(expect.objectContaining({ path: '/messages/0/content/text', old: 'Say hi to Ada!', new: 'Hello, Ada.' }));

    const readme = item(report, 'resources/read');
    expect(readme.differences).toEqual(expect.not.arrayContaining([expect.objectContaining({ kind: 'result' })]));
    expect(readme.same).toBe(true);

    const list = item(report, 'tools/list');
    const paths = list.differences.map((d) => `${d.path} ${d.message}`);
    expect(paths.some((p) => /^\/tools\/\d+ fail is gone$/.test(p))).toBe(true);
    expect(paths.some((p) => /^\/tools\/\d+ extra is new$/.test(p))).toBe(true);
    expect(paths.some((p) => /^\/tools\/\d+\/description /.test(p))).toBe(true);
    expect(report.differ).toBeGreaterThanOrEqual(4);
    console.log(`replay of ${report.items.length} recorded requests against the changed server: ${report.differ} differ, ${report.sent} sent, ${report.skipped} skipped`);
  });

  it('a request the target does not know is reported, not crashed on', async () => {
    // completion/complete: the changed server has no completions (it never declared them).
    const { candidates } = await call(core, 'replayCandidates', { source: 'live', only: ['completion/complete'] });
    // The recorded one and its replay to the same server (replayed requests are ordinary requests of the live trace).
    const recorded = candidates.filter((c) => c.serverId === fixtureId);
    expect(recorded).toHaveLength(2);
    const report = await call(core, 'replayRun', { source: 'live', seqs: [recorded[0]!.seq], serverId: changedId });
    const [only] = report.items;
    expect(only!.old.result).toMatchObject({ completion: { values: ['Ada', 'Alan'] } });
    expect(only!.new.error?.message).toBeTruthy();
    expect(only!.same).toBe(false);
    expect(only!.differences[0]).toMatchObject({ kind: 'error', path: '' });
    expect(report.differ).toBe(1);
    // And the connection is still there for the next request.
    expect(core.connections.get(changedId)!.status().state).toBe('connected');
  });
});

describe('replay against the published server-everything', () => {
  let core: Core;
  let id: string;

  beforeAll(async () => {
    core = newCore();
    id = await addStdio(core, 'everything', process.execPath, [everythingBin, 'stdio']);
    await call(core, 'callTool', { tool: 'echo', serverId: id, args: { text: 'replay me' } });
    await call(core, 'callTool', { tool: 'get-sum', serverId: id, args: { a: 40, b: 2 } });
    await call(core, 'getPrompt', { name: 'simple-prompt', serverId: id, args: {} });
  }, 60_000);

  afterAll(async () => {
    await core?.shutdown();
  });

  it('an unchanged server diffs empty (tools/list, echo, get-sum, simple-prompt)', async () => {
    const { candidates, tools } = await call(core, 'replayCandidates', { source: 'live', only: ['tools/list', 'tools/call', 'prompts/get'] });
    expect(tools).toEqual(['echo', 'get-sum']);
    // server-everything registers some tools after initialize (by the client's capabilities) and says
    // tools/list_changed: the first tools/list of the connect honestly differs from now. The last one is the interface as it stands.
    const lastList = candidates.filter((c) => c.method === 'tools/list').at(-1)!;
    const chosen = candidates.filter((c) => c.method !== 'tools/list' || c === lastList);
    const before = core.trace.store.size;
    const report = await call(core, 'replayRun', { source: 'live', seqs: chosen.map((c) => c.seq), confirmTools: tools });
    expect(report.target.serverName).toBe('everything');
    expect(report.items.map((i) => i.candidate.method).sort()).toEqual(['prompts/get', 'tools/call', 'tools/call', 'tools/list']);
    for (const i of report.items) expect({ method: i.candidate.method, tool: i.candidate.tool, differences: i.differences.filter((d) => d.kind !== 'latency') }).toEqual({ method: i.candidate.method, tool: i.candidate.tool, differences: [] });
    expect(report.differ).toBe(0);
    expect(toolCallsSent(core, id, before)).toBe(2);
  });

  it('without confirmation, no tools/call reaches it', async () => {
    const before = core.trace.store.size;
    const report = await call(core, 'replayRun', { source: 'live', only: ['tools/call'] });
    expect(report.sent).toBe(0);
    expect(report.items.every((i) => /not confirmed/.test(i.skipped ?? ''))).toBe(true);
    expect(toolCallsSent(core, id, before)).toBe(0);
  });
});

describe('replay from a recording of the library (opened read-only as rec-ID)', () => {
  let dir: string;
  let core: Core | undefined;

  afterAll(async () => {
    await core?.shutdown();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a session recorded by one run, replayed by the next against the same server: the same answers', async () => {
    dir = mkdtempSync(join(tmpdir(), 'sb-replay-lib-'));
    const { command, args } = stdioFixtureCommand();
    const first = createCore({ settings: new MemorySettingsStore(), carrier: 'browser', version: 't', recordings: { dir } });
    const firstId = await addStdio(first, 'fixture', command, args);
    await call(first, 'callTool', { tool: 'echo', serverId: firstId, args: { text: 'kept' } });
    await call(first, 'getPrompt', { name: 'greet', serverId: firstId, args: { name: 'Grace' } });
    await first.shutdown();

    core = createCore({ settings: new MemorySettingsStore(), carrier: 'browser', version: 't', recordings: { dir } });
    const serverId = await addStdio(core, 'fixture', command, args);
    const { recordings } = await call(core, 'recordingsList', {});
    const past = recordings.find((r) => !r.live);
    expect(past?.ended).toBe('clean');
    const opened = await call(core, 'recordingOpen', { id: past!.id });
    expect(opened.source).toBe(`rec-${past!.id}`);
    const { candidates, tools } = await call(core, 'replayCandidates', { source: opened.source, only: ['tools/call', 'prompts/get'] });
    expect(tools).toEqual(['echo']);
    expect(candidates.map((c) => c.summary)).toEqual(['echo({"text":"kept"})', 'greet {"name":"Grace"}']);
    const before = toolCallsSent(core, serverId, 0);
    const report = await call(core, 'replayRun', { source: opened.source, only: ['tools/call', 'prompts/get'], confirmTools: ['echo'] });
    expect(report.target).toEqual({ serverId, serverName: 'fixture' });
    expect(report.sent).toBe(2);
    expect(report.differ).toBe(0);
    // The old side is the recording's (its seqs), the new one this run's live trace.
    for (const i of report.items) {
      expect(i.old.seq).toBe(i.candidate.seq);
      expect(core.trace.store.get(i.new.seq!)?.rpc?.method).toBe(i.candidate.method);
    }
    expect(toolCallsSent(core, serverId, 0)).toBe(before + 1);
  }, 60_000);
});
