/**
 * Browser mode's carrier: an HTTP server on loopback that serves the built renderer and a
 * WebSocket speaking the contract through the same dispatcher Electron uses.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Envelope } from '../../../contract';
import type { Core } from '../../core/app';
import { WS_PATH, WsFrame, encodeEvent, encodeReply } from '../../../contract/ws';
import { PushGate } from './push-gate';
import { randomBytes } from 'node:crypto';
import { CALLBACK_PATH, callbackPage } from '../../core/auth/login';
import { contentSecurityPolicy } from '../shared/csp';
import { handleBulkRoute } from './bulk-routes';
import { serveFile } from './static-files';
import {
  TOKEN_HEADER,
  TOKEN_QUERY,
  allowedHosts,
  allowedOrigins,
  checkBindAddress,
  checkRequest,
  newToken,
  tokenCookie,
  instanceIdOf,
  tokenCookieName,
  type GateVerdict,
} from './security';

export interface WebHostOptions {
  core: Core;
  /** The built renderer (index.html and assets). */
  rendererDir: string;
  port?: number;
  host?: string;
  /** Bind beyond loopback. Named loudly on the command line: --UNSAFE-expose-to-network. */
  unsafeExposeToNetwork?: boolean;
  /** Extra host names allowed in Host/Origin (e.g. a name in /etc/hosts pointing at us). */
  extraHostNames?: string[];
  /** For tests only: a fixed token. */
  token?: string;
  /** Browser mode's OAuth redirect target: the popup comes back to `/oauth/callback` with the code. */
  oauthCallback?: (search: URLSearchParams) => { ok: boolean; message: string };
  /** MCP Apps: the sandbox origin (`sandbox-host.ts`), the only origin the renderer may frame. */
  sandboxOrigin?: string;
}

export interface WebHost {
  /** The URL to open, token included. */
  readonly url: string;
  readonly port: number;
  /** The origins the renderer may be served on (loopback names with this port). */
  readonly origins: readonly string[];
  readonly token: string;
  /** This instance's token cookie (per port and launch). */
  readonly cookieName: string;
  close(): Promise<void>;
}

export { WS_PATH };
/** The largest WebSocket message accepted from a client (docs/limits.md); a larger one closes that socket with 1009. */
export const MAX_WS_MESSAGE = 16 * 1024 * 1024;

