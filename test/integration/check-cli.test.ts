/**
 * `switchboard check` (#16) as a CI runs it: the built CLI (`node out/main/cli.js`) as a real
 * process, against three real servers over stdio — our `everything` fixture and the published
 * server-memory and server-filesystem — with an expectations file (tools present/absent, latency
 * budgets on real calls, a token budget, the fixture's baseline pinned by the app).
 *
 * Passes (exit 0); then the fixture's drift variant (flood removed, add needs `c`) and a budget
 * the slow tool cannot meet: exit 1 and JUnit cases that say why; a server on a closed port:
 * exit 4 and an <error>; usage mistakes: exit 2. Every JUnit document is validated against the
 * Jenkins junit-10.xsd.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckReport } from '../../main/core/check/run';
import { stdioFixtureCommand } from '../fixtures/everything/harness';
import { hostileStdioCommand } from '../fixtures/hostile/harness';
import { pinBaselineIn } from '../support/pin-baseline';
import { validateJUnit } from '../support/junit-schema';

const ROOT = join(import.meta.dirname, '../..');
const CLI = join(ROOT, 'out/main/cli.js');
const require = createRequire(import.meta.url);
const bin = (name: string) => require.resolve(`@modelcontextprotocol/${name}/dist/index.js`);

let dir: string;
const fixture = stdioFixtureCommand();

function cli(args: string[], timeout = 90_000): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { cwd: ROOT, timeout }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

function write(name: string, value: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value, null, 2));
  return path;
}

function threeServers(name: string, fixtureArgs: string[] = []): string {
  const files = join(dir, 'files');
  mkdirSync(files, { recursive: true });
  return write(name, {
    mcpServers: {
      fixture: { command: fixture.command, args: [...fixture.args, ...fixtureArgs] },
      memory: { command: process.execPath, args: [bin('server-memory')], env: { MEMORY_FILE_PATH: join(files, 'memory.jsonl') } },
      filesystem: { command: process.execPath, args: [bin('server-filesystem'), files] },
    },
  });
}

const EXPECT = {
  servers: {
    fixture: {
      tools: { present: ['echo', 'add', 'slow_count', 'flood'], absent: ['debug_eval'] },
      prompts: { present: ['greet'] },
      calls: [
        { tool: 'echo', args: { text: 'hi' }, maxMs: 15_000 },
        { tool: 'slow_count', args: { steps: 1, delayMs: 10 }, maxMs: 15_000 },
      ],
      maxToolTokens: 5_000,
      baseline: true,
    },
    memory: { tools: { present: ['create_entities', 'read_graph'] }, calls: [{ tool: 'read_graph', maxMs: 15_000 }] },
    filesystem: { tools: { present: ['read_text_file', 'list_directory'], absent: ['run_shell'] } },
  },
};

/** The testcases of a JUnit document, with their outcome element's message. */
function cases(xml: string): { suite: string; name: string; outcome?: string; message?: string }[] {
  const out: { suite: string; name: string; outcome?: string; message?: string }[] = [];
  for (const suite of xml.matchAll(/<testsuite name="([^"]*)"[^>]*>([\s\S]*?)<\/testsuite>/g)) {
    for (const tc of suite[2]!.matchAll(/<testcase name="([^"]*)"[^>]*?(?:\/>|>([\s\S]*?)<\/testcase>)/g)) {
      const outcome = /<(failure|error|skipped) message="([^"]*)"/.exec(tc[2] ?? '');
      out.push({ suite: suite[1]!, name: tc[1]!, outcome: outcome?.[1], message: outcome?.[2] });
    }
  }
  return out;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sb-check-cli-'));
  // The app pins the fixture's baseline into its data directory, as a person would.
  await pinBaselineIn(dir, 'fixture', { type: 'stdio', ...fixture });
}, 60_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('switchboard check', () => {
  it('three servers meeting their expectations: exit 0, a readable report, valid JUnit', async () => {
    const junit = join(dir, 'pass.xml');
    const run = await cli(['check', '--config', threeServers('pass.json'), '--expect', write('expect.json', EXPECT), '--junit', junit, '--data-dir', dir]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^fixture: 8 tools, 1 prompts, \d+ resources, \d+ templates, tool list [\d,]+ tokens \(o200k_base\)$/m);
    expect(run.stdout).toContain('PASS  matches its pinned baseline');
    expect(run.stdout).toMatch(/PASS {2}call slow_count within 15000 ms/);
    expect(run.stdout).toMatch(/\d+ passed, 0 failed/);
    expect(run.stdout).toContain('check: passed');
    const xml = readFileSync(junit, 'utf8');
    expect(await validateJUnit(xml)).toEqual({ valid: true, errors: [] });
    const all = cases(xml);
    expect(new Set(all.map((c) => c.suite))).toEqual(new Set(['check.fixture', 'check.memory', 'check.filesystem', 'check.cross-server']));
    expect(all.filter((c) => c.outcome === 'failure' || c.outcome === 'error')).toEqual([]);
    expect(all).toContainEqual({ suite: 'check.fixture', name: 'tool flood present', outcome: undefined, message: undefined });
    expect(all).toContainEqual({ suite: 'check.memory', name: 'call read_graph within 15000 ms', outcome: undefined, message: undefined });
  }, 120_000);

  it('a tool removed, a budget exceeded, the baseline broken: exit 1, JUnit failures that say why; --json says the same', async () => {
    const expectations = structuredClone(EXPECT);
    expectations.servers.fixture.calls[1] = { tool: 'slow_count', args: { steps: 4, delayMs: 250 }, maxMs: 300 };
    const junit = join(dir, 'fail.xml');
    const args = ['check', '--config', threeServers('drift.json', ['--variant', 'drift']), '--expect', write('expect-fail.json', expectations), '--junit', junit, '--data-dir', dir];
    const run = await cli(args);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stdout).toContain('FAIL  tool flood present: expected tool "flood" is not listed');
    expect(run.stdout).toMatch(/FAIL {2}call slow_count within 300 ms: took \d+ ms, over the budget of 300 ms/);
    expect(run.stdout).toContain('check: FAILED');

    const xml = readFileSync(junit, 'utf8');
    expect(await validateJUnit(xml)).toEqual({ valid: true, errors: [] });
    const failed = cases(xml).filter((c) => c.outcome === 'failure');
    expect(failed.map((c) => `${c.suite} / ${c.name}`).sort()).toEqual(['check.fixture / call slow_count within 300 ms', 'check.fixture / matches its pinned baseline', 'check.fixture / tool flood present']);
    expect(failed.find((c) => c.name === 'tool flood present')!.message).toBe('expected tool &quot;flood&quot; is not listed (the server lists 7 tools)');
    expect(failed.find((c) => c.name.startsWith('call slow_count'))!.message).toMatch(/^took (\d+) ms, over the budget of 300 ms$/);
    expect(Number(/took (\d+) ms/.exec(failed.find((c) => c.name.startsWith('call slow_count'))!.message!)![1])).toBeGreaterThanOrEqual(1_000);
    expect(failed.find((c) => c.name === 'matches its pinned baseline')!.message).toMatch(/^3 changes since the baseline pinned .* \(2 breaking\):$/);
    expect(xml).toMatch(/breaking: tool `flood` was removed/);

    const json = await cli([...args.filter((a) => a !== '--junit' && a !== junit), '--json']);
    expect(json.code).toBe(1);
    const report = JSON.parse(json.stdout) as CheckReport;
    expect(report.ok).toBe(false);
    expect(report.totals.failed).toBe(3);
    const fixtureItems = report.servers.find((s) => s.server === 'fixture')!.items;
    expect(fixtureItems.find((i) => i.id === 'tools-present.flood')).toMatchObject({ verdict: 'failed', group: 'expect' });
    expect(fixtureItems.find((i) => i.id === 'call.slow_count')!.durationMs).toBeGreaterThan(300);
  }, 120_000);

  it('a server that cannot be reached: exit 4, an <error> for it, its expectations skipped, the others still checked', async () => {
    const port = await new Promise<number>((resolve) => {
      const server = createServer();
      server.listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    // Secrets in its URL and headers: the error names the URL, never them.
    const down = { type: 'http', url: `http://127.0.0.1:${port}/mcp?api_key=sb-secret-query-1&token=sb-secret-query-2`, headers: { Authorization: 'Bearer sb-secret-header-3' } };
    const config = write('down.json', { mcpServers: { down, fixture: { command: fixture.command, args: fixture.args, env: { API_TOKEN: 'sb-secret-env-4' } } } });
    const junit = join(dir, 'down.xml');
    const expectations = write('expect-down.json', { servers: { down: { tools: { present: ['anything'] } } } });
    const run = await cli(['check', '--config', config, '--expect', expectations, '--junit', junit]);
    expect(run.code, run.stdout + run.stderr).toBe(4);
    const json = await cli(['check', '--config', config, '--expect', expectations, '--json']);
    expect(json.code).toBe(4);
    expect((JSON.parse(json.stdout) as CheckReport).servers[0]!.error).toMatch(/127\.0\.0\.1:\d+\/mcp\?api_key=\[redacted\]/);
    for (const text of [run.stdout, run.stderr, json.stdout, json.stderr, readFileSync(junit, 'utf8')]) expect(text).not.toContain('sb-secret');
    expect(run.stdout).toContain('down: not connected');
    expect(run.stdout).toContain('check: down did not connect');
    const xml = readFileSync(junit, 'utf8');
    expect(await validateJUnit(xml)).toEqual({ valid: true, errors: [] });
    const all = cases(xml);
    expect(all.find((c) => c.suite === 'check.down' && c.name === 'connect')).toMatchObject({ outcome: 'error' });
    expect(all.find((c) => c.suite === 'check.down' && c.name === 'tool anything present')).toMatchObject({ outcome: 'skipped', message: 'not checked: the server did not connect' });
    expect(all.filter((c) => c.suite === 'check.fixture' && c.outcome === 'failure')).toEqual([]);
  }, 120_000);

  it('the hostile fixture: its poisoned names, hidden characters and broken schemas fail, and the JUnit stays valid and inert', async () => {
    const hostile = hostileStdioCommand();
    const junit = join(dir, 'hostile.xml');
    const run = await cli(['check', '--config', write('hostile.json', { mcpServers: { hostile } }), '--junit', junit]);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stdout).toMatch(/FAIL {2}schemas of deep_schema: inputSchema nests deeper than 64 levels/);
    expect(run.stdout).toMatch(/FAIL {2}schemas of nasty_args: .*Invalid regular expression/);
    expect(run.stdout).toMatch(/FAIL {2}lint: hidden-characters: \d+ findings/);
    expect(run.stdout).toMatch(/FAIL {2}lint: name-too-long: 1 finding/);
    // The terminal and the JUnit name hidden characters; neither carries them, nor an escape sequence.
    for (const text of [run.stdout, readFileSync(junit, 'utf8')]) expect(text).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/);
    const xml = readFileSync(junit, 'utf8');
    expect(xml).not.toContain('<script>');
    expect(await validateJUnit(xml)).toEqual({ valid: true, errors: [] });
  }, 120_000);

  it('usage mistakes exit 2 before connecting anything', async () => {
    const config = threeServers('usage.json');
    const typo = await cli(['check', '--config', config, '--expect', write('typo.json', { servers: { fixtrue: {} } })]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/no server named "fixtrue" in the config/);
    const bad = await cli(['check', '--config', config, '--expect', write('bad.json', '{"servers": {"fixture": {"calls": [{"tool": "echo"}]}}}')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/servers\.fixture\.calls\.0\.maxMs/);
    const none = await cli(['check']);
    expect(none.code).toBe(2);
    const missing = await cli(['check', '--config', join(dir, 'nope.json')]);
    expect(missing.code).toBe(2);
  }, 60_000);
});
