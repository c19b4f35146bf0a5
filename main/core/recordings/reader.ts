/**
 * Reads a recording without reading it whole: the index (fixed-width records) into the trace
 * store's columns, the interned strings, the header line; event lines one at a time, on demand.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { ServerConfig } from '../../../contract';
import { LIMITS, boundDepth, depthOf } from '../../../contract/bounded-json';
import type { TraceEvent } from '../../../contract/trace';
import { topLevelValue } from '../trace/import-jsonl';
import { EVENT_DEPTH, type BlobRef, type IndexColumns, type IndexRow, type TraceBacking, type TraceSink } from '../trace/store';
import { BLOBS_FILE, EVENTS_FILE, HEADER_MAX_BYTES, INDEX_FILE, INDEX_RECORD, STRINGS_FILE, STRINGS_MAX_BYTES, TABLES, decodeRow, emptyRow, type TableLetter } from './format';

/** Index records read per chunk at open (memory: this many bytes at a time, not the whole index). */
const INDEX_CHUNK = 4 * 1024 * 1024 - ((4 * 1024 * 1024) % INDEX_RECORD);

/** One event line as written by the writer: parsed, its payload's place taken out, nesting bounded as an import bounds it. */
export function parseRecordedLine(text: string): { event: TraceEvent; blob?: BlobRef } {
  const value = JSON.parse(text) as unknown;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('not an event');
  let event = value as TraceEvent & { payloadRef?: unknown };
  let blob: BlobRef | undefined;
  const ref = event.payloadRef as Partial<BlobRef> | undefined;
  if (ref !== undefined) {
    delete event.payloadRef;
    if (Number.isSafeInteger(ref.offset) && Number.isSafeInteger(ref.length) && ref.offset! >= 0 && ref.length! >= 0) blob = { offset: ref.offset!, length: ref.length! };
  }
  if (event.body !== undefined && depthOf(event.body, LIMITS.carriedDepth) > LIMITS.carriedDepth) {
    const raw = topLevelValue(text, 'body');
    event = { ...event, body: boundDepth(event.body, LIMITS.carriedDepth), ...(raw !== undefined ? { raw } : {}) };
  }
  if (depthOf(event, EVENT_DEPTH) > EVENT_DEPTH) event = boundDepth(event, EVENT_DEPTH);
  return { event, blob };
}

export interface RecordingHeader {
  app: { name: string; version: string };
  startedAt: number;
  configs: ServerConfig[];
  /** Bytes of the header line, its newline included (where the first event starts). */
  length: number;
}

/** Reads the header line (bounded); configs that do not validate are left out. */
export function readHeader(fd: number): RecordingHeader {
  const chunk = Buffer.alloc(64 * 1024);
  const parts: Buffer[] = [];
  let position = 0;
  let end = -1;
  while (position < HEADER_MAX_BYTES) {
    const read = readSync(fd, chunk, 0, chunk.length, position);
    if (read === 0) break;
    const nl = chunk.subarray(0, read).indexOf(10);
    if (nl >= 0) {
      parts.push(Buffer.from(chunk.subarray(0, nl)));
      end = position + nl + 1;
      break;
    }
    parts.push(Buffer.from(chunk.subarray(0, read)));
    position += read;
  }
  if (end < 0) throw new Error(`the header line of ${EVENTS_FILE} is missing or longer than ${HEADER_MAX_BYTES} bytes`);
  const header = JSON.parse(Buffer.concat(parts).toString('utf8')) as { app?: { name?: unknown; version?: unknown }; startedAt?: unknown; servers?: unknown };
  const configs = Array.isArray(header.servers) ? header.servers.flatMap((s) => {
    const parsed = ServerConfig.safeParse(s);
    return parsed.success ? [parsed.data] : [];
  }) : [];
  const startedAt = typeof header.startedAt === 'string' ? Date.parse(header.startedAt) : NaN;
  return {
    app: { name: String(header.app?.name ?? 'Switchboard'), version: String(header.app?.version ?? '') },
    startedAt: Number.isFinite(startedAt) ? startedAt : 0,
    configs,
    length: end,
  };
}

export type StringTables = TraceBacking['strings'];

