/**
 * Handlers for the trace: queries, single events with their whole payload, snapshots, and
 * export/import. Every one reads a `source`: the live trace, a file opened read-only, or a
 * recording of the library. Files never travel through the contract: browser mode streams them
 * over HTTP routes (`bulk`), Electron through main-side dialogs (`traceSaveFile`/`traceOpenFile`)
 * straight to and from disk.
 */
import { loadOtlpExport } from '../otlp/lazy';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { RecordingSummary, ServerConfig } from '../../../contract';
import type { TraceEvent } from '../../../contract/trace';
import type { Handlers } from '../dispatcher';
import { CoreError } from '../errors';
import { harChunks } from '../trace/export-har';
import { jsonlLines, scrubber } from '../trace/export-jsonl';
import { TraceHub } from '../trace/hub';
import { traceWindow } from '../trace/window';
import type { Redactor } from '../trace/redact';
import type { OpenedTrace } from '../trace/sources';
import { saveChunksToFile, tooLargeMessage } from '../trace/bulk-io';
import { IMPORT_LIMITS, NotATraceError, importJsonl } from '../trace/import-jsonl';
import type { CoreContext, FileDialogs } from './context';

type TraceHandlers = Pick<Handlers, 'traceQuery' | 'traceWindow' | 'traceFeed' | 'traceEvent' | 'snapshots' | 'traceSaveFile' | 'traceOpenFile'>;

/** An import's answer (POST /api/trace/import, `traceOpenFile({into: 'view'})`). */
export interface TraceImportResult {
  source: string;
  events: number;
  servers: { id: string; name: string }[];
  problems: { line: number; message: string }[];
}

/** An import into the library's answer (POST /api/recordings/import, `traceOpenFile({into: 'library'})`). */
export interface RecordingImportResult {
  recording: RecordingSummary;
  problems: { line: number; message: string }[];
}

/** An export as a stream of text pieces. */
/** The formats a trace exports to: Switchboard's own JSONL, HAR, and OTLP/JSON traces (#16). */
export type TraceExportFormat = 'jsonl' | 'har' | 'otlp';
export const TRACE_EXPORT_FORMATS: readonly TraceExportFormat[] = ['jsonl', 'har', 'otlp'];

/** JSONL and HAR come as plain text pieces; OTLP asynchronously (the OpenTelemetry SDK loads on first use). */
export interface TraceExportStream<C extends Iterable<string> | AsyncIterable<string> = Iterable<string> | AsyncIterable<string>> {
  filename: string;
  mimeType: string;
  chunks: C;
}

/**
 * Bulk data outside the contract: browser mode's HTTP routes stream files in and out through
 * these, so a trace never travels as one WebSocket message.
 */
export interface TraceBulk {
  /** Reads a JSONL trace from chunks as they come; `CoreError('invalid-arguments')` when it is not a trace. */
  importStream(name: string, chunks: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>): Promise<TraceImportResult>;
  /** `CoreError('not-found')` for an unknown source. */
  exportStream(format: 'jsonl' | 'har', source?: string): TraceExportStream<Iterable<string>>;
  exportStream(format: TraceExportFormat, source?: string): TraceExportStream;
  /** A JSONL trace streamed into the recordings library as a new recording; `CoreError('failed')` when this run has none. */
  importRecording(name: string, chunks: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>): Promise<RecordingImportResult>;
}

/** What the open dialog offers (the same types the page's file picker accepts). */
const TRACE_FILTERS = [
  { name: 'Switchboard trace (JSONL)', extensions: ['jsonl', 'ndjson', 'json', 'txt'] },
  { name: 'All files', extensions: ['*'] },
];
const SAVE_FILTERS: Record<TraceExportFormat, { name: string; extensions: string[] }> = {
  jsonl: { name: 'Switchboard trace (JSONL)', extensions: ['jsonl'] },
  har: { name: 'HTTP Archive (HAR)', extensions: ['har'] },
  otlp: { name: 'OpenTelemetry traces (OTLP JSON)', extensions: ['json'] },
};

/** An imported trace is read-only: a small window of full events is enough (the rest is read back from its spill file). */
const IMPORT_WINDOW = 2_000;

