/**
 * OAuth end to end, against real authorization servers the suite starts (test/fixtures/oauth):
 * the built CLI with --oauth-headless in every fixture mode, and the core in-process where a
 * test needs to look inside (nobody to sign in, the settings file, the exports). Counts come
 * from the fixture's own stats, so "no second authorization" and "no loop" are what the
 * authorization server saw, not what the client believes.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ServerStatus } from '../../contract';
import { createCore, type Core } from '../../main/core/app';
import { HeadlessLogin, LoopbackLogin, type LoginWindow } from '../../main/core/auth/login';
import { PopupLogin } from '../../main/core/auth/popup-login';
import { FileSecretStore } from '../../main/core/auth/secret-store';
import { ConfSettingsStore } from '../../main/core/store/conf-settings';
import { MemorySettingsStore } from '../../main/core/store/settings';
import { startOAuthFixture, type StartOAuthFixtureOptions } from '../fixtures/oauth/harness';
import { exportText } from '../support/trace-export';

const ROOT = join(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/switchboard.mjs');

type Fixture = Awaited<ReturnType<typeof startOAuthFixture>>;
const fixtures: Fixture[] = [];
const cores: Core[] = [];
let base: string;

function cli(args: string[], timeout = 60_000): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd: ROOT, timeout }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

async function fixture(options: StartOAuthFixtureOptions = {}): Promise<Fixture> {
  const fx = await startOAuthFixture(options);
  fixtures.push(fx);
  return fx;
}

let dirs = 0;
function dataDir(): string {
  return join(base, `data-${++dirs}`);
}

/** The tool prefix the CLI gives a --url server: its host name. */
const WHOAMI = '127-0-0-1__whoami';
const ADMIN = '127-0-0-1__admin_reset';

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'sb-oauth-'));
});

afterEach(async () => {
  await Promise.all(cores.splice(0).map((core) => core.shutdown()));
});

afterAll(async () => {
  await Promise.all(fixtures.map((fx) => fx.close()));
  rmSync(base, { recursive: true, force: true });
});

