/**
 * The connection doctor against real sockets, servers and processes made here: each breakage is
 * diagnosed at the right step with the right words, healthy servers (our fixture in both eras, the
 * published server-everything over HTTP and stdio) pass every step, no secret reaches a report,
 * and the CLI prints the steps and exits 1 on a failure (0 when healthy).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DoctorReport, DoctorStep } from '../../contract/checks';
import type { ServerTarget } from '../../contract';
import type { CheckProgress } from '../../contract/checks';
import { createCore } from '../../main/core/app';
import { HeadlessLogin } from '../../main/core/auth/login';
import { FileSecretStore } from '../../main/core/auth/secret-store';
import { MemorySettingsStore } from '../../main/core/store/settings';
import { runDoctor } from '../../main/core/doctor';
import { ConfSettingsStore } from '../../main/core/store/conf-settings';
import { call } from '../support/core-calls';
import { startFixture, stdioFixtureCommand, type RunningFixture } from '../fixtures/everything/harness';
import { startOAuthFixture, type RunningOAuthFixture } from '../fixtures/oauth/harness';
import { EVERYTHING_BIN, startEverything, type EverythingServer } from '../support/proxy-run';
import { EXITS_AT_ONCE, LOGS_ON_STDOUT, httpServer, httpsServer, refusedPort, type TestServer } from '../support/doctor-servers';

const http = (url: string, headers: Record<string, string> = {}): ServerTarget => ({ type: 'http', url, headers, transport: 'auto' });
const stdio = (command: string, args: string[] = []): ServerTarget => ({ type: 'stdio', command, args, env: {}, nonSecretEnv: [] });
const FAST = { stepTimeoutMs: 4_000, protocolTimeoutMs: 8_000 };

function step(report: DoctorReport, id: string): DoctorStep {
  const found = report.steps.find((s) => s.id === id);
  if (!found) throw new Error(`no step ${id} in ${report.steps.map((s) => s.id).join(', ')}`);
  return found;
}

/** The report names `id` as the first failure, with these words; every later step that could not run is skipped. */
function brokeAt(report: DoctorReport, id: string, words: RegExp, hint?: RegExp): void {
  expect(report.firstFailure, report.summary).toBe(id);
  const failed = step(report, id);
  expect(failed.verdict).toBe('failed');
  expect(failed.detail).toMatch(words);
  if (hint) expect(failed.hint ?? '').toMatch(hint);
  expect(report.summary).toContain(failed.title);
}

function healthy(report: DoctorReport): void {
  const bad = report.steps.filter((s) => s.verdict === 'failed' || s.verdict === 'warning');
  expect(bad.map((s) => `${s.id}: ${s.detail}`)).toEqual([]);
  expect(report.firstFailure).toBeUndefined();
  expect(report.summary).toMatch(/^Fine/);
}

