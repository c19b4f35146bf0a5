/** Page helpers for the Resources, Prompts and Logs views (their test ids live here). */
import { randomUUID } from 'node:crypto';
import { McpServer, WebStandardStreamableHTTPServerTransport, isInitializeRequest } from '@modelcontextprotocol/server';
import { expect, type Locator, type Page } from '@playwright/test';
import { createFetchServer, listenOnLoopback } from '../../fixtures/serve-fetch';

export type ViewName = 'tools' | 'resources' | 'prompts' | 'traffic' | 'charts' | 'timeline' | 'logs';

export async function showView(page: Page, view: ViewName): Promise<void> {
  await page.getByTestId(`view-${view}`).click();
  await expect(page.getByTestId(`view-${view}`)).toHaveAttribute('aria-selected', 'true');
}

/** The id main gave a server, read from its sidebar entry. */
export async function serverId(page: Page, name: string): Promise<string> {
  const id = await page.locator(`[data-testid="server-item"][data-server-name="${name}"]`).getAttribute('data-server-id');
  if (!id) throw new Error(`no server named ${name}`);
  return id;
}

export async function waitConnected(page: Page, name: string): Promise<void> {
  await expect(page.locator(`[data-testid="server-item"][data-server-name="${name}"]`)).toHaveAttribute('data-state', 'connected');
}

export function resourceItem(page: Page, id: string, uri: string): Locator {
  return page.locator(`[data-testid="resource-item"][data-server-id="${id}"][data-uri="${uri}"]`);
}

export function templateItem(page: Page, id: string, uriTemplate: string): Locator {
  return page.locator(`[data-testid="template-item"][data-server-id="${id}"][data-uri="${uriTemplate}"]`);
}

export function promptItem(page: Page, name: string): Locator {
  return page.locator(`[data-testid="prompt-item"][data-prompt-name="${name}"]`);
}

/** The option list of the autocomplete that has focus. */
export function completionOption(page: Page, value: string): Locator {
  return page.locator('.mantine-Autocomplete-dropdown').getByRole('option', { name: value, exact: true });
}

/** Types into a completing input and waits for the server's suggestions. */
export async function typeForCompletions(page: Page, input: Locator, text: string, expected: string[]): Promise<void> {
  await input.click();
  await input.fill('');
  await input.pressSequentially(text, { delay: 40 });
  for (const value of expected) await expect(completionOption(page, value)).toBeVisible();
}

export function logLine(page: Page, filter: { source?: string; level?: string; text?: string | RegExp }): Locator {
  let selector = '[data-testid="log-line"]';
  if (filter.source) selector += `[data-source="${filter.source}"]`;
  if (filter.level) selector += `[data-level="${filter.level}"]`;
  const lines = page.locator(selector);
  return filter.text ? lines.filter({ hasText: filter.text }) : lines;
}

export async function setMinLevel(page: Page, level: 'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency'): Promise<void> {
  await page.getByTestId('log-filter-level').selectOption(level);
}

export async function toggleSource(page: Page, source: 'server' | 'stderr' | 'switchboard'): Promise<void> {
  await page.getByTestId('log-filter-sources').getByText(source, { exact: true }).click();
}

// ---------------------------------------------------------------------------------------
// A small legacy-era server that declares resources.subscribe (the "everything" fixture does
// not), run in the test process over Streamable HTTP with sessions: `bump()` changes its
// counter resource and sends notifications/resources/updated to the sessions subscribed to it.


export const COUNTER_URI = 'watch://counter';

export interface WatchableServer {
  url: string;
  /** Sessions subscribed to the counter right now. */
  subscribers(): number;
  bump(): Promise<void>;
  close(): Promise<void>;
}

export async function startWatchableServer(): Promise<WatchableServer> {
  let count = 0;
  const sessions = new Map<string, { transport: WebStandardStreamableHTTPServerTransport; server: McpServer; subscribed: Set<string> }>();

  const create = () => {
    const server = new McpServer({ name: 'watchable', version: '1.0.0' }, { capabilities: { resources: { subscribe: true } } });
    const subscribed = new Set<string>();
    server.registerResource('counter', COUNTER_URI, { title: 'Counter', description: 'Changes when the test bumps it.', mimeType: 'application/json' }, (uri) => ({
      contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify({ count }) }],
    }));
    server.server.setRequestHandler('resources/subscribe', (request) => {
      subscribed.add(request.params.uri);
      return {};
    });
    server.server.setRequestHandler('resources/unsubscribe', (request) => {
      subscribed.delete(request.params.uri);
      return {};
    });
    return { server, subscribed };
  };

  const handle = async (request: Request): Promise<Response> => {
    const sessionId = request.headers.get('mcp-session-id');
    if (sessionId) {
      const session = sessions.get(sessionId);
      if (!session) return Response.json({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }, { status: 404 });
      return session.transport.handleRequest(request);
    }
    const body: unknown = request.method === 'POST' ? await request.clone().json().catch(() => null) : null;
    if (!body || !isInitializeRequest(body)) return Response.json({ jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: no session' }, id: null }, { status: 400 });
    const { server, subscribed } = create();
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, { transport, server, subscribed }),
      onsessionclosed: (id) => void sessions.delete(id),
    });
    await server.connect(transport);
    return transport.handleRequest(request, { parsedBody: body });
  };

  // Flushes SSE headers at once, so the client's standalone GET stream opens without waiting for an event.
  const httpServer = createFetchServer(handle);
  const port = await listenOnLoopback(httpServer);

  return {
    url: `http://127.0.0.1:${port}/mcp`,
    subscribers: () => [...sessions.values()].filter((s) => s.subscribed.has(COUNTER_URI)).length,
    async bump() {
      count++;
      await Promise.all([...sessions.values()].filter((s) => s.subscribed.has(COUNTER_URI)).map((s) => s.server.server.sendResourceUpdated({ uri: COUNTER_URI })));
    },
    async close() {
      await Promise.allSettled([...sessions.values()].map((s) => s.server.close()));
      sessions.clear();
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}
