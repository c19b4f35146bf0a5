/**
 * The OAuth building blocks on their own: the URL guard, the loopback callback listener and the
 * headless redirect follower (over real sockets), the popup login's state bookkeeping, the
 * owner-only secret file (on a real disk), JWT display, server identity, step names, hints and
 * redaction of codes and tokens.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync, chmodSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { freePort } from '../support/core-calls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CALLBACK_PATH,
  HeadlessConsentRequired,
  HeadlessLogin,
  LoopbackCallback,
  OAuthUrlRefusedError,
  callbackPage,
  checkAuthorizationUrl,
  followAuthorization,
  type CallbackParams,
} from '../../main/core/auth/login';
import { PopupLogin, type LoginPrompt, type PopupLoginEvents } from '../../main/core/auth/popup-login';
import { FileSecretStore, MemorySecretStore } from '../../main/core/auth/secret-store';
import { decodeJwt } from '../../main/core/auth/jwt';
import { hintFor, normalizeServerUrl, oauthIdentity, stepOf } from '../../main/core/auth/oauth-provider';
import { REDACTED, Redactor } from '../../main/core/trace/redact';

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A raw HTTP request without keep-alive, so a closed listener really is closed for the next one. */
function send(url: string, method = 'GET'): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, agent: false }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A port nobody listens on right now. */

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ server: Server; origin: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const close = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

