/**
 * Browser mode's sandbox origin for MCP Apps: a second HTTP server on 127.0.0.1 (its own port,
 * so its own origin) serving the sandbox proxy page of each registered app instance and the
 * proxy's script, nothing else. No token: a sandbox page holds nothing secret (the app's HTML
 * reaches it by postMessage from the renderer, never over HTTP) and its id is 128-bit random;
 * the Host check still stops DNS rebinding.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AppSandboxHost, SandboxPage } from '../../core/apps/sandbox-host';
import { SandboxPages, checkHostOrigin, routeSandboxRequest } from '../shared/app-sandbox';
import { allowedHosts } from './security';

export const SANDBOX_PATH_PREFIX = '/sandbox/';

export interface WebSandboxHost extends AppSandboxHost {
  readonly port: number;
  /** The renderer's origins (the main host's, once it listens): the only parents a sandbox page talks to and the only ones that may frame it. */
  setHostOrigins(origins: readonly string[]): void;
  close(): Promise<void>;
}

export interface WebSandboxOptions {
  /** Default 0: a free port. */
  port?: number;
  /** Told of server errors (they never end the process). */
  report?: (text: string) => void;
}

export async function startSandboxHost(options: WebSandboxOptions = {}): Promise<WebSandboxHost> {
  const pages = new SandboxPages();
  let hostOrigins: string[] = [];
  let hosts = new Set<string>();
  const report = options.report ?? ((text: string) => console.error(`switchboard: ${text}`));

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    try {
      if (!req.headers.host || !hosts.has(req.headers.host.toLowerCase())) {
        res.writeHead(403, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' }).end('Host header not allowed\n');
        return;
      }
      const pathname = new URL(req.url ?? '/', 'http://placeholder').pathname;
      const answer = routeSandboxRequest({ method: req.method ?? 'GET', pathname }, SANDBOX_PATH_PREFIX, (id) => pages.get(id), hostOrigins);
      // Pairs, not an object: the page carries two Content-Security-Policy headers.
      res.writeHead(answer.status, answer.headers.flat());
      res.end(answer.body);
    } catch (error) {
      report(`app sandbox: ${error instanceof Error ? error.message : String(error)}`);
      if (!res.headersSent) res.writeHead(500).end('Internal error\n');
    }
  });
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolveListen());
  });
  server.on('error', (error) => report(`app sandbox server error: ${error.message}`));
  server.on('clientError', (_error, socket) => socket.destroy());
  const port = (server.address() as AddressInfo).port;
  hosts = allowedHosts(port);
  // `localhost`, not `127.0.0.1`: browser mode's page is on 127.0.0.1, and Chromium groups frames
  // by site (scheme + host, any port). A different host name makes the sandbox another site, so
  // site isolation runs the app in a process of its own: a hostile app's busy loop (a flood of
  // postMessage) cannot stall our page's event loop, and memory of ours is out of its reach.
  // The server still listens on 127.0.0.1 only; browsers resolve localhost to loopback.
  const origin = `http://localhost:${port}`;

  return {
    origin,
    port,
    setHostOrigins(origins) {
      hostOrigins = origins.filter((candidate) => {
        // Chromium refuses IPv6 literals in frame-ancestors (it logs the source as unsupported), so an [::1] parent is left out.
        if (candidate.includes('://[')) return false;
        try {
          return checkHostOrigin(candidate) === candidate;
        } catch {
          return false; // a configured name that is not an origin cannot be a parent
        }
      });
    },
    register(page: SandboxPage): string {
      pages.add(page);
      return `${origin}${SANDBOX_PATH_PREFIX}${page.instanceId}`;
    },
    unregister(instanceId: string): void {
      pages.delete(instanceId);
    },
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}
