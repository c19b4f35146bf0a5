/**
 * Switchboard's `OAuthClientProvider`: the SDK's `auth()` drives discovery (RFC 9728, RFC 8414
 * and OpenID), registration (pre-registered → Client ID Metadata Document → dynamic), PKCE,
 * `resource` and scope selection; this class supplies what it asks for and keeps it safe.
 *
 * - Everything learnt (client, tokens, discovery) rests in the `SecretStore` under the server's
 *   identity: normalized URL + client identity. Every secret is handed to the connection's
 *   redactor the moment it is known, so no trace, log or export can carry it.
 * - `redirectToAuthorization` refuses anything but http(s), then runs the whole interactive
 *   leg itself: the login window, the callback (state checked), and the code exchange (a nested
 *   `auth()` with the code, which checks `iss`). The transport still reports "redirect", and
 *   the connection repeats the request once because `authorizedSince()` says a flow finished.
 * - Tokens are refreshed shortly before they expire (on the transport's per-request read) and
 *   on a 401 (the SDK's path); a failed refresh leads to one new sign-in, never a loop.
 * - Every step is written to the trace on the `auth` channel: HTTP exchanges by the tracking
 *   fetch, the steps that are not ours to fetch (opening the login, the callback) here.
 */
import { randomBytes } from 'node:crypto';
import {
  auth,
  discoverAuthorizationServerMetadata,
  discoverOAuthProtectedResourceMetadata,
  IssuerMismatchError,
  type FetchLike,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import type { TraceEventInput } from '../../../contract/trace';
import type { Redactor } from '../trace/redact';
import { decodeJwt } from './jwt';
import { checkAuthorizationUrl, type CallbackParams, type LoginWindow } from './login';
import type { SecretStore } from './secret-store';

export interface OAuthClientSettings {
  clientId?: string;
  clientSecret?: string;
  clientMetadataUrl?: string;
  scope?: string;
}

interface StoredRecord {
  client?: StoredOAuthClientInformation;
  clientSource?: 'configured' | 'metadata-document' | 'dynamic';
  tokens?: StoredOAuthTokens;
  /** When the tokens were received (epoch ms): `expires_in` counts from here. */
  obtainedAt?: number;
  requestedScope?: string;
  discovery?: OAuthDiscoveryState;
}

export interface AuthStepFailure {
  step: string;
  message: string;
  hint?: string;
  at: number;
}

/** What the UI shows about a server's sign-in; never a token. */
export interface OAuthStatusInfo {
  identity: string;
  signedIn: boolean;
  clientId?: string;
  clientSource?: StoredRecord['clientSource'];
  issuer?: string;
  tokenType?: string;
  expiresAt?: number;
  hasRefreshToken: boolean;
  scopeRequested?: string;
  scopeGranted?: string;
  jwt?: { header: Record<string, unknown>; payload: Record<string, unknown> };
  inFlow: boolean;
  lastFailure?: AuthStepFailure;
  authorizationUrl?: string;
  stepMode: boolean;
  /** Step by step: the request (or the login) waiting for "Continue". */
  paused?: PausedStep;
}

export interface PausedStep {
  step: string;
  method: string;
  url: string;
  since: number;
}

export interface OAuthProviderOptions {
  serverId: string;
  serverName: string;
  serverUrl: string;
  settings: OAuthClientSettings;
  store: SecretStore;
  /** Absent: no one can sign in here (a connection that must not open windows). */
  login: LoginWindow | undefined;
  redactor: Redactor;
  record: (event: TraceEventInput) => void;
  /** Called whenever the sign-in state changes (tokens saved, flow started or failed, signed out). */
  onChange?: () => void;
  /** How long a person has to finish signing in. */
  loginTimeoutMs?: number;
  /** Refresh this long before the access token expires. */
  refreshLeewayMs?: number;
  now?: () => number;
}

/** `https://Host:443/mcp/` and `https://host/mcp` are the same protected resource. */
export function normalizeServerUrl(raw: string): string {
  const url = new URL(raw);
  url.hash = '';
  url.search = '';
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.protocol}//${url.host.toLowerCase()}${path}`;
}

export function oauthIdentity(serverUrl: string, settings: OAuthClientSettings): string {
  const client = settings.clientId ? `client:${settings.clientId}` : settings.clientMetadataUrl ? `cimd:${settings.clientMetadataUrl}` : 'dynamic';
  return `oauth:${normalizeServerUrl(serverUrl)}#${client}`;
}

