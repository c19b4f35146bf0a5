/**
 * A real OTLP/HTTP traces endpoint for tests (#16): node:http on 127.0.0.1, POST /v1/traces,
 * decoding each protobuf payload with the OpenTelemetry proto definitions
 * (test/fixtures/otlp-proto, loaded by protobufjs: nothing of the transformer that encoded it),
 * into the OTLP JSON shape (ids as hex, nanoseconds as decimal strings) the file export also has.
 * It keeps every request's headers and raw bytes (for "no secret anywhere" checks) and can be told
 * to answer an error status.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { join } from 'node:path';
import protobuf from 'protobufjs';

const PROTO_DIR = join(import.meta.dirname, '../fixtures/otlp-proto');

let requestType: protobuf.Type | undefined;

/** ExportTraceServiceRequest from the .proto files (loaded once). */
export function exportTraceServiceRequest(): protobuf.Type {
  if (requestType) return requestType;
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => join(PROTO_DIR, target);
  root.loadSync('opentelemetry/proto/collector/trace/v1/trace_service.proto');
  requestType = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest');
  return requestType;
}

export interface OtlpAttribute {
  key: string;
  value: { stringValue?: string; intValue?: string; boolValue?: boolean; doubleValue?: number; arrayValue?: { values?: OtlpAttribute['value'][] } };
}
export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  traceState?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes?: OtlpAttribute[];
  events?: { name: string; timeUnixNano: string; attributes?: OtlpAttribute[] }[];
  status?: { code?: number; message?: string };
  droppedEventsCount?: number;
}
export interface OtlpResourceSpans {
  resource?: { attributes?: OtlpAttribute[] };
  scopeSpans?: { scope?: { name?: string; version?: string }; spans?: OtlpSpan[] }[];
}
export interface OtlpRequest {
  resourceSpans?: OtlpResourceSpans[];
}

/** Decodes one protobuf body into the OTLP JSON shape. */
export function decodeOtlp(body: Uint8Array): OtlpRequest {
  const type = exportTraceServiceRequest();
  const message = type.decode(body);
  const object = type.toObject(message, { longs: String, enums: Number, bytes: String, defaults: false, arrays: true }) as OtlpRequest;
  // bytes: String gives base64; the OTLP JSON mapping writes trace and span ids as hex.
  for (const rs of object.resourceSpans ?? [])
    for (const ss of rs.scopeSpans ?? [])
      for (const span of ss.spans ?? []) {
        span.traceId = hex(span.traceId);
        span.spanId = hex(span.spanId);
        if (span.parentSpanId) span.parentSpanId = hex(span.parentSpanId);
      }
  return object;
}

function hex(base64: string): string {
  return Buffer.from(base64, 'base64').toString('hex');
}

export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  raw: Buffer;
  decoded?: OtlpRequest;
}

export interface OtlpReceiver {
  url: string;
  requests: ReceivedRequest[];
  /** Every span received so far, with its resource's attributes. */
  spans(): (OtlpSpan & { resource: Record<string, unknown> })[];
  /** Answer this status (and body) from now on; undefined: 200 with an empty response. */
  failWith(status: number | undefined, body?: string): void;
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const requests: ReceivedRequest[] = [];
  let failure: { status: number; body: string } | undefined;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= 64 * 1024 * 1024) chunks.push(chunk);
    });
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const entry: ReceivedRequest = { path: req.url ?? '', headers: req.headers, raw };
      requests.push(entry);
      if (failure) {
        res.writeHead(failure.status, { 'content-type': 'text/plain' }).end(failure.body);
        return;
      }
      if (req.method !== 'POST' || req.url !== '/v1/traces' || req.headers['content-type'] !== 'application/x-protobuf') {
        res.writeHead(415, { 'content-type': 'text/plain' }).end('want POST /v1/traces application/x-protobuf');
        return;
      }
      try {
        entry.decoded = decodeOtlp(raw);
      } catch (error) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end(`not an ExportTraceServiceRequest: ${(error as Error).message}`);
        return;
      }
      // An empty ExportTraceServiceResponse (full success).
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    spans: () =>
      requests.flatMap((r) =>
        (r.decoded?.resourceSpans ?? []).flatMap((rs) => {
          const resource = attributeMap(rs.resource?.attributes);
          return (rs.scopeSpans ?? []).flatMap((ss) => (ss.spans ?? []).map((span) => ({ ...span, resource })));
        }),
      ),
    failWith: (status, body = '') => {
      failure = status === undefined ? undefined : { status, body };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** OTLP attributes as a plain map (string arrays as arrays, ints as numbers). */
export function attributeMap(attributes: OtlpAttribute[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { key, value } of attributes ?? []) out[key] = plain(value);
  return out;
}

function plain(value: OtlpAttribute['value'] | undefined): unknown {
  if (!value) return undefined;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(plain);
  return undefined;
}