describe('checkAuthorizationUrl', () => {
  it('passes http: and https: URLs through as URLs', () => {
    expect(checkAuthorizationUrl('https://auth.example/authorize?x=1').href).toBe('https://auth.example/authorize?x=1');
    expect(checkAuthorizationUrl(new URL('http://127.0.0.1:9000/a')).port).toBe('9000');
  });

  it.each(['javascript:alert(document.cookie)', 'data:text/html,<script>alert(1)</script>', 'file:///etc/passwd', 'vbscript:msgbox', 'ftp://auth.example/'])(
    'refuses %s with OAUTH_URL_REFUSED, naming the scheme',
    (raw) => {
      let thrown: unknown;
      try {
        checkAuthorizationUrl(raw);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(OAuthUrlRefusedError);
      expect((thrown as OAuthUrlRefusedError).code).toBe('OAUTH_URL_REFUSED');
      expect((thrown as Error).message).toContain(`${new URL(raw).protocol}`);
      expect((thrown as Error).message).toMatch(/only http: and https:/);
    },
  );

  it('refuses what is not a URL at all, quoting at most 100 characters of it', () => {
    const junk = `not a url ${'x'.repeat(500)}`;
    expect(() => checkAuthorizationUrl(junk)).toThrow(OAuthUrlRefusedError);
    try {
      checkAuthorizationUrl(junk);
    } catch (error) {
      expect((error as Error).message).toContain('is not a URL');
      expect((error as Error).message).not.toContain('x'.repeat(100));
    }
  });
});

describe('callbackPage', () => {
  it('escapes the message so an error_description cannot inject markup', () => {
    const page = callbackPage(false, `<img src=x onerror="alert('1')"> & more`);
    expect(page).not.toContain('<img');
    expect(page).toContain('&#60;img src=x onerror=&#34;alert(&#39;1&#39;)&#34;&#62; &#38; more');
    expect(page).toContain('Sign-in failed');
  });

  it('says signed in only when ok', () => {
    expect(callbackPage(true, 'fine')).toContain('Signed in');
    expect(callbackPage(true, 'fine')).not.toContain('Sign-in failed');
  });
});

describe('LoopbackCallback', () => {
  it('builds its redirect URI on 127.0.0.1 and the callback path', () => {
    const callback = new LoopbackCallback(51_234);
    expect(callback.url).toBe(`http://127.0.0.1:51234${CALLBACK_PATH}`);
    const random = new LoopbackCallback();
    expect(random.port).toBeGreaterThanOrEqual(49_152);
    expect(random.port).toBeLessThan(65_535);
  });

  it('listens only while waiting: wrong path, method or state → 400 and it keeps waiting; the right state → 200 and resolves; closed afterwards', async () => {
    const port = await freePort();
    const callback = new LoopbackCallback(port);
    const base = `http://127.0.0.1:${port}`;
    await expect(send(`${base}${CALLBACK_PATH}?state=s1&code=c`)).rejects.toThrow(/ECONNREFUSED/);

    const seen: Record<string, RawResponse> = {};
    let settledEarly = false;
    let driver: Promise<void> | undefined;
    const waiting = callback.wait('s1', new AbortController().signal, () => {
      driver = (async () => {
        seen.wrongState = await send(`${base}${CALLBACK_PATH}?state=other&code=c`);
        seen.noState = await send(`${base}${CALLBACK_PATH}?code=c`);
        seen.wrongPath = await send(`${base}/elsewhere?state=s1&code=c`);
        seen.post = await send(`${base}${CALLBACK_PATH}?state=s1&code=c`, 'POST');
        settledEarly = settled;
        seen.right = await send(`${base}${CALLBACK_PATH}?state=s1&code=the-code&iss=${encodeURIComponent('https://as.example')}`);
      })();
    });
    let settled = false;
    void waiting.finally(() => (settled = true)).catch(() => undefined);
    const params = await waiting;
    await driver;

    expect(params).toEqual<CallbackParams>({ code: 'the-code', state: 's1', iss: 'https://as.example', error: undefined, errorDescription: undefined });
    for (const key of ['wrongState', 'noState', 'wrongPath', 'post']) {
      expect(seen[key]!.status, key).toBe(400);
      expect(seen[key]!.body, key).toContain('not the sign-in Switchboard is waiting for');
    }
    expect(settledEarly).toBe(false);
    expect(seen.right!.status).toBe(200);
    expect(seen.right!.body).toContain('Signed in');
    expect(seen.right!.headers['cache-control']).toBe('no-store');
    await expect(send(`${base}${CALLBACK_PATH}?state=s1&code=again`)).rejects.toThrow(/ECONNREFUSED/);
  });

  it('resolves with an error callback and shows the (escaped) reason', async () => {
    const port = await freePort();
    let page: RawResponse | undefined;
    const params = await new LoopbackCallback(port).wait('s2', new AbortController().signal, async () => {
      void send(`http://127.0.0.1:${port}${CALLBACK_PATH}?state=s2&error=access_denied&error_description=${encodeURIComponent('<b>no</b>')}`).then((r) => (page = r));
    });
    expect(params.error).toBe('access_denied');
    expect(params.errorDescription).toBe('<b>no</b>');
    await expect.poll(() => page?.status).toBe(200);
    expect(page!.body).toContain('Sign-in failed');
    expect(page!.body).toContain('access_denied — &#60;b&#62;no&#60;/b&#62;');
  });

  it('an abort rejects with its reason and closes the listener', async () => {
    const port = await freePort();
    const abort = new AbortController();
    const waiting = new LoopbackCallback(port).wait('s3', abort.signal, () => abort.abort(new Error('gave up')));
    await expect(waiting).rejects.toThrow('gave up');
    await expect(send(`http://127.0.0.1:${port}${CALLBACK_PATH}?state=s3`)).rejects.toThrow(/ECONNREFUSED/);
  });

  it('an already aborted signal never listens nor opens', async () => {
    const port = await freePort();
    const abort = new AbortController();
    abort.abort();
    let opened = false;
    await expect(new LoopbackCallback(port).wait('s4', abort.signal, () => void (opened = true))).rejects.toThrow();
    expect(opened).toBe(false);
  });

  it('a failing open() rejects the wait and closes the listener', async () => {
    const port = await freePort();
    await expect(
      new LoopbackCallback(port).wait('s5', new AbortController().signal, async () => {
        throw new Error('no browser');
      }),
    ).rejects.toThrow('no browser');
    await expect(send(`http://127.0.0.1:${port}${CALLBACK_PATH}?state=s5`)).rejects.toThrow(/ECONNREFUSED/);
  });

  it('a port in use fails with a message that names the port', async () => {
    const { server, origin } = await listen((_req, res) => res.end());
    const port = Number(new URL(origin).port);
    try {
      let opened = false;
      await expect(new LoopbackCallback(port).wait('s6', new AbortController().signal, () => void (opened = true))).rejects.toThrow(
        `The sign-in callback port ${port} is in use`,
      );
      expect(opened).toBe(false);
    } finally {
      await close(server);
    }
  });
});

describe('followAuthorization (headless)', () => {
  let as: { server: Server; origin: string };
  let client: { server: Server; origin: string };
  const asHits: string[] = [];
  let clientHits = 0;

  beforeAll(async () => {
    // The redirect target listens too: the follower must read the redirect, never request it.
    client = await listen((_req, res) => {
      clientHits++;
      res.end('client');
    });
    const redirectUri = `${client.origin}${CALLBACK_PATH}`;
    as = await listen((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      asHits.push(url.pathname);
      const state = url.searchParams.get('state') ?? '';
      const routes: Record<string, () => void> = {
        '/authorize': () => res.writeHead(302, { location: `/login?state=${state}` }).end(),
        '/login': () => res.writeHead(303, { location: `${redirectUri}?code=abc123&state=${state}&iss=${encodeURIComponent(as.origin)}` }).end(),
        '/consent': () => res.writeHead(200, { 'content-type': 'text/html' }).end('<form>Approve?</form>'),
        '/to-consent': () => res.writeHead(302, { location: '/consent' }).end(),
        '/evil': () => res.writeHead(302, { location: 'javascript:alert(1)' }).end(),
        '/loop': () => res.writeHead(302, { location: '/loop' }).end(),
        '/deny': () => res.writeHead(302, { location: `${redirectUri}?error=access_denied&state=${state}` }).end(),
        '/no-location': () => res.writeHead(302).end(),
      };
      (routes[url.pathname] ?? (() => res.writeHead(404).end()))();
    });
  });

  afterAll(async () => {
    await close(as.server);
    await close(client.server);
  });

  const redirectUri = () => `${client.origin}${CALLBACK_PATH}`;
  const signal = () => new AbortController().signal;

  it('follows a redirect chain to the redirect URI and returns its query, without requesting the redirect URI', async () => {
    asHits.length = 0;
    const params = await followAuthorization(new URL(`${as.origin}/authorize?state=st1`), redirectUri(), fetch, signal());
    expect(params).toMatchObject({ code: 'abc123', state: 'st1', iss: as.origin });
    expect(asHits).toEqual(['/authorize', '/login']);
    expect(clientHits).toBe(0);
  });

  it('returns an error callback as parameters (the provider decides)', async () => {
    const params = await followAuthorization(new URL(`${as.origin}/deny?state=st2`), redirectUri(), fetch, signal());
    expect(params).toMatchObject({ error: 'access_denied', state: 'st2' });
    expect(params.code).toBeUndefined();
  });

  it('a page that wants a person ends with HeadlessConsentRequired and the URL to open', async () => {
    const start = new URL(`${as.origin}/to-consent?state=st3`);
    const error = await followAuthorization(start, redirectUri(), fetch, signal()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HeadlessConsentRequired);
    expect((error as HeadlessConsentRequired).code).toBe('OAUTH_CONSENT_REQUIRED');
    expect((error as Error).message).toContain('HTTP 200');
    expect((error as Error).message).toContain(`${as.origin}/consent`);
    expect((error as Error).message).toContain(start.href);
  });

  it('a redirect without a Location is not taken for approval either', async () => {
    await expect(followAuthorization(new URL(`${as.origin}/no-location`), redirectUri(), fetch, signal())).rejects.toBeInstanceOf(HeadlessConsentRequired);
  });

  it('a redirect to a javascript: URL is refused', async () => {
    await expect(followAuthorization(new URL(`${as.origin}/evil`), redirectUri(), fetch, signal())).rejects.toBeInstanceOf(OAuthUrlRefusedError);
  });

  it('a redirect loop stops after maxHops', async () => {
    asHits.length = 0;
    await expect(followAuthorization(new URL(`${as.origin}/loop`), redirectUri(), fetch, signal(), 4)).rejects.toThrow('redirected more than 4 times');
    expect(asHits).toEqual(['/loop', '/loop', '/loop', '/loop']);
  });

  it('HeadlessLogin follows the request through the fetch it is given', async () => {
    const login = new HeadlessLogin();
    expect(login.kind).toBe('headless');
    expect(login.redirectUrl()).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/oauth\/callback$/);
    const fetched: string[] = [];
    const tracked: typeof fetch = (input, init) => {
      fetched.push(String(input));
      return fetch(input, init);
    };
    const params = await login.authorize({
      serverId: 's',
      serverName: 'S',
      url: new URL(`${as.origin}/authorize?state=st4`),
      redirectUrl: redirectUri(),
      state: 'st4',
      fetchFn: tracked,
      signal: signal(),
    });
    expect(params.code).toBe('abc123');
    expect(fetched).toEqual([`${as.origin}/authorize?state=st4`, `${as.origin}/login?state=st4`]);
  });
});

