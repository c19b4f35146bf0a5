/**
 * Handlers for the trace: queries, single events with their whole payload, snapshots, and
 * export/import. Every one reads a `source`: the live trace, or a file opened read-only.
 */
import type { TraceEvent } from '../../../contract/trace';
import type { Handlers } from '../dispatcher';
import { CoreError } from '../errors';
import { harChunks } from '../trace/export-har';
import { jsonlLines, scrubber } from '../trace/export-jsonl';
import { TraceHub } from '../trace/hub';
import { NotATraceError, importJsonl, textChunks } from '../trace/import-jsonl';
import type { CoreContext } from './context';

type TraceHandlers = Pick<Handlers, 'traceQuery' | 'traceEvent' | 'snapshots' | 'traceExport' | 'traceImport' | 'traceSaveFile' | 'traceOpenFile'>;

/** An import's answer (the contract's `traceImport` result). */
export interface TraceImportResult {
  source: string;
  events: number;
  servers: { id: string; name: string }[];
  problems: { line: number; message: string }[];
}

/** An export as a stream of text pieces (the contract's `traceExport` joins them). */
export interface TraceExportStream {
  filename: string;
  mimeType: string;
  chunks: Iterable<string>;
}

/**
 * Bulk data outside the contract: browser mode's HTTP routes stream files in and out through
 * these, so a trace never travels as one WebSocket message.
 */
export interface TraceBulk {
  /** Reads a JSONL trace from chunks as they come; `CoreError('invalid-arguments')` when it is not a trace. */
  importStream(name: string, chunks: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>): Promise<TraceImportResult>;
  /** `CoreError('not-found')` for an unknown source. */
  exportStream(format: 'jsonl' | 'har', source?: string): TraceExportStream;
}

/** An imported trace is read-only: a small window of full events is enough (the rest is read back from its spill file). */
const IMPORT_WINDOW = 2_000;

export function traceHandlers(ctx: CoreContext): TraceHandlers & { closeImports(): void; bulk: TraceBulk } {
  const imports = ctx.sources;
  let nextImport = 1;

  const hubOf = (source = 'live'): TraceHub => {
    if (source === 'live') return ctx.trace;
    const imported = imports.get(source);
    if (!imported) throw new CoreError('not-found', source.startsWith('rec-') ? `Recording "${source.slice(4)}" is not open (open it from the library).` : `No imported trace "${source}" (it may have been closed).`);
    return imported.hub;
  };

  const exportStream = (format: 'jsonl' | 'har', source = 'live'): TraceExportStream => {
    const hub = hubOf(source);
    const imported = imports.get(source);
    const configs = ctx.connections.all().map((c) => c.config);
    const names: Record<string, string> = Object.fromEntries((imported?.servers ?? configs).map((s) => [s.id, s.name]));
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const app = { name: 'Switchboard', version: ctx.version };
    // A live trace grows while it streams out: the export is the trace as it was when asked for.
    const eventCount = hub.store.size;
    const events = firstOf(hub.store.all(), eventCount);
    const redactors = ctx.connections.all().map((c) => c.redactor);
    if (format === 'har') {
      // The same last net as the JSONL export (every server's secrets, wherever they travelled),
      // piece by piece: a piece is a whole entry, so no secret is split between two.
      const scrub = scrubber(redactors);
      return { filename: `switchboard-${stamp}.har`, mimeType: 'application/json', chunks: mapped(harChunks({ app, events, serverNames: names }), scrub) };
    }
    const chunks = jsonlLines({
      app: imported?.app ?? app,
      startedAt: imported?.startedAt ?? hub.store.get(1)?.ts ?? Date.now(),
      servers: imported ? imported.configs : configs,
      events,
      eventCount,
      redactors,
    });
    return { filename: `switchboard-${stamp}.jsonl`, mimeType: 'application/x-ndjson', chunks };
  };

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

  return {
    traceQuery: async ({ source, ...query }) => hubOf(source).store.query(query),
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
    traceExport: async ({ format, source }) => {
      const { filename, mimeType, chunks } = exportStream(format, source);
      return { filename, mimeType, text: [...chunks].join('') };
    },
    traceImport: async ({ name, text }) => importStream(name, textChunks(text)),
    // GROUNDWORK STUB: the bulk helper builds these (Electron's main-side dialogs, streamed to and from disk).
    traceSaveFile: async () => {
      throw new CoreError('failed', 'Saving to a file from main is not built yet.');
    },
    traceOpenFile: async () => {
      throw new CoreError('failed', 'Opening a file from main is not built yet.');
    },
    bulk: { importStream, exportStream },
    closeImports: () => imports.closeAll(),
  };
}

function* firstOf<T>(items: Iterable<T>, n: number): Generator<T> {
  if (n <= 0) return;
  let taken = 0;
  for (const item of items) {
    yield item;
    if (++taken >= n) return;
  }
}

function* mapped<T, U>(items: Iterable<T>, f: (item: T) => U): Generator<U> {
  for (const item of items) yield f(item);
}