const NOBODY_REDIRECT = 'http://127.0.0.1/oauth/callback';

/**
 * Switchboard's own Client ID Metadata Document (docs/oauth/client-metadata.json in the
 * repository, to be published by the project's GitHub Pages). Used as the client id when no client
 * id or metadata URL is configured and the authorization server says
 * `client_id_metadata_document_supported` but offers no dynamic registration: there, nothing else
 * could sign in. Where it offers both, dynamic registration is used, because an authorization
 * server that cannot fetch this URL (its host not published yet, a network that cannot reach it)
 * refuses the client id and the sign-in would fail where registration works. A public client with
 * loopback redirects (RFC 8252 §7.3).
 */
export const DEFAULT_CLIENT_METADATA_URL = 'https://switchboard-mcp.github.io/switchboard/oauth/client-metadata.json';

/** Statuses of a 2025-03-26 default endpoint that say it is no OAuth endpoint (a 400 is a real one refusing the request). */
const NOT_AN_ENDPOINT = new Set([401, 403, 404, 405, 410]);

/** The 2025-03-26 default endpoints, used when a server publishes no OAuth metadata at all. */
const LEGACY_DEFAULT_PATHS = ['/authorize', '/token', '/register'];

export class SwitchboardOAuthProvider implements OAuthClientProvider {
  readonly identity: string;
  private record: StoredRecord | undefined;
  private loaded: Promise<StoredRecord> | undefined;
  private fetchFn: FetchLike = fetch;
  private verifier: string | undefined;
  private flowState: string | undefined;
  private flowRedirect: string | undefined;
  private inFlow = false;
  /** Resolves when the interactive sign-in under way ends (however it ends). */
  private flow: Promise<void> | undefined;
  private endFlow: (() => void) | undefined;
  private authorizedAt = 0;
  private refreshing: Promise<void> | undefined;
  private lastFailure: AuthStepFailure | undefined;
  private lastAuthorizationUrl: string | undefined;
  private abort = new AbortController();
  private stepMode = false;
  /** Every redactor a transport of this server records with, and the secrets they must all know. */
  private readonly redactors = new Set<Redactor>();
  private readonly secrets = new Set<string>();
  /** The MCP endpoint's last 401/403: what a failure to sign in is reported against. */
  private lastChallenge: Challenge | undefined;
  private paused: (PausedStep & { go(): void; stop(error: Error): void }) | undefined;

  constructor(private readonly options: OAuthProviderOptions) {
    this.identity = oauthIdentity(options.serverUrl, options.settings);
    this.redactors.add(options.redactor);
    this.secret(options.settings.clientSecret);
  }

  /**
   * Wraps the transport's tracked fetch: in step-by-step mode every OAuth request (anything but
   * the MCP endpoint) waits for "Continue" before it is sent. The provider's own requests
   * (refresh, code exchange, revocation, headless authorization) use the same fetch.
   */
  useFetch(tracked: FetchLike, endpoint: URL, redactor: Redactor): FetchLike {
    // That transport records with its own redactor (a "Test connection" probe has one of its
    // own): it learns every secret known so far, and every one learnt from now on.
    if (!this.redactors.has(redactor)) {
      this.redactors.add(redactor);
      for (const secret of this.secrets) redactor.addSecret(secret);
    }
    const endpointKey = `${endpoint.origin}${endpoint.pathname}`.replace(/\/$/, '');
    const gated: FetchLike = async (input, init) => {
      // On every MCP request: a string comparison, no URL parsing (the tracking fetch parses once already).
      const href = String(input);
      const query = href.indexOf('?');
      const toEndpoint = (query < 0 ? href : href.slice(0, query)).replace(/\/$/, '') === endpointKey;
      if (this.stepMode && !toEndpoint) {
        const url = new URL(href);
        await this.pause(stepOf(url, init), init?.method ?? 'GET', url);
      }
      const response = await tracked(input, init);
      if (toEndpoint && (response.status === 401 || response.status === 403)) this.lastChallenge = challengeOf(response);
      else if (!toEndpoint && NOT_AN_ENDPOINT.has(response.status) && this.isLegacyDefaultEndpoint(href)) {
        // Not there, or refusing anyone (a server that answers 401 to every path): said as what it
        // is — no OAuth metadata — rather than as the SDK's "registration rejected".
        await response.body?.cancel().catch(() => undefined);
        throw this.noMetadataError(`, and its 2025-03-26 default endpoint ${new URL(href).pathname} answered HTTP ${response.status}`);
      }
      return response;
    };
    this.fetchFn = gated;
    return gated;
  }