describe('PopupLogin', () => {
  function recorder(login: PopupLogin) {
    const prompts: LoginPrompt[] = [];
    const ended: Parameters<PopupLoginEvents['ended']>[0][] = [];
    login.attach({ prompt: (p) => prompts.push(p), ended: (e) => ended.push(e) });
    return { prompts, ended };
  }

  const request = (state: string, signal = new AbortController().signal) => ({
    serverId: 'srv',
    serverName: 'Server',
    url: new URL('https://auth.example/authorize?scope=read%20write&state=' + state),
    redirectUrl: 'http://127.0.0.1:1/oauth/callback',
    state,
    fetchFn: fetch,
    signal,
  });

  it('prompts with the URL, origin and scope; the matching state resolves; a replay is refused', async () => {
    const login = new PopupLogin(() => 'http://127.0.0.1:7/oauth/callback');
    expect(login.redirectUrl()).toBe('http://127.0.0.1:7/oauth/callback');
    const { prompts, ended } = recorder(login);
    const flow = login.authorize(request('good'));
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toMatchObject({ serverId: 'srv', serverName: 'Server', origin: 'https://auth.example', scope: 'read write' });
    expect(prompts[0]!.url).toBe('https://auth.example/authorize?scope=read%20write&state=good');
    expect(login.prompts()).toEqual(prompts);

    expect(login.deliver(new URLSearchParams({ state: 'bad', code: 'x' }))).toMatchObject({ ok: false });
    expect(login.deliver(new URLSearchParams({ code: 'x' }))).toMatchObject({ ok: false });
    expect(login.prompts()).toHaveLength(1);
    expect(ended).toEqual([]);

    expect(login.deliver(new URLSearchParams({ state: 'good', code: 'c0de', iss: 'https://auth.example' }))).toMatchObject({ ok: true });
    await expect(flow).resolves.toMatchObject({ code: 'c0de', state: 'good', iss: 'https://auth.example' });
    expect(ended).toEqual([{ flowId: prompts[0]!.flowId, serverId: 'srv', outcome: 'completed', message: undefined }]);
    expect(login.prompts()).toEqual([]);
    expect(login.deliver(new URLSearchParams({ state: 'good', code: 'c0de' })).ok).toBe(false);
    expect(ended).toHaveLength(1);
  });

  it('an error callback resolves the flow (outcome failed) and tells the page why', async () => {
    const login = new PopupLogin(() => '');
    const { ended } = recorder(login);
    const flow = login.authorize(request('e'));
    const answer = login.deliver(new URLSearchParams({ state: 'e', error: 'access_denied', error_description: 'user said no' }));
    expect(answer).toEqual({ ok: false, message: 'The authorization server answered: access_denied — user said no' });
    await expect(flow).resolves.toMatchObject({ error: 'access_denied', errorDescription: 'user said no' });
    expect(ended[0]).toMatchObject({ outcome: 'failed', message: 'access_denied' });
  });

  it('keeps concurrent flows apart by state', async () => {
    const login = new PopupLogin(() => '');
    const a = login.authorize(request('a'));
    const b = login.authorize(request('b'));
    expect(login.prompts()).toHaveLength(2);
    login.deliver(new URLSearchParams({ state: 'b', code: 'for-b' }));
    login.deliver(new URLSearchParams({ state: 'a', code: 'for-a' }));
    expect((await a).code).toBe('for-a');
    expect((await b).code).toBe('for-b');
  });

  it('cancel(flowId) rejects that flow only; an unknown flow id is false', async () => {
    const login = new PopupLogin(() => '');
    const { prompts, ended } = recorder(login);
    const one = login.authorize(request('one'));
    const two = login.authorize(request('two'));
    expect(login.cancel('no-such-flow')).toBe(false);
    expect(login.cancel(prompts[0]!.flowId)).toBe(true);
    await expect(one).rejects.toThrow('cancelled in the app');
    expect(ended).toEqual([{ flowId: prompts[0]!.flowId, serverId: 'srv', outcome: 'cancelled', message: 'The sign-in was cancelled in the app.' }]);
    expect(login.prompts().map((p) => p.flowId)).toEqual([prompts[1]!.flowId]);
    expect(login.deliver(new URLSearchParams({ state: 'one', code: 'late' })).ok).toBe(false);
    login.deliver(new URLSearchParams({ state: 'two', code: 'ok' }));
    await expect(two).resolves.toMatchObject({ code: 'ok' });
  });

  it('an abort cancels with the signal\'s reason; an abort after completion changes nothing', async () => {
    const login = new PopupLogin(() => '');
    const { ended } = recorder(login);
    const abort = new AbortController();
    const flow = login.authorize(request('ab', abort.signal));
    abort.abort(new Error('connection removed'));
    await expect(flow).rejects.toThrow('connection removed');
    expect(ended).toMatchObject([{ outcome: 'cancelled' }]);
    expect(login.prompts()).toEqual([]);

    const later = new AbortController();
    const done = login.authorize(request('done', later.signal));
    login.deliver(new URLSearchParams({ state: 'done', code: 'zz' }));
    await done;
    later.abort();
    expect(ended.map((e) => e.outcome)).toEqual(['cancelled', 'completed']);
  });

  it('an already aborted signal rejects at once and leaves nothing pending', async () => {
    const login = new PopupLogin(() => '');
    const { prompts } = recorder(login);
    const abort = new AbortController();
    abort.abort();
    await expect(login.authorize(request('pre', abort.signal))).rejects.toThrow();
    expect(prompts).toEqual([]);
    expect(login.prompts()).toEqual([]);
  });
});

