/**
 * Electron's sandbox origin for MCP Apps: the privileged scheme `switchboard-app`, serving the
 * shared sandbox proxy page at `switchboard-app://sandbox/<instanceId>` and its script at
 * `switchboard-app://sandbox/sandbox-proxy.js` (main/adapters/shared/app-sandbox.ts).
 *
 * Not a dedicated session partition, though the issue asks for one: an `<iframe>` always shares
 * its embedder's session, and a partition needs a `<webview>` or a WebContentsView — a separate
 * top-level page, which has no `window.parent` and so breaks the `window.postMessage` bridge the
 * MCP Apps spec (and ext-apps' AppBridge) is built on. What we do instead, the strongest that
 * works with iframes: a scheme of its own (an origin that shares nothing with `app://switchboard`:
 * no storage, no cookies, no IPC — the sender check accepts our main frame only), the app in a
 * sandboxed srcdoc child with an opaque origin under the app's CSP, no preload or Node in any
 * frame (`nodeIntegrationInSubFrames: false`), every permission request denied (`lockDown`), and
 * the outer frame kept on this origin by `will-frame-navigate` (`frameNavigationAllowed`).
 */
import type { CustomScheme, Protocol } from 'electron';
import type { AppSandboxHost, SandboxPage } from '../../core/apps/sandbox-host';
import { SandboxPages, routeSandboxRequest } from '../shared/app-sandbox';

export const SANDBOX_SCHEME = 'switchboard-app';
export const SANDBOX_HOST = 'sandbox';
export const SANDBOX_ORIGIN = `${SANDBOX_SCHEME}://${SANDBOX_HOST}`;

/** Registered with the app scheme, before ready: standard (a real origin) and secure (no mixed-content limits). */
export const SANDBOX_SCHEME_PRIVILEGE: CustomScheme = { scheme: SANDBOX_SCHEME, privileges: { standard: true, secure: true } };

/** Parses a URL or gives undefined. */
function parse(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

function onSandboxOrigin(url: URL | undefined): boolean {
  return url !== undefined && url.protocol === `${SANDBOX_SCHEME}:` && url.host === SANDBOX_HOST;
}

export interface ElectronSandbox extends AppSandboxHost {
  /** The `protocol.handle` handler (plain Request → Response, so it is tested without Electron). */
  handle(request: Request): Response;
}

/** The sandbox host for the Electron window whose renderer has `rendererOrigin`. */
export function createElectronSandbox(rendererOrigin: string): ElectronSandbox {
  const pages = new SandboxPages();
  return {
    origin: SANDBOX_ORIGIN,
    register(page: SandboxPage): string {
      pages.add(page);
      return `${SANDBOX_ORIGIN}/${page.instanceId}`;
    },
    unregister(instanceId: string): void {
      pages.delete(instanceId);
    },
    handle(request: Request): Response {
      const url = parse(request.url);
      if (!onSandboxOrigin(url)) return new Response('Not found\n', { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' } });
      const answer = routeSandboxRequest({ method: request.method, pathname: url!.pathname }, '/', (id) => pages.get(id), [rendererOrigin]);
      const headers = new Headers();
      // Two Content-Security-Policy values become one comma-separated header: the same two policies.
      for (const [name, value] of answer.headers) headers.append(name, value);
      return new Response(request.method === 'HEAD' || answer.body === '' ? null : answer.body, { status: answer.status, headers });
    },
  };
}

/** Installs the handler on Electron's `protocol` (after ready). */
export function installSandboxProtocol(protocol: Pick<Protocol, 'handle'>, sandbox: ElectronSandbox): void {
  protocol.handle(SANDBOX_SCHEME, (request) => sandbox.handle(request));
}

/** How deep a frame is below the window's main frame (1: a frame our renderer made). */
export interface FrameNavigation {
  url: string;
  isMainFrame: boolean;
  /** 1 for the outer frame (the proxy page), 2 for the app's frame, more for what the app frames. */
  depth: number;
}

/**
 * `will-frame-navigate` for sub-frames: the renderer's own frames (depth 1) may show only the
 * sandbox origin; the app's frame (depth 2) only its srcdoc document (the proxy removes it when
 * it navigates away anyway); deeper frames are the app's own, held by its CSP's frame-src. The
 * main frame is `will-navigate`'s business.
 */
export function frameNavigationAllowed(navigation: FrameNavigation): boolean {
  if (navigation.isMainFrame) return true;
  if (navigation.depth <= 1) return onSandboxOrigin(parse(navigation.url));
  if (navigation.depth === 2) return navigation.url === 'about:srcdoc' || navigation.url === 'about:blank';
  return true;
}

/** Depth of a WebFrameMain-like frame (its parent chain), bounded. */
export function frameDepth(frame: { parent: unknown } | null | undefined): number {
  let depth = 0;
  let current = frame as { parent: unknown } | null | undefined;
  while (current && current.parent && depth < 64) {
    depth += 1;
    current = current.parent as { parent: unknown } | null;
  }
  return depth;
}
