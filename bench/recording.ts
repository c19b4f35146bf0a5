/**
 * Recording workload (#13): what durable recording costs the live trace, and what the index buys
 * when a recording is opened again. Run on its own:
 *
 *   node --expose-gc --import tsx bench/recording.ts        (BENCH_RECORDING_EVENTS, default 200000; BENCH_RECORDING_ROUNDS, default 3)
 *
 * append   N realistic events into a TraceStore, in batches of 10,000 with a turn of the event
 *          loop between them (as a flood arrives), then closed (everything serialized and
 *          written): memory-only (today's store, spill file past the window) against durable (every
 *          event written to a recording, fsync every second). Sides alternate (ABBA); the ratio is
 *          the median of the per-round ratios durable / memory.
 * open     the durable side's recording opened from its index (first page read) against the same
 *          file read as a JSONL trace (importJsonl into a store: what opening without an index costs).
 * Prints one line per measurement and `recording_append_ratio=<x>` and `recording_open_ratio=<x>` last.
 */
import { createReadStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TraceEventInput } from '../contract/trace';
import { EVENTS_FILE, INDEX_FILE, STRINGS_FILE } from '../main/core/recordings/format';
import { RecordingLibrary } from '../main/core/recordings/library';
import { importJsonl } from '../main/core/trace/import-jsonl';
import { TraceStore } from '../main/core/trace/store';

const N = Number(process.env['BENCH_RECORDING_EVENTS'] ?? 200_000);
const ROUNDS = Math.max(1, Number(process.env['BENCH_RECORDING_ROUNDS'] ?? 3));
const BATCH = 10_000;
const gc = (globalThis as { gc?: () => void }).gc;
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

function event(i: number): TraceEventInput {
  const request = i % 2 === 0;
  const id = i >> 1;
  return {
    server: `srv-${i % 4}`,
    channel: 'post-sse',
    kind: request ? 'jsonrpc-out' : 'sse-event',
    dir: request ? 'out' : 'in',
    exchange: `x${id}`,
    session: 'session-1',
    rpc: { id, method: id % 2 ? 'tools/call' : 'notifications/message', kind: request ? 'request' : 'result' },
    body: request ? { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text: `message ${i}` } } } : { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: `echo: message ${i}` }] } },
    bytes: 130,
  };
}

async function fill(store: TraceStore): Promise<void> {
  for (let i = 0; i < N; i++) {
    store.append(event(i));
    if ((i + 1) % BATCH === 0) await turn();
  }
}

async function memorySide(): Promise<number> {
  gc?.();
  const store = new TraceStore();
  const started = performance.now();
  await fill(store);
  store.close();
  return performance.now() - started;
}

async function durableSide(root: string): Promise<{ ms: number; library: RecordingLibrary; id: string }> {
  gc?.();
  const library = new RecordingLibrary({ dir: root, retentionIntervalMs: 0 });
  const live = library.startLive({ kind: 'app', app: { name: 'bench', version: '0' }, servers: () => [], redact: () => (t) => t });
  const store = new TraceStore(live.storeOptions);
  const started = performance.now();
  await fill(store);
  store.close();
  live.close();
  return { ms: performance.now() - started, library, id: live.id };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'sb-bench-rec-'));
  try {
    const ratios: number[] = [];
    let last: { library: RecordingLibrary; id: string } | undefined;
    for (let round = 0; round < ROUNDS; round++) {
      let memory: number;
      let durable: Awaited<ReturnType<typeof durableSide>>;
      if (round % 2 === 0) {
        memory = await memorySide();
        durable = await durableSide(root);
      } else {
        durable = await durableSide(root);
        memory = await memorySide();
      }
      ratios.push(durable.ms / memory);
      if (last) last.library.delete(last.id);
      last = durable;
      console.log(`append round ${round + 1}: memory ${memory.toFixed(0)} ms, durable ${durable.ms.toFixed(0)} ms (${((N / durable.ms) * 1000).toFixed(0)} events/s), ratio ${(durable.ms / memory).toFixed(2)}`);
    }
    const dir = join(last!.library.dir, last!.id);
    const size = (f: string) => statSync(join(dir, f)).size;
    console.log(`on disk: ${(size(EVENTS_FILE) / N).toFixed(0)} bytes/event of events.jsonl, ${(size(INDEX_FILE) / N).toFixed(0)} of index, ${(size(STRINGS_FILE) / N).toFixed(1)} of strings`);

    gc?.();
    let started = performance.now();
    const opened = await last!.library.open(last!.id);
    const page = opened.hub.store.query({ limit: 200 });
    const indexMs = performance.now() - started;
    opened.hub.close();
    if (page.events.length !== 200) throw new Error('first page missing');

    gc?.();
    started = performance.now();
    const scanned = new TraceStore({ windowSize: 2_000 });
    await importJsonl(createReadStream(join(dir, EVENTS_FILE)), { name: 'bench', onEvent: (e) => scanned.append({ ...e }) });
    const scanMs = performance.now() - started;
    const scannedSize = scanned.size;
    scanned.close();
    if (scannedSize !== N) throw new Error(`scan read ${scannedSize}`);
    console.log(`open ${N} events: from the index ${indexMs.toFixed(0)} ms, as a JSONL trace (parse every line) ${scanMs.toFixed(0)} ms`);
    console.log(`recording_append_ratio=${median(ratios).toFixed(2)}`);
    console.log(`recording_open_ratio=${(indexMs / scanMs).toFixed(3)}`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

void main();
