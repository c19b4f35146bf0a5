/**
 * The OAuth steps: the protected resource metadata the server points to (RFC 9728, from
 * WWW-Authenticate or the well-known path), its authorization server's metadata (RFC 8414, then
 * OpenID Connect discovery) and the ways a client can register (pre-registered, CIMD, DCR).
 * Each document is fetched by hand, bounded, and only its named fields are read.
 */
import type { Redactor } from '../trace/redact';
import { rawRequest, type RawResponse } from './net';
import { cut, errorMessageOf, type StepOutcome, type StepRunner } from './steps';

export interface OAuthStepsInput {
  endpoint: URL;
  first: RawResponse;
  headers: Record<string, string>;
  redactor: Redactor;
  timeoutMs: number;
  hasToken: boolean;
}

type Json = Record<string, unknown>;

const TITLES = {
  prm: 'Protected resource metadata (RFC 9728)',
  asm: 'Authorization server metadata (RFC 8414 / OIDC)',
  registration: 'Client registration options',
} as const;

async function getJson(url: URL, signal: AbortSignal): Promise<{ status: number; json?: Json; type: string }> {
  const response = await rawRequest(url, { method: 'GET', headers: { accept: 'application/json' } }, signal);
  const type = String(response.headers['content-type'] ?? '');
  if (response.status !== 200 || response.truncated) return { status: response.status, type };
  try {
    const parsed = JSON.parse(response.body) as unknown;
    return { status: 200, type, json: parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Json) : undefined };
  } catch {
    return { status: 200, type };
  }
}

/** `resource_metadata="…"` of a Bearer challenge. */
export function resourceMetadataOf(challenge: string | string[] | undefined): string | undefined {
  const text = Array.isArray(challenge) ? challenge.join(', ') : (challenge ?? '');
  const match = /resource_metadata\s*=\s*"([^"]{1,2048})"/i.exec(text) ?? /resource_metadata\s*=\s*([^\s,]{1,2048})/i.exec(text);
  return match?.[1];
}

function wellKnown(base: URL, name: string, insertPath: boolean): URL {
  const path = insertPath && base.pathname !== '/' ? base.pathname.replace(/\/$/, '') : '';
  return new URL(`/.well-known/${name}${path}`, base.origin);
}

const str = (value: unknown): string | undefined => (typeof value === 'string' && value.length <= 2048 ? value : undefined);
const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string').slice(0, 20) : []);