export function traceHandlers(ctx: CoreContext): TraceHandlers & { closeImports(): void; bulk: TraceBulk } {
  const imports = ctx.sources;
  let nextImport = 1;

  const hubOf = (source = 'live'): TraceHub => {
    if (source === 'live') return ctx.trace;
    return imports.require(source).hub;
  };

  const exportStream = ((format: TraceExportFormat, source = 'live'): TraceExportStream => {
    const hub = hubOf(source);
    return exportTrace(format, {
      hub,
      opened: imports.get(source),
      configs: ctx.connections.all().map((c) => c.config),
      redactors: ctx.connections.all().map((c) => c.redactor),
      version: ctx.version,
    });
  }) as TraceBulk['exportStream'];

  const importStream: TraceBulk['importStream'] = async (name, chunks) => {
    const hub = new TraceHub(undefined, { store: { windowSize: IMPORT_WINDOW } });
    let summary;
    try {
      summary = await importJsonl(chunks, { name, onEvent: (event: TraceEvent) => hub.store.append({ ...event }) });
    } catch (error) {
      hub.close();
      if (error instanceof NotATraceError) throw new CoreError('invalid-arguments', `${error.message} Nothing was opened.`);
      throw new CoreError('failed', `Could not open ${name}: ${(error as Error).message}. Nothing was opened.`);
    }
    const source = `import-${nextImport++}`;
    const servers = summary.header.servers.map((s) => ({ id: s.id, name: s.name }));
    imports.set(source, { hub, name, app: summary.header.app, startedAt: Date.parse(summary.header.startedAt), servers, configs: summary.header.servers });
    return { source, events: hub.store.size, servers, problems: summary.problems };
  };

  const libraryOf = () => {
    if (!ctx.recordings) throw new CoreError('failed', 'This run keeps no recordings library (it has no data directory), so nothing can be added to one.');
    return ctx.recordings;
  };

  const importRecording: TraceBulk['importRecording'] = async (name, chunks) => {
    const library = libraryOf();
    try {
      const { summary, problems } = await library.import(name, chunks);
      return { recording: summary, problems };
    } catch (error) {
      if (error instanceof CoreError) throw error;
      if (error instanceof NotATraceError) throw new CoreError('invalid-arguments', `${error.message} Nothing was added to the library.`);
      throw new CoreError('failed', `Could not add ${name} to the library: ${(error as Error).message}. Nothing was added.`);
    }
  };

  /** Electron's main-side dialogs; elsewhere a clear refusal (browser mode has the HTTP routes). */
  const dialogs = (): FileDialogs => {
    if (ctx.fileDialogs) return ctx.fileDialogs;
    throw new CoreError(
      'failed',
      ctx.carrier === 'browser'
        ? 'Files are not saved or opened by main in browser mode: use the HTTP routes (GET /api/trace/export, POST /api/trace/import, POST /api/recordings/import), as the page does.'
        : 'This Switchboard has no file dialogs in main.',
    );
  };

  /** The file the person picked, streamed from disk (1 MiB reads, pulled as the importer goes). */
  const readPicked = async (path: string): Promise<{ name: string; chunks: AsyncIterable<Uint8Array> }> => {
    const name = basename(path);
    let info;
    try {
      info = await stat(path);
    } catch (error) {
      throw new CoreError('failed', `Cannot read ${name}: ${(error as Error).message}. Nothing was opened.`);
    }
    if (!info.isFile()) throw new CoreError('invalid-arguments', `${name} is not a file. Nothing was opened.`);
    if (info.size > IMPORT_LIMITS.fileBytes) throw new CoreError('invalid-arguments', tooLargeMessage(name, info.size));
    return { name, chunks: createReadStream(path, { highWaterMark: 1024 * 1024 }) };
  };

  return {
    traceQuery: async ({ source, ...query }) => hubOf(source).store.query(query),
    traceWindow: async ({ source, ...query }) => traceWindow(hubOf(source).store, query),
    traceFeed: async ({ lease, full }) => ctx.trace.feed(lease, full),
    traceEvent: async ({ seq, source }) => {
      const store = hubOf(source).store;
      const event = store.get(seq);
      if (!event) throw new CoreError('not-found', `No trace event #${seq}.`);
      return { event, payload: event.truncated ? store.payload(seq) : event.body };
    },
    snapshots: async ({ server, source }) => {
      const { snapshots } = hubOf(source);
      return (server ? [server] : snapshots.serverIds()).flatMap((id) => {
        const snapshot = snapshots.snapshot(id);
        return snapshot ? [snapshot] : [];
      });
    },
    traceSaveFile: async ({ format, source }) => {
      const picker = dialogs();
      // The source is checked (and the export fixed at this moment) before a dialog opens.
      const stream = exportStream(format, source);
      const path = await picker.save({ defaultName: stream.filename, filters: [SAVE_FILTERS[format]] });
      if (!path) return { saved: false };
      try {
        const bytes = await saveChunksToFile(path, stream.chunks);
        return { saved: true, path, bytes };
      } catch (error) {
        throw new CoreError('failed', `Could not save ${basename(path)}: ${(error as Error).message}. Nothing was written there.`);
      }
    },
    traceOpenFile: async ({ into }) => {
      const picker = dialogs();
      if (into === 'library') libraryOf(); // before a dialog asks for a file that has nowhere to go
      const path = await picker.open({ filters: TRACE_FILTERS });
      if (!path) return { opened: false, problems: [] };
      const { name, chunks } = await readPicked(path);
      if (into === 'library') {
        const { recording, problems } = await importRecording(name, chunks);
        return { opened: true, name, recording, events: recording.events, servers: recording.servers, problems };
      }
      const opened = await importStream(name, chunks);
      return { opened: true, name, ...opened };
    },
    bulk: { importStream, exportStream, importRecording },
    closeImports: () => imports.closeAll(),
  };
}

