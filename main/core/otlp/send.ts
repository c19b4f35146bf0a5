/**
 * Spans to an OTLP/HTTP endpoint (#16), protobuf, through the official exporter
 * (`@opentelemetry/exporter-trace-otlp-proto`: the transformer's serializer, its retries on
 * 429/502/503/504 and refused connections within the timeout). Two ways:
 * - `sendSpanBatches`: a whole trace, a request per batch, in order; the first failure stops it
 *   (the `otlpSend` handler, `switchboard export … --otlp`).
 * - `OtlpLiveExporter`: spans handed on as their requests complete (`record`/`proxy --otlp`),
 *   batched by the SDK's BatchSpanProcessor (a bounded queue: past it spans are dropped, never
 *   buffered without end); the endpoint being down never blocks or breaks the recording: the
 *   first failure is reported once through `onWarn`, later ones are counted.
 * Header values are secrets (an API key, a bearer token): no message that leaves here carries one.
 */
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { BatchSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace';
import type { TraceEvent } from '../../../contract/trace';
import { Redactor } from '../trace/redact';
import { SpanBuilder, type SpanBuilderOptions } from './spans';
import { checkEndpoint, tracesUrl, type OtlpEndpoint } from './endpoint';

export { OtlpEndpointError, checkEndpoint, parseHeaderFlag, tracesUrl, type OtlpEndpoint } from './endpoint';

/** One request's time, retries included (the exporter's own deadline). */
export const OTLP_TIMEOUT_MS = 10_000;
/** Spans in one request. */
export const OTLP_BATCH_SPANS = 512;
/** The live exporter's queue: spans waiting for the endpoint past it are dropped (and counted). */
export const OTLP_LIVE_QUEUE = 4_096;
/** A live batch's time, retries included: one the endpoint cannot take by then is dropped (the session goes on). */
export const OTLP_LIVE_TIMEOUT_MS = 4_000;
/** How long closing a live exporter waits for its last batch before giving up on it. */
export const OTLP_CLOSE_WAIT_MS = 3_000;

function exporterFor(endpoint: OtlpEndpoint, timeoutMillis = OTLP_TIMEOUT_MS): OTLPTraceExporter {
  return new OTLPTraceExporter({
    url: tracesUrl(endpoint.url),
    headers: Object.fromEntries(endpoint.headers.map((h) => [h.name, h.value])),
    timeoutMillis,
  });
}

/** A scrubber for what the endpoint or the exporter says back: no header value (or the URL's own secrets) in a message. */
function messageScrubber(endpoint: OtlpEndpoint): (text: string) => string {
  const redactor = new Redactor();
  for (const h of endpoint.headers) redactor.addSecret(h.value);
  return (text) => redactor.url(redactor.text(text));
}

function describe(result: ExportResult, scrub: (text: string) => string): string {
  const error = result.error as (Error & { code?: number; data?: string }) | undefined;
  if (!error) return 'the export failed';
  const status = typeof error.code === 'number' ? `HTTP ${error.code}${error.message ? ` ${error.message}` : ''}` : error.message || String(error);
  const data = typeof error.data === 'string' && error.data.trim() ? `: ${error.data.trim().slice(0, 300)}` : '';
  return scrub(`${status}${data}`);
}

function exportOnce(exporter: SpanExporter, spans: ReadableSpan[]): Promise<ExportResult> {
  return new Promise((resolve) => exporter.export(spans, resolve));
}

export class OtlpSendError extends Error {
  constructor(
    message: string,
    readonly sent: { spans: number; requests: number },
  ) {
    super(message);
  }
}

/** Sends every batch, one request each, in order; throws `OtlpSendError` at the first that fails. */
export async function sendSpanBatches(endpoint: OtlpEndpoint, batches: Iterable<ReadableSpan[]>): Promise<{ spans: number; requests: number; endpoint: string }> {
  checkEndpoint(endpoint);
  const url = tracesUrl(endpoint.url);
  const exporter = exporterFor(endpoint);
  const scrub = messageScrubber(endpoint);
  const sent = { spans: 0, requests: 0 };
  try {
    for (const batch of batches) {
      for (let i = 0; i < batch.length; i += OTLP_BATCH_SPANS) {
        const part = batch.slice(i, i + OTLP_BATCH_SPANS);
        const result = await exportOnce(exporter, part);
        sent.requests++;
        if (result.code !== ExportResultCode.SUCCESS) throw new OtlpSendError(`${scrub(url)} refused the spans: ${describe(result, scrub)}.`, { ...sent });
        sent.spans += part.length;
      }
    }
  } finally {
    await exporter.shutdown().catch(() => undefined);
  }
  return { ...sent, endpoint: scrub(url) };
}

/** Live: spans exported as their requests complete, in the background. */
export class OtlpLiveExporter {
  private readonly builder: SpanBuilder;
  private readonly processor: BatchSpanProcessor;
  private warned = false;
  private closed = false;
  readonly stats = { spans: 0, requests: 0, failures: 0 };

  constructor(
    endpoint: OtlpEndpoint,
    options: SpanBuilderOptions,
    private readonly onWarn: (message: string) => void,
  ) {
    checkEndpoint(endpoint);
    this.builder = new SpanBuilder(options);
    const inner = exporterFor(endpoint, OTLP_LIVE_TIMEOUT_MS);
    const scrub = messageScrubber(endpoint);
    const url = scrub(tracesUrl(endpoint.url));
    const counting: SpanExporter = {
      export: (spans, done) => {
        inner.export(spans, (result) => {
          this.stats.requests++;
          if (result.code === ExportResultCode.SUCCESS) this.stats.spans += spans.length;
          else {
            this.stats.failures++;
            if (!this.warned) {
              this.warned = true;
              this.onWarn(`OTLP: ${url} did not take the spans (${describe(result, scrub)}); recording goes on, spans for it are dropped.`);
            }
          }
          done(result);
        });
      },
      shutdown: () => inner.shutdown(),
      forceFlush: () => inner.forceFlush(),
    };
    this.processor = new BatchSpanProcessor({
      exporter: counting,
      maxQueueSize: OTLP_LIVE_QUEUE,
      maxExportBatchSize: OTLP_BATCH_SPANS,
      scheduledDelayMillis: 500,
      exportTimeoutMillis: OTLP_LIVE_TIMEOUT_MS + 1_000,
    });
  }

  /** One trace event; never throws (the recording must not break for its telemetry). */
  push(event: TraceEvent): void {
    if (this.closed) return;
    try {
      for (const span of this.builder.push(event)) this.processor.onEnd(span);
    } catch (error) {
      if (!this.warned) {
        this.warned = true;
        this.onWarn(`OTLP: a span could not be built (${(error as Error).message}); recording goes on.`);
      }
    }
  }

  /** Ends what is still open, sends the last batch, waits at most OTLP_CLOSE_WAIT_MS for it. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      for (const span of this.builder.finish()) this.processor.onEnd(span);
    } catch {
      // nothing more to send
    }
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.processor.shutdown().catch(() => undefined),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, OTLP_CLOSE_WAIT_MS);
        timer.unref();
      }),
    ]);
    clearTimeout(timer);
  }
}
