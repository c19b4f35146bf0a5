/**
 * `switchboard replay` as users run it (the built bin, real fixture servers over stdio): a session
 * recorded with `switchboard record`, replayed against the same server (exit 0, all the same),
 * against a changed one (exit 1, the differences with their paths), and refused without `--yes`
 * when stdin is not a terminal (exit 2, the tools named, nothing sent).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReplayReport } from '../../contract';
import { stdioFixtureCommand } from '../fixtures/everything/harness';
import { tsxNodeArgs } from '../fixtures/spawn-listening';

const ROOT = join(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/switchboard.mjs');
const CHANGED = join(import.meta.dirname, '../fixtures/replay/changed.ts');

let dir: string;
let recording: string;

function cli(args: string[], timeout = 90_000): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [BIN, ...args], { cwd: ROOT, timeout }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
    child.stdin?.end(); // not a terminal: a pipe that is closed
  });
}

const quote = (words: string[]) => words.map((w) => (/[\s"']/.test(w) ? JSON.stringify(w) : w)).join(' ');
const fixtureLine = () => {
  const { command, args } = stdioFixtureCommand();
  return quote([command, ...args]);
};
const changedLine = () => quote([process.execPath, ...tsxNodeArgs(CHANGED, [])]);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sb-replay-cli-'));
  recording = join(dir, 'session.jsonl');
  // Into the library of a data dir of its own too (record always keeps its session there).
  const recorded = await cli(['record', '--out', recording, '--data-dir', dir, '--name', 'replay me', '--stdio', fixtureLine(), '--call', 'echo', '--args', '{"text":"hello"}', '--call', 'add', '--args', '{"a":2,"b":3}']);
  expect(recorded.code, recorded.stderr).toBe(0);
  expect(readFileSync(recording, 'utf8')).toContain('"tools/call"');
}, 120_000);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('switchboard replay', () => {
  it('against the recording’s own server (from its header): exit 0, every answer the same', async () => {
    const run = await cli(['replay', recording, '--yes', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as ReplayReport;
    expect(report.differ).toBe(0);
    expect(report.skipped).toBe(0);
    expect(report.items.map((i) => i.candidate.tool ?? i.candidate.method)).toEqual(expect.arrayContaining(['tools/list', 'echo', 'add']));
    expect(report.items.every((i) => i.same)).toBe(true);
    expect(report.sent).toBe(report.items.length);
  });

  it('against a changed server: exit 1, the differences side by side with their paths', async () => {
    const run = await cli(['replay', recording, '--stdio', changedLine(), '--yes']);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toMatch(/≠ {2}differs {2}#\d+ tools\/call echo\(\{"text":"hello"\}\)/);
    expect(run.stdout).toMatch(/\/content\/0\/text\s+"echo: hello"\s+│ "ECHO: hello"/);
    expect(run.stdout).toMatch(/schema: {2}structuredContent does not match the tool's output schema/);
    expect(run.stdout).toMatch(/\/tools\/\d+\s+fail \(gone\)\s+│ \(none\)/);
    expect(run.stdout).toMatch(/\/tools\/\d+\s+\(none\)\s+│ extra \(new\)/);
    expect(run.stdout).toMatch(/\d+ requests: \d+ same, [1-9]\d* differ, 0 skipped/);
    const json = await cli(['replay', recording, '--stdio', changedLine(), '--yes', '--json']);
    expect(json.code).toBe(1);
    const report = JSON.parse(json.stdout) as ReplayReport;
    const echo = report.items.find((i) => i.candidate.tool === 'echo')!;
    expect(echo.differences).toContainEqual(expect.objectContaining({ path: '/content/0/text', old: 'echo: hello', new: 'ECHO: hello' }));
  });

  it('without --yes and no terminal: refuses, naming the tools, exit 2, nothing sent', async () => {
    const marker = join(dir, 'reached');
    // A "server" that would leave a file behind if the CLI ever started it.
    const config = join(dir, 'servers.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { probe: { command: process.execPath, args: ['-e', `require('fs').writeFileSync(${JSON.stringify(marker)}, 'x')`] } } }));
    const run = await cli(['replay', recording, '--config', config]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/would call "add", "echo" on .*nothing was sent\. Pass --yes/);
    expect(() => readFileSync(marker)).toThrow();
    expect(run.stdout).toBe('');
  });

  it('--only leaves tools/call out: no confirmation needed, exit 0', async () => {
    const run = await cli(['replay', recording, '--only', 'tools/list', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as ReplayReport;
    expect(report.items.map((i) => i.candidate.method)).toEqual(report.items.map(() => 'tools/list'));
    expect(report.items.length).toBeGreaterThan(0);
  });

  it('a recording of the library by its id: the same replay, exit 0; against the changed server, exit 1', async () => {
    const listed = await cli(['recordings', 'list', '--data-dir', dir, '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    const { recordings } = JSON.parse(listed.stdout) as { recordings: { id: string; name: string; events: number }[] };
    const mine = recordings.find((r) => r.name === 'replay me');
    expect(mine, listed.stdout).toBeDefined();
    const same = await cli(['replay', mine!.id, '--data-dir', dir, '--yes', '--json']);
    expect(same.code, same.stderr).toBe(0);
    const report = JSON.parse(same.stdout) as ReplayReport;
    expect(report.source).toBe(`rec-${mine!.id}`);
    expect(report.items.filter((i) => i.candidate.method === 'tools/call')).toHaveLength(2);
    expect(report.differ).toBe(0);
    const changed = await cli(['replay', mine!.id, '--data-dir', dir, '--stdio', changedLine(), '--yes']);
    expect(changed.code, changed.stderr).toBe(1);
    expect(changed.stdout).toMatch(/\/content\/0\/text\s+"echo: hello"\s+│ "ECHO: hello"/);
  });

  it('an unknown recording is a usage error', async () => {
    const run = await cli(['replay', 'no-such-recording', '--data-dir', dir, '--yes']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/No recording "no-such-recording"/);
  });
});