describe('FileSecretStore', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sb-secrets-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const mode = (path: string) => statSync(path).mode & 0o777;

  it('creates its directory 0700 and its file 0600, and a new instance reads back what was written', async () => {
    const path = join(dir, 'fresh', 'nested', 'secrets.json');
    const store = new FileSecretStore(path);
    expect(await store.get('k')).toBeUndefined();
    await store.set('k', 'v1');
    await store.set('other', 'v2');
    expect(mode(join(dir, 'fresh', 'nested'))).toBe(0o700);
    expect(mode(path)).toBe(0o600);
    const again = new FileSecretStore(path);
    expect(await again.get('k')).toBe('v1');
    expect((await again.keys()).sort()).toEqual(['k', 'other']);
    expect(store.info.encrypted).toBe(false);
    expect(store.info.notice).toContain(path);
    expect(store.info.notice).toContain('0600');
  });

  it('tightens a pre-existing world-readable file to 0600 on the next write', async () => {
    const path = join(dir, 'loose.json');
    writeFileSync(path, JSON.stringify({ version: 1, entries: { old: 'x' } }), { mode: 0o644 });
    chmodSync(path, 0o644);
    const store = new FileSecretStore(path);
    await store.set('new', 'y');
    expect(mode(path)).toBe(0o600);
    expect(JSON.parse(readFileSync(path, 'utf8')).entries).toEqual({ old: 'x', new: 'y' });
  });

  it('serializes concurrent writes: none is lost, and no temporary file is left behind', async () => {
    const sub = join(dir, 'concurrent');
    const path = join(sub, 'secrets.json');
    const store = new FileSecretStore(path);
    await Promise.all(Array.from({ length: 40 }, (_, i) => store.set(`key-${i}`, `value-${i}`)));
    await Promise.all([store.delete('key-0'), store.set('key-40', 'value-40'), store.delete('key-1')]);
    const onDisk = JSON.parse(readFileSync(path, 'utf8')) as { version: number; entries: Record<string, string> };
    expect(onDisk.version).toBe(1);
    expect(Object.keys(onDisk.entries)).toHaveLength(39);
    for (let i = 2; i <= 40; i++) expect(onDisk.entries[`key-${i}`]).toBe(`value-${i}`);
    expect(onDisk.entries['key-0']).toBeUndefined();
    expect(readdirSync(sub)).toEqual(['secrets.json']);
    expect(await new FileSecretStore(path).get('key-1')).toBeUndefined();
  });

  it('delete removes the key on disk', async () => {
    const path = join(dir, 'delete.json');
    const store = new FileSecretStore(path);
    await store.set('a', '1');
    await store.set('b', '2');
    await store.delete('a');
    expect(await new FileSecretStore(path).keys()).toEqual(['b']);
  });

  it('an unreadable file is a clear error naming the file, not an empty store that would be overwritten', async () => {
    const path = join(dir, 'broken.json');
    writeFileSync(path, '{ not json', { mode: 0o600 });
    const store = new FileSecretStore(path);
    await expect(store.get('x')).rejects.toThrow(`The secret store ${path} cannot be read`);
    await expect(store.set('x', 'y')).rejects.toThrow('cannot be read');
    expect(readFileSync(path, 'utf8')).toBe('{ not json');
  });

  it('a directory where the file should be is a clear error too', async () => {
    const path = join(dir, 'is-a-dir');
    mkdirSync(path);
    await expect(new FileSecretStore(path).keys()).rejects.toThrow(`The secret store ${path} cannot be read`);
  });

  it('ignores entries that are not strings', async () => {
    const path = join(dir, 'mixed.json');
    writeFileSync(path, JSON.stringify({ version: 1, entries: { ok: 'v', num: 3, obj: { a: 1 }, nil: null } }));
    const store = new FileSecretStore(path);
    expect(await store.keys()).toEqual(['ok']);
  });

  it('MemorySecretStore keeps values in memory and says so', async () => {
    const store = new MemorySecretStore();
    await store.set('a', '1');
    await store.set('b', '2');
    await store.delete('a');
    expect(await store.get('a')).toBeUndefined();
    expect(await store.keys()).toEqual(['b']);
    expect(store.info).toMatchObject({ encrypted: false, backend: 'memory' });
  });
});

