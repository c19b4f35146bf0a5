/**
 * Browser mode's OAuth callback route, over real HTTP: the redirect back from an authorization
 * server carries no cookie, so `/oauth/callback` is authenticated by the flow's one-time state
 * (and still by the Host allow-list). The prompt and the end of the flow reach the core's
 * EventHub; every other path still needs the launch token.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { EventName } from '../../contract';
import { createCore, type Core } from '../../main/core/app';
import { MemorySettingsStore } from '../../main/core/store/settings';
import { PopupLogin } from '../../main/core/auth/popup-login';
import type { CallbackParams } from '../../main/core/auth/login';
import { startWebHost, type WebHost } from '../../main/adapters/web/host';

let dir: string;
let core: Core;
let host: WebHost;
let login: PopupLogin;
let callbackUrl = '';
const events: { event: EventName; payload: any }[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sb-oauth-cb-'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Switchboard</title>');
  // The redirect URI is known only once the host listens; the SDK reads it later, at flow start.
  login = new PopupLogin(() => callbackUrl);
  core = createCore({ settings: new MemorySettingsStore(), carrier: 'browser', version: 'test', login });
  core.events.subscribe((event, payload) => {
    if (event === 'signInPrompt' || event === 'signInEnded') events.push({ event, payload });
  });
  host = await startWebHost({ core, rendererDir: dir, oauthCallback: (q) => login.deliver(q) });
  callbackUrl = `http://127.0.0.1:${host.port}/oauth/callback`;
});

afterAll(async () => {
  await host.close();
  await core.shutdown();
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  events.length = 0;
});

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A raw request, so Host, Origin and Cookie are exactly what the test says (no cookie unless given). */
function send(path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port: host.port, path, method, agent: false, headers: { host: `127.0.0.1:${host.port}`, ...headers } },
      (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Starts a popup sign-in the way the provider does, and watches whether it has settled. */
function startFlow(state: string) {
  const abort = new AbortController();
  let settled = false;
  const flow: Promise<CallbackParams> = login.authorize({
    serverId: 's',
    serverName: 'S',
    url: new URL(`https://auth.example/authorize?scope=a&state=${state}`),
    redirectUrl: login.redirectUrl(),
    state,
    fetchFn: fetch,
    signal: abort.signal,
  });
  void flow.then(
    () => (settled = true),
    () => (settled = true),
  );
  return { flow, abort, settled: () => settled };
}

const query = (params: Record<string, string>) => `/oauth/callback?${new URLSearchParams(params)}`;

/** Lets pending promise callbacks run, so "still waiting" is not just "not yet looked at". */
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('GET /oauth/callback', () => {
  it('the redirect URI handed to the SDK is the host\'s own callback route', () => {
    expect(login.redirectUrl()).toBe(`http://127.0.0.1:${host.port}/oauth/callback`);
  });

  it('a whole popup flow: prompt event, wrong state refused, the right state (no cookie) completes it once, ended event', async () => {
    const state = 'st-1234567890-abcdef';
    const { flow, settled } = startFlow(state);

    const prompt = events.find((e) => e.event === 'signInPrompt');
    expect(prompt?.payload).toMatchObject({ serverId: 's', serverName: 'S', origin: 'https://auth.example', scope: 'a' });
    expect(prompt?.payload.url).toBe(`https://auth.example/authorize?scope=a&state=${state}`);
    const flowId: string = prompt!.payload.flowId;
    expect(login.prompts().map((p) => p.flowId)).toEqual([flowId]);

    const wrong = await send(query({ state: 'wrong', code: 'stolen' }));
    expect(wrong.status).toBe(400);
    expect(wrong.body).toContain('Sign-in failed');
    expect(wrong.body).toContain('not a sign-in Switchboard is waiting for');
    const noState = await send('/oauth/callback?code=stolen');
    expect(noState.status).toBe(400);
    await tick();
    expect(settled()).toBe(false);
    expect(login.prompts().map((p) => p.flowId)).toEqual([flowId]);
    expect(events.some((e) => e.event === 'signInEnded')).toBe(false);

    const right = await send(query({ state, code: 'the-authorization-code', iss: 'https://auth.example' }));
    expect(right.status).toBe(200);
    expect(right.body).toContain('Signed in');
    const csp = String(right.headers['content-security-policy']);
    expect(csp).toMatch(/(^|;\s*)default-src 'none'(;|$)/);
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    expect(right.body).toContain(`<script nonce="${nonce}">`);
    expect(right.body).toContain('window.close()');
    expect(right.headers['cache-control']).toBe('no-store');
    expect(right.headers['referrer-policy']).toBe('no-referrer');
    expect(right.headers['set-cookie']).toBeUndefined();

    await expect(flow).resolves.toMatchObject({ code: 'the-authorization-code', state, iss: 'https://auth.example' });
    expect(events.filter((e) => e.event === 'signInEnded').map((e) => e.payload)).toEqual([{ flowId, serverId: 's', outcome: 'completed' }]);

    const replay = await send(query({ state, code: 'the-authorization-code' }));
    expect(replay.status).toBe(400);
    expect(replay.body).not.toContain('window.close()');
    expect(login.prompts()).toEqual([]);
    expect(events.filter((e) => e.event === 'signInEnded')).toHaveLength(1);
  });

  it('a fresh nonce for every answer', async () => {
    const nonces = await Promise.all(
      [1, 2, 3].map(async () => /'nonce-([^']+)'/.exec(String((await send(query({ state: 'none' }))).headers['content-security-policy']))?.[1]),
    );
    expect(nonces.every(Boolean)).toBe(true);
    expect(new Set(nonces).size).toBe(3);
  });

  it('a foreign Host header is refused without consuming the state; the flow still completes afterwards', async () => {
    const state = 'st-foreign-host-0001';
    const { flow, settled } = startFlow(state);
    for (const foreign of [`evil.example:${host.port}`, `127.0.0.1:${host.port + 1}`, 'localhost']) {
      const res = await send(query({ state, code: 'via-rebinding' }), { host: foreign });
      expect(res.status, foreign).toBe(403);
      expect(res.body, foreign).not.toContain('Signed in');
    }
    // Even the launch cookie does not make a foreign Host acceptable.
    expect((await send(query({ state, code: 'via-rebinding' }), { host: `evil.example:${host.port}`, cookie: `${host.cookieName}=${host.token}` })).status).toBe(403);
    await tick();
    expect(settled()).toBe(false);
    expect(login.prompts()).toHaveLength(1);

    // localhost is one of our names: the same callback is accepted there.
    const res = await send(query({ state, code: 'legit' }), { host: `localhost:${host.port}` });
    expect(res.status).toBe(200);
    await expect(flow).resolves.toMatchObject({ code: 'legit' });
  });

  it('an error callback ends the flow as failed and shows the escaped reason', async () => {
    const state = 'st-denied-000000001';
    const { flow } = startFlow(state);
    const res = await send(query({ state, error: 'access_denied', error_description: '<script>alert(1)</script>' }));
    expect(res.status).toBe(400);
    expect(res.body).toContain('access_denied');
    expect(res.body).not.toContain('<script>alert(1)</script>');
    expect(res.body).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
    await expect(flow).resolves.toMatchObject({ error: 'access_denied', code: undefined });
    expect(events.find((e) => e.event === 'signInEnded')?.payload).toMatchObject({ serverId: 's', outcome: 'failed', message: 'access_denied' });
  });

  it('a cancelled flow no longer accepts its callback', async () => {
    const state = 'st-cancelled-000001';
    const { flow } = startFlow(state);
    const flowId: string = events.find((e) => e.event === 'signInPrompt')!.payload.flowId;
    expect(login.cancel(flowId)).toBe(true);
    await expect(flow).rejects.toThrow('cancelled');
    expect(events.find((e) => e.event === 'signInEnded')?.payload).toMatchObject({ flowId, outcome: 'cancelled' });
    expect((await send(query({ state, code: 'late' }))).status).toBe(400);
  });

  it('an aborted flow (the provider gave up) no longer accepts its callback', async () => {
    const state = 'st-aborted-00000001';
    const { flow, abort } = startFlow(state);
    abort.abort(new Error('Nobody finished signing in'));
    await expect(flow).rejects.toThrow('Nobody finished signing in');
    expect((await send(query({ state, code: 'late' }))).status).toBe(400);
    expect(events.filter((e) => e.event === 'signInEnded').map((e) => e.payload.outcome)).toEqual(['cancelled']);
  });
});

