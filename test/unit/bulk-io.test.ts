/**
 * main/core/trace/bulk-io.ts: export pieces written with backpressure (memory holds a batch, not
 * the export), a sink that closes stops the export, and a saved file appears whole or not at all.
 * Real streams and real files in a temp folder.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { WRITE_BYTES, saveChunksToFile, tooLargeMessage, writeChunks } from '../../main/core/trace/bulk-io';

const dir = mkdtempSync(join(tmpdir(), 'sb-bulk-io-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A sink that takes one write every macrotask: slower than any generator. */
function slowSink(highWaterMark = 16 * 1024) {
  const received: string[] = [];
  let maxBuffered = 0;
  const sink = new Writable({
    highWaterMark,
    decodeStrings: false,
    write(chunk: string, _encoding, done) {
      received.push(chunk);
      setImmediate(done);
    },
  });
  const write = sink.write.bind(sink);
  sink.write = ((chunk: string) => {
    const ok = write(chunk);
    maxBuffered = Math.max(maxBuffered, sink.writableLength);
    return ok;
  }) as typeof sink.write;
  return { sink, received, maxBuffered: () => maxBuffered };
}

function* lines(n: number, pulled: { count: number }): Generator<string> {
  for (let i = 0; i < n; i++) {
    pulled.count++;
    yield `{"seq":${i + 1},"pad":"${'x'.repeat(200)}"}\n`;
  }
}

describe('writeChunks', () => {
  it('writes every piece in order, in batches, never buffering more than a batch past the sink’s mark', async () => {
    const { sink, received, maxBuffered } = slowSink();
    const pulled = { count: 0 };
    const n = 20_000; // ~4.3 MB
    const outcome = await writeChunks(lines(n, pulled), sink);
    const text = received.join('');
    expect(outcome.closed).toBe(false);
    expect(outcome.bytes).toBe(Buffer.byteLength(text));
    expect(text.split('\n').length - 1).toBe(n);
    expect(text.startsWith('{"seq":1,')).toBe(true);
    expect(text.endsWith(`{"seq":${n},"pad":"${'x'.repeat(200)}"}\n`)).toBe(true);
    // Batches, not one write per line, and not one write for everything.
    expect(received.length).toBeGreaterThan(10);
    expect(received.length).toBeLessThan(n / 100);
    expect(maxBuffered()).toBeLessThan(WRITE_BYTES + 16 * 1024 + 1024);
  });

  it('stops pulling pieces once the sink closes (a client that went away), and says so', async () => {
    const { sink, received } = slowSink();
    const pulled = { count: 0 };
    let writes = 0;
    const original = sink.write.bind(sink);
    sink.write = ((chunk: string) => {
      if (++writes === 3) setImmediate(() => sink.destroy());
      return original(chunk);
    }) as typeof sink.write;
    const outcome = await writeChunks(lines(1_000_000, pulled), sink);
    expect(outcome.closed).toBe(true);
    expect(received.length).toBeGreaterThan(0);
    // A million pieces exist; only a few batches' worth were generated.
    expect(pulled.count).toBeLessThan(10_000);
  });

  it('rejects with the sink’s error', async () => {
    const sink = new Writable({
      write(_chunk, _encoding, done) {
        done(new Error('disk full'));
      },
    });
    await expect(writeChunks(lines(10_000, { count: 0 }), sink)).rejects.toThrow('disk full');
  });
});

describe('saveChunksToFile', () => {
  it('writes the file whole, owner-only, with nothing left beside it', async () => {
    const path = join(dir, 'whole.jsonl');
    const bytes = await saveChunksToFile(path, lines(5_000, { count: 0 }));
    expect(readFileSync(path, 'utf8').split('\n').length - 1).toBe(5_000);
    expect(bytes).toBe(statSync(path).size);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir).filter((f) => f.includes('partial'))).toEqual([]);
  });

  it('a failure part-way leaves what was at the path untouched and no temporary file', async () => {
    const path = join(dir, 'kept.jsonl');
    writeFileSync(path, 'the earlier export\n');
    function* failing(): Generator<string> {
      yield* lines(2_000, { count: 0 });
      throw new Error('the trace could not be read');
    }
    await expect(saveChunksToFile(path, failing())).rejects.toThrow('the trace could not be read');
    expect(readFileSync(path, 'utf8')).toBe('the earlier export\n');
    expect(readdirSync(dir).filter((f) => f.includes('partial'))).toEqual([]);
  });

  it('a folder that does not exist is an error, not a crash', async () => {
    await expect(saveChunksToFile(join(dir, 'missing', 'x.jsonl'), lines(10, { count: 0 }))).rejects.toThrow(/ENOENT/);
  });
});

it('names the size limit and how to split a file', () => {
  expect(tooLargeMessage('huge.jsonl', 3 * 1024 ** 3)).toMatch(/^huge\.jsonl is 3\.0 GiB; Switchboard opens traces of up to 1\.0 GiB\. Split it .*Nothing was opened\.$/);
});