  /** Step by step: pause before each OAuth request and before opening the login. Off lets a paused step go. */
  setStepMode(on: boolean): void {
    this.stepMode = on;
    if (!on) this.paused?.go();
    this.options.onChange?.();
  }

  /** Lets the paused step go; false when nothing waits. */
  continueStep(): boolean {
    if (!this.paused) return false;
    this.paused.go();
    return true;
  }

  private pause(step: string, method: string, url: URL): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const signal = this.abort.signal;
      const done = () => {
        signal.removeEventListener('abort', onAbort);
        this.paused = undefined;
        this.options.onChange?.();
      };
      const onAbort = () => {
        done();
        reject(signal.reason instanceof Error ? signal.reason : new Error('The sign-in was cancelled.'));
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      this.paused = {
        step,
        method,
        url: this.options.redactor.url(url.href),
        since: this.now(),
        go: () => {
          done();
          resolve();
        },
        stop: (error) => {
          done();
          reject(error);
        },
      };
      this.step('paused', `step by step: paused before ${step} (${method} ${url.origin}${url.pathname})`, { next: step, method, url: url.href });
      this.options.onChange?.();
    });
  }

  /** Waits for a sign-in that is waiting for a person (the request that started it may have timed out meanwhile). */
  async settled(): Promise<void> {
    await this.flow;
  }

  /** A sign-in finished after `since` (epoch ms): the request that led to it may be repeated once. */
  authorizedSince(since: number): boolean {
    return this.authorizedAt >= since;
  }

  // ------------------------------------------------------------------------------------
  // OAuthClientProvider

  get redirectUrl(): string {
    // Without a login window there is still a redirect URI: the SDK takes an absent one for a
    // machine-to-machine client. The flow stops at redirectToAuthorization, with a clear error.
    this.flowRedirect ??= this.options.login?.redirectUrl() ?? NOBODY_REDIRECT;
    return this.flowRedirect;
  }

  get clientMetadata(): OAuthClientMetadata {
    const secret = Boolean(this.options.settings.clientSecret);
    return {
      client_name: 'Switchboard',
      client_uri: 'https://github.com/switchboard-mcp/switchboard',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: secret ? 'client_secret_basic' : 'none',
      ...(this.options.settings.scope ? { scope: this.options.settings.scope } : {}),
    };
  }

  state(): string {
    this.flowState = randomBytes(24).toString('base64url');
    return this.flowState;
  }

  async clientInformation(): Promise<StoredOAuthClientInformation | undefined> {
    const { clientId, clientSecret } = this.options.settings;
    const stored = (await this.load()).client;
    // A configured client always wins; what the server registered for us comes next.
    if (clientId) return { ...(stored?.client_id === clientId ? stored : {}), client_id: clientId, ...(clientSecret ? { client_secret: clientSecret } : {}) };
    return stored;
  }

  async saveClientInformation(client: StoredOAuthClientInformation): Promise<void> {
    const source: StoredRecord['clientSource'] = this.options.settings.clientId ? 'configured' : client.client_id === this.clientMetadataUrl ? 'metadata-document' : 'dynamic';
    const known = (await this.load()).client?.client_id === client.client_id;
    this.secret(client.client_secret);
    await this.update({ client, clientSource: source });
    if (!known && source !== 'configured') {
      this.step('register', source === 'dynamic' ? `registered dynamically as client ${client.client_id}` : `using the Client ID Metadata Document ${client.client_id}`, { clientId: client.client_id, source });
    }
  }

  async tokens(ctx?: unknown): Promise<StoredOAuthTokens | undefined> {
    await this.load();
    // The transport's per-request read (no ctx): refresh first when the token is about to expire.
    // (auth() itself always passes a ctx, so a refresh never waits for itself.)
    if (ctx === undefined && !this.inFlow && this.expiresSoon()) await this.refreshNow();
    return (await this.load()).tokens;
  }

  async saveTokens(tokens: StoredOAuthTokens): Promise<void> {
    for (const secret of [tokens.access_token, tokens.refresh_token, tokens.id_token]) this.secret(secret);
    const previous = (await this.load()).tokens;
    const kept: StoredOAuthTokens = { ...tokens, refresh_token: tokens.refresh_token ?? previous?.refresh_token };
    await this.update({ tokens: kept, obtainedAt: this.now() });
    this.authorizedAt = this.now();
    this.lastFailure = undefined;
    this.step('tokens', `tokens received${tokens.expires_in !== undefined ? `, valid ${tokens.expires_in} s` : ''}${tokens.scope ? `, scope "${tokens.scope}"` : ''}${tokens.refresh_token ? ', with a refresh token' : ''}`, {
      tokenType: tokens.token_type,
      expiresIn: tokens.expires_in,
      scope: tokens.scope,
      refreshToken: Boolean(kept.refresh_token),
    });
    this.options.onChange?.();
  }

  async saveCodeVerifier(codeVerifier: string): Promise<void> {
    this.secret(codeVerifier);
    this.verifier = codeVerifier;
  }

  async codeVerifier(): Promise<string> {
    if (!this.verifier) throw new Error('No PKCE code verifier: this sign-in was not started by Switchboard (or Switchboard restarted in between).');
    return this.verifier;
  }

  /**
   * The metadata document URL the SDK offers as the client id (it does only when the authorization
   * server supports metadata documents): a configured client id is used as it is; otherwise a
   * configured metadata URL; else ours, only where the server offers no dynamic registration (the
   * SDK reads this after `saveDiscoveryState`, so the server's metadata is known here).
   */
  get clientMetadataUrl(): string | undefined {
    if (this.options.settings.clientId) return undefined;
    if (this.options.settings.clientMetadataUrl) return this.options.settings.clientMetadataUrl;
    const metadata = this.record?.discovery?.authorizationServerMetadata as { registration_endpoint?: unknown } | undefined;
    return metadata && !metadata.registration_endpoint ? DEFAULT_CLIENT_METADATA_URL : undefined;
  }

  async saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> {
    // A 401 from a server that publishes no OAuth metadata at all. The 2025-03-26 revision said:
    // use the default endpoints /authorize, /token and /register at the server's root. The SDK
    // does; the first of them that answers 404 ends the flow (`useFetch`), as a server that does
    // not do MCP's OAuth (its token comes from elsewhere).
    if (!state.resourceMetadata && !state.authorizationServerMetadata) {
      this.step('discovery', `no OAuth metadata: trying the 2025-03-26 default endpoints ${LEGACY_DEFAULT_PATHS.join(', ')} at ${state.authorizationServerUrl}`, {
        authorizationServerUrl: state.authorizationServerUrl,
        legacyDefaults: true,
      });
    }
    await this.update({ discovery: state });
  }

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    return (await this.load()).discovery;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'verifier') {
      this.verifier = undefined;
      return;
    }
    const why: Record<string, string> = {
      all: 'forgetting everything for this server',
      client: 'the authorization server no longer knows this client: registering again',
      tokens: 'the authorization server refused the stored tokens (invalid_grant): a new sign-in is needed',
      discovery: 'discovering the authorization server again',
    };
    this.step('invalidate', why[scope]!, { scope });
    if (scope === 'all') await this.update({ client: undefined, clientSource: undefined, tokens: undefined, obtainedAt: undefined, discovery: undefined });
    else if (scope === 'client') await this.update({ client: undefined, clientSource: undefined });
    else if (scope === 'tokens') await this.update({ tokens: undefined, obtainedAt: undefined });
    else await this.update({ discovery: undefined });
    this.options.onChange?.();
  }

  /**
   * The interactive leg, start to finish: show the URL, wait for the callback, check `state`,
   * exchange the code. Runs inside the SDK's `auth()`; the code exchange is a nested `auth()`.
   */
  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    const url = this.guard('authorize', () => checkAuthorizationUrl(authorizationUrl));
    const redirectUrl = this.flowRedirect ?? this.redirectUrl;
    const login = this.options.login;
    const params = Object.fromEntries(url.searchParams);
    this.lastAuthorizationUrl = url.href;
    if (params.scope) await this.update({ requestedScope: params.scope });
    if (!login) {
      this.fail('authorize', 'Sign-in required, and nobody can sign in here.', 'Sign in from the app, or run the CLI with --oauth-headless against a server that approves on its own.');
    }
    const state = this.flowState;
    this.inFlow = true;
    this.flow = new Promise<void>((resolve) => {
      this.endFlow = resolve;
    });
    this.options.onChange?.();
    if (this.stepMode) {
      try {
        await this.pause('login', 'GET', url);
      } catch (error) {
        this.finishFlow();
        throw error;
      }
    }
    this.step('authorize', `authorization request opened in the ${login.kind}: ${url.origin}${url.pathname}`, { url: url.href, params });
    let callback: CallbackParams;
    // One signal ends the login however it ends: cancelled, signed out, or out of time. The
    // login window (a popup prompt, a loopback listener) cleans up on it.
    const limitMs = this.options.loginTimeoutMs ?? 5 * 60_000;
    const signal = AbortSignal.any([this.abort.signal, AbortSignal.timeout(limitMs)]);
    try {
      callback = await login.authorize({ serverId: this.options.serverId, serverName: this.options.serverName, url, redirectUrl, state: state ?? '', fetchFn: this.fetchFn, signal });
    } catch (error) {
      this.finishFlow();
      const timedOut = signal.reason instanceof DOMException && signal.reason.name === 'TimeoutError';
      const message = timedOut ? `Nobody finished signing in within ${limitMs >= 1000 ? `${Math.round(limitMs / 1000)} s` : `${limitMs} ms`}.` : errorText(error);
      this.fail('authorize', message, hintFor(message));
    }
    this.secret(callback.code);
    this.step('callback', callback.error ? `the authorization server answered ${callback.error}` : 'the browser came back with an authorization code', {
      error: callback.error,
      errorDescription: callback.errorDescription,
      iss: callback.iss,
      stateMatches: callback.state === state,
    });
    try {
      if (callback.error) this.fail('callback', `The authorization server refused: ${callback.error}${callback.errorDescription ? ` — ${callback.errorDescription}` : ''}`, hintFor(callback.error));
      if (!state || callback.state !== state) this.fail('callback', 'The callback\'s state does not match this sign-in: it was ignored (a forged or stale redirect).');
      if (!callback.code) this.fail('callback', 'The callback carried neither a code nor an error.');
      const result = await this.guardAsync('token', () =>
        auth(this, { serverUrl: this.options.serverUrl, authorizationCode: callback.code, iss: callback.iss, fetchFn: this.fetchFn }),
      );
      if (result !== 'AUTHORIZED') this.fail('token', 'The code exchange did not produce tokens.');
    } finally {
      this.finishFlow();
    }
  }

  // ------------------------------------------------------------------------------------
  // 2025-03-26 back-compat

  /**
   * After a sign-in stopped at the SDK's RFC 8414 §3.3 issuer check: true when this is the
   * 2025-03-26 case and the discovery state now holds the server's own metadata (connect again).
   *
   * The SDK, finding no protected resource metadata, takes the server's root as the issuer to
   * expect and rejects a document at `/.well-known/oauth-authorization-server` whose `issuer`
   * differs (say `https://host/oauth`). The 2025-03-26 revision had no protected resource
   * metadata: the MCP server's origin was the "authorization base URL" and the metadata at its
   * root was the server's own, whatever issuer it names. So this is accepted only when (1) the
   * mismatch is about the root the SDK derived, (2) the server publishes no protected resource
   * metadata at all (a current-era server names its authorization server and stays strictly
   * checked), and (3) the document's issuer is on the MCP server's own origin.
   */
  async adoptLegacyRootMetadata(error: unknown): Promise<boolean> {
    const mismatch = issuerMismatchOf(error);
    const serverUrl = new URL(this.options.serverUrl);
    const root = new URL('/', serverUrl).href;
    if (!mismatch || mismatch.kind !== 'metadata' || mismatch.expected !== root) return false;
    if ((await this.load()).discovery?.authorizationServerMetadata) return false;
    try {
      await discoverOAuthProtectedResourceMetadata(serverUrl, {}, this.fetchFn);
      return false; // it has protected resource metadata: the current era's rules, strictly
    } catch (probe) {
      if (probe instanceof TypeError) return false;
    }
    let metadata: Awaited<ReturnType<typeof discoverAuthorizationServerMetadata>>;
    try {
      // Only here, for the document at the server's own root, without the issuer echo check.
      metadata = await discoverAuthorizationServerMetadata(root, { fetchFn: this.fetchFn, skipIssuerValidation: true });
    } catch {
      return false;
    }
    if (!metadata) return false;
    let issuerOrigin: string | undefined;
    try {
      issuerOrigin = new URL(metadata.issuer).origin;
    } catch {
      issuerOrigin = undefined;
    }
    if (issuerOrigin !== serverUrl.origin) {
      this.step('as-metadata', `2025-03-26 discovery: the metadata at ${root} names the issuer ${metadata.issuer}, which is not on the server's origin: refused`, { issuer: metadata.issuer, legacy: true });
      return false;
    }
    await this.update({ discovery: { authorizationServerUrl: root, authorizationServerMetadata: metadata } });
    this.step('as-metadata', `2025-03-26 discovery: no protected resource metadata; the server's own authorization server metadata at ${root} (issuer ${metadata.issuer}) is used`, {
      issuer: metadata.issuer,
      legacy: true,
    });
    return true;
  }

  /** A request to one of the 2025-03-26 default endpoints, made because the server publishes no metadata. */
  private isLegacyDefaultEndpoint(href: string): boolean {
    const discovery = this.record?.discovery;
    if (!discovery || discovery.authorizationServerMetadata || discovery.resourceMetadata) return false;
    let url: URL;
    try {
      url = new URL(href);
    } catch {
      return false;
    }
    return url.origin === new URL(String(discovery.authorizationServerUrl)).origin && LEGACY_DEFAULT_PATHS.includes(url.pathname);
  }

  private noMetadataError(more: string): NoOAuthMetadataError {
    const challenge = this.lastChallenge ?? { status: 401 };
    const said = challenge.error ? ` (${challenge.error}${challenge.description ? `: ${challenge.description}` : ''})` : '';
    const error = new NoOAuthMetadataError(
      challenge.status,
      `The server answered HTTP ${challenge.status}${said} and publishes no OAuth metadata (no RFC 9728 protected resource metadata, no authorization server metadata${more}), so Switchboard cannot sign in. If it expects a token, add an Authorization header in its settings; otherwise check its OAuth setup.`,
    );
    this.noteFailure('discovery', error.message);
    return error;
  }

  // ------------------------------------------------------------------------------------
  // For the app

  /** Refreshes now if there is a refresh token (single flight). Failures leave the old tokens for the 401 path. */
  async refreshNow(): Promise<void> {
    this.refreshing ??= (async () => {
      const tokens = (await this.load()).tokens;
      if (!tokens?.refresh_token) return;
      this.step('refresh', 'refreshing the access token before it expires', { expiresAt: this.expiresAt() });
      try {
        await auth(this, { serverUrl: this.options.serverUrl, fetchFn: this.fetchFn });
      } catch (error) {
        this.noteFailure('refresh', errorText(error));
      }
    })().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  /**
   * Signs out: revokes the tokens where the authorization server offers RFC 7009 revocation,
   * then forgets everything stored for this server identity.
   */
  async signOut(): Promise<{ revoked: number; errors: string[] }> {
    this.abort.abort(new Error('Signed out.'));
    this.abort = new AbortController();
    const record = await this.load();
    const endpoint = (record.discovery?.authorizationServerMetadata as { revocation_endpoint?: string } | undefined)?.revocation_endpoint;
    const errors: string[] = [];
    let revoked = 0;
    if (endpoint && record.tokens) {
      const client = await this.clientInformation();
      for (const [hint, token] of [
        ['refresh_token', record.tokens.refresh_token],
        ['access_token', record.tokens.access_token],
      ] as const) {
        if (!token) continue;
        const body = new URLSearchParams({ token, token_type_hint: hint });
        const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
        if (client?.client_secret) headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(client.client_id)}:${encodeURIComponent(client.client_secret)}`).toString('base64')}`;
        else if (client) body.set('client_id', client.client_id);
        try {
          const response = await this.fetchFn(endpoint, { method: 'POST', headers, body: body.toString() });
          await response.body?.cancel().catch(() => undefined);
          if (response.ok) revoked++;
          else errors.push(`revoking the ${hint.replace('_', ' ')}: HTTP ${response.status}`);
        } catch (error) {
          errors.push(`revoking the ${hint.replace('_', ' ')}: ${errorText(error)}`);
        }
      }
    }
    await this.options.store.delete(this.identity);
    this.record = {};
    this.loaded = Promise.resolve(this.record);
    this.lastFailure = undefined;
    this.step('sign-out', `signed out: ${revoked ? `${revoked} token(s) revoked at the authorization server, ` : endpoint ? '' : 'the authorization server offers no revocation, '}everything stored for this server forgotten`, { revoked, errors });
    this.options.onChange?.();
    return { revoked, errors };
  }

  /** Ends a sign-in that waits for a person. */
  cancel(): void {
    this.abort.abort(new Error('The sign-in was cancelled.'));
    this.abort = new AbortController();
  }

  async status(): Promise<OAuthStatusInfo> {
    const record = await this.load();
    const tokens = record.tokens;
    return {
      identity: this.identity,
      signedIn: Boolean(tokens?.access_token),
      clientId: record.client?.client_id ?? this.options.settings.clientId,
      clientSource: record.clientSource ?? (this.options.settings.clientId ? 'configured' : undefined),
      issuer: record.discovery?.authorizationServerMetadata?.issuer ?? record.discovery?.authorizationServerUrl,
      tokenType: tokens?.token_type,
      expiresAt: this.expiresAt(),
      hasRefreshToken: Boolean(tokens?.refresh_token),
      scopeRequested: record.requestedScope,
      scopeGranted: tokens?.scope,
      jwt: tokens?.access_token ? decodeJwt(tokens.access_token) : undefined,
      inFlow: this.inFlow,
      lastFailure: this.lastFailure,
      authorizationUrl: this.lastAuthorizationUrl,
      stepMode: this.stepMode,
      paused: this.paused ? { step: this.paused.step, method: this.paused.method, url: this.paused.url, since: this.paused.since } : undefined,
    };
  }

  /** Records a failure the SDK reported (a 401 after re-authentication, a refused step-up). */
  noteFailure(step: string, message: string): void {
    this.lastFailure = { step, message, hint: hintFor(message), at: this.now() };
    this.step(step, `failed: ${message}`, { error: message, hint: this.lastFailure.hint });
    this.options.onChange?.();
  }

  // ------------------------------------------------------------------------------------

  /** A value no trace, log or export may carry, from the moment it is known. */
  private secret(value: string | undefined): void {
    if (!value) return;
    this.secrets.add(value);
    for (const redactor of this.redactors) redactor.addSecret(value);
  }

  private expiresAt(): number | undefined {
    const record = this.record;
    if (!record?.tokens?.expires_in || record.obtainedAt === undefined) return undefined;
    return record.obtainedAt + record.tokens.expires_in * 1000;
  }

  private expiresSoon(): boolean {
    const at = this.expiresAt();
    if (at === undefined || !this.record?.tokens?.refresh_token) return false;
    const lifetime = (this.record.tokens.expires_in ?? 0) * 1000;
    const leeway = Math.min(this.options.refreshLeewayMs ?? 60_000, lifetime / 5);
    return at - this.now() <= leeway;
  }

  private finishFlow(): void {
    this.endFlow?.();
    this.flow = undefined;
    this.endFlow = undefined;
    this.inFlow = false;
    this.flowRedirect = undefined;
    this.flowState = undefined;
    this.options.onChange?.();
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  private load(): Promise<StoredRecord> {
    this.loaded ??= (async () => {
      const raw = await this.options.store.get(this.identity);
      let record: StoredRecord = {};
      if (raw) {
        try {
          record = JSON.parse(raw) as StoredRecord;
        } catch {
          this.step('load', 'the stored sign-in for this server could not be read; starting over', {});
        }
      }
      const tokens = record.tokens;
      for (const secret of [tokens?.access_token, tokens?.refresh_token, tokens?.id_token, record.client?.client_secret]) this.secret(secret);
      this.record = record;
      return record;
    })();
    return this.loaded;
  }

  private async update(patch: Partial<StoredRecord>): Promise<void> {
    const record = { ...(await this.load()), ...patch };
    for (const key of Object.keys(record) as (keyof StoredRecord)[]) if (record[key] === undefined) delete record[key];
    this.record = record;
    this.loaded = Promise.resolve(record);
    await this.options.store.set(this.identity, JSON.stringify(record));
  }

  private step(step: string, text: string, meta: Record<string, unknown>): void {
    this.options.record({
      server: this.options.serverId,
      channel: 'auth',
      kind: 'auth-step',
      dir: 'none',
      text: this.options.redactor.text(text),
      meta: this.options.redactor.json({ step, ...meta }, true) as Record<string, unknown>,
    });
  }

  private fail(step: string, message: string, hint?: string): never {
    this.noteFailure(step, hint ? `${message} ${hint}` : message);
    throw new OAuthStepError(step, message, hint);
  }

  private guard<T>(step: string, run: () => T): T {
    try {
      return run();
    } catch (error) {
      this.fail(step, errorText(error), hintFor(errorText(error)));
    }
  }

  private async guardAsync<T>(step: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (error instanceof OAuthStepError) throw error;
      this.fail(step, errorText(error), hintFor(errorText(error)));
    }
  }
}

