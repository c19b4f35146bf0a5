/**
 * Handlers for the trace: queries, single events with their whole payload, snapshots, and
 * export/import. Every one reads a `source`: the live trace, or a file opened read-only.
 */
import type { TraceEvent } from '../../../contract/trace';
import { CoreError, type Handlers } from '../dispatcher';
import { buildHar } from '../trace/export-har';
import { jsonlLines, scrubber } from '../trace/export-jsonl';
import { TraceHub } from '../trace/hub';
import { parseJsonlTrace } from '../trace/import-jsonl';
import type { CoreContext } from './context';

type TraceHandlers = Pick<Handlers, 'traceQuery' | 'traceEvent' | 'snapshots' | 'traceExport' | 'traceImport'>;

interface ImportedTrace {
  hub: TraceHub;
  name: string;
  app: { name: string; version: string };
  startedAt: number;
  servers: { id: string; name: string }[];
}

export function traceHandlers(ctx: CoreContext): TraceHandlers & { closeImports(): void } {
  const imports = new Map<string, ImportedTrace>();
  let nextImport = 1;

  const hubOf = (source = 'live'): TraceHub => {
    if (source === 'live') return ctx.trace;
    const imported = imports.get(source);
    if (!imported) throw new CoreError('not-found', `No imported trace "${source}" (it may have been closed).`);
    return imported.hub;
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
    traceExport: async ({ format, source = 'live' }) => {
      const hub = hubOf(source);
      const imported = imports.get(source);
      const configs = ctx.connections.all().map((c) => c.config);
      const names: Record<string, string> = Object.fromEntries((imported?.servers ?? configs).map((s) => [s.id, s.name]));
      const stamp = new Date().toISOString().replace(/[:.]/g, '-');
      const app = { name: 'Switchboard', version: ctx.version };
      if (format === 'har') {
        const har = buildHar({ app, events: hub.store.all(), serverNames: names });
        // The same last net as the JSONL export: every server's secrets, wherever they travelled.
        const scrub = scrubber(ctx.connections.all().map((c) => c.redactor));
        return { filename: `switchboard-${stamp}.har`, mimeType: 'application/json', text: scrub(JSON.stringify(har, null, 2)) };
      }
      const text = [
        ...jsonlLines({
          app: imported?.app ?? app,
          startedAt: imported?.startedAt ?? hub.store.get(1)?.ts ?? Date.now(),
          servers: imported ? [] : configs,
          events: hub.store.all(),
          eventCount: hub.store.size,
          redactors: ctx.connections.all().map((c) => c.redactor),
        }),
      ].join('');
      return { filename: `switchboard-${stamp}.jsonl`, mimeType: 'application/x-ndjson', text };
    },
    traceImport: async ({ name, text }) => {
      const hub = new TraceHub(undefined);
      let parsed;
      try {
        parsed = await parseJsonlTrace(text.split('\n'), name, (event: TraceEvent) => hub.store.append({ ...event }));
      } catch (error) {
        hub.close();
        throw new CoreError('invalid-arguments', (error as Error).message);
      }
      const source = `import-${nextImport++}`;
      const servers = parsed.header.servers.map((s) => ({ id: s.id, name: s.name }));
      imports.set(source, { hub, name, app: parsed.header.app, startedAt: Date.parse(parsed.header.startedAt), servers });
      return { source, events: hub.store.size, servers, problems: parsed.problems };
    },
    closeImports: () => {
      for (const imported of imports.values()) imported.hub.close();
      imports.clear();
    },
  };
}