describe('OAuth with the CLI (--oauth-headless)', () => {
  it('dcr, authorization server on another origin: discovery → registration → authorize → token; a second run reuses the stored tokens', async () => {
    const fx = await fixture({ mode: 'dcr', separateAs: true });
    const dir = dataDir();
    const first = await cli(['call', WHOAMI, '--url', fx.url, '--oauth-headless', '--data-dir', dir]);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('"scope":"mcp:read mcp:tools"');
    const after1 = await fx.admin.stats();
    expect(after1).toMatchObject({ register: 1, authorize: 1, token: { authorization_code: 1, refresh_token: 0 } });
    expect(after1.prm).toBeGreaterThanOrEqual(1);
    expect(after1.asMetadata).toBeGreaterThanOrEqual(1);
    // Tokens rest in an owner-only file.
    expect(statSync(join(dir, 'secrets.json')).mode & 0o777).toBe(0o600);

    const second = await cli(['call', WHOAMI, '--url', fx.url, '--oauth-headless', '--data-dir', dir]);
    expect(second.code).toBe(0);
    const after2 = await fx.admin.stats();
    expect(after2).toMatchObject({ register: 1, authorize: 1, token: { authorization_code: 1, refresh_token: 0 } });
    expect(after2.mcpUnauthorized).toBe(after1.mcpUnauthorized);
  });

  it('pre-registered client (--client-id/--client-secret): no registration; a wrong secret fails at the token step with its likely cause', async () => {
    const fx = await fixture({ mode: 'preregistered', clientId: 'sb-pre', clientSecret: 'pre-registered-secret-1' });
    const good = await cli(['call', WHOAMI, '--url', fx.url, '--oauth-headless', '--data-dir', dataDir(), '--client-id', 'sb-pre', '--client-secret', 'pre-registered-secret-1']);
    expect(good.code).toBe(0);
    expect(good.stdout).toContain('"client_id":"sb-pre"');
    expect(await fx.admin.stats()).toMatchObject({ register: 0, authorize: 1, token: { authorization_code: 1 } });

    const bad = await cli(['tools', '--url', fx.url, '--oauth-headless', '--data-dir', dataDir(), '--client-id', 'sb-pre', '--client-secret', 'not-the-secret']);
    expect(bad.code).toBe(3);
    expect(bad.stderr).toMatch(/token step/);
    expect(bad.stderr).toMatch(/client id or secret is wrong/);
    expect(bad.stderr).not.toContain('not-the-secret');
  });

  it('Client ID Metadata Document (--client-metadata-url): the URL is the client id, no registration', async () => {
    const cimd = 'https://switchboard.example/oauth/client.json';
    const fx = await fixture({ mode: 'cimd', cimdUrl: cimd });
    const run = await cli(['call', WHOAMI, '--url', fx.url, '--oauth-headless', '--data-dir', dataDir(), '--client-metadata-url', cimd]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`"client_id":"${cimd}"`);
    expect(await fx.admin.stats()).toMatchObject({ register: 0, authorize: 1, token: { authorization_code: 1 } });
  });

  it("the SDK's own demo authorization server", async () => {
    const fx = await fixture({ as: 'sdk-demo' });
    const run = await cli(['call', WHOAMI, '--url', fx.url, '--oauth-headless', '--data-dir', dataDir()]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect((await fx.admin.stats()).mcpOk).toBeGreaterThan(0);
  });

  it('an expired access token is refreshed transparently after the 401 it meets', async () => {
    const fx = await fixture({ mode: 'dcr' });
    const dir = dataDir();
    expect((await cli(['tools', '--url', fx.url, '--oauth-headless', '--data-dir', dir])).code).toBe(0);
    // Expired by the server behind the client's back: the 401 path refreshes and repeats.
    await fx.admin.expireAccessTokens();
    const s0 = await fx.admin.stats();
    const run = await cli(['call', WHOAMI, '--url', fx.url, '--oauth-headless', '--data-dir', dir]);
    expect(run.code).toBe(0);
    const s1 = await fx.admin.stats();
    expect(s1.token.refresh_token).toBe(s0.token.refresh_token + 1);
    expect(s1.authorize).toBe(s0.authorize);
    expect(s1.mcpUnauthorized).toBe(s0.mcpUnauthorized + 1);
  });

  it('an access token past its lifetime is refreshed before any request carries it (no 401 at all)', async () => {
    const fx = await fixture({ mode: 'dcr', accessTtl: 2 });
    const dir = dataDir();
    expect((await cli(['tools', '--url', fx.url, '--oauth-headless', '--data-dir', dir])).code).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 2_200));
    const s0 = await fx.admin.stats();
    const run = await cli(['call', WHOAMI, '--url', fx.url, '--oauth-headless', '--data-dir', dir]);
    expect(run.code).toBe(0);
    const s1 = await fx.admin.stats();
    expect(s1.token.refresh_token).toBe(s0.token.refresh_token + 1);
    expect(s1.mcpUnauthorized).toBe(s0.mcpUnauthorized);
    expect(s1.authorize).toBe(s0.authorize);
  });

  it('step-up: a 403 insufficient_scope signs in again with the union of scopes, and the call is repeated once', async () => {
    const fx = await fixture({ mode: 'dcr' });
    const dir = dataDir();
    const run = await cli(['call', ADMIN, '--url', fx.url, '--oauth-headless', '--data-dir', dir]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('admin state reset');
    const stats = await fx.admin.stats();
    expect(stats.mcpForbidden).toBe(1);
    expect(stats.authorize).toBe(2);
    const who = await cli(['call', WHOAMI, '--url', fx.url, '--oauth-headless', '--data-dir', dir]);
    expect(who.stdout).toContain('mcp:read mcp:tools mcp:admin');
  });

  it('a javascript: authorization endpoint in the metadata is refused, and nothing is opened', async () => {
    const fx = await fixture({ mode: 'faulty-js' });
    const run = await cli(['tools', '--url', fx.url, '--oauth-headless', '--data-dir', dataDir()]);
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/javascript:/);
    expect(run.stderr).toMatch(/[Rr]efused/);
    expect((await fx.admin.stats()).authorize).toBe(0);
  });

  it('a token endpoint that refuses: the error names the step and the likely cause, with no retry loop', async () => {
    const fx = await fixture({ mode: 'faulty-token' });
    const run = await cli(['tools', '--url', fx.url, '--oauth-headless', '--data-dir', dataDir()]);
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/token step/);
    expect(run.stderr).toMatch(/invalid_grant/);
    expect(run.stderr).toMatch(/Likely cause: the code or refresh token was already used/);
    // The SDK's auth() tries the exchange once more after invalid_grant; that is the bound.
    const stats = await fx.admin.stats();
    expect(stats.token.authorization_code).toBeLessThanOrEqual(2);
    expect(stats.authorize).toBe(1);
  });
});

