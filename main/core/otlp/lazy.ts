/**
 * The OpenTelemetry SDK loads only when spans are made (#16): importing it costs ~270 ms and
 * ~15 MB, which every CLI start — a client waits on `switchboard proxy` — and the app's start
 * would otherwise pay for a feature most runs never use. These are the only ways in from outside
 * main/core/otlp (the endpoint checks in ./endpoint.ts load nothing).
 */
import type { TraceEvent } from '../../../contract/trace';
import type { OtlpEndpoint } from './endpoint';
import type { SpanBuilderOptions } from './spans';

export const loadOtlpSend = () => import('./send');
export const loadOtlpExport = () => import('./export');

/** Events held while the SDK loads, at most (past it they are counted and said once). */
export const LAZY_HOLD_EVENTS = 100_000;

/**
 * `OtlpLiveExporter` behind a load: events pushed before the SDK is there wait (bounded), in
 * order, then go to the exporter; `close` waits for the load and the exporter's last batch. A load
 * that fails is told once through `onWarn` and the events are dropped: the session goes on.
 */
export class LazyLiveExporter {
  #held: TraceEvent[] = [];
  #dropped = 0;
  #failed = false;
  #exporter: { push(event: TraceEvent): void; close(): Promise<void> } | undefined;
  readonly #ready: Promise<void>;

  constructor(endpoint: OtlpEndpoint, options: SpanBuilderOptions, onWarn: (message: string) => void) {
    this.#ready = loadOtlpSend().then(
      ({ OtlpLiveExporter }) => {
        const exporter = new OtlpLiveExporter(endpoint, options, onWarn);
        for (const event of this.#held) exporter.push(event);
        this.#held = [];
        if (this.#dropped) onWarn(`OTLP: ${this.#dropped} trace events arrived before the exporter was ready and past what is held for it; their spans are missing.`);
        this.#exporter = exporter;
      },
      (error: Error) => {
        this.#held = [];
        this.#failed = true;
        onWarn(`OTLP: the OpenTelemetry exporter could not be loaded (${error.message.slice(0, 300)}); no spans are sent.`);
      },
    );
  }

  push(event: TraceEvent): void {
    if (this.#exporter) return this.#exporter.push(event);
    if (this.#failed) return;
    if (this.#held.length < LAZY_HOLD_EVENTS) this.#held.push(event);
    else this.#dropped++;
  }

  async close(): Promise<void> {
    await this.#ready;
    await this.#exporter?.close();
  }
}