describe('decodeJwt', () => {
  const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

  it('returns header and payload, never the signature', () => {
    const header = { alg: 'RS256', kid: 'k1', typ: 'JWT' };
    const payload = { sub: 'user-1', scope: 'mcp:read', exp: 2_000_000_000, note: 'ü→✓' };
    const decoded = decodeJwt(`${b64(header)}.${b64(payload)}.c2lnbmF0dXJl`);
    expect(decoded).toEqual({ header, payload });
    expect(JSON.stringify(decoded)).not.toContain('c2lnbmF0dXJl');
  });

  it.each([
    ['an opaque token', 'sk_live_0123456789abcdef'],
    ['two parts', `${Buffer.from('{}').toString('base64url')}.${Buffer.from('{}').toString('base64url')}`],
    ['four parts', 'a.b.c.d'],
    ['garbage parts', 'not.json.here'],
    ['a payload that is an array', `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from('[1,2]').toString('base64url')}.x`],
    ['a header that is a string', `${Buffer.from('"x"').toString('base64url')}.${Buffer.from('{}').toString('base64url')}.x`],
    ['a null payload', `${Buffer.from('{}').toString('base64url')}.${Buffer.from('null').toString('base64url')}.x`],
    ['empty', ''],
  ])('is undefined for %s', (_label, token) => {
    expect(decodeJwt(token)).toBeUndefined();
  });
});

