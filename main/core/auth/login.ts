/**
 * The `LoginWindow` port: how a person (or, for test servers, nobody) gets from an
 * authorization URL to the redirect back with a code. Electron opens a dedicated window,
 * browser mode a popup, the CLI the system browser or a headless follower; all of them end at
 * a callback whose `state` must match the flow's. Only http: and https: URLs are ever opened.
 */
import { createServer, type Server } from 'node:http';
import { randomInt } from 'node:crypto';
import type { FetchLike } from '@modelcontextprotocol/client';
import { signInUrlVerdict } from '../../../contract/sign-in-url';

export interface AuthorizationRequest {
  serverId: string;
  serverName: string;
  /** The authorization URL, already checked to be http: or https:. */
  url: URL;
  /** Where the authorization server sends the browser back (this flow's `redirectUrl()`). */
  redirectUrl: string;
  state: string;
  /** The tracked fetch, for logins that follow the URL themselves (headless). */
  fetchFn: FetchLike;
  signal: AbortSignal;
}

/** The query of the redirect back, as the authorization server sent it. */
export interface CallbackParams {
  code?: string;
  state?: string;
  iss?: string;
  error?: string;
  errorDescription?: string;
}

export interface LoginWindow {
  /** A short name for the trace and the UI: "login window", "browser popup", "headless". */
  readonly kind: string;
  /** The redirect URI for a new flow. Synchronous: the SDK reads it as a property. */
  redirectUrl(): string;
  /** Shows the authorization URL (or follows it) and resolves with the callback's parameters. */
  authorize(request: AuthorizationRequest): Promise<CallbackParams>;
}

export class OAuthUrlRefusedError extends Error {
  readonly code = 'OAUTH_URL_REFUSED';
}

/** Only http: and https: are ever opened (the rule the renderer applies too). */
export function checkAuthorizationUrl(raw: string | URL): URL {
  const verdict = signInUrlVerdict(raw);
  if (!verdict.ok) throw new OAuthUrlRefusedError(verdict.reason);
  return verdict.url;
}

export function callbackParams(search: URLSearchParams): CallbackParams {
  return {
    code: search.get('code') ?? undefined,
    state: search.get('state') ?? undefined,
    iss: search.get('iss') ?? undefined,
    error: search.get('error') ?? undefined,
    errorDescription: search.get('error_description') ?? undefined,
  };
}

export const CALLBACK_PATH = '/oauth/callback';

/** The page the browser shows after the redirect; it asks to be closed (a popup closes itself). */
export function callbackPage(ok: boolean, message: string): string {
  const text = message.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html><meta charset="utf-8"><title>Switchboard sign-in</title><body style="font:15px system-ui;margin:3em"><h1 style="font-size:18px">${ok ? 'Signed in' : 'Sign-in failed'}</h1><p>${text}</p><p>You can close this window.</p></body>`;
}

/**
 * A loopback listener for one flow (RFC 8252 §7.3): `http://127.0.0.1:<port>/oauth/callback`.
 * The port is chosen when the flow starts (the SDK needs the redirect URI before anything
 * async can happen) and bound only while the flow waits for its callback; the listener closes
 * as soon as the right `state` arrives, the flow is cancelled, or it fails.
 */
export class LoopbackCallback {
  readonly url: string;
  constructor(readonly port = randomInt(49_152, 65_535)) {
    this.url = `http://127.0.0.1:${port}${CALLBACK_PATH}`;
  }

  /** Listens, runs `open` once listening, and resolves with the callback that carries `state`. */
  async wait(state: string, signal: AbortSignal, open: () => Promise<void> | void): Promise<CallbackParams> {
    let server: Server | undefined;
    try {
      return await new Promise<CallbackParams>((resolve, reject) => {
        const onAbort = () => reject(signal.reason instanceof Error ? signal.reason : new Error('The sign-in was cancelled.'));
        if (signal.aborted) return onAbort();
        signal.addEventListener('abort', onAbort, { once: true });
        server = createServer((req, res) => {
          const url = new URL(req.url ?? '/', this.url);
          const params = callbackParams(url.searchParams);
          if (req.method !== 'GET' || url.pathname !== CALLBACK_PATH || params.state !== state) {
            res.writeHead(400, { 'content-type': 'text/html; charset=utf-8' }).end(callbackPage(false, 'This is not the sign-in Switchboard is waiting for.'));
            return;
          }
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
          res.end(callbackPage(!params.error, params.error ? `The authorization server answered: ${params.error}${params.errorDescription ? ` — ${params.errorDescription}` : ''}` : 'Switchboard received the authorization.'));
          resolve(params);
        });
        server.once('error', (error: NodeJS.ErrnoException) =>
          reject(error.code === 'EADDRINUSE' ? new Error(`The sign-in callback port ${this.port} is in use; try signing in again (a new port is chosen each time).`) : error),
        );
        server.listen(this.port, '127.0.0.1', () => {
          Promise.resolve(open()).catch(reject);
        });
      });
    } finally {
      server?.closeAllConnections?.();
      server?.close();
    }
  }
}

export class HeadlessConsentRequired extends Error {
  readonly code = 'OAUTH_CONSENT_REQUIRED';
}

/**
 * Headless sign-in for authorization servers that approve on their own (test and CI servers):
 * follow the authorization URL's redirects until one points at our redirect URI. A page that
 * wants a person (a consent or login form) ends it with the URL to open in a browser.
 */
export async function followAuthorization(url: URL, redirectUrl: string, fetchFn: FetchLike, signal: AbortSignal, maxHops = 10): Promise<CallbackParams> {
  const target = new URL(redirectUrl);
  let current = url;
  for (let hop = 0; hop < maxHops; hop++) {
    const response = await fetchFn(current, { method: 'GET', redirect: 'manual', signal, headers: { accept: 'text/html' } });
    await response.body?.cancel().catch(() => undefined);
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      const next = new URL(location, current);
      if (next.origin === target.origin && next.pathname === target.pathname) return callbackParams(next.searchParams);
      current = checkAuthorizationUrl(next);
      continue;
    }
    throw new HeadlessConsentRequired(
      `The authorization server did not approve on its own (HTTP ${response.status} at ${current.origin}${current.pathname}); a person has to sign in. Run without --oauth-headless, or open this URL in a browser: ${url.href}`,
    );
  }
  throw new Error(`The authorization server redirected more than ${maxHops} times without reaching the redirect URI.`);
}

/** Headless login (CLI `--oauth-headless`, tests): no listener; the redirect is read, not followed. */
export class HeadlessLogin implements LoginWindow {
  readonly kind = 'headless';
  redirectUrl(): string {
    return new LoopbackCallback().url;
  }
  authorize(request: AuthorizationRequest): Promise<CallbackParams> {
    return followAuthorization(request.url, request.redirectUrl, request.fetchFn, request.signal);
  }
}

/** A loopback listener plus something that shows the URL: the system browser, a print-out. */
export class LoopbackLogin implements LoginWindow {
  constructor(
    readonly kind: string,
    private readonly show: (url: URL, request: AuthorizationRequest) => Promise<void> | void,
  ) {}

  redirectUrl(): string {
    return new LoopbackCallback().url;
  }

  async authorize(request: AuthorizationRequest): Promise<CallbackParams> {
    const callback = new LoopbackCallback(Number(new URL(request.redirectUrl).port));
    return callback.wait(request.state, request.signal, () => this.show(request.url, request));
  }
}
