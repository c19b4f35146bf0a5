/**
 * Proves the OAuth fixture (test/fixtures/oauth) behaves as documented, with plain `fetch` only
 * (never the app's client): discovery documents, the 401/403 challenges, a full authorization code
 * + PKCE flow by hand, refresh rotation, the admin controls and every strict mode's twist.
 * Each fixture runs as a separate child process.
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startOAuthFixture, type RunningOAuthFixture, type StartOAuthFixtureOptions } from '../fixtures/oauth/harness';

const REDIRECT_URI = 'http://127.0.0.1:53682/callback';

// ---------------------------------------------------------------------------
// helpers: an OAuth client written out by hand
// ---------------------------------------------------------------------------

interface Tokens {
  access_token: string;
  refresh_token?: string;
  expires_in: number;
  scope: string;
  token_type: string;
}

interface ClientCredentials {
  client_id: string;
  client_secret?: string;
}

type JsonObject = Record<string, unknown>;

function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

async function getJson(url: string): Promise<JsonObject> {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  return (await response.json()) as JsonObject;
}

function form(fields: Record<string, string | undefined>): URLSearchParams {
  const body = new URLSearchParams();
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) body.set(key, value);
  return body;
}

async function register(fx: RunningOAuthFixture, metadata: JsonObject = {}): Promise<ClientCredentials & JsonObject> {
  const response = await fetch(`${fx.issuer}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Switchboard test', redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none', ...metadata }),
  });
  expect(response.status).toBe(201);
  return (await response.json()) as ClientCredentials & JsonObject;
}

function authorizeUrl(fx: RunningOAuthFixture, clientId: string, challenge: string, extra: Record<string, string> = {}): string {
  const url = new URL(`${fx.issuer}/authorize`);
  const params = { response_type: 'code', client_id: clientId, redirect_uri: REDIRECT_URI, code_challenge: challenge, code_challenge_method: 'S256', resource: fx.url, state: 'st-123', ...extra };
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  return url.href;
}

/** GET /authorize (auto-approve) and return the redirect's query. */
async function authorize(fx: RunningOAuthFixture, clientId: string, challenge: string, extra: Record<string, string> = {}): Promise<URLSearchParams> {
  const response = await fetch(authorizeUrl(fx, clientId, challenge, extra), { redirect: 'manual' });
  expect(response.status).toBe(302);
  const location = new URL(response.headers.get('location')!);
  expect(location.origin + location.pathname).toBe(REDIRECT_URI);
  return location.searchParams;
}

async function tokenRequest(fx: RunningOAuthFixture, fields: Record<string, string | undefined>, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${fx.issuer}/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: form(fields) });
}

/** register (public client) → authorize → token. */
async function fullFlow(fx: RunningOAuthFixture, scope?: string): Promise<{ client: ClientCredentials; tokens: Tokens }> {
  const client = await register(fx);
  const { verifier, challenge } = pkce();
  const query = await authorize(fx, client.client_id, challenge, scope ? { scope } : {});
  const response = await tokenRequest(fx, { grant_type: 'authorization_code', code: query.get('code')!, redirect_uri: REDIRECT_URI, code_verifier: verifier, client_id: client.client_id, resource: fx.url });
  expect(response.status).toBe(200);
  return { client, tokens: (await response.json()) as Tokens };
}

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'oauth-fixture-test', version: '0.0.0' } },
};

function mcpPost(fx: RunningOAuthFixture, body: unknown, bearer?: string): Promise<Response> {
  return fetch(fx.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(bearer !== undefined && { authorization: `Bearer ${bearer}` }),
    },
    body: JSON.stringify(body),
  });
}

function toolCall(name: string, args: JsonObject = {}): JsonObject {
  return { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name, arguments: args } };
}

function decodeJwtPart(token: string, index: 0 | 1): JsonObject {
  return JSON.parse(Buffer.from(token.split('.')[index]!, 'base64url').toString('utf8')) as JsonObject;
}

function withFixture(opts: StartOAuthFixtureOptions): () => RunningOAuthFixture {
  let fx: RunningOAuthFixture | undefined;
  beforeAll(async () => {
    fx = await startOAuthFixture(opts);
  });
  afterAll(async () => {
    await fx?.close();
  });
  return () => fx!;
}

// ---------------------------------------------------------------------------
// strict AS, dcr (default), same origin
// ---------------------------------------------------------------------------