describe('everything else still needs the launch token', () => {
  it.each([
    ['/', 'GET'],
    ['/index.html', 'GET'],
    ['/oauth/callback/', 'GET'],
    ['/oauth/callbackx?state=s', 'GET'],
    ['/oauth/callback/../index.html', 'GET'],
    ['/OAUTH/CALLBACK?state=s', 'GET'],
    ['/oauth/callback?state=s', 'POST'],
    ['/oauth/callback?state=s', 'HEAD'],
  ])('%s (%s) without the cookie → 401', async (path, method) => {
    const state = 'st-other-paths-0001';
    const { flow, settled } = startFlow(state);
    const res = await send(path.replace('state=s', `state=${state}`), {}, method);
    expect(res.status).toBe(401);
    expect(res.body).not.toContain('<title>Switchboard');
    await tick();
    expect(settled()).toBe(false);
    login.deliver(new URLSearchParams({ state, code: 'cleanup' }));
    await flow;
  });

  it('positive control: the page is served with the cookie', async () => {
    const res = await send('/', { cookie: `${host.cookieName}=${host.token}` });
    expect(res.status).toBe(200);
    expect(res.body).toContain('<title>Switchboard');
  });

  it('no WebSocket upgrade on the callback path, and none without the token', async () => {
    const status = (path: string, headers: Record<string, string>) =>
      new Promise<number>((resolve) => {
        const ws = new WebSocket(`ws://127.0.0.1:${host.port}${path}`, { headers });
        ws.once('open', () => {
          ws.close();
          resolve(101);
        });
        ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        ws.once('error', () => resolve(-1));
      });
    const origin = `http://127.0.0.1:${host.port}`;
    expect(await status('/oauth/callback?state=x', { origin, cookie: `${host.cookieName}=${host.token}` })).toBe(403);
    expect(await status('/ws', { origin })).toBe(401);
  });

  it('a host started without oauthCallback has no open callback route', async () => {
    const plain = await startWebHost({ core, rendererDir: dir });
    try {
      const res = await new Promise<number>((resolve, reject) => {
        const req = httpRequest(
          { host: '127.0.0.1', port: plain.port, path: '/oauth/callback?state=x&code=y', agent: false, headers: { host: `127.0.0.1:${plain.port}` } },
          (r) => {
            r.resume();
            resolve(r.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end();
      });
      expect(res).toBe(401);
    } finally {
      await plain.close();
    }
  });
});