/** The interned strings (ids in order per table); a torn or damaged last line ends the read. */
export function readStrings(fd: number): { tables: StringTables; validBytes: number } {
  const size = Math.min(fstatSync(fd).size, STRINGS_MAX_BYTES);
  const buffer = Buffer.alloc(size);
  let read = 0;
  while (read < size) {
    const n = readSync(fd, buffer, read, size - read, read);
    if (n === 0) break;
    read += n;
  }
  const tables: StringTables = { servers: [], methods: [], exchanges: [], sessions: [] };
  const end = buffer.lastIndexOf(10, read - 1) + 1;
  // Fast path: every whole line at once, as one JSON array (a JSON line holds no raw line break).
  if (end > 0) {
    let entries: unknown;
    try {
      entries = JSON.parse(`[${buffer.toString('utf8', 0, end - 1).replaceAll('\n', ',')}]`);
    } catch {
      entries = undefined;
    }
    if (Array.isArray(entries) && entries.every(isEntry)) {
      for (const entry of entries as [TableLetter, string][]) tables[TABLES[entry[0]]].push(entry[1]);
      return { tables, validBytes: end };
    }
  }
  // A damaged line somewhere: whole lines up to it.
  let start = 0;
  while (start < read) {
    const nl = buffer.indexOf(10, start);
    if (nl < 0 || nl >= read) break;
    let entry: unknown;
    try {
      entry = JSON.parse(buffer.toString('utf8', start, nl));
    } catch {
      break;
    }
    if (!isEntry(entry)) break;
    tables[TABLES[entry[0]]].push(entry[1]);
    start = nl + 1;
  }
  return { tables, validBytes: start };
}

function isEntry(entry: unknown): entry is [TableLetter, string] {
  return Array.isArray(entry) && entry.length === 2 && typeof entry[1] === 'string' && typeof entry[0] === 'string' && Object.hasOwn(TABLES, entry[0]);
}

/** A recording's files opened read-only, as the trace store reads them. */
export class RecordingFiles implements TraceSink {
  readonly eventsFd: number;
  private readonly blobsFd: number | undefined;
  private readonly eventsSize: number;
  private readonly blobsSize: number;
  private closed = false;

  constructor(readonly dir: string) {
    this.eventsFd = openSync(join(dir, EVENTS_FILE), 'r');
    this.eventsSize = fstatSync(this.eventsFd).size;
    let blobs: number | undefined;
    try {
      blobs = openSync(join(dir, BLOBS_FILE), 'r');
    } catch {
      blobs = undefined;
    }
    this.blobsFd = blobs;
    this.blobsSize = blobs === undefined ? 0 : fstatSync(blobs).size;
  }

  bytes(): number {
    return this.eventsSize;
  }

  readEvent(offset: number, length: number): { event: TraceEvent; blob?: BlobRef } {
    if (offset < 0 || offset + length > this.eventsSize) throw new Error(`the index points past the end of ${EVENTS_FILE}`);
    const buffer = Buffer.alloc(length);
    const read = readSync(this.eventsFd, buffer, 0, length, offset);
    if (read !== length) throw new Error(`${length - read} bytes missing at ${offset}`);
    return parseRecordedLine(buffer.toString('utf8'));
  }

  readBlob(blob: BlobRef): string {
    if (this.blobsFd === undefined || blob.offset + blob.length > this.blobsSize) throw new Error('no such payload in the recording');
    const buffer = Buffer.alloc(blob.length);
    readSync(this.blobsFd, buffer, 0, blob.length, blob.offset);
    return buffer.toString('utf8');
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.eventsFd);
    if (this.blobsFd !== undefined) closeSync(this.blobsFd);
  }
}