describe('oauth fixture: strict AS, dcr', () => {
  const fixture = withFixture({});

  it('answers /mcp without a bearer with 401 and a resource_metadata challenge', async () => {
    const fx = fixture();
    const response = await mcpPost(fx, INITIALIZE);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${fx.prmUrl}", scope="mcp:read mcp:tools"`);
    expect(fx.prmUrl).toBe(new URL('/.well-known/oauth-protected-resource/mcp', fx.url).href);
  });

  it('serves RFC 9728 and RFC 8414 / OpenID metadata', async () => {
    const fx = fixture();
    const origin = new URL(fx.url).origin;
    expect(fx.issuer).toBe(origin);
    const prm = await getJson(fx.prmUrl);
    expect(prm).toMatchObject({ resource: fx.url, authorization_servers: [fx.issuer], scopes_supported: ['mcp:read', 'mcp:tools', 'mcp:admin'] });
    expect(await getJson(`${origin}/.well-known/oauth-protected-resource`)).toEqual(prm);

    const as = await getJson(`${fx.issuer}/.well-known/oauth-authorization-server`);
    expect(as).toMatchObject({
      issuer: fx.issuer,
      authorization_endpoint: `${fx.issuer}/authorize`,
      token_endpoint: `${fx.issuer}/token`,
      registration_endpoint: `${fx.issuer}/register`,
      revocation_endpoint: `${fx.issuer}/revoke`,
      code_challenge_methods_supported: ['S256'],
      authorization_response_iss_parameter_supported: true,
      grant_types_supported: ['authorization_code', 'refresh_token'],
      response_types_supported: ['code'],
    });
    expect(as).not.toHaveProperty('client_id_metadata_document_supported');
    expect(await getJson(`${fx.issuer}/.well-known/openid-configuration`)).toMatchObject(as);
  });

  it('runs the whole dcr + PKCE flow by hand and the bearer opens /mcp', async () => {
    const fx = fixture();
    const client = await register(fx);
    expect(client.client_id).toMatch(/^dcr-/);
    expect(client).not.toHaveProperty('client_secret');

    const { verifier, challenge } = pkce();
    const query = await authorize(fx, client.client_id, challenge);
    expect(query.get('state')).toBe('st-123');
    expect(query.get('iss')).toBe(fx.issuer);
    const code = query.get('code')!;
    expect(code).toBeTruthy();

    const response = await tokenRequest(fx, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier, client_id: client.client_id });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const tokens = (await response.json()) as Tokens;
    expect(tokens).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'mcp:read mcp:tools' });
    expect(tokens.refresh_token).toBeTruthy();
    expect(decodeJwtPart(tokens.access_token, 0)).toEqual({ alg: 'HS256', typ: 'at+jwt' });
    expect(decodeJwtPart(tokens.access_token, 1)).toMatchObject({ iss: fx.issuer, sub: 'fixture-user', aud: fx.url, client_id: client.client_id, scope: 'mcp:read mcp:tools' });

    // The code is single-use.
    const replay = await tokenRequest(fx, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier, client_id: client.client_id });
    expect(replay.status).toBe(400);
    expect(await replay.json()).toMatchObject({ error: 'invalid_grant' });

    const init = await mcpPost(fx, INITIALIZE, (await fullFlow(fx)).tokens.access_token);
    expect(init.status).toBe(200);
    expect(await init.text()).toContain('oauth-fixture');
  });

  it('whoami reports the bearer the call was made with', async () => {
    const fx = fixture();
    const { client, tokens } = await fullFlow(fx);
    const response = await mcpPost(fx, toolCall('whoami'), tokens.access_token);
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain(client.client_id);
    expect(text).toContain('mcp:read mcp:tools');
  });

  it('refuses a wrong PKCE verifier, plain PKCE and a foreign resource', async () => {
    const fx = fixture();
    const client = await register(fx);
    const { challenge } = pkce();
    const query = await authorize(fx, client.client_id, challenge);
    const wrong = await tokenRequest(fx, { grant_type: 'authorization_code', code: query.get('code')!, redirect_uri: REDIRECT_URI, code_verifier: pkce().verifier, client_id: client.client_id });
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ error: 'invalid_grant' });

    const plain = await authorize(fx, client.client_id, challenge, { code_challenge_method: 'plain' });
    expect(plain.get('error')).toBe('invalid_request');
    expect(plain.get('state')).toBe('st-123');
    expect(plain.has('code')).toBe(false);

    const foreign = await authorize(fx, client.client_id, challenge, { resource: 'http://127.0.0.1:1/other' });
    expect(foreign.get('error')).toBe('invalid_target');

    // An unregistered redirect URI is shown, not redirected to; a loopback one on another port is fine.
    const elsewhere = await fetch(authorizeUrl(fx, client.client_id, challenge, { redirect_uri: 'https://evil.example/cb' }), { redirect: 'manual' });
    expect(elsewhere.status).toBe(400);
    const otherPort = await fetch(authorizeUrl(fx, client.client_id, challenge, { redirect_uri: 'http://127.0.0.1:40000/callback' }), { redirect: 'manual' });
    expect(otherPort.status).toBe(302);
  });

  it('rotates refresh tokens and refuses the old one', async () => {
    const fx = fixture();
    const { client, tokens } = await fullFlow(fx);
    const first = await tokenRequest(fx, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.client_id });
    expect(first.status).toBe(200);
    const rotated = (await first.json()) as Tokens;
    expect(rotated.refresh_token).toBeTruthy();
    expect(rotated.refresh_token).not.toBe(tokens.refresh_token);
    expect((await mcpPost(fx, INITIALIZE, rotated.access_token)).status).toBe(200);

    const reused = await tokenRequest(fx, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.client_id });
    expect(reused.status).toBe(400);
    expect(await reused.json()).toMatchObject({ error: 'invalid_grant' });

    const widened = await tokenRequest(fx, { grant_type: 'refresh_token', refresh_token: rotated.refresh_token, client_id: client.client_id, scope: 'mcp:read mcp:admin' });
    expect(widened.status).toBe(400);
    expect(await widened.json()).toMatchObject({ error: 'invalid_scope' });
  });

  it('expire-access-tokens turns the bearer into 401 invalid_token; revoke-refresh-tokens kills refreshing', async () => {
    const fx = fixture();
    const { client, tokens } = await fullFlow(fx);
    expect((await mcpPost(fx, INITIALIZE, tokens.access_token)).status).toBe(200);
    await fx.admin.expireAccessTokens();
    const expired = await mcpPost(fx, INITIALIZE, tokens.access_token);
    expect(expired.status).toBe(401);
    expect(expired.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token", error_description="[^"]+", resource_metadata="[^"]+", scope="mcp:read mcp:tools"$/);

    await fx.admin.revokeRefreshTokens();
    const refused = await tokenRequest(fx, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.client_id });
    expect(refused.status).toBe(400);
  });

  it('answers admin_reset without mcp:admin with 403 insufficient_scope, and serves it with the scope', async () => {
    const fx = fixture();
    const plain = await fullFlow(fx);
    const forbidden = await mcpPost(fx, toolCall('admin_reset'), plain.tokens.access_token);
    expect(forbidden.status).toBe(403);
    expect(forbidden.headers.get('www-authenticate')).toBe(
      `Bearer error="insufficient_scope", scope="mcp:read mcp:tools mcp:admin", resource_metadata="${fx.prmUrl}"`,
    );
    // Other calls with the same token are fine.
    expect((await mcpPost(fx, toolCall('echo', { text: 'hi' }), plain.tokens.access_token)).status).toBe(200);

    const admin = await fullFlow(fx, 'mcp:read mcp:tools mcp:admin');
    const allowed = await mcpPost(fx, toolCall('admin_reset'), admin.tokens.access_token);
    expect(allowed.status).toBe(200);
    expect(await allowed.text()).toContain('admin state reset');
  });

  it('revokes access tokens (RFC 7009)', async () => {
    const fx = fixture();
    const { client, tokens } = await fullFlow(fx);
    const response = await fetch(`${fx.issuer}/revoke`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form({ token: tokens.access_token, client_id: client.client_id }) });
    expect(response.status).toBe(200);
    expect((await mcpPost(fx, INITIALIZE, tokens.access_token)).status).toBe(401);
  });

  it('gives a confidential dcr client a secret and requires it', async () => {
    const fx = fixture();
    const client = await register(fx, { token_endpoint_auth_method: 'client_secret_post' });
    expect(client.client_secret).toBeTruthy();
    const { verifier, challenge } = pkce();
    const query = await authorize(fx, client.client_id, challenge);
    const without = await tokenRequest(fx, { grant_type: 'authorization_code', code: query.get('code')!, redirect_uri: REDIRECT_URI, code_verifier: verifier, client_id: client.client_id });
    expect(without.status).toBe(401);
    expect(await without.json()).toMatchObject({ error: 'invalid_client' });
  });

  it('counts what happened and lists every secret it issued', async () => {
    const fx = fixture();
    const stats = await fx.admin.stats();
    expect(stats.prm).toBeGreaterThanOrEqual(2);
    expect(stats.asMetadata).toBeGreaterThanOrEqual(2);
    expect(stats.register).toBeGreaterThan(0);
    expect(stats.authorize).toBeGreaterThan(0);
    expect(stats.token.authorization_code).toBeGreaterThan(0);
    expect(stats.token.refresh_token).toBeGreaterThan(0);
    expect(stats.tokenErrors).toBeGreaterThan(0);
    expect(stats.revoke).toBe(1);
    expect(stats.mcpUnauthorized).toBeGreaterThan(0);
    expect(stats.mcpForbidden).toBe(1);
    expect(stats.mcpOk).toBeGreaterThan(0);
    expect(stats.issued.access.length).toBeGreaterThan(0);
    expect(stats.issued.refresh.length).toBeGreaterThan(0);
    expect(stats.issued.codes.length).toBeGreaterThan(0);
    // No token value is ever logged.
    for (const secret of [...stats.issued.access, ...stats.issued.refresh, ...stats.issued.codes]) expect(fx.stderr()).not.toContain(secret);
  });
});