describe('server identity', () => {
  it('normalizes case, the default port, a trailing slash, query and fragment', () => {
    expect(normalizeServerUrl('https://Host.Example:443/mcp/')).toBe('https://host.example/mcp');
    expect(normalizeServerUrl('https://host.example/mcp#x')).toBe('https://host.example/mcp');
    expect(normalizeServerUrl('http://127.0.0.1:8080/')).toBe('http://127.0.0.1:8080');
  });

  it('the same protected resource and client give the same identity; a different client, port, scheme or path does not', () => {
    const settings = { clientId: 'abc' };
    const id = oauthIdentity('https://Host:443/mcp/', settings);
    expect(oauthIdentity('https://host/mcp', settings)).toBe(id);
    expect(oauthIdentity('https://host/mcp', { clientId: 'xyz' })).not.toBe(id);
    expect(oauthIdentity('https://host:8443/mcp', settings)).not.toBe(id);
    expect(oauthIdentity('http://host/mcp', settings)).not.toBe(id);
    expect(oauthIdentity('https://host/other', settings)).not.toBe(id);
    const dynamic = oauthIdentity('https://host/mcp', {});
    const cimd = oauthIdentity('https://host/mcp', { clientMetadataUrl: 'https://me.example/client.json' });
    expect(new Set([id, dynamic, cimd]).size).toBe(3);
    // A client secret is not part of the identity (rotating it keeps the tokens).
    expect(oauthIdentity('https://host/mcp', { clientId: 'abc', clientSecret: 'rotated' })).toBe(id);
  });
});

