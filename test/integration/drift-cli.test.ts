/**
 * `switchboard diff A B` (#13) as users run it: the built CLI (`node out/main/cli.js`) as a real
 * process, against our `everything` fixture and the published server-everything over stdio.
 * Unchanged: live vs live, a baseline pinned by the app (its baselines.json in --data-dir) vs live,
 * and a trace recorded by `switchboard record` vs live all exit 0 with --exit-code and say "No
 * differences". The fixture's drift variant exits 1 and names the three changes (human output
 * and --json); a usage error exits 2.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InterfaceDiff } from '../../contract';
import { stdioFixtureCommand } from '../fixtures/everything/harness';
import { pinBaselineIn } from '../support/pin-baseline';

const ROOT = join(import.meta.dirname, '../..');
const CLI = join(ROOT, 'out/main/cli.js');
const require = createRequire(import.meta.url);
const EVERYTHING_BIN = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');

let dir: string;
const fixture = stdioFixtureCommand();
const quoted = (words: string[]) => words.map((w) => JSON.stringify(w)).join(' ');

function cli(args: string[], timeout = 90_000): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { cwd: ROOT, timeout }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

function config(name: string, variant?: 'drift'): string {
  const path = join(dir, `${name}.json`);
  writeFileSync(path, JSON.stringify({ mcpServers: { fixture: { command: fixture.command, args: variant ? [...fixture.args, '--variant', variant] : fixture.args } } }));
  return path;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sb-drift-cli-'));
  // The app pins the fixture's baseline into its data directory, as a person would.
  await pinBaselineIn(dir, 'fixture', { type: 'stdio', ...fixture });
}, 60_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('switchboard diff', () => {
  it('unchanged: live vs live and baseline vs live exit 0 with --exit-code', async () => {
    const same = config('same');
    const live = await cli(['diff', 'live:fixture', 'live:fixture', '--config', same, '--exit-code']);
    expect(live.stdout).toContain('No differences.');
    expect(live.code, live.stderr).toBe(0);
    const pinned = await cli(['diff', 'baseline:fixture', 'live:fixture', '--config', same, '--data-dir', dir, '--exit-code']);
    expect(pinned.stdout).toContain('No differences.');
    expect(pinned.code, pinned.stderr).toBe(0);
  }, 120_000);

  it('the drift variant: exit 1, the three changes named, in words and as JSON', async () => {
    const changed = config('changed', 'drift');
    const human = await cli(['diff', 'baseline:fixture', 'live:fixture', '--config', changed, '--data-dir', dir, '--exit-code']);
    expect(human.code, human.stderr).toBe(1);
    expect(human.stdout).toContain('3 changes: 2 breaking, 1 warning, 0 info');
    expect(human.stdout).toMatch(/BREAKING {2}tool `add`: new required argument `c`/);
    expect(human.stdout).toMatch(/WARNING {3}tool `echo`: description changed/);
    expect(human.stdout).toMatch(/BREAKING {2}tool `flood` was removed/);

    const json = await cli(['diff', 'baseline:fixture', 'live:fixture', '--config', changed, '--data-dir', dir, '--json']);
    expect(json.code, json.stderr).toBe(0); // without --exit-code a difference is not a failure
    const { diff } = JSON.parse(json.stdout) as { diff: InterfaceDiff };
    expect(diff.same).toBe(false);
    expect(diff.changes.map((c) => [c.area, c.item, c.change, c.severity])).toEqual([
      ['tools', 'add', 'changed', 'breaking'],
      ['tools', 'echo', 'changed', 'warning'],
      ['tools', 'flood', 'removed', 'breaking'],
    ]);
  }, 120_000);

  it('a trace written by `switchboard record` vs live: fixture and the published server-everything', async () => {
    for (const [label, words] of [
      ['fixture', [fixture.command, ...fixture.args]],
      ['server-everything', [process.execPath, EVERYTHING_BIN, 'stdio']],
    ] as const) {
      const trace = join(dir, `${label}.jsonl`);
      const recorded = await cli(['record', '--out', trace, '--for', '1500ms', '--data-dir', dir, '--stdio', quoted([...words])]);
      expect(recorded.code, recorded.stderr).toBe(0);
      const result = await cli(['diff', `file:${trace}`, 'live', '--stdio', quoted([...words]), '--exit-code']);
      expect(result.stdout, label).toContain('No differences.');
      expect(result.code, `${label}: ${result.stderr}`).toBe(0);
      expect(result.stdout).not.toContain('Not compared');
    }
  }, 180_000);

  it('usage errors exit 2', async () => {
    const bad = await cli(['diff', 'nonsense:x', 'live:fixture']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('is not something diff compares');
    const one = await cli(['diff', 'live:fixture']);
    expect(one.code).toBe(2);
    const noBaseline = await cli(['diff', 'baseline:nobody', 'baseline:fixture', '--data-dir', dir]);
    expect(noBaseline.code).toBe(2);
    expect(noBaseline.stderr).toContain('No baseline for "nobody"');
  }, 60_000);
});