// ---------------------------------------------------------------------------
// strict AS, the other modes
// ---------------------------------------------------------------------------

describe('oauth fixture: faulty-js', () => {
  const fixture = withFixture({ mode: 'faulty-js' });

  it('advertises a javascript: authorization endpoint', async () => {
    const fx = fixture();
    const as = await getJson(`${fx.issuer}/.well-known/oauth-authorization-server`);
    expect(as['authorization_endpoint']).toBe('javascript:alert(document.domain)//');
    expect(as['registration_endpoint']).toBe(`${fx.issuer}/register`);
  });
});

describe('oauth fixture: faulty-token', () => {
  const fixture = withFixture({ mode: 'faulty-token', tokenError: 'invalid_client' });

  it('refuses every authorization_code grant with the chosen error', async () => {
    const fx = fixture();
    const client = await register(fx);
    const { verifier, challenge } = pkce();
    const query = await authorize(fx, client.client_id, challenge);
    const response = await tokenRequest(fx, { grant_type: 'authorization_code', code: query.get('code')!, redirect_uri: REDIRECT_URI, code_verifier: verifier, client_id: client.client_id });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: 'invalid_client', error_description: 'fixture: token endpoint refuses every grant' });
  });
});

describe('oauth fixture: preregistered, separate AS origin', () => {
  const fixture = withFixture({ mode: 'preregistered', separateAs: true });

  it('has no registration endpoint and lives on another origin', async () => {
    const fx = fixture();
    expect(new URL(fx.issuer).origin).not.toBe(new URL(fx.url).origin);
    expect((await getJson(fx.prmUrl))['authorization_servers']).toEqual([fx.issuer]);
    const as = await getJson(`${fx.issuer}/.well-known/oauth-authorization-server`);
    expect(as).not.toHaveProperty('registration_endpoint');
    expect(as['token_endpoint_auth_methods_supported']).toEqual(['client_secret_basic', 'client_secret_post']);
    expect((await fetch(`${fx.issuer}/register`, { method: 'POST' })).status).toBe(404);
  });

  it('refuses a wrong secret and accepts the right one (client_secret_basic)', async () => {
    const fx = fixture();
    const basic = (id: string, secret: string) => ({ authorization: `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}` });
    const grant = async () => {
      const { verifier, challenge } = pkce();
      const query = await authorize(fx, 'switchboard-test', challenge);
      return { grant_type: 'authorization_code', code: query.get('code')!, redirect_uri: REDIRECT_URI, code_verifier: verifier };
    };
    const wrong = await tokenRequest(fx, await grant(), basic('switchboard-test', 'not-the-secret'));
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ error: 'invalid_client' });
    const right = await tokenRequest(fx, await grant(), basic('switchboard-test', 's3cret-client-value'));
    expect(right.status).toBe(200);
    const post = await tokenRequest(fx, { ...(await grant()), client_id: 'switchboard-test', client_secret: 's3cret-client-value' });
    expect(post.status).toBe(200);
  });
});