export async function oauthSteps(runner: StepRunner, input: OAuthStepsInput): Promise<void> {
  const { endpoint, first, redactor, timeoutMs } = input;
  const status = first.status;
  if (status !== 401 && status !== 403) {
    runner.skip('prm', TITLES.prm, input.hasToken ? `The server accepted the credentials that were sent (it answered ${status}).` : `The server did not ask for authorization (it answered ${status}): no OAuth needed.`);
    runner.skip('asm', TITLES.asm, 'No authorization asked for.');
    runner.skip('registration', TITLES.registration, 'No authorization asked for.');
    return;
  }
  const challenge = first.headers['www-authenticate'];
  let prm: Json | undefined;
  let asIssuer: string | undefined;
  let legacyRoot = false;
  await runner.run('prm', TITLES.prm, timeoutMs * 2, async (signal) => {
    const facts = [
      { label: 'status', value: `${status} ${first.statusText}` },
      { label: 'WWW-Authenticate', value: cut(redactor.text(Array.isArray(challenge) ? challenge.join(', ') : (challenge ?? 'none')), 500) },
    ];
    const tokenNote = input.hasToken ? ' The token that was sent was refused (expired, revoked or for another audience).' : '';
    const pointed = resourceMetadataOf(challenge);
    const candidates: URL[] = [];
    if (pointed) {
      try {
        candidates.push(new URL(pointed, endpoint));
      } catch {
        facts.push({ label: 'resource_metadata', value: `not a URL: ${cut(pointed, 200)}` });
      }
    }
    candidates.push(wellKnown(endpoint, 'oauth-protected-resource', true));
    if (endpoint.pathname !== '/') candidates.push(wellKnown(endpoint, 'oauth-protected-resource', false));
    for (const candidate of candidates) {
      const got = await getJson(candidate, signal).catch((error: unknown) => ({ status: 0, type: '', json: undefined, error: errorMessageOf(error) }));
      facts.push({ label: `GET ${candidate.href}`, value: got.status ? `${got.status}${got.json ? '' : got.status === 200 ? ' (not a JSON object)' : ''}` : `failed: ${(got as { error?: string }).error ?? ''}` });
      if (!got.json) continue;
      prm = got.json;
      const servers = strings(prm.authorization_servers);
      asIssuer = servers[0];
      const resource = str(prm.resource);
      facts.push({ label: 'resource', value: resource ?? 'missing' }, { label: 'authorization_servers', value: servers.join(', ') || 'none' });
      if (!asIssuer) return { verdict: 'failed', detail: `The protected resource metadata at ${candidate.href} names no authorization server.${tokenNote}`, hint: 'It must list authorization_servers, or no client can sign in.', facts };
      const source = candidate.href === candidates[0]?.href && pointed ? 'named by WWW-Authenticate' : 'at the well-known path';
      return { verdict: 'ok', detail: `Found ${source}: the authorization server is ${asIssuer}.${tokenNote}`, facts };
    }
    // 2025-03-26 servers: no resource metadata, the authorization server's metadata at the server's own root.
    const root = await getJson(new URL('/.well-known/oauth-authorization-server', endpoint.origin), signal).catch(() => ({ status: 0, json: undefined, type: '' }));
    if (root.json && str(root.json.authorization_endpoint)) {
      legacyRoot = true;
      asIssuer = endpoint.origin;
      return { verdict: 'warning', detail: `No protected resource metadata; the authorization server metadata sits at the server's root (the 2025-03-26 way).${tokenNote}`, hint: 'Current clients look for /.well-known/oauth-protected-resource first; publishing it (RFC 9728) keeps them working.', facts };
    }
    return {
      verdict: 'failed',
      detail: `The server answers ${status} but publishes no protected resource metadata: no resource_metadata in WWW-Authenticate and nothing at /.well-known/oauth-protected-resource.${tokenNote}`,
      hint: 'Without that metadata no client can find where to sign in. The server must publish it (RFC 9728), or you give a token yourself: an "Authorization: Bearer …" header in the server\'s settings (on the command line, --header).',
      facts,
    };
  });
  if (!asIssuer) {
    runner.skip('asm', TITLES.asm, 'No authorization server is known.');
    runner.skip('registration', TITLES.registration, 'No authorization server is known.');
    return;
  }
  let asm: Json | undefined;
  const issuer = asIssuer;
  await runner.run('asm', TITLES.asm, timeoutMs * 2, async (signal) => {
    let issuerUrl: URL;
    try {
      issuerUrl = new URL(issuer);
    } catch {
      return { verdict: 'failed', detail: `The authorization server "${cut(issuer, 200)}" is not a URL.` };
    }
    const candidates = legacyRoot
      ? [new URL('/.well-known/oauth-authorization-server', issuerUrl.origin)]
      : [wellKnown(issuerUrl, 'oauth-authorization-server', true), wellKnown(issuerUrl, 'openid-configuration', true), new URL(`${issuerUrl.href.replace(/\/$/, '')}/.well-known/openid-configuration`)];
    const facts: { label: string; value: string }[] = [];
    for (const candidate of candidates) {
      const got = await getJson(candidate, signal).catch((error: unknown) => ({ status: 0, json: undefined, type: '', error: errorMessageOf(error) }));
      facts.push({ label: `GET ${candidate.href}`, value: got.status ? String(got.status) : `failed: ${(got as { error?: string }).error ?? ''}` });
      if (!got.json) continue;
      asm = got.json;
      const problems: string[] = [];
      const advertised = str(asm.issuer);
      if (!legacyRoot && advertised && advertised.replace(/\/$/, '') !== issuer.replace(/\/$/, '')) problems.push(`its issuer is "${advertised}", not "${issuer}" (strict clients stop here)`);
      if (!str(asm.authorization_endpoint)) problems.push('no authorization_endpoint');
      if (!str(asm.token_endpoint)) problems.push('no token_endpoint');
      const pkce = strings(asm.code_challenge_methods_supported);
      if (!pkce.includes('S256')) problems.push('S256 is not among code_challenge_methods_supported (MCP clients require PKCE with S256)');
      facts.push(
        { label: 'issuer', value: advertised ?? 'missing' },
        { label: 'authorization_endpoint', value: str(asm.authorization_endpoint) ?? 'missing' },
        { label: 'token_endpoint', value: str(asm.token_endpoint) ?? 'missing' },
        { label: 'PKCE methods', value: pkce.join(', ') || 'none' },
      );
      const missingEndpoint = problems.some((p) => p.startsWith('no '));
      if (problems.length > 0) return { verdict: missingEndpoint ? 'failed' : 'warning', detail: `Metadata at ${candidate.href}, but ${problems.join('; ')}.`, hint: 'Fix the authorization server\'s metadata (RFC 8414).', facts };
      return { verdict: 'ok', detail: `Metadata at ${candidate.href}: authorize at ${str(asm.authorization_endpoint)}, tokens at ${str(asm.token_endpoint)}.`, facts };
    }
    return { verdict: 'failed', detail: `No metadata for the authorization server ${issuer} (neither RFC 8414 nor OpenID Connect discovery).`, hint: 'The authorization server must publish /.well-known/oauth-authorization-server or /.well-known/openid-configuration.', facts };
  });
  if (!asm) {
    runner.skip('registration', TITLES.registration, 'No authorization server metadata.');
    return;
  }
  const meta = asm;
  await runner.run('registration', TITLES.registration, timeoutMs, async (): Promise<StepOutcome> => {
    const dcr = str(meta.registration_endpoint);
    const cimd = meta.client_id_metadata_document_supported === true;
    const ways = [cimd ? 'a Client ID Metadata Document (URL-based client id)' : undefined, dcr ? `dynamic registration at ${dcr}` : undefined].filter(Boolean);
    const facts = [
      { label: 'client_id_metadata_document_supported', value: String(cimd) },
      { label: 'registration_endpoint', value: dcr ?? 'none' },
      { label: 'grant types', value: strings(meta.grant_types_supported).join(', ') || 'not said' },
    ];
    if (ways.length === 0) return { verdict: 'warning', detail: 'The authorization server offers neither dynamic registration nor Client ID Metadata Documents: only a pre-registered client can sign in.', hint: 'Register a client with the provider and give its id (the server\'s OAuth settings, or --client-id).', facts };
    return { verdict: 'ok', detail: `A client can register by ${ways.join(' or ')}${' '}(or use a pre-registered client id).`, facts };
  });
}