export interface TraceExportInput {
  hub: TraceHub;
  /** A trace opened read-only (a file, a recording): its own header is written back. Absent: the live trace. */
  opened?: Pick<OpenedTrace, 'app' | 'startedAt' | 'servers' | 'configs'>;
  /** The live servers' configurations (the live trace's header). */
  configs: ServerConfig[];
  /** Every known secret, for the exports' last net. */
  redactors: Redactor[];
  version: string;
}

/** A trace as JSONL or HAR text pieces, secrets scrubbed; the trace as it was when asked for (a live one grows meanwhile). */
export function exportTrace(format: 'jsonl' | 'har', input: TraceExportInput): TraceExportStream<Iterable<string>>;
export function exportTrace(format: TraceExportFormat, input: TraceExportInput): TraceExportStream;
export function exportTrace(format: TraceExportFormat, { hub, opened, configs, redactors, version }: TraceExportInput): TraceExportStream {
  const names: Record<string, string> = Object.fromEntries((opened?.servers ?? configs).map((s) => [s.id, s.name]));
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const app = { name: 'Switchboard', version };
  const eventCount = hub.store.size;
  const events = firstOf(hub.store.all(), eventCount);
  if (format === 'har') {
    // The same last net as the JSONL export (every server's secrets, wherever they travelled),
    // piece by piece: a piece is a whole entry, so no secret is split between two.
    const scrub = scrubber(redactors);
    return { filename: `switchboard-${stamp}.har`, mimeType: 'application/json', chunks: mapped(harChunks({ app, events, serverNames: names }), scrub) };
  }
  if (format === 'otlp') {
    // The same last net over every piece (a piece is a whole span or resource, so no secret is split).
    const scrub = scrubber(redactors);
    return { filename: `switchboard-${stamp}.otlp.json`, mimeType: 'application/json', chunks: otlpChunks({ app, events, serverNames: names, redactors }, scrub) };
  }
  const chunks = jsonlLines({
    app: opened?.app ?? app,
    startedAt: opened?.startedAt ?? hub.store.get(1)?.ts ?? Date.now(),
    servers: opened ? opened.configs : configs,
    events,
    eventCount,
    redactors,
  });
  return { filename: `switchboard-${stamp}.jsonl`, mimeType: 'application/x-ndjson', chunks };
}

export function* firstOf<T>(items: Iterable<T>, n: number): Generator<T> {
  if (n <= 0) return;
  let taken = 0;
  for (const item of items) {
    yield item;
    if (++taken >= n) return;
  }
}

/** OTLP/JSON pieces, the SDK loaded when the first is asked for; each scrubbed (a piece is a whole span or resource). */
async function* otlpChunks(input: Parameters<typeof import('../otlp/export').otlpJsonChunks>[0], scrub: (text: string) => string): AsyncGenerator<string> {
  const { otlpJsonChunks } = await loadOtlpExport();
  for (const chunk of otlpJsonChunks(input)) yield scrub(chunk);
}

function* mapped<T, U>(items: Iterable<T>, f: (item: T) => U): Generator<U> {
  for (const item of items) yield f(item);
}