describe('oauth fixture: cimd', () => {
  const fixture = withFixture({ mode: 'cimd' });

  it('accepts the metadata-document URL as a public client_id', async () => {
    const fx = fixture();
    const as = await getJson(`${fx.issuer}/.well-known/oauth-authorization-server`);
    expect(as['client_id_metadata_document_supported']).toBe(true);
    expect(as).not.toHaveProperty('registration_endpoint');
    const clientId = 'https://switchboard.example/oauth/client.json';
    const { verifier, challenge } = pkce();
    const query = await authorize(fx, clientId, challenge);
    const response = await tokenRequest(fx, { grant_type: 'authorization_code', code: query.get('code')!, redirect_uri: REDIRECT_URI, code_verifier: verifier, client_id: clientId });
    expect(response.status).toBe(200);
    const unknown = await fetch(authorizeUrl(fx, 'https://other.example/client.json', challenge), { redirect: 'manual' });
    expect(unknown.status).toBe(400);
  });
});

describe('oauth fixture: consent', () => {
  const fixture = withFixture({ approve: 'consent' });

  it('shows a consent page whose Approve redirects with a code and whose Deny redirects with access_denied', async () => {
    const fx = fixture();
    const client = await register(fx);
    const { challenge } = pkce();
    const page = async () => {
      const response = await fetch(authorizeUrl(fx, client.client_id, challenge), { redirect: 'manual' });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('text/html');
      const html = await response.text();
      expect(html).toContain('<title>Authorize Switchboard</title>');
      expect(html).toContain('<button type=submit id="approve">Approve</button>');
      expect(html).toContain('Switchboard test');
      expect(html).toContain('mcp:tools');
      return /name="request_id" value="([^"]+)"/.exec(html)![1]!;
    };
    const decide = (requestId: string, decision: string) =>
      fetch(`${fx.issuer}/authorize/decision`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form({ request_id: requestId, decision }) });

    const approveId = await page();
    const approved = await decide(approveId, 'approve');
    expect(approved.status).toBe(302);
    const location = new URL(approved.headers.get('location')!);
    expect(location.searchParams.get('code')).toBeTruthy();
    expect(location.searchParams.get('iss')).toBe(fx.issuer);
    expect((await decide(approveId, 'approve')).status).toBe(400); // one-time

    const denied = await decide(await page(), 'deny');
    expect(denied.status).toBe(302);
    const deniedAt = new URL(denied.headers.get('location')!);
    expect(deniedAt.searchParams.get('error')).toBe('access_denied');
    expect(deniedAt.searchParams.get('state')).toBe('st-123');
  });
});

