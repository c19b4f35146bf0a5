/**
 * Server conformance (#16) end to end: the official runner (Node 26 from tools/node-runtime)
 * against real servers in their own processes, through Switchboard's recording proxy into a real
 * library. Verdicts asserted are the suite's own: server-everything (published) passes
 * server-initialize and fails dns-rebinding-protection (it does not check Host); our
 * conformance-target fixture passes tools-call-simple-text and fails tools-call-image (it answers
 * text on purpose), and the failing check points at the recorded answer to that tools/call.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckProgress } from '../../contract/checks';
import type { TraceEvent } from '../../contract/trace';
import { runServerConformance } from '../../main/core/conformance/server';
import { RecordingLibrary } from '../../main/core/recordings/library';
import { startConformanceTarget } from '../fixtures/conformance-target/harness';
import { startFixture } from '../fixtures/everything/harness';
import { allBytes } from '../support/all-bytes';
import { startEverything, type EverythingServer } from '../support/proxy-run';

const dirs: string[] = [];
const libraryDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'sb-conformance-'));
  dirs.push(dir);
  return join(dir, 'recordings');
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

async function eventsOf(dir: string, source: string): Promise<TraceEvent[]> {
  const opened = await new RecordingLibrary({ dir, retentionIntervalMs: 0 }).open(source.replace(/^rec-/, ''));
  try {
    return [...opened.hub.store.all()];
  } finally {
    opened.hub.close();
  }
}


describe('server conformance against the published server-everything (Streamable HTTP)', () => {
  let everything: EverythingServer;
  beforeAll(async () => {
    everything = await startEverything('streamableHttp');
  });
  afterAll(() => everything?.close());

  it('the whole suite: passes what it implements, marks what needs the suite\'s test tools not applicable, fails DNS rebinding protection', async () => {
    const dir = libraryDir();
    const progress: CheckProgress[] = [];
    const report = await runServerConformance({ url: new URL(everything.url), runId: 'r1', libraryDir: dir, version: 'test', onProgress: (p) => progress.push(p) });
    expect(report.problem).toBeUndefined();
    expect(report.suiteVersion).toBe('0.1.16');
    expect(report.scenarios.length).toBeGreaterThanOrEqual(30);
    const byName = new Map(report.scenarios.map((s) => [s.name, s]));
    for (const name of ['server-initialize', 'ping', 'tools-list', 'resources-list', 'prompts-list', 'logging-set-level']) expect(byName.get(name)?.verdict, name).toBe('passed');
    expect(byName.get('server-initialize')?.checks.map((c) => c.id)).toContain('server-initialize');
    expect(byName.get('tools-call-image')).toMatchObject({ verdict: 'not-applicable', reason: 'needs the tool test_image_content, which this server does not list', checks: [] });
    // server-everything declares completions but has no test_prompt_with_arguments.
    expect(byName.get('completion-complete')?.reason).toBe('needs the prompt test_prompt_with_arguments, which this server does not list');
    const dns = byName.get('dns-rebinding-protection')!;
    expect(dns.verdict).toBe('failed');
    expect(dns.checks.find((c) => c.id === 'localhost-host-rebinding-rejected')).toMatchObject({ verdict: 'failed', message: expect.stringContaining('Expected HTTP 4xx') });
    expect(report.counts.failed).toBe(report.scenarios.filter((s) => s.verdict === 'failed').length);
    expect(report.counts.notApplicable).toBe(report.scenarios.filter((s) => s.verdict === 'not-applicable').length);
    // The run is a proxied recording in the library; the probe and every scenario's client went through it.
    expect(report.traceSource).toMatch(/^rec-/);
    const events = await eventsOf(dir, report.traceSource!);
    expect(events.filter((e) => e.dir === 'out' && e.rpc?.method === 'initialize').length).toBeGreaterThanOrEqual(7);
    expect(progress.at(-1)).toMatchObject({ runId: 'r1', kind: 'conformance', label: 'done', done: report.scenarios.length, total: report.scenarios.length });
    expect(progress.some((p) => p.label === 'server-initialize')).toBe(true);
  }, 120_000);
});

describe('server conformance against our everything fixture (2.x SDK, Streamable HTTP)', () => {
  it('passes the lifecycle and list scenarios; its own tools are not the suite\'s', async () => {
    const fixture = await startFixture({ transport: 'http', era: 'legacy' });
    try {
      const report = await runServerConformance({ url: new URL(fixture.url), scenarios: ['server-initialize', 'ping', 'tools-list', 'prompts-list', 'logging-set-level', 'tools-call-simple-text'], runId: 'rf', libraryDir: libraryDir(), version: 'test' });
      expect(report.scenarios.map((s) => [s.name, s.verdict])).toEqual([
        ['server-initialize', 'passed'],
        ['ping', 'passed'],
        ['tools-list', 'passed'],
        ['prompts-list', 'passed'],
        ['logging-set-level', 'passed'],
        ['tools-call-simple-text', 'not-applicable'],
      ]);
    } finally {
      await fixture.close();
    }
  }, 90_000);
});

describe('server conformance against the conformance-target fixture', () => {
  it('a check that truly fails points at the recorded answer that failed it', async () => {
    const target = await startConformanceTarget();
    try {
      const dir = libraryDir();
      const report = await runServerConformance({ url: new URL(target.url), scenarios: ['tools-call-simple-text', 'tools-call-image', 'resources-read-text', 'prompts-get-simple'], runId: 'r2', libraryDir: dir, version: 'test' });
      const byName = new Map(report.scenarios.map((s) => [s.name, s]));
      expect(byName.get('tools-call-simple-text')?.verdict).toBe('passed');
      expect(byName.get('prompts-get-simple')?.verdict).toBe('passed');
      expect(byName.get('resources-read-text')).toMatchObject({ verdict: 'not-applicable', reason: 'needs the resource test://static-text, which this server does not list' });
      const image = byName.get('tools-call-image')!;
      expect(image.verdict).toBe('failed');
      const check = image.checks.find((c) => c.id === 'tools-call-image')!;
      expect(check).toMatchObject({ verdict: 'failed', message: 'No image content found', specRefs: [{ id: 'MCP-Tools-Call', url: expect.stringContaining('modelcontextprotocol.io') }] });
      expect(check.exchange?.source).toBe(report.traceSource);
      // The event at that seq is the server's answer to tools/call test_image_content.
      const events = await eventsOf(dir, report.traceSource!);
      const answer = events.find((e) => e.seq === check.exchange!.seq)!;
      expect(answer).toMatchObject({ dir: 'in', rpc: { kind: 'result' } });
      expect(JSON.stringify(answer.body)).toContain('no image here');
      const request = events.find((e) => e.dir === 'out' && e.rpc?.method === 'tools/call' && e.exchange === answer.exchange)!;
      expect((request.body as { params: { name: string } }).params.name).toBe('test_image_content');
      // Passing checks point nowhere.
      expect(byName.get('tools-call-simple-text')!.checks.every((c) => c.exchange === undefined)).toBe(true);
    } finally {
      await target.close();
    }
  }, 90_000);

  it('sends --header values through the proxy and keeps them out of the report and the recording', async () => {
    const token = 'sekrit-token-4f1c9a';
    const target = await startConformanceTarget({ token });
    try {
      const dir = libraryDir();
      const denied = await runServerConformance({ url: new URL(target.url), scenarios: ['server-initialize'], runId: 'r3', libraryDir: dir, version: 'test' });
      expect(denied.problemKind).toBe('unreachable');
      expect(denied.problem).toContain('did not initialize');
      const report = await runServerConformance({ url: new URL(target.url), headers: [['Authorization', `Bearer ${token}`]], scenarios: ['server-initialize', 'dns-rebinding-protection'], runId: 'r4', libraryDir: dir, version: 'test' });
      expect(report.scenarios.find((s) => s.name === 'server-initialize')?.verdict).toBe('passed');
      // The DNS rebinding scenario bypasses the proxy, so it could not carry the header: not applicable.
      expect(report.scenarios.find((s) => s.name === 'dns-rebinding-protection')).toMatchObject({ verdict: 'not-applicable', reason: expect.stringContaining('without authentication') });
      expect(JSON.stringify(report)).not.toContain(token);
      expect(allBytes(dir)).not.toContain(token);
    } finally {
      await target.close();
    }
  }, 90_000);

  it('cancel kills the runner: finished scenarios stay, the rest are skipped', async () => {
    const target = await startConformanceTarget();
    try {
      const controller = new AbortController();
      const scenarios = ['server-initialize', 'ping', 'tools-list', 'tools-call-simple-text', 'prompts-list'];
      const report = await runServerConformance({
        url: new URL(target.url),
        scenarios,
        runId: 'r5',
        libraryDir: libraryDir(),
        version: 'test',
        signal: controller.signal,
        onProgress: (p) => p.label === 'ping' && controller.abort(),
      });
      expect(report.scenarios.map((s) => s.name)).toEqual(scenarios);
      expect(report.scenarios[0]!.verdict).toBe('passed');
      expect(report.scenarios.slice(1).map((s) => s.verdict)).toEqual(['skipped', 'skipped', 'skipped', 'skipped']);
      expect(report.scenarios[1]!.reason).toBe('cancelled while it ran');
      expect(report.counts.skipped).toBe(4);
    } finally {
      await target.close();
    }
  }, 90_000);

  it('an unreachable server is a problem, not a list of failures', async () => {
    const report = await runServerConformance({ url: new URL('http://127.0.0.1:9/mcp'), scenarios: ['ping'], runId: 'r6', libraryDir: libraryDir(), version: 'test' });
    expect(report).toMatchObject({ problemKind: 'unreachable', scenarios: [] });
    expect(report.problem).toContain('switchboard doctor');
  }, 60_000);

  it('an unknown scenario and a missing runtime are problems in plain words', async () => {
    const unknown = await runServerConformance({ url: new URL('http://127.0.0.1:9/mcp'), scenarios: ['no-such-scenario'], runId: 'r7', libraryDir: false, version: 'test' });
    expect(unknown).toMatchObject({ problemKind: 'unknown-scenario', problem: expect.stringContaining('"no-such-scenario"') });
    const noNode = await runServerConformance({ url: new URL('http://127.0.0.1:9/mcp'), runId: 'r8', libraryDir: false, version: 'test', runtime: { problem: 'The official conformance runner needs Node 22 or later' } });
    expect(noNode).toMatchObject({ problemKind: 'runtime', scenarios: [], problem: expect.stringContaining('Node 22') });
  }, 60_000);
});
