/**
 * JSONL trace files: a header line, then one event per line (schema: docs/trace-format.md).
 * Written as a stream, so a day-long trace never has to fit in memory as one string.
 */
import type { ServerConfig } from '../../../contract';
import { safeStringify } from '../../../contract/bounded-json';
import type { TraceEvent } from '../../../contract/trace';
import { REDACTED, redactArgs, redactUrl, type Redactor } from './redact';
import { EVENT_DEPTH, lineText, serializeEvent, serializeParts, type LineParts } from './store';
import { wireTextOf } from './rpc';

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
  yield scrub(safeStringify(header, { maxDepth: EVENT_DEPTH })) + '\n';
  for (const event of input.events) yield scrub(eventLine(event)) + '\n';
}

/**
 * One event as a JSONL line that never throws. A body that was cut for depth is written as the
 * text that arrived (`raw`), byte for byte (line breaks between tokens as spaces), so a reader
 * parses it back whole; every other field
 * is serialized as is (cut at EVENT_DEPTH, which only an event from elsewhere can reach).
 */
export function eventLine(event: TraceEvent): string {
  return lineText(eventLineParts(event));
}

/**
 * `eventLine` in parts when its body is written as the text it came as (`serializeParts`): the
 * text its body was parsed from (`bodyText`, as the trace store's `append` took it, or the body's
 * `wireTextOf`).
 */
export function eventLineParts(event: TraceEvent, bodyText?: string): string | LineParts {
  if (event.raw === undefined) return serializeParts(event, bodyText ?? wireTextOf(event.body));
  const { raw, body: _body, ...rest } = event;
  const head = serializeEvent(rest as TraceEvent);
  // A line break in JSON text can only sit between tokens (inside strings it is escaped): as a
  // space it keeps the line one line and the value the same.
  const text = /[\r\n]/.test(raw) ? raw.replace(/[\r\n]/g, ' ') : raw;
  return `${head.slice(0, -1)}${head.length > 2 ? ',' : ''}"body":${text}}`;
}

/** The scrubber when no redactor knows a secret: one function, so a writer can tell it leaves every line as it is. */
export const unchanged = (text: string): string => text;

export function scrubber(redactors: Redactor[] | undefined): (text: string) => string {
  // (a recording asks for its scrubber before every event: none known, nothing is allocated)
  if (!redactors?.some((r) => r.hasSecrets)) return unchanged;
  const active = redactors.filter((r) => r.hasSecrets);
  return (text) => active.reduce((t, r) => r.text(t), text);
}
