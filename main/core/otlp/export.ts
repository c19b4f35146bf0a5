/**
 * A trace as OTLP traces (#16): the spans of spans.ts (a span per JSON-RPC request with its HTTP
 * exchanges and SSE events as span events, after the OpenTelemetry semantic conventions for MCP),
 * serialized by the official transformer (`@opentelemetry/otlp-transformer`): OTLP/JSON for a file
 * or a download (hex ids, nanoseconds as decimal strings, enums as integers: the OTLP JSON
 * mapping), protobuf for an OTLP/HTTP endpoint (send.ts). Secrets are scrubbed as for the other
 * exports, string by string before serialization (so the protobuf is as clean as the JSON).
 */
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import type { TraceEvent } from '../../../contract/trace';
import { scrubber } from '../trace/export-jsonl';
import type { Redactor } from '../trace/redact';
import { SpanBuilder } from './spans';

export interface OtlpExportInput {
  events: Iterable<TraceEvent>;
  /** Server id → name (the resource/service attributes). */
  serverNames: Record<string, string>;
  redactors: Redactor[];
  app: { name: string; version: string };
}

/** Spans serialized together: one `resourceSpans` entry per server in each piece. */
export const SPANS_PER_PIECE = 256;

/** The trace's spans in batches of at most `size`, as they complete (open ones at the end). */
export function* otlpSpanBatches(input: OtlpExportInput, size = SPANS_PER_PIECE): Generator<ReadableSpan[]> {
  const builder = new SpanBuilder({ serverNames: input.serverNames, app: input.app, scrub: scrubber(input.redactors) });
  let batch: ReadableSpan[] = [];
  for (const event of input.events) {
    for (const span of builder.push(event)) {
      batch.push(span);
      if (batch.length >= size) {
        yield batch;
        batch = [];
      }
    }
  }
  batch.push(...builder.finish());
  while (batch.length) {
    yield batch.slice(0, size);
    batch = batch.slice(size);
  }
}

/**
 * OTLP/JSON (one ExportTraceServiceRequest, `{"resourceSpans":[…]}`) as text pieces, for a file or
 * a download. Each piece is whole `resourceSpans` entries, so the export's last net (a text
 * scrubber over every piece) never sees a secret split between two.
 */
export function* otlpJsonChunks(input: OtlpExportInput): Generator<string> {
  yield '{"resourceSpans":[';
  let first = true;
  for (const batch of otlpSpanBatches(input)) {
    const entries = resourceSpansText(batch);
    if (!entries) continue;
    yield `${first ? '' : ','}\n${entries}`;
    first = false;
  }
  yield '\n]}\n';
}

const PREFIX = '{"resourceSpans":[';

/** The transformer's OTLP/JSON of some spans, as the text of its `resourceSpans` entries (comma-separated), or '' for none. */
function resourceSpansText(spans: ReadableSpan[]): string {
  const bytes = JsonTraceSerializer.serializeRequest(spans);
  if (!bytes) return '';
  const text = new TextDecoder().decode(bytes);
  // The serializer writes JSON.stringify({resourceSpans}): the entries are what lies between.
  if (text.startsWith(PREFIX) && text.endsWith(']}')) return text.slice(PREFIX.length, -2);
  return resourceSpansOf(spans).map((entry) => JSON.stringify(entry)).join(',');
}

/** The transformer's OTLP/JSON of some spans, as its `resourceSpans` entries. */
export function resourceSpansOf(spans: ReadableSpan[]): unknown[] {
  const bytes = JsonTraceSerializer.serializeRequest(spans);
  if (!bytes) return [];
  const request = JSON.parse(new TextDecoder().decode(bytes)) as { resourceSpans?: unknown[] };
  return request.resourceSpans ?? [];
}