async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('OAuth in the core', () => {
  interface CoreSetup {
    login: LoginWindow | undefined;
    /** Where secrets.json lives (default: a fresh directory). */
    dir?: string;
    /** A real settings.json here (default: in memory). */
    settingsDir?: string;
    loginTimeoutMs?: number;
    connectTimeoutSec?: number;
    name?: string;
  }

  /** A core with the fixture added as one server (not connected yet). */
  async function coreWith(fx: Fixture, setup: CoreSetup) {
    const core = createCore({
      settings: setup.settingsDir ? new ConfSettingsStore({ cwd: setup.settingsDir }) : new MemorySettingsStore(),
      carrier: 'browser',
      version: 'test',
      secrets: new FileSecretStore(join(setup.dir ?? dataDir(), 'secrets.json')),
      login: setup.login,
      loginTimeoutMs: setup.loginTimeoutMs,
    });
    cores.push(core);
    const added = await core.dispatch('addServer', {
      name: setup.name ?? 'protected',
      target: { type: 'http', url: fx.url, transport: 'streamable-http' },
      retries: 0,
      pingIntervalSec: 0,
      ...(setup.connectTimeoutSec ? { connectTimeoutSec: setup.connectTimeoutSec } : {}),
    });
    if (!added.ok) throw new Error(added.error.message);
    const id = (added.result as ServerStatus).id;
    return { core, id, connection: core.connections.get(id)! };
  }

  async function signedInCore(fx: Fixture, dir: string, login: HeadlessLogin | undefined, settingsDir?: string) {
    const { core, id, connection } = await coreWith(fx, { login, dir, settingsDir });
    await connection.connect();
    return { core, id, status: connection.status() };
  }

  it('a revoked refresh token ends in a clear "sign in again" state: one refresh attempt, no authorization, no loop', async () => {
    const fx = await fixture({ mode: 'dcr' });
    const dir = dataDir();
    const first = await signedInCore(fx, dir, new HeadlessLogin());
    expect(first.status.state).toBe('connected');
    await first.core.shutdown();

    await fx.admin.revokeRefreshTokens();
    await fx.admin.expireAccessTokens();
    const before = await fx.admin.stats();
    // Nobody is there to sign in (no login window).
    const second = await signedInCore(fx, dir, undefined);
    expect(second.status.state).toBe('error');
    expect(second.status.errorKind).toBe('auth');
    expect(second.status.error).toMatch(/[Ss]ign-in required/);
    const auth = await second.core.dispatch('authStatus', { id: second.id });
    if (!auth.ok) throw new Error(auth.error.message);
    expect(auth.result).toMatchObject({ applies: true, signedIn: false, lastFailure: { step: 'authorize' } });

    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const after = await fx.admin.stats();
    expect(after.token.refresh_token).toBe(before.token.refresh_token + 1);
    expect(after.tokenErrors).toBe(before.tokenErrors + 1);
    expect(after.authorize).toBe(before.authorize);
    // One request met the expired token; nothing kept knocking.
    expect(after.mcpUnauthorized - before.mcpUnauthorized).toBeLessThanOrEqual(2);
  });

  it('system-browser login: the loopback listener receives the redirect (a stand-in browser follows the authorization URL), then closes', async () => {
    const fx = await fixture({ mode: 'dcr' });
    let callbackPort = 0;
    // The "browser": a plain fetch that follows redirects, as a browser would, to our loopback listener.
    const login = new LoopbackLogin('stand-in browser', async (url, request) => {
      callbackPort = Number(new URL(request.redirectUrl).port);
      const page = await fetch(url);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('Signed in');
    });
    const { connection } = await coreWith(fx, { login, name: 'loopback' });
    await connection.connect();
    expect(connection.status().state).toBe('connected');
    expect(callbackPort).toBeGreaterThan(0);
    // The listener is gone once the flow ended.
    await expect(fetch(`http://127.0.0.1:${callbackPort}/oauth/callback`)).rejects.toThrow();
    expect(await fx.admin.stats()).toMatchObject({ authorize: 1, token: { authorization_code: 1 } });
  });

  it('a person slower than the connect timeout: the sign-in still completes and the connection follows', async () => {
    const fx = await fixture({ mode: 'dcr' });
    const login = new PopupLogin(() => 'http://127.0.0.1:9/oauth/callback');
    const { core, connection } = await coreWith(fx, { login, name: 'slow-person', connectTimeoutSec: 1 });
    // The "person": opens the URL 2.5 s after the prompt (the connect timeout is 1 s), the server approves.
    core.events.subscribe((event, payload) => {
      if (event !== 'signInPrompt') return;
      setTimeout(async () => {
        const response = await fetch((payload as { url: string }).url, { redirect: 'manual' });
        login.deliver(new URL(response.headers.get('location')!).searchParams);
      }, 2_500);
    });
    await connection.connect();
    expect(connection.status().state).toBe('connected');
    expect(connection.listTools().map((t) => t.name)).toContain('whoami');
    expect(await fx.admin.stats()).toMatchObject({ authorize: 1, token: { authorization_code: 1 } });
  });

  it('nobody finishes signing in: the prompt ends, the server says why, nothing is left waiting', async () => {
    const fx = await fixture({ mode: 'dcr', approve: 'consent' });
    const login = new PopupLogin(() => 'http://127.0.0.1:9/oauth/callback');
    const { core, connection } = await coreWith(fx, { login, name: 'unattended', loginTimeoutMs: 400 });
    const seen: string[] = [];
    core.events.subscribe((event, payload) => {
      if (event === 'signInPrompt' || event === 'signInEnded') seen.push(`${event}${event === 'signInEnded' ? `:${(payload as { outcome: string }).outcome}` : ''}`);
    });
    await connection.connect();
    expect(connection.status()).toMatchObject({ state: 'error', errorKind: 'auth' });
    expect(connection.status().error).toContain('Nobody finished signing in within 400 ms');
    expect(seen).toEqual(['signInPrompt', 'signInEnded:cancelled']);
    expect(login.prompts()).toEqual([]);
    expect((await fx.admin.stats()).authorize).toBe(0);
  });

  it('step by step: the flow pauses before each OAuth request and before the login, in the spec\'s order', async () => {
    const fx = await fixture({ mode: 'dcr' });
    const { core, id, connection } = await coreWith(fx, { login: new HeadlessLogin(), name: 'stepwise' });
    expect((await core.dispatch('authStepMode', { id, on: true })).ok).toBe(true);
    const connecting = connection.connect();

    const seen: string[] = [];
    for (let i = 0; i < 20 && connection.status().state !== 'connected'; i++) {
      const status = await waitFor(async () => {
        const reply = await core.dispatch('authStatus', { id });
        if (!reply.ok) throw new Error(reply.error.message);
        const result = reply.result as { paused?: { step: string } };
        return result.paused || connection.status().state === 'connected' ? result : undefined;
      });
      if (!status.paused) break;
      seen.push(status.paused.step);
      // Nothing goes out while paused.
      const before = await fx.admin.stats();
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await fx.admin.stats()).toEqual(before);
      expect((await core.dispatch('authContinue', { id })).ok).toBe(true);
    }
    await connecting;
    expect(connection.status().state).toBe('connected');
    // (login: before the login opens; authorize: the headless login's own GET.)
    expect(seen).toEqual(['prm', 'as-metadata', 'register', 'login', 'authorize', 'token']);
  });

  it('a full flow (sign-in, refresh, step-up, sign-out) exported as JSONL and HAR: no access token, refresh token, code or verifier in either, nor in the settings file or the logs', async () => {
    const fx = await fixture({ mode: 'dcr' });
    const dir = dataDir();
    const settingsDir = join(dir, 'settings');
    const { core, id, status } = await signedInCore(fx, dir, new HeadlessLogin(), settingsDir);
    expect(status.state).toBe('connected');
    const call = async (tool: string) => {
      const reply = await core.dispatch('callTool', { tool: `protected__${tool}`, args: {} });
      if (!reply.ok) throw new Error(reply.error.message);
      return reply.result;
    };
    await call('whoami');
    await fx.admin.expireAccessTokens();
    await call('whoami');
    await call('admin_reset');
    const signOut = await core.dispatch('signOut', { id });
    if (!signOut.ok) throw new Error(signOut.error.message);
    expect((signOut.result as { revoked: number }).revoked).toBeGreaterThan(0);

    const stats = await fx.admin.stats();
    expect(stats.token).toMatchObject({ authorization_code: 2, refresh_token: 1 });
    expect(stats.revoke).toBeGreaterThan(0);
    const secrets = [...stats.issued.access, ...stats.issued.refresh, ...stats.issued.codes, ...stats.issued.verifiers];
    expect(stats.issued.verifiers.length).toBe(2);
    expect(secrets.every((s) => s.length >= 20)).toBe(true);

    const [jsonl, har] = [exportText(core, 'jsonl'), exportText(core, 'har')];
    // The exports do hold the flow: its requests, with the secrets' places marked.
    for (const text of [jsonl, har]) {
      expect(text).toContain('/token');
      expect(text).toContain('[redacted]');
      expect(text).toContain('grant_type=refresh_token');
    }
    expect(jsonl).toContain('"kind":"auth-step"');
    const logText = JSON.stringify(core.logs.history());
    const settingsText = readFileSync(join(settingsDir, 'settings.json'), 'utf8');
    expect(settingsText).toContain(fx.url);
    for (const secret of secrets) {
      expect(jsonl.includes(secret), 'JSONL leaks a secret').toBe(false);
      expect(har.includes(secret), 'HAR leaks a secret').toBe(false);
      expect(settingsText.includes(secret), 'settings leak a secret').toBe(false);
      expect(logText.includes(secret), 'logs leak a secret').toBe(false);
    }
    // Signed out: nothing is left in the secret store for this server.
    const store = JSON.parse(readFileSync(join(dir, 'secrets.json'), 'utf8')) as { entries: Record<string, string> };
    expect(Object.keys(store.entries)).toEqual([]);
  });
});