describe('stepOf', () => {
  const u = (s: string) => new URL(s);
  it.each([
    ['https://rs.example/.well-known/oauth-protected-resource/mcp', undefined, 'prm'],
    ['https://as.example/.well-known/oauth-authorization-server', undefined, 'as-metadata'],
    ['https://as.example/tenant/.well-known/openid-configuration', undefined, 'as-metadata'],
    ['https://as.example/token', { method: 'POST', body: 'grant_type=authorization_code&code=x&code_verifier=y' }, 'token'],
    ['https://as.example/token', { method: 'POST', body: new URLSearchParams({ client_id: 'c', grant_type: 'refresh_token', refresh_token: 'r' }) }, 'refresh'],
    ['https://as.example/token', { method: 'POST', body: 'client_id=c&grant_type=refresh_token' }, 'refresh'],
    ['https://as.example/oauth/revoke', { method: 'POST', body: 'token=t' }, 'revoke'],
    ['https://as.example/oauth/other', { method: 'POST', body: 'token=t&token_type_hint=access_token' }, 'revoke'],
    ['https://as.example/register', { method: 'POST', body: '{"client_name":"x"}' }, 'register'],
    ['https://as.example/oauth2/authorize?response_type=code', undefined, 'authorize'],
    ['https://as.example/authorise', undefined, 'authorize'],
    ['https://as.example/userinfo', undefined, 'request'],
  ] as const)('%s → %s', (url, init, step) => {
    expect(stepOf(u(url), init as RequestInit | undefined)).toBe(step);
  });
});

