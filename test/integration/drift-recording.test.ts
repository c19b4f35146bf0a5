/**
 * A server's interface as a recording saw it (#13), against the server now: the app records a
 * session with our fixture into its library (a file-backed data directory), quits, starts again;
 * the past recording's snapshot (opened through the library) and the live session's own equal
 * the live server, through the handlers and through `switchboard diff rec:ID:SERVER live:SERVER`
 * (the built CLI, a real process): exit 0 unchanged, 1 against the drift variant.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCore, type Core } from '../../main/core/app';
import { ConfSettingsStore } from '../../main/core/store/conf-settings';
import { stdioFixtureCommand } from '../fixtures/everything/harness';
import { call } from '../support/core-calls';

const ROOT = join(import.meta.dirname, '../..');
const CLI = join(ROOT, 'out/main/cli.js');
const fixture = stdioFixtureCommand();

let dir: string;
let core: Core;
let serverId: string;
let recorded: string;

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { cwd: ROOT, timeout: 90_000 }, (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }));
  });
}

const start = () => createCore({ settings: new ConfSettingsStore({ cwd: dir }), carrier: 'browser', version: 't', connectAtStart: false });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sb-drift-rec-'));
  core = start();
  serverId = (await call(core, 'addServer', { name: 'fixture', target: { type: 'stdio', ...fixture }, pingIntervalSec: 0 })).id;
  expect((await call(core, 'connectServer', { id: serverId })).state).toBe('connected');
  recorded = core.liveRecording!.id;
  await core.shutdown();
  core = start();
  expect((await call(core, 'connectServer', { id: serverId })).state).toBe('connected');
}, 60_000);

afterAll(async () => {
  await core?.shutdown();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("a recording's interface against live", () => {
  it('the past recording (opened through the library) and the live session diff empty against the server now', async () => {
    expect(core.recordings!.list().map((r) => r.id)).toContain(recorded);
    const past = await call(core, 'interfaceDiff', { a: { kind: 'recording', id: recorded, server: 'fixture' }, b: { kind: 'live', serverId } });
    expect(past.a.tools.map((t) => t.name)).toEqual(past.b.tools.map((t) => t.name));
    expect(past.a.missing).toEqual([]);
    expect(past.diff).toEqual({ same: true, changes: [] });
    const own = await call(core, 'interfaceDiff', { a: { kind: 'recording', id: core.liveRecording!.id, server: serverId }, b: { kind: 'live', serverId } });
    expect(own.diff).toEqual({ same: true, changes: [] });
    const unknown = await core.dispatch('interfaceSnapshot', { ref: { kind: 'recording', id: recorded, server: 'nobody' } });
    expect(unknown).toMatchObject({ ok: false, error: { code: 'not-found', message: expect.stringContaining('has no server "nobody"') } });
  });

  it('switchboard diff rec:ID:SERVER live:SERVER: 0 unchanged, 1 against the drift variant', async () => {
    const config = (name: string, args: string[]) => {
      const path = join(dir, name);
      writeFileSync(path, JSON.stringify({ mcpServers: { fixture: { command: fixture.command, args } } }));
      return path;
    };
    const same = await cli(['diff', `rec:${recorded}:fixture`, 'live:fixture', '--config', config('same.json', fixture.args), '--data-dir', dir, '--exit-code']);
    expect(same.stdout).toContain('No differences.');
    expect(same.code, same.stderr).toBe(0);
    const changed = await cli(['diff', `rec:${recorded}`, 'live:fixture', '--config', config('drift.json', [...fixture.args, '--variant', 'drift']), '--data-dir', dir, '--exit-code']);
    expect(changed.code, changed.stderr).toBe(1);
    expect(changed.stdout).toContain('tool `add`: new required argument `c`');
  }, 120_000);
});
