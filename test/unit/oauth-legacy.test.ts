/**
 * 2025-03-26 back-compat and the default Client ID Metadata Document, through the SDK's own
 * `auth()` and our provider, against small authorization servers over real HTTP:
 *
 * - no protected resource metadata, the server's own RFC 8414 document at the root naming an
 *   issuer under a path: the SDK's issuer check stops it, `adoptLegacyRootMetadata` accepts it
 *   (same origin), and the sign-in completes;
 * - the same document behind a protected resource metadata naming the root: still refused (the
 *   current era's rule is not weakened), and an issuer on another origin is refused too;
 * - no metadata at all: the 2025-03-26 default endpoints /register, /authorize, /token; and when
 *   they are not there either, the "publishes no OAuth metadata" error, not a guess;
 * - the client id: Switchboard's own metadata document URL by default, a configured one instead.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { auth, IssuerMismatchError } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { CALLBACK_PATH, HeadlessLogin } from '../../main/core/auth/login';
import { DEFAULT_CLIENT_METADATA_URL, NoOAuthMetadataError, SwitchboardOAuthProvider, type OAuthClientSettings } from '../../main/core/auth/oauth-provider';
import { MemorySecretStore } from '../../main/core/auth/secret-store';
import { Redactor } from '../../main/core/trace/redact';
import type { TraceEventInput } from '../../contract/trace';

interface AsOptions {
  /** Protected resource metadata naming this authorization server URL (absent: 404). */
  prmAuthorizationServer?: (origin: string) => string;
  /** The root RFC 8414 document's issuer (absent: no document). */
  issuer?: (origin: string) => string;
  /** Where the endpoints live ('' = the root, 2025-03-26 defaults). */
  prefix?: string;
  /** Serve the endpoints at all. */
  endpoints?: boolean;
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
});

async function readBody(req: IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of req) body += chunk;
  return body;
}

/** A resource server and its authorization server on one origin; `hits` lists every path asked for. */
async function startAs(options: AsOptions): Promise<{ origin: string; hits: string[]; clientIds: string[] }> {
  const hits: string[] = [];
  const clientIds: string[] = [];
  let origin = '';
  const prefix = options.prefix ?? '';
  const json = (res: ServerResponse, status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', origin);
      hits.push(`${req.method} ${url.pathname}`);
      const body = await readBody(req);
      if (url.pathname.startsWith('/.well-known/oauth-protected-resource') && options.prmAuthorizationServer) {
        return json(res, 200, { resource: `${origin}/mcp`, authorization_servers: [options.prmAuthorizationServer(origin)] });
      }
      if (url.pathname === '/.well-known/oauth-authorization-server' && options.issuer) {
        return json(res, 200, {
          issuer: options.issuer(origin),
          authorization_endpoint: `${origin}${prefix}/authorize`,
          token_endpoint: `${origin}${prefix}/token`,
          registration_endpoint: `${origin}${prefix}/register`,
          response_types_supported: ['code'],
          code_challenge_methods_supported: ['S256'],
        });
      }
      if (options.endpoints !== false) {
        if (req.method === 'POST' && url.pathname === `${prefix}/register`) return json(res, 201, { client_id: 'registered-client', redirect_uris: JSON.parse(body).redirect_uris });
        if (req.method === 'GET' && url.pathname === `${prefix}/authorize`) {
          clientIds.push(url.searchParams.get('client_id') ?? '');
          const back = new URL(url.searchParams.get('redirect_uri')!);
          back.searchParams.set('code', 'the-code');
          back.searchParams.set('state', url.searchParams.get('state') ?? '');
          return res.writeHead(302, { location: back.href }).end();
        }
        if (req.method === 'POST' && url.pathname === `${prefix}/token`) return json(res, 200, { access_token: 'the-access-token', token_type: 'Bearer', expires_in: 3600 });
      }
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin, hits, clientIds };
}