describe('hintFor', () => {
  it.each([
    ['invalid_request: redirect_uri not registered', /redirect URI is not registered/],
    ['unsupported_grant_type', /grant type/],
    ['Issuer mismatch', /issuer mismatch/],
    ['invalid_request: code_challenge required', /PKCE/],
    ['invalid_client: bad secret', /client id or secret is wrong/],
    ['invalid_grant: code already used', /sign in again/],
    ['invalid_scope', /scope was requested/],
    ['access_denied', /denied in the browser/],
    ['Dynamic client registration failed with 404', /dynamic registration/],
  ])('%s → a likely cause', (message, hint) => {
    expect(hintFor(message)).toMatch(hint);
  });

  it('has no guess for an unrelated failure', () => {
    expect(hintFor('ECONNREFUSED 127.0.0.1:1')).toBeUndefined();
  });
});

describe('Redactor and OAuth secrets', () => {
  const fields = ['code', 'code_verifier', 'refresh_token', 'access_token', 'client_secret'];

  it('removes the authorization code from a redirect Location header, keeping state and the rest', () => {
    const r = new Redactor();
    const out = r.headers(new Headers({ location: 'http://127.0.0.1:5555/oauth/callback?code=SplxlOBeZQQYbYS6WxSbIA&state=xyz&iss=https%3A%2F%2Fas.example', 'content-type': 'text/html' }));
    expect(out.location).not.toContain('SplxlOBeZQQYbYS6WxSbIA');
    const location = new URL(out.location!);
    expect(location.searchParams.get('code')).toBe(REDACTED);
    expect(location.searchParams.get('state')).toBe('xyz');
    expect(location.searchParams.get('iss')).toBe('https://as.example');
    expect(location.pathname).toBe('/oauth/callback');
    expect(out['content-type']).toBe('text/html');
  });

  // BUG (main/core/trace/redact.ts:43 → url() at :82/:97): a relative Location cannot be parsed
  // by `new URL(raw)`, so it falls back to text() and the code stays in the trace. Marked
  // `fails` to document it; turn it into `it` once redact.ts resolves relative references.
  it('removes the authorization code from a relative Location too', () => {
    const out = new Redactor().headers({ location: '/oauth/callback?code=SplxlOBeZQQYbYS6WxSbIA&state=xyz' });
    expect(out.location).toBe(`/oauth/callback?code=${encodeURIComponent(REDACTED)}&state=xyz`);
  });

  it('removes tokens from a fragment (implicit-style redirects)', () => {
    const out = new Redactor().url('https://app.example/cb#access_token=eyJ0eXAi.secret.sig&token_type=bearer');
    expect(out).not.toContain('eyJ0eXAi.secret.sig');
    expect(out).toContain('token_type=bearer');
  });

  it('leaves a Location without secrets byte for byte as it was', () => {
    const r = new Redactor();
    expect(r.headers({ Location: 'https://as.example/login?state=a%20b' }).location).toBe('https://as.example/login?state=a%20b');
  });

  it('keeps the auth scheme of an Authorization header and hides the rest', () => {
    const r = new Redactor();
    expect(r.headers({ Authorization: 'Bearer eyJhbGciOi.secret.sig' }).authorization).toBe(`Bearer ${REDACTED}`);
  });

  it.each(fields)('url() and form() redact %s', (field) => {
    const r = new Redactor();
    const value = `value-of-${field}-123456`;
    const url = r.url(`https://as.example/cb?${field}=${value}&keep=me`);
    expect(url).not.toContain(value);
    expect(new URL(url).searchParams.get(field)).toBe(REDACTED);
    expect(new URL(url).searchParams.get('keep')).toBe('me');
    const form = r.form(`grant_type=x&${field}=${value}&client_id=c`);
    expect(form).not.toContain(value);
    const parsed = new URLSearchParams(form);
    expect(parsed.get(field)).toBe(REDACTED);
    expect(parsed.get('client_id')).toBe('c');
    expect(parsed.get('grant_type')).toBe('x');
  });

  it('url() strips user info and literal secrets learnt at run time', () => {
    const r = new Redactor();
    r.addSecret('learnt-secret-value');
    const out = r.url('https://user:pass@as.example/p/learnt-secret-value?x=1');
    expect(out).not.toContain('pass');
    expect(out).not.toContain('learnt-secret-value');
    expect(out).toContain(REDACTED);
  });
});