/** The SDK's issuer check failure in an error or its causes. */
function issuerMismatchOf(error: unknown): IssuerMismatchError | undefined {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) if (e instanceof IssuerMismatchError) return e;
  return undefined;
}

/** A 401 from a server without OAuth metadata: carries the status, so it reads as the 401 it is. */
export class NoOAuthMetadataError extends Error {
  readonly code = 'OAUTH_NO_METADATA';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

interface Challenge {
  status: number;
  error?: string;
  description?: string;
}

/** The `error` and `error_description` of a Bearer challenge (RFC 6750 §3). */
function challengeOf(response: Response): Challenge {
  const header = response.headers.get('www-authenticate') ?? '';
  const param = (name: string) => new RegExp(`${name}="([^"]*)"`, 'i').exec(header)?.[1];
  return { status: response.status, error: param('error'), description: param('error_description') };
}

/** A failure at a named step of the flow, with the most likely cause. */
export class OAuthStepError extends Error {
  readonly code = 'OAUTH_STEP_FAILED';
  constructor(
    readonly step: string,
    readonly reason: string,
    readonly hint?: string,
  ) {
    super(`Sign-in failed at the ${step} step: ${reason}${hint ? ` ${hint}` : ''}`);
  }
}

/** The most likely cause of a failure, from what the authorization server said. */
export function hintFor(message: string): string | undefined {
  const m = message.toLowerCase();
  if (/redirect_uri|redirect uri/.test(m)) return 'Likely cause: the redirect URI is not registered for this client (loopback redirects must be allowed on any port, RFC 8252 §7.3).';
  if (/unsupported_grant_type|grant type/.test(m)) return 'Likely cause: the authorization server does not support this grant type for this client.';
  if (/issuer/.test(m)) return 'Likely cause: issuer mismatch — the metadata\'s issuer differs from the authorization server URL it was fetched from, or the callback\'s iss.';
  if (/pkce|code_challenge|code_verifier/.test(m)) return 'Likely cause: the authorization server lacks PKCE S256 support, or the verifier did not match.';
  if (/invalid_client|unauthorized_client/.test(m)) return 'Likely cause: the client id or secret is wrong, or the client is not allowed this grant.';
  if (/invalid_grant/.test(m)) return 'Likely cause: the code or refresh token was already used, expired or revoked: sign in again.';
  if (/invalid_scope|insufficient_scope/.test(m)) return 'Likely cause: a scope was requested that the client may not have.';
  if (/access_denied/.test(m)) return 'The sign-in was denied in the browser.';
  if (/registration/.test(m)) return 'Likely cause: the authorization server does not allow dynamic registration: configure a client id (and secret) or a Client ID Metadata Document URL.';
  return undefined;
}

/** Which step of the flow a request is, from its URL and body (for the step-by-step pause). */
export function stepOf(url: URL, init?: RequestInit): string {
  const path = url.pathname;
  if (path.includes('/.well-known/oauth-protected-resource')) return 'prm';
  if (path.includes('/.well-known/oauth-authorization-server') || path.includes('/.well-known/openid-configuration')) return 'as-metadata';
  const body = typeof init?.body === 'string' ? init.body : init?.body instanceof URLSearchParams ? init.body.toString() : '';
  if (/(^|&)grant_type=refresh_token/.test(body)) return 'refresh';
  if (/(^|&)grant_type=/.test(body)) return 'token';
  if (/(^|&)token_type_hint=|revoke|revocation/.test(body + path)) return 'revoke';
  if (/regist/.test(path)) return 'register';
  if (/authori[sz]e/.test(path)) return 'authorize';
  return 'request';
}

/** The message, with the OAuth error code in front when the SDK kept it apart ("invalid_grant: …"). */
export function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && /^[a-z_]+$/.test(code) && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
}