describe('doctor: HTTP breakages', () => {
  const servers: TestServer[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });

  it('a refused port: TCP connect, "nothing is listening", later steps skipped', async () => {
    const port = await refusedPort();
    const report = await runDoctor(http(`http://127.0.0.1:${port}/mcp`), FAST);
    expect(step(report, 'dns').verdict).toBe('ok');
    brokeAt(report, 'tcp', /Connection refused.*nothing is listening/, /Start the server|port/);
    for (const id of ['http', 'content-type', 'discover', 'initialize-2025', 'list', 'listen']) expect(step(report, id).verdict).toBe('skipped');
  });

  it('an unknown host under .invalid: DNS', async () => {
    const report = await runDoctor(http('http://no-such-server.invalid/mcp'), FAST);
    brokeAt(report, 'dns', /no-such-server\.invalid/);
    expect(step(report, 'dns').detail).toMatch(/does not resolve|lookup .* failed/);
    expect(step(report, 'tcp').verdict).toBe('skipped');
  });

  it('an expired certificate: TLS, with the date', async () => {
    const server = await httpsServer({ expired: true });
    servers.push(server);
    const report = await runDoctor(http(server.url), FAST);
    brokeAt(report, 'tls', /expired on \d{4}-\d{2}-\d{2}/, /Renew/);
    expect(step(report, 'tls').facts.some((f) => f.label === 'certificate' && f.value.includes('127.0.0.1'))).toBe(true);
    expect(step(report, 'http').verdict).toBe('skipped');
  });

  it('a self-signed certificate: TLS, "self-signed"', async () => {
    const server = await httpsServer({ expired: false });
    servers.push(server);
    const report = await runDoctor(http(server.url), FAST);
    brokeAt(report, 'tls', /self-signed/, /NODE_EXTRA_CA_CERTS|trust/);
    expect(step(report, 'tls').detail).not.toMatch(/expired|does not name/);
  });

  it('a certificate for another host name: TLS says both what is wrong with it and whom it names', async () => {
    const server = await httpsServer({ expired: false, name: 'api.example.test' });
    servers.push(server);
    const report = await runDoctor(http(server.url), FAST);
    brokeAt(report, 'tls', /self-signed.*does not name 127\.0\.0\.1/);
    expect(step(report, 'tls').facts.find((f) => f.label === 'certificate')?.value).toMatch(/api\.example\.test/);
  });

  it('a 404 path: HTTP, "nothing is served at this path"', async () => {
    const server = await httpServer((_req, res) => {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('Not Found');
    }, '/wrong');
    servers.push(server);
    const report = await runDoctor(http(server.url), FAST);
    brokeAt(report, 'http', /404 Not Found at \/wrong/, /\/mcp/);
    expect(step(report, 'tcp').verdict).toBe('ok');
  });

  it('a server that answers HTML: content type, "a web page, not an MCP endpoint"', async () => {
    const server = await httpServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><html><body>Welcome</body></html>');
    }, '/');
    servers.push(server);
    const report = await runDoctor(http(server.url), FAST);
    brokeAt(report, 'content-type', /serves a web page.*not an MCP endpoint/);
    expect(step(report, 'http').verdict).toBe('ok');
    expect(step(report, 'initialize-2025').verdict).toBe('skipped');
  });

  it('hostile answers: one that never comes times out at its step; an endless body is read only up to the bound', async () => {
    const silent = await httpServer(() => undefined);
    servers.push(silent);
    const hung = await runDoctor(http(silent.url), { stepTimeoutMs: 500, protocolTimeoutMs: 500 });
    brokeAt(hung, 'http', /Timed out: no answer within 0\.5 s/);
    expect(hung.durationMs).toBeLessThan(10_000);

    const endless = await httpServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = 'x'.repeat(16 * 1024);
      const pump = () => {
        while (res.write(chunk));
        res.once('drain', pump);
      };
      pump();
      res.on('close', () => res.removeAllListeners('drain'));
    });
    servers.push(endless);
    const flooded = await runDoctor(http(endless.url), { stepTimeoutMs: 2_000, protocolTimeoutMs: 1_000 });
    expect(step(flooded, 'http').verdict).toBe('ok');
    brokeAt(flooded, 'content-type', /not a JSON-RPC message/);
    expect(step(flooded, 'content-type').facts.find((f) => f.label === 'body (start)')!.value.length).toBeLessThanOrEqual(300);
  });

  it('406 to our Accept: content type says what it expects', async () => {
    const server = await httpServer((_req, res) => {
      res.writeHead(406, { 'content-type': 'application/json' });
      res.end('{"error":"Not Acceptable"}');
    });
    servers.push(server);
    const report = await runDoctor(http(server.url), FAST);
    brokeAt(report, 'content-type', /406/, /it expects Accept: application\/json, text\/event-stream/);
  });

  it('a 401 without metadata: protected resource metadata, and the header is never printed', async () => {
    const secret = 'hdr-secret-0123456789abcdef';
    const server = await httpServer((req, res) => {
      // Hostile: it echoes the credential it was sent in its challenge.
      res.writeHead(req.url?.startsWith('/.well-known') ? 404 : 401, { 'www-authenticate': `Bearer error="invalid_token", error_description="token ${String(req.headers.authorization ?? '')} refused"` });
      res.end();
    });
    servers.push(server);
    const report = await runDoctor(http(server.url, { Authorization: `Bearer ${secret}`, 'X-Api-Key': 'apikey-987654321' }), FAST);
    brokeAt(report, 'prm', /answers 401 but publishes no protected resource metadata/, /Authorization: Bearer/);
    expect(step(report, 'http').verdict).toBe('ok');
    expect(step(report, 'asm').verdict).toBe('skipped');
    expect(step(report, 'discover').verdict).toBe('skipped');
    const text = JSON.stringify(report);
    expect(text).not.toContain(secret);
    expect(text).not.toContain('apikey-987654321');
    expect(text).toContain('[redacted]');
  });
});

