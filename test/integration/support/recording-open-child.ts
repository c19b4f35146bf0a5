/**
 * Opens a recording in a fresh process and pages through it, printing its memory before and
 * after (test/integration/recording-million.test.ts). One JSON line on stdout.
 *
 *   node --expose-gc --import tsx recording-open-child.ts LIBRARY_DIR ID
 */
import { RecordingLibrary } from '../../../main/core/recordings/library';

const [dir, id] = process.argv.slice(2);
const gc = (globalThis as { gc?: () => void }).gc;

async function main(): Promise<void> {
  const library = new RecordingLibrary({ dir: dir! });
  const summary = library.get(id!);
  gc?.();
  const before = process.memoryUsage();
  const started = performance.now();
  const opened = await library.open(id!);
  const store = opened.hub.store;
  const first = store.query({ limit: 200 });
  const openMs = performance.now() - started;
  const middle = store.query({ cursor: Math.floor(store.size / 2), limit: 200 });
  const last = store.query({ order: 'desc', limit: 200 });
  const filtered = store.query({ methods: ['tools/call'], errorsOnly: true, servers: ['srv-3'], cursor: 250_000, limit: 200 });
  const payload = store.payload(first.events[0]!.seq);
  gc?.();
  const after = process.memoryUsage();
  opened.hub.close();
  process.stdout.write(
    JSON.stringify({
      summary,
      size: store.size,
      openMs,
      rssBefore: before.rss,
      rssAfter: after.rss,
      heapBefore: before.heapUsed,
      heapAfter: after.heapUsed,
      indexBytes: store.indexBytes(),
      first: first.events.map((e) => e.seq),
      firstBody: first.events[0]!.body,
      payload,
      middle: middle.events.map((e) => e.seq),
      last: last.events.map((e) => e.seq),
      filtered: filtered.events.map((e) => ({ seq: e.seq, server: e.server, method: e.rpc?.method, kind: e.rpc?.kind })),
    }) + '\n',
  );
}

main().catch((error: unknown) => {
  process.stdout.write(JSON.stringify({ error: error instanceof Error ? error.stack : String(error) }) + '\n');
  process.exit(1);
});
