/**
 * The `app://switchboard/` scheme that serves the built renderer in the Electron window.
 * A standard, secure scheme gives the renderer a real origin (so CSP 'self', fetch and the
 * sender check work) without the extra powers `file://` carries. The path logic is plain
 * Node; Electron's `protocol` object is passed in.
 */
import { readFile, stat } from 'node:fs/promises';
import type { CustomScheme, Protocol } from 'electron';
import { resolveInside } from '../../core/util/safe-path';
import { contentSecurityPolicy } from '../shared/csp';
import { contentType } from '../shared/content-type';
import { SANDBOX_ORIGIN } from './app-sandbox';

export const APP_SCHEME = 'app';
export const APP_HOST = 'switchboard';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;
export const APP_ENTRY_URL = `${APP_ORIGIN}/index.html`;

export const APP_SCHEME_PRIVILEGES: CustomScheme[] = [
  { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } },
];

/** Must run before the app is ready, once, with every scheme (`extra`: the MCP Apps sandbox's). */
export function registerScheme(protocol: Pick<Protocol, 'registerSchemesAsPrivileged'>, extra: CustomScheme[] = []): void {
  protocol.registerSchemesAsPrivileged([...APP_SCHEME_PRIVILEGES, ...extra]);
}

/** The file a URL path names inside the renderer dir (`/` means index.html), or undefined. */
export function fileForPath(rendererDir: string, urlPath: string): string | undefined {
  const path = urlPath === '' || urlPath === '/' ? '/index.html' : urlPath;
  return resolveInside(rendererDir, path);
}

/** The file an `app://switchboard/...` request names, or undefined for any other URL or an escape. */
export function fileForRequestUrl(rendererDir: string, requestUrl: string): string | undefined {
  let url: URL;
  try {
    url = new URL(requestUrl);
  } catch {
    return undefined;
  }
  if (url.protocol !== `${APP_SCHEME}:` || url.host !== APP_HOST) return undefined;
  return fileForPath(rendererDir, url.pathname);
}

export function appResponseHeaders(file?: string): Record<string, string> {
  const headers: Record<string, string> = {
    // The renderer may frame the MCP Apps sandbox origin and nothing else.
    'content-security-policy': contentSecurityPolicy([], [SANDBOX_ORIGIN]),
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  };
  if (file) headers['content-type'] = contentType(file);
  return headers;
}

/** The `protocol.handle` handler: GET/HEAD of files inside `rendererDir`, 404 otherwise. */
export function createAppProtocolHandler(rendererDir: string): (request: Request) => Promise<Response> {
  return async (request) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return new Response(null, { status: 405, headers: { ...appResponseHeaders(), allow: 'GET, HEAD' } });
    }
    const file = fileForRequestUrl(rendererDir, request.url);
    const info = file ? await stat(file).catch(() => undefined) : undefined;
    if (!file || !info?.isFile()) {
      return new Response('Not found\n', {
        status: 404,
        headers: { ...appResponseHeaders(), 'content-type': 'text/plain; charset=utf-8' },
      });
    }
    const body = request.method === 'HEAD' ? null : await readFile(file);
    return new Response(body, { status: 200, headers: appResponseHeaders(file) });
  };
}

/** Installs the handler on Electron's `protocol` (after ready). */
export function installAppProtocol(protocol: Pick<Protocol, 'handle'>, rendererDir: string): void {
  protocol.handle(APP_SCHEME, createAppProtocolHandler(rendererDir));
}
