/**
 * `--otlp URL [--otlp-header "Name: value"]...` (#16), shared by `record`, `proxy` and `export`:
 * the endpoint an OTLP/HTTP collector listens on, and the headers it wants (auth). Header values
 * are secrets: they never reach stderr, a recording or the spans.
 */
import type { Core } from '../../core/app';
import { checkEndpoint, parseHeaderFlag, type OtlpEndpoint } from '../../core/otlp/endpoint';
import { LazyLiveExporter } from '../../core/otlp/lazy';
import { scrubber } from '../../core/trace/export-jsonl';
import { UsageError } from './args';

export const OTLP_OPTIONS = {
  otlp: { type: 'string' },
  'otlp-header': { type: 'string', multiple: true },
} as const;

/** The endpoint the flags name, or undefined without --otlp. Throws UsageError. */
export function otlpEndpointFromFlags(values: { otlp?: unknown; 'otlp-header'?: unknown }): OtlpEndpoint | undefined {
  const url = values.otlp as string | undefined;
  const headers = (values['otlp-header'] as string[] | undefined) ?? [];
  if (url === undefined) {
    if (headers.length) throw new UsageError('--otlp-header is for --otlp URL; give the endpoint too.');
    return undefined;
  }
  try {
    const endpoint = { url, headers: headers.map(parseHeaderFlag) };
    checkEndpoint(endpoint);
    return endpoint;
  } catch (error) {
    throw new UsageError(`--otlp: ${(error as Error).message}`);
  }
}

/**
 * `record --otlp`: the core's trace streamed live (what happened while connecting first, then
 * every event as it is appended; both in one synchronous step, so none is missed or doubled).
 * The endpoint being down is told once on stderr and never stops the recording.
 */
export function liveOtlp(core: Core, endpoint: OtlpEndpoint, io: { err: (text: string) => void; version: string }): { close(): Promise<void> } {
  const configs = core.connections.all();
  const exporter = new LazyLiveExporter(
    endpoint,
    { serverNames: Object.fromEntries(configs.map((c) => [c.config.id, c.config.name])), app: { name: 'Switchboard', version: io.version }, scrub: scrubber(configs.map((c) => c.redactor)) },
    (text) => io.err(`switchboard: ${text}\n`),
  );
  for (const event of core.trace.store.all()) exporter.push(event);
  const unsubscribe = core.trace.store.subscribe((event) => exporter.push(event));
  return {
    close: async () => {
      unsubscribe();
      await exporter.close();
    },
  };
}
