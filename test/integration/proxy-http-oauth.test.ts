/**
 * OAuth through the HTTP proxy (docs/oauth.md, "Through the recording proxy"), with the OAuth
 * fixture (a real, separate process: a protected MCP server and its strict authorization server)
 * and the v2 client's own OAuth code (`auth()`, its discovery and resource checks):
 *   - the challenge's `resource_metadata` and the metadata's `resource` are moved to the proxy's
 *     origin, so a spec-following client accepts the metadata for the URL it connects to (without
 *     the rewrite it refuses: the same check, shown on the upstream's own metadata);
 *   - the client then asks the authorization server (not proxied: another URL the client reaches
 *     itself) for a token for the proxy's address, and an audience-checking AS refuses it
 *     (`invalid_target`): what cannot be proxied, and why;
 *   - a token whose audience is the proxy, refused upstream, is explained in the trace; the token
 *     never reaches the trace;
 *   - every exchange the proxy sees is recorded, OAuth ones on channel `auth`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, discoverOAuthProtectedResourceMetadata, extractWWWAuthenticateParams, selectResourceURL, type OAuthClientProvider } from '@modelcontextprotocol/client';

import { startHttpProxy, type HttpProxy } from '../../main/core/proxy/http';
import { startOAuthFixture, type RunningOAuthFixture } from '../fixtures/oauth/harness';
import { memoryRecorder, type MemoryRecorder } from './support/proxy-http';

const INIT = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'oauth-through-proxy', version: '0' } } });
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** An unsigned-looking JWT with these claims (the upstream cannot verify it: it must refuse it). */
function jwtWith(claims: Record<string, unknown>): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'HS256', typ: 'at+jwt' })}.${part(claims)}.${Buffer.from('not-a-real-signature-1234').toString('base64url')}`;
}

describe('OAuth through the HTTP proxy (strict OAuth fixture)', () => {
  let fx: RunningOAuthFixture;
  let proxy: HttpProxy;
  let recorder: MemoryRecorder;
  beforeAll(async () => {
    fx = await startOAuthFixture({ mode: 'dcr' });
    recorder = memoryRecorder();
    proxy = await startHttpProxy({ upstream: new URL(fx.url), port: 0, transport: 'streamable-http', recorder });
  });
  afterAll(async () => {
    await proxy?.close();
    await fx?.close();
  });

  it('the challenge and the protected resource metadata name the proxy, so the client accepts them; the AS then refuses the proxy as a resource', async () => {
    const proxyOrigin = new URL(proxy.url).origin;
    const challenged = await fetch(proxy.url, { method: 'POST', headers: HEADERS, body: INIT });
    expect(challenged.status).toBe(401);
    const { resourceMetadataUrl } = extractWWWAuthenticateParams(challenged);
    expect(resourceMetadataUrl?.href).toBe(`${proxyOrigin}/.well-known/oauth-protected-resource/mcp`);

    // the SDK's discovery, through the proxy: the resource is the URL the client connects to
    const prm = await discoverOAuthProtectedResourceMetadata(proxy.url, { resourceMetadataUrl });
    expect(prm.resource).toBe(proxy.url);
    expect(prm.authorization_servers).toEqual([fx.issuer]);
    const provider = {} as OAuthClientProvider;
    expect((await selectResourceURL(proxy.url, provider, prm))?.href).toBe(proxy.url);
    // without the rewrite, the same check refuses the upstream's own metadata for the proxy's URL
    const upstreamPrm = await discoverOAuthProtectedResourceMetadata(fx.url);
    await expect(selectResourceURL(proxy.url, provider, upstreamPrm)).rejects.toThrow(/does not match/);

    // the whole flow with the SDK's auth(): registration and authorization go to the AS itself
    let authorization: URL | undefined;
    let clientInfo: unknown;
    let verifier = '';
    const flowProvider: OAuthClientProvider = {
      redirectUrl: 'http://127.0.0.1:9/callback',
      clientMetadata: { client_name: 'proxy oauth test', redirect_uris: ['http://127.0.0.1:9/callback'], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' },
      clientInformation: () => clientInfo as never,
      saveClientInformation: (info) => {
        clientInfo = info;
      },
      tokens: () => undefined,
      saveTokens: () => undefined,
      redirectToAuthorization: (url) => {
        authorization = url;
      },
      saveCodeVerifier: (v) => {
        verifier = v;
      },
      codeVerifier: () => verifier,
    };
    expect(await auth(flowProvider, { serverUrl: proxy.url, resourceMetadataUrl })).toBe('REDIRECT');
    expect(authorization?.searchParams.get('resource')).toBe(proxy.url);
    expect(authorization?.origin).toBe(new URL(fx.issuer).origin);
    // the authorization server binds tokens to its resource: the proxy's address is not one
    const refused = await fetch(authorization!, { redirect: 'manual' });
    expect(refused.status).toBe(302);
    const back = new URL(refused.headers.get('location')!);
    expect(back.searchParams.get('error')).toBe('invalid_target');

    // what the proxy saw, recorded: the 401 and the metadata on `auth`-aware channels, the rewrites noted
    const prmExchange = recorder.events.find((e) => e.kind === 'http-request' && e.http?.url?.includes('/.well-known/oauth-protected-resource'));
    expect(prmExchange?.channel).toBe('auth');
    const rewrites = recorder.events.filter((e) => e.meta?.proxy === 'rewrite').map((e) => e.meta?.what);
    expect(rewrites).toContain('the challenge resource_metadata');
    expect(rewrites).toContain('the protected resource metadata resource');
    // the upstream's bytes are recorded as sent (the metadata names the upstream there)
    const prmBody = recorder.events.find((e) => e.exchange === prmExchange!.exchange && e.kind === 'http-end')?.body as { resource?: string };
    expect(prmBody?.resource).toBe(fx.url);
  });

  it('a token minted for the proxy\'s address, refused upstream: the trace says why, and never holds the token', async () => {
    const token = jwtWith({ iss: fx.issuer, aud: proxy.url, sub: 'someone', exp: Math.floor(Date.now() / 1000) + 600 });
    const response = await fetch(proxy.url, { method: 'POST', headers: { ...HEADERS, authorization: `Bearer ${token}` }, body: INIT });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/invalid_token/);
    const note = recorder.events.find((e) => e.meta?.proxy === 'token-refused');
    expect(note).toMatchObject({ channel: 'auth', kind: 'auth-step', meta: { audienceIsProxy: true, aud: [proxy.url] } });
    expect(note?.text).toMatch(/audience-bound/);
    const trace = JSON.stringify(recorder.events);
    expect(trace).not.toContain(token);
    expect(trace).not.toContain(token.split('.')[1]!);
    const request = recorder.events.filter((e) => e.kind === 'http-request').at(-1);
    expect(request?.http?.headers?.['authorization']).toBe('Bearer [redacted]');
  });
});
