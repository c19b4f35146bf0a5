/**
 * Must show (#13): a recording of 1,000,000 events (written directly with the recording writer)
 * opens and pages — first page, a middle page by cursor, the last page, a filter — in a fresh
 * process whose memory stays bounded: opening reads the fixed-width index (40 bytes an event)
 * into the store's columns (exact-size typed arrays, 39 bytes an event: 37 MiB at 1,000,000),
 * never the event lines. Bound: 100 MB of RSS growth = the columns, plus the 4 MiB read chunk,
 * the interned strings and the heap's slack (about 2.5 times the columns); reading the lines
 * into memory would take well over a gigabyte (273 MiB of text, an event object several hundred
 * bytes in the heap). RSS and the time to open are printed (no timed assertion).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../contract/trace';
import { EVENTS_FILE, RECORDING_FORMAT, RECORDING_FORMAT_VERSION, writeMeta } from '../../main/core/recordings/format';
import { RecordingWriter } from '../../main/core/recordings/writer';
import { TSX_LOADER_URL } from '../fixtures/spawn-listening';

const CHILD = join(dirname(fileURLToPath(import.meta.url)), 'support/recording-open-child.ts');
const N = 1_000_000;
const MB = 1024 * 1024;
const RSS_BOUND = 100 * MB;

const root = mkdtempSync(join(tmpdir(), 'sb-rec-million-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Event i of the generated session: 8 servers, requests and answers (every 50th an error), a big payload first. */
function event(i: number): TraceEvent {
  const server = `srv-${i % 8}`;
  const request = i % 2 === 0;
  const id = i >> 1;
  const method = id % 3 === 0 ? 'tools/call' : id % 3 === 1 ? 'resources/read' : 'tools/list';
  const error = !request && id % 25 === 0;
  return {
    seq: i + 1,
    ts: 1_780_000_000_000 + i,
    server,
    channel: 'stdio',
    kind: request ? 'jsonrpc-out' : 'jsonrpc-in',
    dir: request ? 'out' : 'in',
    rpc: { id, method, kind: request ? 'request' : error ? 'error' : 'result' },
    body: request
      ? { jsonrpc: '2.0', id, method, params: { name: 'echo', arguments: { text: `message ${i}` } } }
      : error
        ? { jsonrpc: '2.0', id, error: { code: -32000, message: `failure ${i}` } }
        : { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: `echo: message ${i - 1}` }] } },
    bytes: 120,
  };
}

describe('a recording of 1,000,000 events', () => {
  it('opens without parsing its lines and pages through it with memory bounded', async () => {
    const id = '20261201-000000-000-beef';
    const dir = join(root, id);
    const started = performance.now();
    const writer = new RecordingWriter(dir, { app: { name: 'Switchboard', version: 'gen' }, startedAt: 1_780_000_000_000, servers: [], timers: false });
    const big = { text: 'y'.repeat(300_000) };
    const blob = writer.writeBlob(JSON.stringify(big));
    for (let i = 0; i < N; i++) {
      const e = event(i);
      if (i === 0) {
        e.body = 'y'.repeat(1000);
        e.truncated = true;
      }
      writer.append(e, i === 0 ? blob : undefined);
    }
    writer.close();
    const stats = writer.stats;
    writeMeta(dir, {
      format: RECORDING_FORMAT,
      version: RECORDING_FORMAT_VERSION,
      id,
      name: 'generated',
      tags: [],
      kind: 'import',
      app: { name: 'Switchboard', version: 'gen' },
      startedAt: 1_780_000_000_000,
      endedAt: stats.lastTs,
      state: 'clean',
      events: stats.events,
      errors: stats.errors,
      bytes: stats.bytes,
      servers: Array.from({ length: 8 }, (_, k) => ({ id: `srv-${k}`, name: `srv-${k}` })),
      notes: [],
    });
    const generatedMs = performance.now() - started;
    const fileBytes = statSync(join(dir, EVENTS_FILE)).size;

    const out = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, ['--expose-gc', '--import', TSX_LOADER_URL, CHILD, root, id], { maxBuffer: 64 * MB, timeout: 120_000 }, (error, stdout, stderr) =>
        error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout),
      ),
    );
    const r = JSON.parse(out) as {
      error?: string;
      size: number;
      openMs: number;
      rssBefore: number;
      rssAfter: number;
      heapBefore: number;
      heapAfter: number;
      indexBytes: number;
      first: number[];
      firstBody: unknown;
      payload: unknown;
      middle: number[];
      last: number[];
      filtered: { seq: number; server: string; method?: string; kind?: string }[];
      summary: { events: number; errors: number };
    };
    expect(r.error).toBeUndefined();
    console.log(
      `1,000,000 events: generated in ${(generatedMs / 1000).toFixed(1)} s (${(fileBytes / MB).toFixed(0)} MiB of events.jsonl); ` +
        `opened and first page in ${r.openMs.toFixed(0)} ms; RSS ${(r.rssBefore / MB).toFixed(0)} MB before, ${(r.rssAfter / MB).toFixed(0)} MB after ` +
        `(+${((r.rssAfter - r.rssBefore) / MB).toFixed(0)} MB; bound ${RSS_BOUND / MB} MB); heap +${((r.heapAfter - r.heapBefore) / MB).toFixed(0)} MB; index columns ${(r.indexBytes / MB).toFixed(0)} MB`,
    );
    expect(r.summary.events).toBe(N);
    expect(r.summary.errors).toBe(stats.errors);
    expect(r.size).toBe(N);
    expect(r.first).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    expect(r.payload).toEqual(big);
    expect(r.middle).toEqual(Array.from({ length: 200 }, (_, i) => N / 2 + i + 1));
    expect(r.last).toEqual(Array.from({ length: 200 }, (_, i) => N - i));
    expect(r.filtered).toHaveLength(200);
    for (const e of r.filtered) {
      expect(e).toMatchObject({ server: 'srv-3', method: 'tools/call', kind: 'error' });
      expect(e.seq).toBeGreaterThan(250_000);
    }
    // The expected events of the filter, from the generator itself.
    const expected: number[] = [];
    for (let i = 250_000; expected.length < 200; i++) {
      const e = event(i);
      if (e.server === 'srv-3' && e.rpc!.method === 'tools/call' && e.rpc!.kind === 'error') expected.push(i + 1);
    }
    expect(r.filtered.map((e) => e.seq)).toEqual(expected);
    expect(r.rssAfter - r.rssBefore).toBeLessThan(RSS_BOUND);
  }, 180_000);
});