export async function startWebHost(options: WebHostOptions): Promise<WebHost> {
  const host = options.host ?? '127.0.0.1';
  const refusal = checkBindAddress(host, options.unsafeExposeToNetwork ?? false);
  if (refusal) throw new Error(refusal);
  const token = options.token ?? newToken();
  let hosts = new Set<string>();
  let origins = new Set<string>();
  let cookieName = '';

  const gate = (req: IncomingMessage, requireOrigin: boolean): GateVerdict => {
    const url = new URL(req.url ?? '/', 'http://placeholder');
    return checkRequest(
      {
        host: req.headers.host,
        origin: req.headers.origin,
        cookie: req.headers.cookie,
        headerToken: headerValue(req.headers[TOKEN_HEADER]),
        queryToken: url.searchParams.get(TOKEN_QUERY),
        requireOrigin,
      },
      token,
      hosts,
      origins,
      cookieName,
    );
  };

  const server = createServer((req, res) => {
    handleHttp(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end('Internal error');
    });
  });

  async function handleHttp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://placeholder');
    // The redirect back from an authorization server is a cross-site navigation that carries no
    // cookie: it is authenticated by its one-time `state` instead (and the Host check still holds).
    if (path.pathname === CALLBACK_PATH && options.oauthCallback && req.method === 'GET' && hosts.has((req.headers.host ?? '').toLowerCase())) {
      const answer = options.oauthCallback(path.searchParams);
      const nonce = randomBytes(16).toString('base64');
      res.writeHead(answer.ok ? 200 : 400, {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
        'referrer-policy': 'no-referrer',
        'content-security-policy': `default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-${nonce}'; frame-ancestors 'none'`,
      });
      res.end(`${callbackPage(answer.ok, answer.message)}<script nonce="${nonce}">${answer.ok ? 'setTimeout(() => window.close(), 300)' : ''}</script>`);
      return;
    }
    const verdict = gate(req, false);
    if (!verdict.ok) {
      res.writeHead(verdict.status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
      res.end(`${verdict.reason}. Open the URL that "npm run web" printed.\n`);
      return;
    }
    if (await handleBulkRoute(req, res, options.core, verdict)) return;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    const url = new URL(req.url ?? '/', 'http://placeholder');
    if (verdict.via === 'query') {
      // Trade the token for a cookie and drop it from the address bar and history.
      url.searchParams.delete(TOKEN_QUERY);
      res.writeHead(302, {
        'set-cookie': tokenCookie(cookieName, token),
        location: url.pathname + url.search,
        'cache-control': 'no-store',
      });
      res.end();
      return;
    }
    const served = await serveFile(options.rendererDir, url.pathname, res, securityHeaders(port, options.sandboxOrigin));
    if (!served) res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found\n');
  }

  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_WS_MESSAGE });
  // Nothing a client or the network does may end the process: errors are logged and serving goes on.
  const report = (text: string) => {
    console.error(`switchboard: ${text}`);
    try {
      options.core.logs.app('error', text);
    } catch {
      // the log bus is the last resort; stderr has it
    }
  };
  wss.on('error', (error) => report(`WebSocket server error: ${describe(error)}`));
  server.on('upgrade', (req, socket, head) => {
    // Node leaves an upgrading socket without an error listener: a reset mid-handshake must not throw.
    // Once upgraded, ws has its own listener on the socket and reports what matters; a page that
    // went away (a closed tab resets its socket) is not an error, and was logged as one each time.
    const onError = (error: Error) => report(`WebSocket upgrade socket error: ${describe(error)}`);
    socket.on('error', onError);
    const path = new URL(req.url ?? '/', 'http://placeholder').pathname;
    const verdict = path === WS_PATH ? gate(req, true) : ({ ok: false, status: 403, reason: 'Not found' } as const);
    if (!verdict.ok) {
      socket.end(`HTTP/1.1 ${verdict.status} ${verdict.status === 401 ? 'Unauthorized' : 'Forbidden'}\r\nconnection: close\r\n\r\n`);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      socket.off('error', onError);
      attach(ws);
    });
  });

  // Each socket's pushes pass its gate: a page that stops reading gets a resync later instead
  // of main queueing every push for it (push-gate.ts). Replies are never held back.
  const sockets = new Map<WebSocket, PushGate>();
  const unsubscribe = options.core.events.subscribe((event, payload) => {
    const frame = encodeEvent(event, payload);
    for (const gate of sockets.values()) gate.push(frame);
  });
  const resyncTimer = setInterval(() => {
    for (const gate of sockets.values()) if (gate.behind > 0) gate.poll();
  }, 250);
  resyncTimer.unref();

  function send(ws: WebSocket, text: string): void {
    if (ws.readyState !== ws.OPEN) return;
    ws.send(text, (error) => error && report(`WebSocket: reply not sent: ${describe(error)}`));
  }

  function attach(ws: WebSocket): void {
    sockets.set(
      ws,
      new PushGate(ws, (frame) => ws.send(frame, (error) => error && report(`WebSocket: a push was not sent: ${describe(error)}`))),
    );
    ws.on('close', () => sockets.delete(ws));
    // Without a listener an 'error' would be thrown (and end the process). An over-size message
    // (maxPayload) has already made ws close this socket with 1009; the others are untouched.
    ws.on('error', (error: Error & { code?: string }) => {
      if (error.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') {
        report(`WebSocket closed (1009, message too big): a client sent a message over the limit of ${MAX_WS_MESSAGE.toLocaleString('en-US')} bytes (16 MiB)`);
      } else report(`WebSocket error (socket closed): ${describe(error)}`);
    });
    ws.on('message', (data) => {
      let frame;
      try {
        frame = WsFrame.safeParse(safeJson(data.toString()));
      } catch (error) {
        frame = { success: false as const, error };
      }
      if (!frame.success) {
        send(ws, encodeReply(null, { ok: false, error: { code: 'invalid-arguments', message: 'Malformed frame: expected {id, method, args}' } }));
        return;
      }
      const { id, method, args } = frame.data;
      options.core
        .dispatch(method, args)
        .catch((error: unknown): Envelope => {
          // The dispatcher answers every outcome with an envelope; this only guards against a broken one.
          report(`${method} failed inside the dispatcher: ${describe(error)}`);
          return { ok: false, error: { code: 'failed', message: `${method} failed: ${describe(error)}` } };
        })
        .then((reply) => send(ws, encodeReply(id, reply)))
        .catch((error: unknown) => {
          report(`${method}: the reply could not be sent: ${describe(error)}`);
          send(ws, encodeReply(id, { ok: false, error: { code: 'failed', message: `${method}: the reply could not be sent: ${describe(error)}` } }));
        });
    });
  }

  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolveListen());
  });
  server.on('error', (error) => report(`HTTP server error: ${describe(error)}`));
  const port = (server.address() as AddressInfo).port;
  hosts = allowedHosts(port, options.extraHostNames);
  origins = allowedOrigins(port, options.extraHostNames);
  cookieName = tokenCookieName(port, instanceIdOf(token));
  const shownHost = host.includes(':') ? `[${host}]` : host;

  return {
    url: `http://${shownHost}:${port}/?${TOKEN_QUERY}=${token}`,
    port,
    origins: [...origins],
    token,
    cookieName,
    close: async () => {
      unsubscribe();
      clearInterval(resyncTimer);
      for (const ws of sockets.keys()) ws.terminate();
      wss.close();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}

function securityHeaders(port: number, sandboxOrigin: string | undefined): Record<string, string> {
  return {
    'content-security-policy': contentSecurityPolicy([`ws://127.0.0.1:${port}`, `ws://localhost:${port}`], sandboxOrigin ? [sandboxOrigin] : []),
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cross-origin-opener-policy': 'same-origin',
    'cache-control': 'no-store',
  };
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
