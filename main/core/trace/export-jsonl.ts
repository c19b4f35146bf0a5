/**
 * JSONL trace files: a header line, then one event per line (schema: docs/trace-format.md).
 * Written as a stream, so a day-long trace never has to fit in memory as one string.
 */
import type { ServerConfig } from '../../../contract';
import type { TraceEvent } from '../../../contract/trace';
import { REDACTED, redactArgs, redactUrl, type Redactor } from './redact';

export const TRACE_FORMAT = 'switchboard-trace';
export const TRACE_FORMAT_VERSION = 1;

export interface TraceHeader {
  format: typeof TRACE_FORMAT;
  version: number;
  app: { name: string; version: string };
  startedAt: string;
  exportedAt: string;
  eventCount: number;
  /** Server configurations with every secret value removed. */
  servers: ServerConfig[];
  redaction: 'on';
}

/** A config safe to write anywhere: env values and header values replaced, URL credentials dropped. */
export function redactConfig(config: ServerConfig): ServerConfig {
  if (config.target.type === 'stdio') {
    const open = new Set(config.target.nonSecretEnv);
    const env = Object.fromEntries(Object.entries(config.target.env).map(([k, v]) => [k, open.has(k) ? v : REDACTED]));
    return { ...config, target: { ...config.target, env, args: redactArgs(config.target.args) } };
  }
  const headers = Object.fromEntries(Object.keys(config.target.headers).map((k) => [k, REDACTED]));
  return { ...config, target: { ...config.target, headers, url: redactUrl(config.target.url) } };
}

export interface JsonlExportInput {
  app: { name: string; version: string };
  startedAt: number;
  servers: ServerConfig[];
  events: Iterable<TraceEvent>;
  eventCount: number;
  /** Applied to every line on its way out: a last net for secrets learnt after an event was recorded. */
  redactors?: Redactor[];
}

export function* jsonlLines(input: JsonlExportInput): Generator<string> {
  const header: TraceHeader = {
    format: TRACE_FORMAT,
    version: TRACE_FORMAT_VERSION,
    app: input.app,
    startedAt: new Date(input.startedAt).toISOString(),
    exportedAt: new Date().toISOString(),
    eventCount: input.eventCount,
    servers: input.servers.map(redactConfig),
    redaction: 'on',
  };
  const scrub = scrubber(input.redactors);
  yield scrub(JSON.stringify(header)) + '\n';
  for (const event of input.events) yield scrub(JSON.stringify(event)) + '\n';
}

export function scrubber(redactors: Redactor[] | undefined): (text: string) => string {
  const active = (redactors ?? []).filter((r) => r.hasSecrets);
  if (active.length === 0) return (text) => text;
  return (text) => active.reduce((t, r) => r.text(t), text);
}