describe('doctor: OAuth metadata', () => {
  let oauth: RunningOAuthFixture;
  beforeAll(async () => {
    oauth = await startOAuthFixture({ mode: 'dcr' });
  });
  afterAll(async () => oauth?.close());

  it('a protected server: metadata, authorization server and DCR found; a refused token says so and is never shown', async () => {
    const token = 'not-a-real-token-5f1e2d3c4b';
    const report = await runDoctor(http(oauth.url), { ...FAST, bearerToken: token });
    expect(step(report, 'prm').verdict).toBe('ok');
    expect(step(report, 'prm').detail).toMatch(/authorization server is http:\/\/127\.0\.0\.1/);
    expect(step(report, 'prm').detail).toMatch(/token that was sent was refused/);
    expect(step(report, 'asm').verdict).toBe('ok');
    expect(step(report, 'registration').verdict).toBe('ok');
    expect(step(report, 'registration').detail).toMatch(/dynamic registration/);
    expect(step(report, 'initialize-2025').verdict).toBe('skipped');
    expect(step(report, 'initialize-2025').detail).toMatch(/sign in/);
    expect(JSON.stringify(report)).not.toContain(token);
  });

  it('doctorRun on a signed-in server sends its token: every step passes and the token is nowhere in the report', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-doctor-oauth-'));
    const core = createCore({ settings: new MemorySettingsStore(), carrier: 'browser', version: 't', secrets: new FileSecretStore(join(dir, 'secrets.json')), login: new HeadlessLogin(), connectAtStart: false, recordings: false });
    try {
      const { id } = await call(core, 'addServer', { name: 'protected', target: { type: 'http', url: oauth.url, transport: 'streamable-http' }, retries: 0, pingIntervalSec: 0 });
      expect((await call(core, 'connectServer', { id })).state).toBe('connected');
      const tokens = await core.connections.get(id)!.authProvider()!.tokens();
      expect(tokens?.access_token).toBeTruthy();
      const report = await call(core, 'doctorRun', { serverId: id });
      healthy(report);
      expect(step(report, 'prm').detail).toMatch(/accepted the credentials/);
      expect(step(report, 'initialize-2025').verdict).toBe('ok');
      expect(JSON.stringify(report)).not.toContain(tokens!.access_token);
    } finally {
      await core.shutdown();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('doctor: stdio breakages', () => {
  it('a command that does not exist: command found, "Command not found"', async () => {
    const report = await runDoctor(stdio('switchboard-no-such-command-4711', ['--flag']), FAST);
    brokeAt(report, 'stdio-command', /Command not found: "switchboard-no-such-command-4711"/, /Install it|full path/);
    expect(step(report, 'stdio-start').verdict).toBe('skipped');
  });

  it("secrets of a stdio config (env values, --token) never reach the report, even when the server prints them", async () => {
    const script = `console.error('using key ' + process.env.MY_API_KEY + ' and ' + process.argv.at(-1)); process.exit(1)`;
    const target: ServerTarget = { type: 'stdio', command: process.execPath, args: ['-e', script, '--', '--token', 'arg-secret-11223344'], env: { MY_API_KEY: 'env-secret-55443322' }, nonSecretEnv: [] };
    const report = await runDoctor(target, FAST);
    expect(report.firstFailure).toBe('stdio-exit');
    expect(step(report, 'stderr').detail).toMatch(/using key \[redacted\]/);
    const text = JSON.stringify(report);
    expect(text).not.toContain('env-secret-55443322');
    expect(text).not.toContain('arg-secret-11223344');
  });

  it('a file that is not executable: executable', async () => {
    const report = await runDoctor(stdio(resolve('package.json')), FAST);
    brokeAt(report, 'stdio-executable', /not executable/, /chmod \+x/);
  });

  it('a server that prints logs on stdout: stdout, with the first offending line', async () => {
    const report = await runDoctor(stdio(process.execPath, ['-e', LOGS_ON_STDOUT]), FAST);
    brokeAt(report, 'stdio-stdout', /stdout carries log lines.*"Server starting on stdio, log level info"/, /must log to stderr/);
    expect(step(report, 'stdio-exit').verdict).toBe('ok');
    // The app's client still gets through (it skips what is not JSON): the rest is judged as usual.
    expect(step(report, 'initialize-2025').verdict).toBe('ok');
  });

  it('a server that exits at once: stays up, with its code and stderr', async () => {
    const report = await runDoctor(stdio(process.execPath, ['-e', EXITS_AT_ONCE]), FAST);
    brokeAt(report, 'stdio-exit', /exited with code 3 .*before answering initialize/, /MY_API_KEY is not set/);
    expect(step(report, 'stdio-start').verdict).toBe('ok');
    expect(step(report, 'stderr').detail).toMatch(/MY_API_KEY is not set/);
    expect(step(report, 'initialize-2025').verdict).toBe('skipped');
  });
});

describe('doctor: healthy servers pass every step', () => {
  const running: (RunningFixture | EverythingServer | TestServer)[] = [];
  afterAll(async () => {
    await Promise.all(running.map((r) => r.close()));
  });

  it('our fixture over HTTP, 2025 era only', async () => {
    const fx = await startFixture({ transport: 'http', era: 'legacy' });
    running.push(fx);
    const report = await runDoctor(http(fx.url), FAST);
    healthy(report);
    expect(step(report, 'discover').verdict).toBe('info');
    expect(step(report, 'initialize-2025').verdict).toBe('ok');
    expect(step(report, 'list').detail).toMatch(/tools\/list 8 item/);
    expect(step(report, 'listen').verdict).toBe('ok');
  });

  it('a redirect to another origin: HTTP warns with each hop (no credentials sent on) and the rest passes', async () => {
    const fx = await startFixture({ transport: 'http', era: 'legacy' });
    running.push(fx);
    const target = new URL(fx.url);
    const redirector = await httpServer((req, res) => {
      res.writeHead(307, { location: `http://localhost:${target.port}${target.pathname}` });
      res.end();
    }, '/old');
    running.push(redirector);
    const report = await runDoctor(http(redirector.url, { Authorization: 'Bearer redirect-secret-1234567' }), FAST);
    const hop = step(report, 'http');
    expect(hop.verdict).toBe('warning');
    expect(hop.detail).toMatch(/after 1 redirect\(s\).*leaves the origin: credentials are not sent on/);
    expect(hop.facts.map((f) => f.value)).toEqual([expect.stringMatching(/^307 .*→ http:\/\/localhost:/), expect.stringMatching(/^200 /)]);
    expect(step(report, 'content-type').verdict).toBe('ok');
    expect(JSON.stringify(report)).not.toContain('redirect-secret-1234567');

    // The hop by hand carries no credentials to the other origin.
    const seen: (string | undefined)[] = [];
    const elsewhere = await httpServer((req, res) => {
      seen.push(req.headers.authorization);
      res.writeHead(404);
      res.end();
    });
    running.push(elsewhere);
    const away = await httpServer((_req, res) => {
      res.writeHead(308, { location: elsewhere.url.replace('127.0.0.1', 'localhost') });
      res.end();
    });
    running.push(away);
    const lost = await runDoctor(http(away.url, { Authorization: 'Bearer redirect-secret-1234567' }), FAST);
    brokeAt(lost, 'http', /404 Not Found at \/mcp after 1 redirect/);
    // The POST, then the GET that looks for a legacy stream: neither with the header.
    expect(seen).toEqual([undefined, undefined]);
  });

  it('our fixture over HTTP, 2026 era only', async () => {
    const fx = await startFixture({ transport: 'http', era: 'modern' });
    running.push(fx);
    const report = await runDoctor(http(fx.url), FAST);
    healthy(report);
    expect(step(report, 'discover').verdict).toBe('ok');
    expect(step(report, 'discover').facts.find((f) => f.label === 'protocol version')?.value).toBe('2026-07-28');
    expect(step(report, 'list').detail).toMatch(/2026-07-28 era: tools\/list 8 item/);
  });

  it('our fixture over stdio, both eras', async () => {
    const { command, args } = stdioFixtureCommand();
    const report = await runDoctor(stdio(command, args), FAST);
    healthy(report);
    expect(step(report, 'discover').verdict).toBe('ok');
    expect(step(report, 'initialize-2025').verdict).toBe('ok');
  });

  it('server-everything over Streamable HTTP', async () => {
    const everything = await startEverything('streamableHttp');
    running.push(everything);
    const report = await runDoctor(http(everything.url), FAST);
    healthy(report);
    expect(step(report, 'initialize-2025').verdict).toBe('ok');
    expect(step(report, 'list').verdict).toBe('ok');
  });

  it('server-everything over legacy HTTP+SSE: found from a refused POST (auto), and as configured (sse)', async () => {
    const everything = await startEverything('sse');
    running.push(everything);
    const auto = await runDoctor(http(everything.url), FAST);
    healthy(auto);
    expect(step(auto, 'http').detail).toMatch(/legacy HTTP\+SSE endpoint/);
    expect(step(auto, 'content-type').detail).toMatch(/messages go to \/message/);
    expect(step(auto, 'initialize-2025').detail).toMatch(/over sse/);
    const sse = await runDoctor({ type: 'http', url: everything.url, headers: {}, transport: 'sse' }, FAST);
    healthy(sse);
    expect(step(sse, 'discover').verdict).toBe('skipped');
    expect(step(sse, 'list').detail).toMatch(/tools\/list \d+ item/);
  });

  it('server-everything over stdio', async () => {
    const report = await runDoctor(stdio(process.execPath, [EVERYTHING_BIN, 'stdio']), FAST);
    healthy(report);
    expect(step(report, 'list').verdict).toBe('ok');
  });
});

describe('doctorRun (the handler)', () => {
  it('diagnoses a configured server with its headers, pushes checkProgress, and prints no header value', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-doctor-'));
    const core = createCore({ settings: new ConfSettingsStore({ cwd: dir }), carrier: 'browser', version: 't', connectAtStart: false, recordings: false });
    const progress: CheckProgress[] = [];
    core.events.subscribe((event, payload) => {
      if (event === 'checkProgress') progress.push(payload as CheckProgress);
    });
    try {
      const port = await refusedPort();
      const { id } = await call(core, 'addServer', { name: 'down', target: { type: 'http', url: `http://127.0.0.1:${port}/mcp`, headers: { 'X-Api-Key': 'handler-secret-77665544' } } });
      const report = await call(core, 'doctorRun', { serverId: id, runId: 'run-1' });
      expect(report.serverId).toBe(id);
      expect(report.runId).toBe('run-1');
      expect(report.firstFailure).toBe('tcp');
      expect(JSON.stringify(report)).not.toContain('handler-secret-77665544');
      expect(progress.length).toBeGreaterThan(2);
      expect(progress.every((p) => p.runId === 'run-1' && p.kind === 'doctor')).toBe(true);
      expect(progress.map((p) => p.label)).toContain('TCP connect');
      const missing = await core.dispatch('doctorRun', { serverId: 'nope' });
      expect(missing.ok).toBe(false);
    } finally {
      await core.shutdown();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('switchboard doctor (the built CLI)', () => {
  const cli = resolve('bin/switchboard.mjs');
  const run = (args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
      execFile(process.execPath, [cli, ...args], { timeout: 60_000 }, (error, stdout, stderr) => done({ code: error ? ((error as { code?: number }).code ?? -1) : 0, stdout, stderr }));
    });
  it.skipIf(!existsSync(resolve('out/main/cli.js')))('--json on a refused port: exit 1, the report as JSON; healthy stdio: exit 0, one line per step', async () => {
    const port = await refusedPort();
    const failed = await run(['doctor', `http://127.0.0.1:${port}/mcp`, '--json', '--header', 'Authorization: Bearer cli-secret-abcdef12345']);
    expect(failed.code).toBe(1);
    const report = JSON.parse(failed.stdout) as DoctorReport;
    expect(report.firstFailure).toBe('tcp');
    expect(failed.stdout).not.toContain('cli-secret-abcdef12345');

    const { command, args } = stdioFixtureCommand();
    const ok = await run(['doctor', '--stdio', [command, ...args].join(' ')]);
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^✓ stdio-command +\d+ ms {2}Found/m);
    expect(ok.stdout).toMatch(/^✓ initialize-2025 /m);
    expect(ok.stdout).toMatch(/Fine/);

    const broken = await run(['doctor', '--stdio', `${process.execPath} -e "process.exit(3)"`]);
    expect(broken.code).toBe(1);
    expect(broken.stdout).toMatch(/^✗ stdio-exit .*code 3/m);
    expect(broken.stdout).toMatch(/→ /);

    const usage = await run(['doctor']);
    expect(usage.code).toBe(2);

    const dir = mkdtempSync(join(tmpdir(), 'sb-doctor-cli-'));
    try {
      const config = join(dir, 'mcp.json');
      writeFileSync(config, JSON.stringify({ mcpServers: { local: { command, args }, down: { url: `http://127.0.0.1:${port}/mcp`, headers: { Authorization: 'Bearer cfg-secret-99887766' } } } }));
      const two = await run(['doctor', '--config', config]);
      expect(two.code).toBe(2);
      expect(two.stderr).toMatch(/lists 2 servers: pick one with --server NAME/);
      const down = await run(['doctor', '--config', config, '--server', 'down']);
      expect(down.code).toBe(1);
      expect(down.stdout).toMatch(/^✗ tcp .*nothing is listening/m);
      expect(down.stdout + down.stderr).not.toContain('cfg-secret-99887766');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
