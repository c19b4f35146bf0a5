/**
 * Page helpers for the MCP Apps e2e specs (apps.spec.ts, apps-hostile.spec.ts): the app servers'
 * command lines, the app's own document inside the double sandbox, the Devtools strip, and trace
 * queries through the page's own API.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { join, resolve } from 'node:path';
import { expect, type FrameLocator, type Locator, type Page } from '@playwright/test';
import type { z } from 'zod';
import type { TraceQuery as TraceQuerySchema } from '../../../contract';
import type { TraceEvent } from '../../../contract/trace';
import { appsStdioCommand } from '../../fixtures/apps/harness';
import { listenOnLoopback } from '../../fixtures/serve-fetch';
import { apiCall } from './charts';
import { shellQuote } from './ui';

type TraceQuery = z.input<typeof TraceQuerySchema>;

const ROOT = resolve(import.meta.dirname, '../../..');

/** The published example app servers (dev dependencies), over stdio. */
export type ExampleApp = 'server-basic-vanillajs' | 'server-basic-react';

export function exampleAppCommand(pkg: ExampleApp): string {
  const main = join(ROOT, 'node_modules/@modelcontextprotocol', pkg, 'dist/index.js');
  return shellQuote([process.execPath, main, '--stdio']);
}

/** The apps fixture server (test/fixtures/apps/server.ts: a `show-NAME` tool per html/NAME.html), over stdio. */
export function appsFixtureCommand(): string {
  const { command, args } = appsStdioCommand();
  return shellQuote([command, ...args]);
}

/** The visible app host (only one is on screen at a time: the Tools view's or the Apps view's). */
export function appHost(page: Page): Locator {
  return page.locator('[data-testid="app-host"]:visible');
}

/**
 * The app's own document: the outer frame (the sandbox proxy, on the sandbox origin) holds the
 * srcdoc frame the app runs in. Playwright reaches into both, whatever their origins.
 */
export function appDocument(page: Page): FrameLocator {
  return page.frameLocator('[data-testid="app-frame"]:visible').frameLocator('iframe');
}

export async function waitAppReady(page: Page): Promise<Locator> {
  const host = appHost(page);
  await expect(host).toHaveAttribute('data-state', 'ready', { timeout: 30_000 });
  return host;
}

/** Opens one tab of the Devtools strip under the frame and returns the strip. */
export async function devtoolsTab(page: Page, tab: 'messages' | 'csp' | 'context'): Promise<Locator> {
  const strip = page.locator('[data-testid="app-devtools"]:visible');
  await strip.getByTestId(`app-devtools-${tab}`).click();
  await expect(strip.getByTestId(`app-devtools-${tab}`)).toHaveAttribute('aria-selected', 'true');
  return strip;
}

/** Every trace event matching a query (pages through; queries go through the page's own contract socket). */
export async function traceEvents(page: Page, query: TraceQuery): Promise<TraceEvent[]> {
  const events: TraceEvent[] = [];
  let cursor: number | undefined;
  for (;;) {
    const pageOf = await apiCall<{ events: TraceEvent[]; nextCursor?: number }>(page, 'traceQuery', { ...query, limit: 5000, ...(cursor === undefined ? {} : { cursor }) });
    events.push(...pageOf.events);
    if (pageOf.nextCursor === undefined) return events;
    cursor = pageOf.nextCursor;
  }
}

/** The `tools/call` requests Switchboard sent to a server on its own connection (not the bridge), by tool name. */
export async function toolCallsSent(page: Page, serverId: string): Promise<string[]> {
  const events = await traceEvents(page, { servers: [serverId], kinds: ['jsonrpc-out'], methods: ['tools/call'] });
  return events.filter((e) => e.channel !== 'app').map((e) => String((e.body as { params?: { name?: unknown } } | undefined)?.params?.name ?? ''));
}

/** The `app`-channel events of a server: every bridge message, both ways, and the refusals. */
export async function appEvents(page: Page, serverId: string): Promise<TraceEvent[]> {
  return traceEvents(page, { servers: [serverId], channels: ['app'] });
}

/** A bridge message's JSON-RPC method as traced (requests and notifications). */
export const methodOf = (event: TraceEvent): string | undefined => event.rpc?.method ?? (event.body as { method?: string } | undefined)?.method;

/**
 * A loopback HTTP server that only counts what reaches it: the hostile app's fetch, image and
 * beacon are aimed here, and none may arrive.
 */
export interface CountingServer {
  port: number;
  hits: () => string[];
  close(): Promise<void>;
}

export async function startCountingServer(): Promise<CountingServer> {
  const hits: string[] = [];
  const server: Server = createServer((request: IncomingMessage, response) => {
    hits.push(`${request.method} ${request.url}`);
    response.writeHead(200, { 'content-type': 'text/plain', 'access-control-allow-origin': '*' });
    response.end('reached');
  });
  const port = await listenOnLoopback(server, 0);
  return {
    port,
    hits: () => [...hits],
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