function provider(serverUrl: string, settings: OAuthClientSettings = {}) {
  const events: TraceEventInput[] = [];
  const redactor = new Redactor();
  const p = new SwitchboardOAuthProvider({ serverId: 's1', serverName: 'legacy', serverUrl, settings, store: new MemorySecretStore(), login: new HeadlessLogin(), redactor, record: (e) => events.push(e) });
  const fetchFn = p.useFetch(fetch, new URL(serverUrl), redactor);
  return { p, events, fetchFn, run: () => auth(p, { serverUrl, fetchFn }) };
}

describe('2025-03-26: authorization server metadata at the server root', () => {
  it('the SDK refuses the root document whose issuer has a path; the provider adopts it (same origin, no PRM) and the sign-in completes', async () => {
    const as = await startAs({ issuer: (o) => `${o}/oauth`, prefix: '/oauth' });
    const { p, events, run } = provider(`${as.origin}/mcp`);
    const first = await run().catch((e: unknown) => e);
    expect(first).toBeInstanceOf(IssuerMismatchError);
    expect(first).toMatchObject({ kind: 'metadata', expected: `${as.origin}/`, received: `${as.origin}/oauth` });

    expect(await p.adoptLegacyRootMetadata(first)).toBe(true);
    // The connection then connects again. Our redirectToAuthorization runs the whole login and
    // the code exchange inside it, so the outer auth() still says REDIRECT; the tokens are saved.
    expect(await run()).toBe('REDIRECT');
    expect(as.hits).toEqual(expect.arrayContaining(['POST /oauth/register', 'GET /oauth/authorize', 'POST /oauth/token']));
    const status = await p.status();
    expect(status).toMatchObject({ signedIn: true, issuer: `${as.origin}/oauth`, clientId: 'registered-client' });
    expect(events.map((e) => e.text)).toContainEqual(expect.stringMatching(/^2025-03-26 discovery: no protected resource metadata; the server's own authorization server metadata/));
  });

  it('keeps the issuer check when the server publishes protected resource metadata naming the root', async () => {
    const as = await startAs({ prmAuthorizationServer: (o) => `${o}/`, issuer: (o) => `${o}/oauth`, prefix: '/oauth' });
    const { p, run } = provider(`${as.origin}/mcp`);
    const first = await run().catch((e: unknown) => e);
    expect(first).toBeInstanceOf(IssuerMismatchError);
    expect(await p.adoptLegacyRootMetadata(first)).toBe(false);
    expect(await run().catch((e: unknown) => e)).toBeInstanceOf(IssuerMismatchError);
    expect(as.hits).not.toContain('GET /oauth/authorize');
  });

  it('refuses a root document whose issuer is on another origin', async () => {
    const as = await startAs({ issuer: () => 'https://elsewhere.example/oauth', prefix: '/oauth' });
    const { p, events, run } = provider(`${as.origin}/mcp`);
    const first = await run().catch((e: unknown) => e);
    expect(first).toBeInstanceOf(IssuerMismatchError);
    expect(await p.adoptLegacyRootMetadata(first)).toBe(false);
    expect(events.map((e) => e.text)).toContainEqual(expect.stringContaining("names the issuer https://elsewhere.example/oauth, which is not on the server's origin: refused"));
  });

  it('ignores errors that are not the metadata issuer check', async () => {
    const as = await startAs({ issuer: (o) => `${o}/oauth` });
    const { p } = provider(`${as.origin}/mcp`);
    expect(await p.adoptLegacyRootMetadata(new Error('HTTP 500'))).toBe(false);
    expect(await p.adoptLegacyRootMetadata(new IssuerMismatchError('authorization_response', `${as.origin}/`, 'x'))).toBe(false);
    expect(await p.adoptLegacyRootMetadata(new IssuerMismatchError('metadata', 'https://other.example/', `${as.origin}/oauth`))).toBe(false);
  });
});

describe('2025-03-26: no metadata at all', () => {
  it('uses the default endpoints /register, /authorize and /token at the server root', async () => {
    const as = await startAs({});
    const { p, events, run } = provider(`${as.origin}/mcp`);
    expect(await run()).toBe('REDIRECT');
    expect(as.hits).toEqual(expect.arrayContaining(['POST /register', 'GET /authorize', 'POST /token']));
    expect((await p.status()).signedIn).toBe(true);
    expect(events.map((e) => e.text)).toContainEqual(expect.stringContaining('no OAuth metadata: trying the 2025-03-26 default endpoints /authorize, /token, /register'));
  });

  it('says the server publishes no OAuth metadata when the default endpoints are not there either', async () => {
    const as = await startAs({ endpoints: false });
    const { run } = provider(`${as.origin}/mcp`);
    const error = await run().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NoOAuthMetadataError);
    expect((error as Error).message).toMatch(/publishes no OAuth metadata \(no RFC 9728 protected resource metadata, no authorization server metadata, and its 2025-03-26 default endpoint \/register answered HTTP 404\), so Switchboard cannot sign in/);
    expect(as.hits).not.toContain('GET /authorize');
  });
});

describe('the client id', () => {
  it("is Switchboard's metadata document URL where the server offers no registration, the configured one instead, none with a configured client id", async () => {
    expect(DEFAULT_CLIENT_METADATA_URL).toMatch(/^https:\/\/[^/]+\/.+\.json$/);
    const base = { issuer: 'https://as.example', authorization_endpoint: 'https://as.example/authorize', token_endpoint: 'https://as.example/token', response_types_supported: ['code'], client_id_metadata_document_supported: true };
    const cimdOnly = provider('https://mcp.example/mcp').p;
    expect(cimdOnly.clientMetadataUrl).toBeUndefined(); // nothing discovered yet
    await cimdOnly.saveDiscoveryState({ authorizationServerUrl: 'https://as.example', authorizationServerMetadata: base });
    expect(cimdOnly.clientMetadataUrl).toBe(DEFAULT_CLIENT_METADATA_URL);
    // Where dynamic registration is offered too, it is used: an unreachable document would refuse the sign-in.
    const both = provider('https://mcp.example/mcp').p;
    await both.saveDiscoveryState({ authorizationServerUrl: 'https://as.example', authorizationServerMetadata: { ...base, registration_endpoint: 'https://as.example/register' } });
    expect(both.clientMetadataUrl).toBeUndefined();
    expect(provider('https://mcp.example/mcp', { clientMetadataUrl: 'https://me.example/cimd.json' }).p.clientMetadataUrl).toBe('https://me.example/cimd.json');
    expect(provider('https://mcp.example/mcp', { clientId: 'abc' }).p.clientMetadataUrl).toBeUndefined();
  });
});

describe("Switchboard's Client ID Metadata Document (docs/oauth/client-metadata.json)", () => {
  it('names its own URL as client_id and describes the client the provider is', () => {
    const doc = JSON.parse(readFileSync(join(__dirname, '..', '..', 'docs', 'oauth', 'client-metadata.json'), 'utf8')) as Record<string, unknown>;
    expect(doc.client_id).toBe(DEFAULT_CLIENT_METADATA_URL);
    // GitHub Pages serves the repository's docs/ at https://<owner>.github.io/<repo>/.
    expect(DEFAULT_CLIENT_METADATA_URL.endsWith('/oauth/client-metadata.json')).toBe(true);
    // Every redirect Switchboard uses is a loopback listener on a port chosen per sign-in (RFC 8252 §7.3).
    expect(doc.redirect_uris).toEqual([`http://127.0.0.1${CALLBACK_PATH}`]);
    const metadata = provider('https://mcp.example/mcp').p.clientMetadata;
    expect(doc).toMatchObject({ client_name: metadata.client_name, client_uri: metadata.client_uri, grant_types: metadata.grant_types, response_types: metadata.response_types, token_endpoint_auth_method: 'none' });
    expect(metadata.token_endpoint_auth_method).toBe('none');
  });
});
