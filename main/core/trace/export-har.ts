/**
 * HAR 1.2: one entry per HTTP exchange. SSE events ride in `_eventSourceMessages` (the
 * convention Chrome's tooling reads), MCP facts in `_mcp`. Streams still open at export time
 * are closed off there and marked. stdio traffic has no HTTP form: the log says so and counts
 * it; `--format jsonl` (or the companion file the CLI writes) keeps it.
 */
import { LIMITS, safeStringify } from '../../../contract/bounded-json';
import type { Channel, RpcSummary, TraceEvent } from '../../../contract/trace';

export interface HarExportInput {
  app: { name: string; version: string };
  events: Iterable<TraceEvent>;
  /** Server id → display name. */
  serverNames?: Record<string, string>;
  exportedAt?: number;
}

interface HarHeader {
  name: string;
  value: string;
}

interface Exchange {
  server: string;
  channel: Channel;
  session?: string;
  start: number;
  request?: TraceEvent;
  response?: TraceEvent;
  end?: TraceEvent;
  sse: TraceEvent[];
  rpc: RpcSummary[];
}

export function buildHar(input: HarExportInput): Record<string, unknown> {
  const exchanges = new Map<string, Exchange>();
  let stdioEvents = 0;
  for (const event of input.events) {
    if (event.channel === 'stdio') {
      stdioEvents++;
      continue;
    }
    if (!event.exchange || event.channel === 'lifecycle') continue;
    let exchange = exchanges.get(event.exchange);
    if (!exchange) {
      exchange = { server: event.server, channel: event.channel, start: event.ts, sse: [], rpc: [] };
      exchanges.set(event.exchange, exchange);
    }
    exchange.channel = event.kind === 'http-request' ? exchange.channel : event.channel;
    exchange.session ??= event.session;
    if (event.kind === 'http-request') exchange.request = event;
    else if (event.kind === 'http-response') exchange.response = event;
    else if (event.kind === 'http-end') exchange.end = event;
    else if (event.kind === 'sse-event') exchange.sse.push(event);
    if (event.rpc) exchange.rpc.push(event.rpc);
    if (event.batch) exchange.rpc.push(...event.batch);
  }

  const exportedAt = input.exportedAt ?? Date.now();
  const entries = [...exchanges.values()].filter((x) => x.request).map((x) => entry(x, exportedAt, input.serverNames));
  const comment =
    stdioEvents > 0
      ? `${stdioEvents} stdio events are not in this HAR (stdio has no HTTP form); export the trace as JSONL to keep them.`
      : 'Recorded by Switchboard.';
  return {
    log: {
      version: '1.2',
      creator: { name: input.app.name, version: input.app.version },
      pages: [],
      entries,
      comment,
      _switchboard: { stdioEventsOmitted: stdioEvents, exportedAt: new Date(exportedAt).toISOString() },
    },
  };
}

function entry(x: Exchange, exportedAt: number, names: Record<string, string> | undefined): Record<string, unknown> {
  const req = x.request!;
  const res = x.response;
  const open = !x.end;
  const endTs = x.end ? x.end.ts : exportedAt;
  const total = Math.max(0, endTs - x.start);
  const wait = res?.http?.ttfbMs ?? total;
  const url = req.http?.url ?? '';
  const requestHeaders = headerList(req.http?.headers);
  const requestBody = bodyText(req);
  const responseBody = x.end?.body !== undefined ? bodyText(x.end) : undefined;
  const mimeType = res?.http?.contentType ?? 'x-unknown';
  return {
    startedDateTime: new Date(x.start).toISOString(),
    time: total,
    request: {
      method: req.http?.method ?? 'GET',
      url,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: requestHeaders,
      queryString: queryString(url),
      ...(requestBody !== undefined
        ? { postData: { mimeType: requestHeaders.find((h) => h.name === 'content-type')?.value ?? 'application/json', text: requestBody } }
        : {}),
      headersSize: -1,
      bodySize: req.bytes ?? (requestBody ? Buffer.byteLength(requestBody) : 0),
    },
    response: {
      status: res?.http?.status ?? 0,
      statusText: res?.http?.statusText ?? (res ? '' : x.end?.text ?? 'no response'),
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: headerList(res?.http?.headers),
      content: {
        size: x.end?.bytes ?? 0,
        mimeType,
        ...(responseBody !== undefined ? { text: responseBody } : {}),
      },
      redirectURL: '',
      headersSize: -1,
      bodySize: x.end?.bytes ?? -1,
    },
    cache: {},
    timings: { blocked: -1, dns: -1, connect: -1, ssl: -1, send: 0, wait: Math.max(0, wait), receive: Math.max(0, total - wait) },
    ...(x.sse.length
      ? {
          _eventSourceMessages: x.sse.map((e) => ({
            time: e.ts / 1000,
            eventName: e.sse?.event ?? 'message',
            eventId: e.sse?.id ?? '',
            data: bodyText(e) ?? '',
          })),
        }
      : {}),
    _mcp: {
      server: x.server,
      serverName: names?.[x.server],
      channel: x.channel,
      session: x.session,
      rpc: x.rpc,
      end: x.end?.http?.end ?? (open ? 'open at export' : undefined),
      ...(open ? { openAtExport: true } : {}),
    },
  };
}

function headerList(headers: Record<string, string> | undefined): HarHeader[] {
  return Object.entries(headers ?? {}).map(([name, value]) => ({ name, value }));
}

function queryString(url: string): HarHeader[] {
  try {
    return [...new URL(url).searchParams.entries()].map(([name, value]) => ({ name, value }));
  } catch {
    return [];
  }
}

/** The body as text: as it arrived when it was cut for depth (`raw`), else serialized (never throws). */
function bodyText(event: TraceEvent): string | undefined {
  if (event.raw !== undefined) return event.raw;
  const body = event.body;
  if (body === undefined) return undefined;
  return typeof body === 'string' ? body : safeStringify(body, { maxDepth: LIMITS.carriedDepth });
}
