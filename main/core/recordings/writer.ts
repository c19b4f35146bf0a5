/**
 * Writes a recording as events happen (durable mode of the trace store, and imports): lines
 * are queued and written in batches (every WRITE_INTERVAL_MS, or sooner past WRITE_BATCH_BYTES),
 * and the files are fsynced every SYNC_INTERVAL_MS. Every line, payload and the header go through
 * the redaction net first: no secret reaches disk.
 */
import { closeSync, fsync, fsyncSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { ServerConfig } from '../../../contract';
import { safeStringify } from '../../../contract/bounded-json';
import { isErrorEvent, type TraceEvent } from '../../../contract/trace';
import { Interner } from '../trace/columns';
import { TRACE_FORMAT, TRACE_FORMAT_VERSION, eventLineParts, redactConfig, unchanged, type TraceHeader } from '../trace/export-jsonl';
import { CHANNEL_ID, EVENT_DEPTH, FLAG_ERROR, KIND_ID, encodeLine, lineText, lineUnits, type BlobRef, type TraceSink } from '../trace/store';
import { BLOBS_FILE, EVENTS_FILE, EXCHANGES_FILE, HEADER_RESERVE, INDEX_FILE, INDEX_RECORD, STRINGS_FILE, encodeRow, emptyRow, type TableLetter } from './format';
import { readBlobAt, readEventAt } from './reader';

/** Queued lines are written at least this often. */
export const WRITE_INTERVAL_MS = 200;
/** Written files are fsynced at least this often: the window of events at risk on power loss. */
export const SYNC_INTERVAL_MS = 1000;
/** A batch is written at once past this many bytes (a flood never queues more). */
export const WRITE_BATCH_BYTES = 1 << 20;

export interface WriterStats {
  /** Events handed to the writer. */
  events: number;
  /** Of those, written to the files (in the page cache: safe from kill -9). */
  written: number;
  /** Of those, fsynced (safe from power loss). */
  synced: number;
  errors: number;
  firstTs?: number;
  lastTs?: number;
  /** Bytes of the events, index, strings and payload files (written and queued). */
  bytes: number;
}

export interface RecordingWriterOptions {
  app: { name: string; version: string };
  startedAt: number;
  /** The servers for the header (written redacted). */
  servers: ServerConfig[];
  /** The servers for the header rewritten at close (default: `servers`). */
  finalServers?: () => ServerConfig[];
  /** The last net before disk, asked again for every batch (connections come and go). */
  redact?: () => (text: string) => string;
  /** Timers for the periodic write and fsync (off for an import written in one go). */
  timers?: boolean;
  /** After each fsync (the meta is rewritten then). */
  onSync?: (stats: WriterStats) => void;
  /** A write that failed (the disk is full, say): told once per kind of failure. */
  onError?: (message: string) => void;
}


export class RecordingWriter implements TraceSink {
  private readonly eventsFd: number;
  private readonly indexFd: number;
  private readonly stringsFd: number;
  private readonly exchangesFd: number;
  private blobsFd: number | undefined;
  private eventsSize = 0;
  private indexSize = 0;
  private stringsSize = 0;
  private blobsSize = 0;
  private headerLength = 0;
  /** The event lines not yet written, encoded: `linesBytes` of `batch` (reused from one write to the next). */
  private batch: Buffer | undefined;
  private linesBytes = 0;
  private rows = Buffer.alloc(INDEX_RECORD * 1024);
  private rowsUsed = 0;
  private strings: string[] = [];
  private exchangeLines: string[] = [];
  private exchangesSize = 0;
  private readonly interners: Record<TableLetter, Interner> = { s: new Interner(), m: new Interner(), x: new Interner(), e: new Interner() };
  private readonly row = emptyRow();
  private readonly drains: (() => void)[] = [];
  private readonly timers: NodeJS.Timeout[] = [];
  private scrub: (text: string) => string = unchanged;
  private closed = false;
  private failed = false;
  /** A batch of event lines could not be written (they read back as failures). */
  private linesLost = false;
  private dirty = false;
  private writing = false;
  private headerFinished = false;
  private syncing = false;
  readonly stats: WriterStats = { events: 0, written: 0, synced: 0, errors: 0, bytes: 0 };

  constructor(
    readonly dir: string,
    private readonly options: RecordingWriterOptions,
  ) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.eventsFd = openSync(join(dir, EVENTS_FILE), 'wx+', 0o600);
    this.indexFd = openSync(join(dir, INDEX_FILE), 'wx', 0o600);
    this.stringsFd = openSync(join(dir, STRINGS_FILE), 'wx', 0o600);
    this.exchangesFd = openSync(join(dir, EXCHANGES_FILE), 'wx', 0o600);
    this.refreshScrub();
    const header = this.headerText(options.servers, 0);
    const line = Buffer.from(header + ' '.repeat(HEADER_RESERVE) + '\n', 'utf8');
    writeSync(this.eventsFd, line, 0, line.length, 0);
    this.headerLength = line.length;
    this.eventsSize = line.length;
    this.stats.bytes = line.length;
    if (options.timers !== false) {
      const write = setInterval(() => this.flush(), WRITE_INTERVAL_MS);
      const sync = setInterval(() => this.syncInBackground(), SYNC_INTERVAL_MS);
      write.unref();
      sync.unref();
      this.timers.push(write, sync);
    }
  }

  // --- TraceSink ----------------------------------------------------------------------------

  attach(drain: () => void): void {
    this.drains.push(drain);
  }

  bytes(): number {
    return this.eventsSize + this.linesBytes;
  }

  append(event: TraceEvent, blob: BlobRef | undefined, bodyText?: string): { offset: number; length: number } {
    if (this.closed) throw new Error('the recording is closed');
    // The net asked again for every event: a connection added, or a secret learnt, a moment ago counts.
    this.refreshScrub();
    let line = eventLineParts(event, bodyText);
    // (the net sees the line whole: a secret is never split between the parts)
    if (this.scrub !== unchanged || blob) line = this.scrub(lineText(line));
    if (blob) line = `${line.slice(0, -1)},"payloadRef":{"offset":${blob.offset},"length":${blob.length}}}`;
    // Encoded once, where it is written from: no line string to measure, join and encode again.
    const most = lineUnits(line) * 3 + 1;
    if (this.linesBytes + most > (this.batch?.length ?? 0)) {
      this.write();
      // (still no room: a line longer than a batch, or a write under way)
      if (this.linesBytes + most > (this.batch?.length ?? 0)) this.growBatch(this.linesBytes + most);
    }
    const offset = this.eventsSize + this.linesBytes;
    const length = encodeLine(this.batch!, this.linesBytes, line);
    const r = this.row;
    r.offset = offset;
    r.length = length;
    r.ts = event.ts;
    r.server = this.intern('s', event.server);
    r.channel = CHANNEL_ID.get(event.channel) ?? 0;
    r.kind = KIND_ID.get(event.kind) ?? 0;
    r.method = this.intern('m', event.rpc?.method);
    r.status = event.http?.status ?? 0;
    const error = isErrorEvent(event);
    r.flags = error ? FLAG_ERROR : 0;
    r.exchange = this.intern('x', event.exchange);
    r.session = this.intern('e', event.session);
    if (this.rowsUsed + INDEX_RECORD > this.rows.length) {
      const bigger = Buffer.alloc(this.rows.length * 2);
      this.rows.copy(bigger, 0, 0, this.rowsUsed);
      this.rows = bigger;
    }
    encodeRow(this.rows, this.rowsUsed, r, blob !== undefined);
    this.rowsUsed += INDEX_RECORD;
    this.linesBytes += length;
    this.stats.events++;
    if (error) this.stats.errors++;
    this.stats.firstTs ??= event.ts;
    this.stats.lastTs = event.ts;
    this.stats.bytes += length + INDEX_RECORD;
    if (this.linesBytes >= WRITE_BATCH_BYTES) this.write();
    return { offset, length };
  }

  private growBatch(bytes: number): void {
    const bigger = Buffer.allocUnsafe(Math.max(bytes, WRITE_BATCH_BYTES));
    this.batch?.copy(bigger, 0, 0, this.linesBytes);
    this.batch = bigger;
  }

  writeBlob(text: string): BlobRef {
    if (this.closed) throw new Error('the recording is closed');
    this.refreshScrub();
    const buffer = Buffer.from(this.scrub(text), 'utf8');
    this.blobsFd ??= openSync(join(this.dir, BLOBS_FILE), 'a+', 0o600);
    writeSync(this.blobsFd, buffer, 0, buffer.length, this.blobsSize);
    const ref = { offset: this.blobsSize, length: buffer.length };
    this.blobsSize += buffer.length;
    this.stats.bytes += buffer.length;
    this.dirty = true;
    return ref;
  }

  writeFailed(): boolean {
    return this.linesLost;
  }

  readEvent(offset: number, length: number): { event: TraceEvent; blob?: BlobRef } {
    if (offset + length > this.eventsSize) this.write();
    return readEventAt(this.eventsFd, offset, length, this.eventsSize);
  }

  readBlob(blob: BlobRef): string {
    return readBlobAt(this.blobsFd, blob, this.blobsSize);
  }

  /** Writes what is queued (the store's waiting events first) and fsyncs: the end of a session, or a flush asked for. */
  close(): void {
    if (this.closed) return;
    if (!this.headerFinished) {
      let servers = this.options.servers;
      try {
        servers = this.options.finalServers?.() ?? servers;
      } catch {
        /* the first ones */
      }
      this.finishHeader(servers);
    }
    this.flush();
    this.sync();
    this.closed = true;
    for (const timer of this.timers) clearInterval(timer);
    for (const fd of [this.eventsFd, this.indexFd, this.stringsFd, this.exchangesFd, this.blobsFd]) {
      if (fd === undefined) continue;
      try {
        closeSync(fd);
      } catch {
        /* already gone */
      }
    }
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** The header line rewritten in place with the final count and servers, when it still fits its reserve (it always keeps the count). */
  finishHeader(servers: ServerConfig[]): void {
    if (this.closed) return;
    this.flush();
    this.headerFinished = true;
    let text = this.headerText(servers, this.stats.events);
    if (Buffer.byteLength(text) > this.headerLength - 1) text = this.headerText(this.options.servers, this.stats.events);
    const bytes = Buffer.byteLength(text);
    if (bytes > this.headerLength - 1) return;
    const line = Buffer.from(text + ' '.repeat(this.headerLength - 1 - bytes) + '\n', 'utf8');
    try {
      writeSync(this.eventsFd, line, 0, line.length, 0);
      this.dirty = true;
    } catch (error) {
      this.fail(`the recording's header could not be rewritten: ${message(error)}`);
    }
  }

  /** Takes the store's waiting events, then writes the queue. Never throws (it runs from timers). */
  flush(): void {
    if (this.closed) return;
    for (const drain of this.drains) {
      try {
        drain();
      } catch {
        /* the store reports its own failures */
      }
    }
    this.write();
  }

  /** fsync of every file written since the last one, now (the end of a session, a flush asked for). Never throws. */
  sync(): void {
    if (this.closed) return;
    if (this.dirty) {
      try {
        for (const fd of [this.stringsFd, this.exchangesFd, this.eventsFd, this.indexFd, this.blobsFd]) if (fd !== undefined) fsyncSync(fd);
        this.stats.synced = this.stats.written;
        this.dirty = false;
      } catch (error) {
        this.fail(`the recording could not be synced to disk: ${message(error)}`);
      }
    }
    this.afterSync();
  }

  /**
   * The periodic fsync, on libuv's thread pool: the event loop (and the append path) never waits
   * for the disk. `stats.synced` moves when every file's fsync has finished.
   */
  private syncInBackground(): void {
    if (this.closed || this.syncing) return;
    this.flush();
    if (!this.dirty) {
      this.afterSync();
      return;
    }
    this.syncing = true;
    this.dirty = false;
    const written = this.stats.written;
    const fds = [this.stringsFd, this.exchangesFd, this.eventsFd, this.indexFd, this.blobsFd].filter((fd): fd is number => fd !== undefined);
    let left = fds.length;
    let failure: unknown;
    for (const fd of fds) {
      fsync(fd, (error) => {
        if (error && !this.closed) failure ??= error;
        if (--left > 0) return;
        this.syncing = false;
        if (this.closed) return;
        if (failure) {
          this.dirty = true;
          this.fail(`the recording could not be synced to disk: ${message(failure)}`);
          return;
        }
        this.stats.synced = Math.max(this.stats.synced, written);
        this.afterSync();
      });
    }
  }

  private afterSync(): void {
    try {
      this.options.onSync?.(this.stats);
    } catch {
      /* the meta's writer reports its own failures */
    }
  }

  // -------------------------------------------------------------------------------------------

  private write(): void {
    if (this.writing || this.rowsUsed === 0) return;
    this.writing = true;
    try {
      // Strings first, then the events, then the index: whatever a crash cuts, the index never
      // names a line or a string that is not on disk before it.
      if (this.strings.length) {
        const strings = Buffer.from(this.strings.join(''), 'utf8');
        writeSync(this.stringsFd, strings, 0, strings.length, this.stringsSize);
        this.stringsSize += strings.length;
        this.strings = [];
      }
      if (this.exchangeLines.length) {
        const exchanges = Buffer.from(this.exchangeLines.join(''), 'utf8');
        writeSync(this.exchangesFd, exchanges, 0, exchanges.length, this.exchangesSize);
        this.exchangesSize += exchanges.length;
        this.exchangeLines = [];
      }
      writeSync(this.eventsFd, this.batch!, 0, this.linesBytes, this.eventsSize);
      this.eventsSize += this.linesBytes;
      writeSync(this.indexFd, this.rows, 0, this.rowsUsed, this.indexSize);
      this.indexSize += this.rowsUsed;
      this.stats.written += this.rowsUsed / INDEX_RECORD;
      this.dirty = true;
    } catch (error) {
      this.linesLost = true;
      this.fail(`the recording could not be written (its events from #${(this.stats.written + 1).toLocaleString('en-US')} on are not on disk): ${message(error)}`);
      // What could not be written is dropped from the queue (memory stays bounded); the offsets
      // handed out for it read back as failures.
      this.eventsSize += this.linesBytes;
    } finally {
      // A batch grown for one long line goes back to its size.
      if (this.batch!.length > WRITE_BATCH_BYTES) this.batch = undefined;
      this.linesBytes = 0;
      this.rowsUsed = 0;
      this.writing = false;
    }
  }

  private intern(table: TableLetter, value: string | undefined): number {
    if (value === undefined || value === '') return 0;
    const interner = this.interners[table];
    const known = interner.lookup(value);
    if (known !== undefined) return known;
    const id = interner.id(value);
    const line = this.scrub(JSON.stringify([table, value])) + '\n';
    (table === 'x' ? this.exchangeLines : this.strings).push(line);
    this.stats.bytes += Buffer.byteLength(line);
    return id;
  }

  private headerText(servers: ServerConfig[], eventCount: number): string {
    const header: TraceHeader = {
      format: TRACE_FORMAT,
      version: TRACE_FORMAT_VERSION,
      app: this.options.app,
      startedAt: new Date(this.options.startedAt).toISOString(),
      exportedAt: new Date().toISOString(),
      eventCount,
      servers: servers.map(redactConfig),
      redaction: 'on',
    };
    return this.scrub(safeStringify(header, { maxDepth: EVENT_DEPTH }));
  }

  private refreshScrub(): void {
    try {
      this.scrub = this.options.redact?.() ?? unchanged;
    } catch {
      /* keep the last one */
    }
  }

  private fail(text: string): void {
    if (this.failed) return;
    this.failed = true;
    try {
      this.options.onError?.(text);
    } catch {
      /* nothing more to do */
    }
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