/** Calls `row` for every whole record of an index file, reading it in chunks; answers how many. */
export function readIndex(fd: number, row: (r: IndexRow, i: number) => void, limit = Number.POSITIVE_INFINITY): number {
  const size = fstatSync(fd).size;
  const records = Math.min(Math.floor(size / INDEX_RECORD), limit);
  const buffer = Buffer.alloc(Math.min(INDEX_CHUNK, Math.max(INDEX_RECORD, records * INDEX_RECORD)));
  const r = emptyRow();
  let done = 0;
  while (done < records) {
    const want = Math.min(buffer.length, (records - done) * INDEX_RECORD);
    let got = 0;
    while (got < want) {
      const n = readSync(fd, buffer, got, want - got, done * INDEX_RECORD + got);
      if (n === 0) break;
      got += n;
    }
    const whole = Math.floor(got / INDEX_RECORD);
    for (let k = 0; k < whole; k++) {
      decodeRow(buffer, k * INDEX_RECORD, r);
      row(r, done + k);
    }
    done += whole;
    if (whole * INDEX_RECORD < want) break;
  }
  return done;
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** The first `count` records of an index file as the store's columns (exact-size arrays), read in chunks through typed arrays. */
export function readIndexColumns(fd: number, count: number): IndexColumns {
  const c: IndexColumns = {
    offset: new Float64Array(count),
    length: new Uint32Array(count),
    ts: new Float64Array(count),
    server: new Uint16Array(count),
    channel: new Uint8Array(count),
    kind: new Uint8Array(count),
    method: new Uint32Array(count),
    status: new Uint16Array(count),
    flags: new Uint8Array(count),
    exchange: new Uint32Array(count),
    session: new Uint32Array(count),
  };
  if (!LITTLE_ENDIAN) {
    readIndex(fd, (r, i) => {
      c.offset[i] = r.offset;
      c.length[i] = r.length;
      c.ts[i] = r.ts;
      c.server[i] = r.server;
      c.channel[i] = r.channel;
      c.kind[i] = r.kind;
      c.method[i] = r.method;
      c.status[i] = r.status;
      c.flags[i] = r.flags;
      c.exchange[i] = r.exchange;
      c.session[i] = r.session;
    }, count);
    return c;
  }
  const chunk = new ArrayBuffer(Math.min(INDEX_CHUNK, Math.max(INDEX_RECORD, count * INDEX_RECORD)));
  const bytes = new Uint8Array(chunk);
  const f64 = new Float64Array(chunk);
  const u32 = new Uint32Array(chunk);
  const u16 = new Uint16Array(chunk);
  let done = 0;
  while (done < count) {
    const want = Math.min(chunk.byteLength, (count - done) * INDEX_RECORD);
    let got = 0;
    while (got < want) {
      const n = readSync(fd, bytes, got, want - got, done * INDEX_RECORD + got);
      if (n === 0) break;
      got += n;
    }
    const whole = Math.floor(got / INDEX_RECORD);
    for (let k = 0; k < whole; k++) {
      const i = done + k;
      const d = k * 5;
      const w = k * 10;
      const h = k * 20;
      const b = k * 40;
      c.offset[i] = f64[d]!;
      c.ts[i] = f64[d + 1]!;
      c.length[i] = u32[w + 4]!;
      c.method[i] = u32[w + 5]!;
      c.exchange[i] = u32[w + 6]!;
      c.session[i] = u32[w + 7]!;
      c.server[i] = u16[h + 16]!;
      c.status[i] = u16[h + 17]!;
      c.channel[i] = bytes[b + 36]!;
      c.kind[i] = bytes[b + 37]!;
      c.flags[i] = bytes[b + 38]!;
    }
    done += whole;
    if (whole * INDEX_RECORD < want) break;
  }
  return c;
}

/** The recording as a trace store's backing: its index and strings read now, its events on demand. */
export function openBacking(dir: string): { backing: TraceBacking; header: RecordingHeader } {
  const files = new RecordingFiles(dir);
  try {
    const header = readHeader(files.eventsFd);
    const stringsFd = openSync(join(dir, STRINGS_FILE), 'r');
    let tables: StringTables;
    try {
      tables = readStrings(stringsFd).tables;
    } finally {
      closeSync(stringsFd);
    }
    const indexFd = openSync(join(dir, INDEX_FILE), 'r');
    let columns: IndexColumns;
    let count: number;
    try {
      count = Math.floor(fstatSync(indexFd).size / INDEX_RECORD);
      columns = readIndexColumns(indexFd, count);
    } finally {
      closeSync(indexFd);
    }
    return { backing: { sink: files, count, strings: tables, columns: () => columns }, header };
  } catch (error) {
    files.close();
    throw error;
  }
}
