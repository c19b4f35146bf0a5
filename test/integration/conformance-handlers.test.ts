/**
 * conformanceRun / checkCancel through the core's dispatcher (what the app's carriers call): a
 * real server (the conformance-target fixture) in its own process, a real library in a temp dir.
 * Progress arrives as checkProgress events for the run's id; a second run for the same server is
 * refused while one goes; a stdio server runs through the stdio→HTTP bridge; the run's recording
 * is in the app's library; a server signed in with OAuth lends the suite its token.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerStatus } from '../../contract';
import type { CheckProgress, ConformanceReport } from '../../contract/checks';
import { createCore, type Core } from '../../main/core/app';
import { HeadlessLogin } from '../../main/core/auth/login';
import { FileSecretStore } from '../../main/core/auth/secret-store';
import { runServerConformance } from '../../main/core/conformance/server';
import { MemorySettingsStore } from '../../main/core/store/settings';
import { conformanceTargetStdio, startConformanceTarget } from '../fixtures/conformance-target/harness';
import { startOAuthFixture } from '../fixtures/oauth/harness';
import { allBytes } from '../support/all-bytes';
import type { ListeningProcess } from '../fixtures/spawn-listening';

let core: Core;
let target: ListeningProcess;
let dir: string;
const progress: CheckProgress[] = [];

async function call<T>(method: string, args: unknown): Promise<{ ok: true; result: T } | { ok: false; error: { code: string; message: string } }> {
  return (await core.dispatch(method as never, args as never)) as never;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sb-conformance-core-'));
  target = await startConformanceTarget();
  core = createCore({ settings: new MemorySettingsStore(), carrier: 'browser', version: 't', recordings: { dir: join(dir, 'recordings') }, proxies: false, connectAtStart: false });
  core.events.subscribe((event, payload) => {
    if (event === 'checkProgress') progress.push(payload as CheckProgress);
  });
}, 30_000);
afterAll(async () => {
  await core?.shutdown();
  await target?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('conformanceRun', () => {
  it('runs against an HTTP server, reports progress by run id, refuses a second run for the same server', async () => {
    const added = await call<ServerStatus>('addServer', { name: 'target', target: { type: 'http', url: target.url } });
    if (!added.ok) throw new Error(added.error.message);
    const serverId = added.result.id;
    const first = call<ConformanceReport>('conformanceRun', { serverId, runId: 'run-a', scenarios: ['server-initialize', 'tools-call-image'] });
    await expect.poll(() => progress.some((p) => p.runId === 'run-a')).toBe(true);
    const second = await call<ConformanceReport>('conformanceRun', { serverId, runId: 'run-b', scenarios: ['ping'] });
    expect(second).toMatchObject({ ok: false, error: { code: 'conflict', message: expect.stringContaining('already going') } });
    const reply = await first;
    if (!reply.ok) throw new Error(reply.error.message);
    const report = reply.result;
    expect(report).toMatchObject({ runId: 'run-a', serverId, counts: { passed: 1, failed: 1 } });
    expect(report.scenarios.find((s) => s.name === 'tools-call-image')?.checks[0]?.exchange).toMatchObject({ source: report.traceSource, serverId });
    expect(core.recordings!.list().find((r) => `rec-${r.id}` === report.traceSource)).toMatchObject({ name: 'conformance: target', kind: 'proxy' });
    expect(progress.filter((p) => p.runId === 'run-a').at(-1)).toMatchObject({ kind: 'conformance', label: 'done', done: 2, total: 2 });
    // Nothing to cancel once it finished.
    expect(await call('checkCancel', { runId: 'run-a' })).toMatchObject({ ok: true, result: { cancelled: false } });
  }, 90_000);

  it('a stdio server runs through the stdio→HTTP bridge: real verdicts, the failing exchange, DNS rebinding not applicable', async () => {
    const { command, args } = conformanceTargetStdio();
    const added = await call<ServerStatus>('addServer', { name: 'local', target: { type: 'stdio', command, args } });
    if (!added.ok) throw new Error(added.error.message);
    const reply = await call<ConformanceReport>('conformanceRun', { serverId: added.result.id, scenarios: ['server-initialize', 'tools-call-image', 'dns-rebinding-protection'] });
    if (!reply.ok) throw new Error(reply.error.message);
    const report = reply.result;
    expect(report.url).toMatch(/^stdio: /);
    expect(report.scenarios.map((s) => [s.name, s.verdict])).toEqual([
      ['server-initialize', 'passed'],
      ['tools-call-image', 'failed'],
      ['dns-rebinding-protection', 'not-applicable'],
    ]);
    expect(report.scenarios[2]!.reason).toContain('does not apply to a stdio server');
    expect(report.scenarios[1]!.checks[0]).toMatchObject({ message: 'No image content found', exchange: { source: report.traceSource } });
  }, 90_000);

  it('cancel by run id stops a run', async () => {
    const added = await call<ServerStatus>('addServer', { name: 'target2', target: { type: 'http', url: target.url } });
    if (!added.ok) throw new Error(added.error.message);
    const running = call<ConformanceReport>('conformanceRun', { serverId: added.result.id, runId: 'run-c', scenarios: ['server-initialize', 'ping', 'tools-list'] });
    await expect.poll(() => progress.some((p) => p.runId === 'run-c' && p.label === 'server-initialize'), { timeout: 30_000 }).toBe(true);
    expect(await call('checkCancel', { runId: 'run-c' })).toMatchObject({ ok: true, result: { cancelled: true } });
    const reply = await running;
    if (!reply.ok) throw new Error(reply.error.message);
    expect(reply.result.scenarios.map((s) => s.verdict)).toEqual(['skipped', 'skipped', 'skipped']);
    expect(reply.result.scenarios[0]!.reason).toBe('cancelled while it ran');
  }, 90_000);
});

describe('conformanceRun on a server signed in with OAuth', () => {
  it('the suite’s requests carry the server’s current access token (its client does no OAuth); the token is in no report or recording', async () => {
    const fx = await startOAuthFixture({ mode: 'dcr' });
    const oauthDir = mkdtempSync(join(tmpdir(), 'sb-conformance-oauth-'));
    const oauthCore = createCore({
      settings: new MemorySettingsStore(),
      carrier: 'browser',
      version: 't',
      secrets: new FileSecretStore(join(oauthDir, 'secrets.json')),
      login: new HeadlessLogin(),
      recordings: { dir: join(oauthDir, 'recordings') },
      proxies: false,
      connectAtStart: false,
    });
    try {
      const added = await oauthCore.dispatch('addServer', { name: 'protected', target: { type: 'http', url: fx.url, transport: 'streamable-http' }, retries: 0, pingIntervalSec: 0 });
      if (!added.ok) throw new Error(added.error.message);
      const id = (added.result as ServerStatus).id;
      await oauthCore.connections.get(id)!.connect();
      expect(oauthCore.connections.get(id)!.status().state).toBe('connected');
      const reply = await oauthCore.dispatch('conformanceRun', { serverId: id, scenarios: ['server-initialize', 'tools-list'] });
      if (!reply.ok) throw new Error(reply.error.message);
      const report = reply.result as ConformanceReport;
      expect(report.problem).toBeUndefined();
      expect(report.scenarios.map((s) => [s.name, s.verdict])).toEqual([
        ['server-initialize', 'passed'],
        ['tools-list', 'passed'],
      ]);
      // Without the token the same server refuses the suite (so the token is what made it pass).
      const bare = await runServerConformance({ url: new URL(fx.url), scenarios: ['server-initialize'], runId: 'bare', libraryDir: false, version: 't' });
      expect(bare.problemKind).toBe('unreachable');
      const secrets = readFileSync(join(oauthDir, 'secrets.json'), 'utf8');
      // The store keeps each record as a JSON string inside its JSON (quotes escaped).
      const token = /access_token\\?"\s*:\s*\\?"([^"\\]+)/.exec(secrets)?.[1];
      expect(token?.length ?? 0).toBeGreaterThan(10);
      expect(JSON.stringify(report)).not.toContain(token);
      expect(allBytes(join(oauthDir, 'recordings'))).not.toContain(token);
    } finally {
      await oauthCore.shutdown();
      await fx.close();
      rmSync(oauthDir, { recursive: true, force: true });
    }
  }, 120_000);
});