// ---------------------------------------------------------------------------
// the v1 SDK's demo AS
// ---------------------------------------------------------------------------

describe('oauth fixture: sdk-demo', () => {
  const fixture = withFixture({ as: 'sdk-demo' });

  it('verifies tokens from the SDK demo AS through its introspection endpoint', async () => {
    const fx = fixture();
    expect(new URL(fx.issuer).origin).not.toBe(new URL(fx.url).origin);
    expect((await getJson(fx.prmUrl))['authorization_servers']).toEqual([fx.issuer]);
    expect((await mcpPost(fx, INITIALIZE)).headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${fx.prmUrl}", scope="mcp:tools"`);

    const as = await getJson(fx.asMetadataUrl);
    const registered = await fetch(String(as['registration_endpoint']), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Switchboard test', redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' }),
    });
    expect(registered.status).toBe(201);
    const client = (await registered.json()) as ClientCredentials;
    const { verifier, challenge } = pkce();
    const url = new URL(String(as['authorization_endpoint']));
    const params = { response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT_URI, code_challenge: challenge, code_challenge_method: 'S256', resource: fx.url, state: 'st-1', scope: 'mcp:tools' };
    for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
    const redirect = await fetch(url, { redirect: 'manual' });
    expect(redirect.status).toBe(302);
    const code = new URL(redirect.headers.get('location')!).searchParams.get('code')!;
    const token = await fetch(String(as['token_endpoint']), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier, client_id: client.client_id, resource: fx.url }),
    });
    expect(token.status).toBe(200);
    const tokens = (await token.json()) as Tokens;
    expect((await mcpPost(fx, INITIALIZE, tokens.access_token)).status).toBe(200);

    await fx.admin.expireAccessTokens();
    expect((await mcpPost(fx, INITIALIZE, tokens.access_token)).status).toBe(401);
    const stats = await fx.admin.stats();
    expect(stats.issued.access).toEqual([tokens.access_token]);
    expect(stats.mcpOk).toBe(1);
  });
});
