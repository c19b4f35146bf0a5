/**
 * The client conformance run itself (scripts/conformance-client.ts, test/conformance/client.mjs):
 * that the launcher only maps scenarios to the real CLI, that every scenario the suite lists
 * (bar extensions) has a mapping, that the baseline file is readable and justified, and — through
 * the official suite, with the built CLI — that a wrong mapping makes a scenario FAIL, that a
 * listed failure that passes is reported stale, and that without the suite's own document URL the
 * CLI offers Switchboard's default Client ID Metadata Document as its client id.
 * Needs `npx electron-vite build` (out/main/cli.js). About 15 s on 2 cores.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_CLIENT_METADATA_URL } from '../../main/core/auth/oauth-provider';
import { conformanceRuntime } from '../../main/core/conformance/runtime';
import * as runner from '../../scripts/conformance-client';

const REPO = resolve(__dirname, '..', '..');
const LAUNCHER = join(REPO, 'test', 'conformance', 'client.mjs');
const RUNNER = join(REPO, 'scripts', 'conformance-client.ts');
const BASELINE = join(REPO, 'test', 'conformance', 'expected-failures.yml');

interface LauncherModule {
  CLI: string;
  CONFORMANCE_CIMD_URL: string;
  invocations(scenario: string, url: string, context?: Record<string, unknown>): string[][] | undefined;
}

const launcher = (await import(LAUNCHER)) as LauncherModule;

function listed(): { names: string[]; skipped: string[] } {
  const rt = conformanceRuntime();
  if ('problem' in rt) throw new Error(rt.problem);
  return runner.parseScenarioList(execFileSync(rt.node, [rt.cli, 'list', '--client'], { encoding: 'utf8' }));
}

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('the launcher maps, it does not speak MCP', () => {
  it('spawns only the built CLI, with Node built-ins alone', () => {
    const source = readFileSync(LAUNCHER, 'utf8');
    const imports = [...source.matchAll(/^import .* from '([^']+)';$/gm)].map((m) => m[1]);
    expect(imports.length).toBeGreaterThan(0);
    for (const name of imports) expect(name).toMatch(/^node:/);
    // No sockets, no fetch, no SDK: exactly one process start, and it is the CLI.
    expect(source).not.toMatch(/\bfetch\(|node:http|node:net|createServer|@modelcontextprotocol/);
    expect([...source.matchAll(/\b(spawn|spawnSync|exec|execSync|execFile|execFileSync|fork)\(/g)].map((m) => m[0])).toEqual(['spawnSync(']);
    expect(source).toMatch(/spawnSync\(process\.execPath, argv,/);
    expect(source).toMatch(/let argv = \[CLI, \.\.\.args, '--data-dir', dataDir\];/);
    expect(launcher.CLI).toBe(join(REPO, 'out', 'main', 'cli.js'));
  });

  it('has a real CLI command for every client scenario the suite lists, and none for extensions', () => {
    const { names, skipped } = listed();
    expect(names).toEqual(expect.arrayContaining(['initialize', 'sse-retry', 'auth/basic-cimd', 'auth/2025-03-26-oauth-metadata-backcompat', 'auth/2025-03-26-oauth-endpoint-fallback']));
    expect(skipped.length).toBeGreaterThan(0);
    for (const name of names) {
      const runs = launcher.invocations(name, 'http://localhost:1/mcp', { client_id: 'id', client_secret: 'secret' });
      expect(runs, name).toBeDefined();
      for (const args of runs!) {
        expect(['tools', 'call'], name).toContain(args[0]);
        expect(args, name).toContain('http://localhost:1/mcp');
      }
    }
    expect(launcher.invocations('not-a-scenario', 'http://localhost:1/mcp')).toBeUndefined();
    // Pre-registered credentials from the suite's context become the CLI's flags.
    expect(launcher.invocations('auth/pre-registration', 'u', { client_id: 'c', client_secret: 's' })![0]).toEqual(expect.arrayContaining(['--client-id', 'c', '--client-secret', 's', '--oauth-headless']));
  });
});

describe('the runner', () => {
  it('reads the baseline file: empty today, every entry justified by a comment above it', () => {
    const text = readFileSync(BASELINE, 'utf8');
    const parsed = runner.parseExpectedFailures(text);
    expect(parsed.client).toEqual([]);
    const lines = text.split('\n');
    lines.forEach((line, i) => {
      if (/^\s+-\s+/.test(line)) expect(lines[i - 1], `line ${i + 1}`).toMatch(/^\s*#/);
    });
    expect(runner.parseExpectedFailures('# why\nclient:\n  # because\n  - sse-retry\nserver:\n  - ping # inline\n')).toEqual({ client: ['sse-retry'], server: ['ping'] });
    expect(() => runner.parseExpectedFailures('client:\n  sse-retry\n')).toThrow(/cannot read the line/);
  });

  it('counts a warning as a failure, as the suite does', () => {
    expect(runner.summarizeChecks([{ id: 'a', status: 'SUCCESS' }, { id: 'b', status: 'WARNING' }, { id: 'c', status: 'INFO' }])).toEqual({ success: 1, failure: 0, warning: 1, failed: ['b (WARNING)'] });
  });

  it('through the suite: a wrong mapping FAILs, a listed scenario that passes is STALE, and without the suite URL no metadata document is offered', async () => {
    expect(existsSync(launcher.CLI), 'out/main/cli.js: run npx electron-vite build').toBe(true);
    const out = mkdtempSync(join(tmpdir(), 'sb-cc-test-'));
    dirs.push(out);
    const baseline = join(out, 'baseline.yml');
    writeFileSync(baseline, '# listed on purpose: it passes, so the runner must call the entry stale\nclient:\n  - initialize\n');
    const broken = ['--elicitation', 'accept-defaults', '--client-metadata-url', launcher.CONFORMANCE_CIMD_URL].join(',');
    const result = await new Promise<{ code: number | null; stdout: string }>((done) => {
      execFile(
        process.execPath,
        ['--import', 'tsx', RUNNER, '--scenario', 'initialize', '--scenario', 'elicitation-sep1034-client-defaults', '--scenario', 'auth/basic-cimd', '--out', join(out, 'results'), '--expected-failures', baseline],
        { cwd: REPO, env: { ...process.env, SWITCHBOARD_CONFORMANCE_BREAK: broken }, timeout: 180_000 },
        (error, stdout) => done({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout }),
      );
    });
    expect(result.code, result.stdout).toBe(1);
    expect(result.stdout).toMatch(/^initialize\s+STALE \(passes; remove from expected-failures\)/m);
    expect(result.stdout).toMatch(/^elicitation-sep1034-client-defaults\s+FAIL/m);
    expect(result.stdout).toMatch(/^auth\/basic-cimd\s+FAIL/m);
    expect(result.stdout).toMatch(/^client conformance: 0 passed, 2 failed \(0 expected failures, 1 stale\) in [\d.]+ s$/m);

    const checksOf = (scenario: string) => {
      const found = runner.findChecks(join(out, 'results', scenario.replace(/[^\w.-]+/g, '_')));
      return JSON.parse(readFileSync(found!, 'utf8')) as { id: string; status: string; errorMessage?: string; details?: Record<string, unknown> }[];
    };
    // Without --elicitation accept-defaults the CLI declines, and the suite's server says so.
    expect(checksOf('elicitation-sep1034-client-defaults')).toContainEqual(expect.objectContaining({ status: 'FAILURE', errorMessage: "Expected action 'accept', got 'decline'" }));
    // Without the suite's URL the CLI registers dynamically (the suite's server offers registration
    // too, and Switchboard's own document is used only where nothing else could sign in), so the
    // client id the suite sees is not a metadata document URL at all.
    const used = checksOf('auth/basic-cimd').find((c) => c.id === 'cimd-client-id-used');
    expect(used).toMatchObject({ status: 'WARNING' });
    expect(used?.details?.actualClientId).not.toBe(launcher.CONFORMANCE_CIMD_URL);
    expect(used?.details?.actualClientId).not.toBe(DEFAULT_CLIENT_METADATA_URL);
    const summary = JSON.parse(readFileSync(join(out, 'results', 'summary.json'), 'utf8')) as { failed: number; stale: number };
    expect(summary).toMatchObject({ failed: 2, stale: 1 });
  }, 200_000);
});
