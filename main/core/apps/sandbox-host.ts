/**
 * MCP Apps: the seam between the core and whatever serves sandbox pages. The core reads a UI
 * resource and builds its policy; the carrier serves the sandbox proxy page for it on an origin
 * that is not the renderer's (browser mode: a second loopback port; Electron: its own scheme).
 */

/** Where the sandbox proxy's one script is served on the sandbox origin: the app's CSP names this exact URL in script-src. */
export const SANDBOX_PROXY_SCRIPT_PATH = '/sandbox-proxy.js';

/** What a registered sandbox page is served with. */
export interface SandboxPage {
  instanceId: string;
  /** The exact Content-Security-Policy header value for the proxy page (its srcdoc child inherits it). */
  csp: string;
  /** Permission-policy features granted after consent (`camera`, `microphone`, `geolocation`, `clipboard-write`). */
  allow: string[];
}

export interface AppSandboxHost {
  /** The sandbox origin (scheme://host[:port]), never the renderer's. */
  readonly origin: string;
  /** Starts serving the proxy page for an instance; returns the URL the outer frame loads. */
  register(page: SandboxPage): string;
  /** Stops serving it (unknown ids are ignored). */
  unregister(instanceId: string): void;
}
