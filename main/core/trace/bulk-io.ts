/**
 * Bulk trace data as streams, outside the contract (#13 item 3): the pieces of an export written
 * to a sink with backpressure (an HTTP response, a file, stdout) and a file saved through a
 * temporary beside it, so a trace of hundreds of megabytes is never one string and a failed
 * save never leaves half a file under the name the person chose.
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { finished } from 'node:stream/promises';
import type { Writable } from 'node:stream';
import { IMPORT_LIMITS } from './import-jsonl';

/** Export pieces are gathered to about this size before a write. */
export const WRITE_BYTES = 64 * 1024;

/** The part of a writable stream `writeChunks` uses (node's `Writable`, an `http.ServerResponse`, `process.stdout`). */
export type ChunkSink = Pick<Writable, 'write' | 'once' | 'off' | 'destroyed'> & { readonly writableFinished?: boolean };

export interface WriteOutcome {
  /** UTF-8 bytes handed to the sink. */
  bytes: number;
  /** The sink closed (the client went away, a pipe's reader ended) before everything was written. */
  closed: boolean;
}

/**
 * Writes text pieces to `sink` in batches of about `batchBytes`, waiting for `drain` whenever
 * the sink says it is full (so memory holds one batch, not the export). Stops when the sink
 * closes; rejects on the sink's `error`. Does not end the sink.
 */
export async function writeChunks(chunks: Iterable<string> | AsyncIterable<string>, sink: ChunkSink, batchBytes = WRITE_BYTES): Promise<WriteOutcome> {
  let closed = sink.destroyed;
  let failure: Error | undefined;
  let wake: (() => void) | undefined;
  const onClose = () => {
    closed = true;
    wake?.();
  };
  const onError = (error: Error) => {
    failure = error;
    closed = true;
    wake?.();
  };
  const onDrain = () => wake?.();
  sink.once('close', onClose);
  sink.once('error', onError);
  let bytes = 0;
  const flush = async (text: string) => {
    if (closed || text === '') return;
    bytes += Buffer.byteLength(text);
    if (sink.write(text)) return;
    await new Promise<void>((resume) => {
      wake = resume;
      sink.once('drain', onDrain);
    });
    wake = undefined;
    sink.off('drain', onDrain);
  };
  try {
    let pending: string[] = [];
    let pendingLength = 0;
    for await (const chunk of chunks) {
      if (closed) break;
      pending.push(chunk);
      pendingLength += chunk.length;
      if (pendingLength < batchBytes) continue;
      const text = pending.join('');
      pending = [];
      pendingLength = 0;
      await flush(text);
    }
    await flush(pending.join(''));
  } finally {
    sink.off('close', onClose);
    sink.off('error', onError);
  }
  if (failure) throw failure;
  return { bytes, closed };
}

/**
 * Streams `chunks` into the file at `path`: written to a temporary file in the same folder
 * (owner-only), renamed over `path` once complete. On any failure the temporary is removed and
 * whatever was at `path` before is untouched. Answers the bytes written.
 */
export async function saveChunksToFile(path: string, chunks: Iterable<string> | AsyncIterable<string>): Promise<number> {
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(4).toString('hex')}.partial`);
  const out = createWriteStream(temp, { flags: 'wx', mode: 0o600 });
  try {
    const { bytes, closed } = await writeChunks(chunks, out);
    if (closed) throw new Error('the file was closed while it was being written');
    out.end();
    await finished(out);
    await rename(temp, path);
    return bytes;
  } catch (error) {
    out.destroy();
    await rm(temp, { force: true }).catch(() => undefined);
    throw error;
  }
}

/** What a person reads when a trace file is over the import limit (the routes, the open dialog). */
export function tooLargeMessage(name: string, bytes: number): string {
  return `${name} is ${mib(bytes)}; Switchboard opens traces of up to ${mib(IMPORT_LIMITS.fileBytes)}. Split it (for example \`split -l 1000000 ${name}\`, then put the first line, the header, on top of each part). Nothing was opened.`;
}

export function mib(bytes: number): string {
  return bytes >= 1024 ** 3 ? `${(bytes / 1024 ** 3).toFixed(1)} GiB` : `${Math.round(bytes / 1024 ** 2)} MiB`;
}
