/**
 * Interface diffs and drift (#13) against real servers: our `everything` fixture (stdio) and the
 * MCP project's published `@modelcontextprotocol/server-everything` (stdio). An unchanged server
 * diffs empty — two live snapshots across a reconnect (a new process), live against a baseline
 * pinned earlier, and a trace's snapshot (the live trace, and the same trace exported to JSONL
 * and read back) against live. The fixture's `--variant drift` (same server, changed) is flagged
 * on reconnect: a changed tool description (warning), a new required argument (breaking) and a
 * removed tool (breaking), each with its area and change; the baselines file is owner-only and
 * a restarted core reads it back.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DriftStatus, InterfaceSnapshot, ServerConfigInput } from '../../contract';
import { createCore, type Core } from '../../main/core/app';
import { diffInterfaces } from '../../main/core/drift/diff';
import { liveSnapshot, traceSnapshot } from '../../main/core/drift/interface';
import { ConfSettingsStore } from '../../main/core/store/conf-settings';
import { TraceHub } from '../../main/core/trace/hub';
import { importJsonl, textChunks } from '../../main/core/trace/import-jsonl';
import { DRIFTED_ECHO_DESCRIPTION } from '../fixtures/everything/server';
import { stdioFixtureCommand } from '../fixtures/everything/harness';
import { call, until } from '../support/core-calls';
import { exportText } from '../support/trace-export';

const require = createRequire(import.meta.url);
const EVERYTHING_BIN = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');

let dir: string;
let core: Core;
const ids = { fixture: '', published: '' };
const fixture = stdioFixtureCommand();
const fixtureTarget = (variant?: 'drift'): ServerConfigInput['target'] => ({ type: 'stdio', command: fixture.command, args: variant ? [...fixture.args, '--variant', variant] : fixture.args });
const drifts: DriftStatus[] = [];

function startCore(): Core {
  const next = createCore({ settings: new ConfSettingsStore({ cwd: dir }), carrier: 'browser', version: 't', connectAtStart: false, recordings: false });
  next.events.subscribe((event, payload) => {
    if (event === 'driftChanged') drifts.push(payload as DriftStatus);
  });
  return next;
}

async function reconnect(id: string): Promise<void> {
  await call(core, 'disconnectServer', { id });
  const status = await call(core, 'connectServer', { id });
  expect(status.state, status.error).toBe('connected');
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sb-drift-'));
  core = startCore();
  ids.fixture = (await call(core, 'addServer', { name: 'fixture', target: fixtureTarget(), pingIntervalSec: 0 })).id;
  ids.published = (await call(core, 'addServer', { name: 'server-everything', target: { type: 'stdio', command: process.execPath, args: [EVERYTHING_BIN, 'stdio'] }, pingIntervalSec: 0, requestTimeoutSec: 60 })).id;
  for (const id of Object.values(ids)) expect((await call(core, 'connectServer', { id })).state).toBe('connected');
}, 90_000);

afterAll(async () => {
  await core?.shutdown();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('an unchanged server diffs empty', () => {
  for (const which of ['fixture', 'published'] as const) {
    it(`${which}: two live snapshots across a reconnect (a new server process)`, async () => {
      const before = await call(core, 'interfaceSnapshot', { ref: { kind: 'live', serverId: ids[which] } });
      expect(before.tools.length).toBeGreaterThan(5);
      expect(before.missing).toEqual([]);
      if (which === 'published') expect(before.resources.length + before.prompts.length).toBeGreaterThan(0);
      await reconnect(ids[which]);
      const after = await call(core, 'interfaceSnapshot', { ref: { kind: 'live', serverId: ids[which] } });
      expect(after.takenAt).toBeGreaterThan(before.takenAt);
      const diff = diffInterfaces(before, after);
      expect(diff.changes).toEqual([]);
      expect(diff.same).toBe(true);
    }, 60_000);

    it(`${which}: the trace's snapshot (live trace, and the same trace exported and read back) equals live`, async () => {
      const connection = core.connections.get(ids[which])!;
      const live = liveSnapshot(connection, core.trace.store);
      const fromTrace = traceSnapshot(core.trace.store, ids[which], connection.config.name);
      expect(fromTrace.missing).toEqual([]);
      expect(diffInterfaces(fromTrace, live)).toEqual({ same: true, changes: [] });
      expect(fromTrace.tools.map((t) => t.name)).toEqual(live.tools.map((t) => t.name));

      // The trace exported as the app exports it (the stream behind the HTTP route and the save dialog), then read back.
      const exported = exportText(core, 'jsonl');
      const hub = new TraceHub(undefined, { store: { windowSize: 500 } });
      try {
        await importJsonl(textChunks(exported), { name: 'drift.jsonl', onEvent: (event) => hub.store.append({ ...event }) });
        const fromFile = traceSnapshot(hub.store, ids[which], connection.config.name);
        expect(diffInterfaces(fromFile, live)).toEqual({ same: true, changes: [] });
        expect(fromFile.protocolVersion).toBe(live.protocolVersion);
      } finally {
        hub.close();
      }
    }, 60_000);
  }

  it('live against a baseline pinned earlier: same after a reconnect, and the check is pushed', async () => {
    for (const id of Object.values(ids)) {
      const baseline = await call(core, 'baselinePin', { serverId: id });
      expect(baseline.snapshot.tools.length).toBeGreaterThan(0);
    }
    const pinnedAt = drifts.length;
    await reconnect(ids.published);
    const pushed = await until('a drift check of the published server after reconnecting', () => drifts.slice(pinnedAt).find((d) => d.serverId === ids.published));
    expect(pushed.state).toBe('same');
    const diff = await call(core, 'interfaceDiff', { a: { kind: 'baseline', serverId: ids.published }, b: { kind: 'live', serverId: ids.published } });
    expect(diff.diff).toEqual({ same: true, changes: [] });
    const status = await call(core, 'driftStatus', {});
    expect(status.find((s) => s.serverId === ids.fixture)?.state).toBe('same');
    expect(status.find((s) => s.serverId === ids.published)?.state).toBe('same');
    expect(statSync(join(dir, 'baselines.json')).mode & 0o777).toBe(0o600);
  }, 60_000);
});

describe('the drift variant of the fixture', () => {
  let changed: DriftStatus;

  it('is flagged on reconnect: a changed description, a new required argument and a removed tool', async () => {
    const from = drifts.length;
    await call(core, 'updateServer', { id: ids.fixture, config: { name: 'fixture', target: fixtureTarget('drift'), pingIntervalSec: 0 } });
    if (core.connections.get(ids.fixture)!.status().state !== 'connected') await call(core, 'connectServer', { id: ids.fixture });
    changed = await until('the drift flag of the changed fixture', () => drifts.slice(from).find((d) => d.serverId === ids.fixture && d.state === 'changed'));
    const changes = changed.diff!.changes.map((c) => ({ area: c.area, item: c.item, change: c.change, field: c.field, severity: c.severity, message: c.message }));
    expect(changes).toEqual([
      expect.objectContaining({ area: 'tools', item: 'add', change: 'changed', field: 'inputSchema.properties.c', severity: 'breaking', message: 'tool `add`: new required argument `c`' }),
      expect.objectContaining({ area: 'tools', item: 'echo', change: 'changed', field: 'description', severity: 'warning' }),
      expect.objectContaining({ area: 'tools', item: 'flood', change: 'removed', severity: 'breaking', message: 'tool `flood` was removed' }),
    ]);
    const description = changed.diff!.changes.find((c) => c.field === 'description')!;
    expect(description.message).toContain('rug pull');
    expect(description.new).toBe(DRIFTED_ECHO_DESCRIPTION);
    expect((await call(core, 'driftStatus', {})).find((s) => s.serverId === ids.fixture)?.state).toBe('changed');
  }, 60_000);

  it('a restarted core reads the baselines back and flags the change on its first connect', async () => {
    await core.shutdown();
    core = startCore();
    const status = await call(core, 'driftStatus', {});
    expect(status.find((s) => s.serverId === ids.fixture)?.state).toBe('unknown');
    const baseline: InterfaceSnapshot = await call(core, 'interfaceSnapshot', { ref: { kind: 'baseline', serverId: ids.fixture } });
    expect(baseline.tools.map((t) => t.name)).toContain('flood');
    const from = drifts.length;
    await call(core, 'connectServer', { id: ids.fixture });
    const flagged = await until('the drift flag after restarting', () => drifts.slice(from).find((d) => d.serverId === ids.fixture));
    expect(flagged.state).toBe('changed');
    expect(flagged.diff!.changes).toHaveLength(3);
    // Pinning the changed interface makes it the new normal.
    await call(core, 'baselinePin', { serverId: ids.fixture });
    expect((await call(core, 'driftStatus', {})).find((s) => s.serverId === ids.fixture)?.state).toBe('same');
    expect(await call(core, 'baselineClear', { serverId: ids.fixture })).toEqual({ cleared: true });
    expect((await call(core, 'driftStatus', {})).find((s) => s.serverId === ids.fixture)?.state).toBe('none');
  }, 60_000);
});
