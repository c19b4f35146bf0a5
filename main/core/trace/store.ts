/**
 * The trace store: append-only, every event numbered without gaps, O(1) append.
 *
 * Memory stays bounded however long the session runs: a compact index of every event lives in
 * typed-array columns (a few dozen bytes an event); the events themselves are written through, on
 * the next turn of the event loop, to a per-session spill file (or the session's recording) and
 * read back on demand: from the spill file's 1 MiB write buffer while they are in it, else from
 * the file. No event object is kept past that turn. A window of the newest whole events in
 * memory would have to survive the young generation's collections, and copying it there and
 * marking it in the old one cost a tracked client more CPU than anything else tracking does
 * (bench/run.ts measured ~7 % of the client's CPU per call, for a 20,000-event window). The
 * window (`windowSize`) is what is kept when the disk takes no more (the spill cap, a failed
 * write). Payloads larger than `previewBytes` go to a blob file at once; the event keeps a preview.
 */
import { closeSync, mkdtempSync, openSync, readFileSync, readSync, readdirSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LIMITS, safeStringify } from '../../../contract/bounded-json';
import { CHANNELS, EVENT_KINDS, isErrorEvent as isError, type Channel, type EventKind, type SseInfo, type TraceEvent, type TraceEventInput } from '../../../contract/trace';
import { Column, Interner } from './columns';
import { NegotiationMarker } from './negotiation';
import { summarizeBody, wireBytesOf, wireTextOf } from './rpc';

export interface TraceStoreOptions {
  /** Whole events kept in memory once the disk takes no more: the spill file at its cap, or a write failed (default 20,000). */
  windowSize?: number;
  /** Payloads larger than this are stored whole on disk and previewed (default 256 KiB). */
  previewBytes?: number;
  /** Directory for the spill files (default: a fresh temp dir, removed on close). */
  dir?: string;
  /** The spill file's cap (default `SPILL_CAP_BYTES`): past it, recording to disk pauses. */
  maxSpillBytes?: number;
  /** Told once, in words, when recording to disk pauses at the cap. */
  onLimit?: (message: string) => void;
  /**
   * Durable mode (#13): every event is written to this recording as it happens (in batches, off
   * the append path), payloads above `previewBytes` go to its blob file, and events that leave
   * the window are read back from it (no spill file). Absent: the store behaves as before.
   */
  sink?: TraceSink;
  /** Read-only mode: a recording on disk, its index loaded into the columns; `append` refuses. */
  backing?: TraceBacking;
}

/** Where an event's whole payload is in a recording's blob file. */
export interface BlobRef {
  offset: number;
  length: number;
}

/** A recording's files as the store uses them (main/core/recordings/writer.ts, reader.ts). */
export interface TraceSink {
  /**
   * Durable mode: takes the next event (in seq order); answers where its line is in the events
   * file. `bodyText`: the text the event's body was parsed from, when that text is the body (the
   * store's `append`), to write in its place.
   */
  append?(event: TraceEvent, blob: BlobRef | undefined, bodyText?: string): { offset: number; length: number };
  /** Durable mode: writes a payload now; answers where it is. Throws when it cannot. */
  writeBlob?(text: string): BlobRef;
  /** The events file's size, for the cap (what is queued included). */
  bytes(): number;
  /** Whether a batch of event lines failed to be written: the store then keeps its newest events in memory too. */
  writeFailed?(): boolean;
  /** Called by the sink before it writes, so that events still waiting in the store are taken too. */
  attach?(drain: () => void): void;
  /** One event line back; its whole payload's place when it has one. Throws when it cannot be read. */
  readEvent(offset: number, length: number): { event: TraceEvent; blob?: BlobRef };
  readBlob(blob: BlobRef): string;
  close(): void;
}

/** A recording's index: the columns of every event, and the interned strings they refer to (id 1 first). */
export interface TraceBacking {
  sink: TraceSink;
  count: number;
  strings: { servers: string[]; methods: string[]; exchanges: string[]; sessions: string[] };
  /** All the exchange strings (id 1 first), read when first needed (a filter naming an exchange); default `strings.exchanges`. */
  exchanges?(): string[];
  /** Every event's columns (`count` long), in seq order; the store takes the arrays as they are. */
  columns(): IndexColumns;
}

export interface IndexColumns {
  offset: Float64Array<ArrayBuffer>;
  length: Uint32Array<ArrayBuffer>;
  ts: Float64Array<ArrayBuffer>;
  server: Uint16Array<ArrayBuffer>;
  channel: Uint8Array<ArrayBuffer>;
  kind: Uint8Array<ArrayBuffer>;
  method: Uint32Array<ArrayBuffer>;
  status: Uint16Array<ArrayBuffer>;
  flags: Uint8Array<ArrayBuffer>;
  exchange: Uint32Array<ArrayBuffer>;
  session: Uint32Array<ArrayBuffer>;
}

export interface IndexRow {
  offset: number;
  length: number;
  ts: number;
  server: number;
  channel: number;
  kind: number;
  method: number;
  status: number;
  flags: number;
  exchange: number;
  session: number;
}

/** A session's spill file may grow to this; then recording to disk pauses (docs/limits.md). */
export const SPILL_CAP_BYTES = 4 * 1024 ** 3;

/** The file a store writes into its own temp dir naming the process that owns it (orphan clean-up). */
export const OWNER_FILE = 'owner.pid';

export interface TraceQuery {
  servers?: string[];
  channels?: Channel[];
  kinds?: EventKind[];
  methods?: string[];
  exchange?: string;
  session?: string;
  /** Case-insensitive substring of the serialized event. */
  text?: string;
  errorsOnly?: boolean;
  /** 2, 3, 4, 5: HTTP status class. */
  statusClass?: number[];
  fromTs?: number;
  toTs?: number;
  /** Paging: events with seq greater than this (asc) / less than this (desc). */
  cursor?: number;
  order?: 'asc' | 'desc';
  limit?: number;
}

export interface TracePage {
  events: TraceEvent[];
  /** Pass as `cursor` for the next page; absent at the end. */
  nextCursor?: number;
  /** Events in the store when the page was taken. */
  total: number;
}

export type TraceListener = (event: TraceEvent) => void;

export const CHANNEL_ID = new Map(CHANNELS.map((c, i) => [c, i]));
export const KIND_ID = new Map(EVENT_KINDS.map((k, i) => [k, i]));
export const FLAG_ERROR = 1;
const SPILL_FLUSH_BYTES = 1 << 20;
/** Spill offset of an event evicted after recording to disk paused at the cap. */
const PAUSED_OFFSET = -3;
const MAX_LIMIT = 5_000;
/**
 * Events allowed to wait for serialization before it happens on the append path. A flood appends
 * thousands in one turn: serialized in runs of this many, most of them die young instead of being
 * held until the turn ends (bench flood, client CPU ratio: 1.06–1.17 with 2,000, 1.07 with 256;
 * the spread between runs is as wide, so this is a bound on memory more than a measured win).
 */
const MAX_UNSERIALIZED = 256;
/**
 * Nesting kept when an event is serialized (spill, search, export): its body within
 * LIMITS.carriedDepth plus the event's own level. Transports already cut deeper bodies (keeping
 * their text in `raw`); this bound is the net for everything else, so serializing never throws.
 */
export const EVENT_DEPTH = LIMITS.carriedDepth + 2;

/**
 * An event as one JSON text that never throws. The plain serializer first (it is on the spill
 * path of every event, and whole is better than cut when the engine can manage it); when it
 * overflows or refuses, the event is cut at EVENT_DEPTH.
 */
export function serializeEvent(event: TraceEvent): string {
  return lineText(serializeParts(event, wireTextOf(event.body)));
}

/**
 * An event's line as `serializeEvent` writes it, in parts: with `text` (the text its body was
 * parsed from) it is `[before the body, the text on one line, after it]`, so a writer encodes the
 * three where they go without joining them first; otherwise the whole line.
 */
export function serializeParts(event: TraceEvent, text: string | undefined): string | LineParts {
  if (text === undefined) return serializePlain(event);
  const sse = sseParts(event, text);
  if (sse) return sse;
  // (withWireBody fails only for an event that cannot take the stand-in, never one of ours: its own body, parsed again from the text)
  return withWireBody(event, text) ?? serializePlain({ ...event, body: JSON.parse(text) as unknown });
}

/** A line in three parts: what comes before the body, the body's text, what comes after. */
export type LineParts = readonly [string, string, string];

/** A line, whole or in parts, encoded as UTF-8 into `buffer` at `at`, a newline after it: the bytes written. The caller made room: 3 bytes a UTF-16 unit, plus one. */
export function encodeLine(buffer: Buffer, at: number, line: string | LineParts): number {
  let end = at;
  if (typeof line === 'string') end += buffer.write(line, end, 'utf8');
  else for (const part of line) end += buffer.write(part, end, 'utf8');
  buffer[end++] = 0x0a;
  return end - at;
}

/** A line, whole or in parts, as one string. */
export const lineText = (line: string | LineParts): string => (typeof line === 'string' ? line : line.join(''));

/** UTF-16 units of a line, whole or in parts. */
export const lineUnits = (line: string | LineParts): number => (typeof line === 'string' ? line.length : line[0].length + line[1].length + line[2].length);

function serializePlain(event: TraceEvent): string {
  try {
    return JSON.stringify(event);
  } catch {
    return safeStringify(event, { maxDepth: EVENT_DEPTH });
  }
}

/**
 * Stands in for the body while the rest of an event is serialized: random per process, so no
 * text from a server can be mistaken for it.
 */
const BODY_MARK = `\u0000body ${randomUUID()}\u0000`;
const BODY_MARK_JSON = JSON.stringify(BODY_MARK);

/**
 * An event whose body is written as the text it was parsed from (`wireTextOf`), in the body's
 * place among the keys. A line break in JSON text sits between tokens (in strings it is
 * escaped): as a space it keeps the line one line and the value the same.
 */
function withWireBody(event: TraceEvent, text: string): LineParts | undefined {
  const body = event.body;
  let line: string;
  try {
    event.body = BODY_MARK;
    line = serializePlain(event);
  } catch {
    return undefined;
  } finally {
    event.body = body;
  }
  const at = line.indexOf(BODY_MARK_JSON);
  if (at < 0) return undefined;
  return [line.slice(0, at), oneLine(text), line.slice(at + BODY_MARK_JSON.length)];
}

/** JSON text on one line: a line break in it sits between tokens (in strings it is escaped), and as a space it keeps the value the same. */
function oneLine(text: string): string {
  return /[\r\n]/.test(text) ? text.replace(/[\r\n]/g, ' ') : text;
}

/**
 * An event's line in the spill file. An SSE message event (the tracking fetch's `sse-event`, with
 * the text its body was parsed from: `append`'s `bodyText`, or the body's `wireTextOf`) is written
 * short: `[1, sse, summary, bytes, body]`, a JSON array, the body as the text it came as. Its
 * server, channel, exchange, session, seq and time are in the index columns, and its `rpc` or
 * `batch` is what `summarizeBody` makes of the body (`summary` says which of the two it has), so
 * none is written again; `TraceStore.fromLine` puts them back, keys in the same order. A flood
 * is mostly such events, and serializing each whole was most of what tracking one cost
 * (bench/tracking-cost.ts, an SSE answer after 100 notifications: writing each out 2.2–2.7 →
 * 1.1–1.2 µs, tracking each 5.8–6.0 → 4.1–4.3 µs). Any other event is written whole.
 */
function spillLine(event: TraceEvent, bodyText: string | undefined): string | LineParts {
  const text = bodyText ?? wireTextOf(event.body);
  return (text !== undefined ? sseLine(event, text) : undefined) ?? serializeParts(event, text);
}

const SSE_LINE = 1;
/** The keys of an SSE message event as the tracking fetch builds it and the store numbers it, `rpc` or `batch` (or neither) in the gap. */
const SSE_KEYS = ['server', 'channel', 'kind', 'dir', 'exchange', 'session', 'sse', '', 'body', 'bytes', 'seq', 'ts'];
const SUMMARY_AT = 7;
const SUMMARY_TAG = { none: 0, rpc: 1, batch: 2 } as const;

/** Which summary an event with exactly SSE_KEYS has (a tag), or -1 for any other keys. */
function sseKeys(event: TraceEvent): number {
  let at = 0;
  let tag: number = SUMMARY_TAG.none;
  for (const key in event) {
    if (at === SUMMARY_AT) {
      at++;
      if (key === 'rpc' || key === 'batch') {
        tag = SUMMARY_TAG[key];
        continue;
      }
    }
    if (key !== SSE_KEYS[at]) return -1;
    at++;
  }
  return at === SSE_KEYS.length ? tag : -1;
}

/**
 * The short line of an event with exactly those keys, whose summary is the body's and whose
 * column-held fields the columns give back as they are (a non-empty server, a known channel, an
 * exchange and a session absent or non-empty: the interners keep '' as nothing; a finite time);
 * otherwise undefined.
 */
function sseLine(event: TraceEvent, text: string): string | undefined {
  if (event.kind !== 'sse-event' || event.dir !== 'in') return undefined;
  const tag = sseKeys(event);
  if (tag < 0) return undefined;
  const { server, exchange, session, sse, bytes, ts } = event;
  if (typeof server !== 'string' || server === '' || !CHANNEL_ID.has(event.channel) || !Number.isFinite(ts) || !Number.isFinite(bytes)) return undefined;
  if ((exchange !== undefined && (typeof exchange !== 'string' || exchange === '')) || (session !== undefined && (typeof session !== 'string' || session === ''))) return undefined;
  if (typeof sse !== 'object' || sse === null) return undefined;
  try {
    return `[${SSE_LINE},${JSON.stringify(sse)},${tag},${bytes},${oneLine(text)}]`;
  } catch {
    return undefined;
  }
}

/**
 * The line of an SSE message event with exactly the tracking fetch's keys (`sseKeys`), written
 * field by field: each value as `JSON.stringify` writes it (an undefined one left out, as it
 * leaves it out), in the event's key order, so the line is the one `JSON.stringify` would make
 * with the text as the body, without serializing the event around a stand-in and finding it
 * again. A flood is mostly such events. Anything else: undefined.
 */
function sseParts(event: TraceEvent, text: string): LineParts | undefined {
  if (event.kind !== 'sse-event' || event.dir !== 'in') return undefined;
  const tag = sseKeys(event);
  if (tag < 0 || typeof event.server !== 'string' || typeof event.channel !== 'string') return undefined;
  try {
    const head =
      `{"server":${jsonString(event.server)},"channel":${jsonString(event.channel)},"kind":"sse-event","dir":"in"` +
      `${field('exchange', event.exchange)}${field('session', event.session)}${field('sse', event.sse)}` +
      `${tag === SUMMARY_TAG.rpc ? field('rpc', event.rpc) : tag === SUMMARY_TAG.batch ? field('batch', event.batch) : ''},"body":`;
    return [head, oneLine(text), `${field('bytes', event.bytes)}${field('seq', event.seq)}${field('ts', event.ts)}}`];
  } catch {
    return undefined;
  }
}

/**
 * `,"name":value` as JSON.stringify writes a key and its value, or nothing for a value it leaves
 * out. A finite number is written as `String` writes it (the same digits: both are the engine's
 * Number::toString); a string's JSON is remembered, since a flood repeats its server, channel,
 * exchange and session on every event (in a CPU profile of a flood into a live recording, the
 * fields were most of a notification's line).
 */
function field(name: string, value: unknown): string {
  if (typeof value === 'string') return `,"${name}":${jsonString(value)}`;
  if (typeof value === 'number' && Number.isFinite(value)) return `,"${name}":${value}`;
  const json = (flatJson(value) ?? JSON.stringify(value)) as string | undefined;
  return json === undefined ? '' : `,"${name}":${json}`;
}

/**
 * A plain object of strings, finite numbers and booleans (an undefined value left out) as
 * JSON.stringify writes it; anything else: undefined. The summaries and `sse` of a flood's
 * events are such objects, two or three keys each, where a JSON.stringify call costs more than
 * the work (a micro-benchmark of a whole event found an undefined value changes little).
 */
function flatJson(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || Object.getPrototypeOf(value) !== Object.prototype) return undefined;
  let json = '';
  for (const key in value) {
    if (!Object.hasOwn(value, key)) return undefined;
    const v = (value as Record<string, unknown>)[key];
    let text: string;
    if (v === undefined) continue;
    if (typeof v === 'string') text = jsonString(v);
    else if (typeof v === 'number' && Number.isFinite(v)) text = `${v}`;
    else if (typeof v === 'boolean') text = v ? 'true' : 'false';
    else return undefined;
    json += `${json ? ',' : '{'}${jsonString(key)}:${text}`;
  }
  return json ? `${json}}` : '{}';
}

/** Short strings' JSON, remembered (at most STRING_JSON_KEPT of them; then it starts again). */
const stringJson = new Map<string, string>();
const STRING_JSON_KEPT = 256;

function jsonString(value: string): string {
  let json = stringJson.get(value);
  if (json !== undefined) return json;
  json = JSON.stringify(value);
  if (value.length <= 256) {
    if (stringJson.size >= STRING_JSON_KEPT) stringJson.clear();
    stringJson.set(value, json);
  }
  return json;
}

/**
 * An event kept whole in memory (the disk takes no more, or its `raw` keeps it there) holds a body
 * of its own: one whose text the trace kept (`wireTextOf`: the SDK may hold the object) is parsed
 * again from that text, which is what the body was when it arrived.
 */
function ownBody(event: TraceEvent): TraceEvent {
  const text = wireTextOf(event.body);
  if (text !== undefined) event.body = JSON.parse(text) as unknown;
  return event;
}

export class TraceStore {
  readonly windowSize: number;
  readonly previewBytes: number;
  private readonly dir: string;
  private readonly ownsDir: boolean;

  // The index: one entry per event, position = seq - 1.
  private readonly tsCol = new Column(Float64Array);
  private readonly serverCol = new Column(Uint16Array);
  private readonly channelCol = new Column(Uint8Array);
  private readonly kindCol = new Column(Uint8Array);
  private readonly methodCol = new Column(Uint32Array);
  private readonly statusCol = new Column(Uint16Array);
  private readonly flagsCol = new Column(Uint8Array);
  private readonly exchangeCol = new Column(Uint32Array);
  private readonly sessionCol = new Column(Uint32Array);
  private readonly spillOffset = new Column(Float64Array);
  private readonly spillLength = new Column(Uint32Array);

  private readonly servers = new Interner();
  private readonly methods = new Interner();
  private readonly exchanges = new Interner();
  private readonly sessions = new Interner();
  /** An exchange's channel as its response decided it (a POST is post-json or post-sse only once answered). */
  private readonly exchangeChannel = new Map<number, number>();
  /** Marks the version-negotiation probe and its expected answers (not errors). */
  private readonly negotiation = new NegotiationMarker();

  private readonly recent: (TraceEvent | undefined)[];
  private count = 0;
  private readonly listeners = new Set<TraceListener>();

  private spillFd: number | undefined;
  private blobFd: number | undefined;
  private spillSize = 0;
  private blobSize = 0;
  /** Serialized lines not yet written to the spill file: `pendingBytes` of it are in use. */
  private pending: Buffer | undefined;
  /** Appended (or, past the cap, evicted from the window) and not yet serialized, in seq order. */
  private waiting: TraceEvent[] = [];
  /** Beside each waiting event: the text its body was parsed from, when that text is the body (`append`'s `bodyText`). */
  private waitingText: (string | undefined)[] = [];
  private serializeScheduled = false;
  private pendingBytes = 0;
  private pendingFrom = 0;
  private readonly blobs = new Map<number, { offset: number; length: number }>();
  private closed = false;
  /** Why spilled events were lost, once the spill file failed. */
  private spillFailure: string | undefined;
  private readonly maxSpillBytes: number;
  private readonly onLimit: ((message: string) => void) | undefined;
  /** Set once the spill file reached its cap: why later evicted events are not on disk. */
  private paused: string | undefined;
  private limitReported = false;
  private readonly sink: TraceSink | undefined;
  private readonly readOnly: boolean;
  /** Read-only mode: the recording's exchange strings, read on first use (its ids are kept as they are: one an HTTP exchange, often millions). */
  private backingExchanges: (() => string[]) | undefined;

  /** Time base: wall clock at start plus a monotonic offset, for sub-millisecond precision that never runs backwards. */
  private readonly wallBase = Date.now();
  private readonly perfBase = performance.now();

  constructor(options: TraceStoreOptions = {}) {
    this.windowSize = Math.max(1, options.windowSize ?? 20_000);
    this.previewBytes = options.previewBytes ?? 256 * 1024;
    this.sink = options.backing?.sink ?? options.sink;
    this.readOnly = options.backing !== undefined;
    // A recording keeps everything in its own files: no temp dir.
    this.ownsDir = !options.dir && !this.sink;
    this.dir = options.dir ?? (this.sink ? '' : mkdtempSync(join(tmpdir(), 'switchboard-trace-')));
    if (this.ownsDir) writeOwner(this.dir);
    this.maxSpillBytes = options.maxSpillBytes ?? SPILL_CAP_BYTES;
    this.onLimit = options.onLimit;
    this.recent = new Array(this.windowSize);
    if (options.backing) this.load(options.backing);
    else this.sink?.attach?.(() => this.serializeWaiting());
  }

  get size(): number {
    return this.count;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  now(): number {
    return this.wallBase + (performance.now() - this.perfBase);
  }

  subscribe(listener: TraceListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Numbers an event and takes it in. `bodyText`: the JSON text its body was parsed from, when
   * that text is exactly the body (`traceBody`'s `wire`: nothing redacted, cut or changed) and the
   * event's `rpc` or `batch`, if it has one, is `summarizeBody` of it; the spill file (or the
   * recording) may then write the text in the body's place instead of serializing the body again
   * (`spillLine`, `serializeParts`).
   */
  append(input: TraceEventInput, bodyText?: string): TraceEvent {
    if (this.closed) throw new Error('trace store is closed');
    if (this.readOnly) throw new Error('trace store is read-only (a recording opened from the library)');
    const index = this.count;
    // Callers hand over a fresh object: numbering it in place saves a copy on the hot path
    // (an imported event's old seq is replaced).
    const event = input as TraceEvent;
    event.seq = index + 1;
    event.ts = input.ts ?? this.now();
    this.negotiation.mark(event);
    if (event.body !== undefined && (event.bytes ?? 0) > this.previewBytes) {
      try {
        this.storeBlob(event, bodyText);
      } catch (error) {
        // The payload stays whole in memory instead; appending goes on.
        console.error(`switchboard: trace: payload of event #${event.seq} not stored on disk: ${error instanceof Error ? error.message : String(error)}`);
      }
      // The body is a preview now (or kept whole after a failure): its text is no longer passed on.
      bodyText = undefined;
    }

    this.tsCol.push(event.ts);
    this.serverCol.push(this.servers.id(event.server));
    const channel = CHANNEL_ID.get(event.channel) ?? 0;
    this.channelCol.push(channel);
    this.kindCol.push(KIND_ID.get(event.kind) ?? 0);
    this.methodCol.push(this.methods.id(event.rpc?.method));
    this.statusCol.push(event.http?.status ?? 0);
    this.flagsCol.push(isError(event) ? FLAG_ERROR : 0);
    const exchange = this.exchanges.id(event.exchange);
    this.exchangeCol.push(exchange);
    this.sessionCol.push(this.sessions.id(event.session));
    this.spillOffset.push(-1);
    this.spillLength.push(0);
    if (exchange && (event.kind === 'http-response' || !this.exchangeChannel.has(exchange))) this.exchangeChannel.set(exchange, channel);

    if (this.paused === undefined && this.spillFailure === undefined && !this.sink?.writeFailed?.()) {
      // Written through: serialized on the next turn of the event loop (into the spill file's
      // buffer, or the recording), and read back from there. No event object outlives that turn,
      // but one: a recording's line carries a body's original text as the body itself (export
      // format), so an event with `raw` (numbers JSON.parse cannot keep, a body cut for depth)
      // would read back without it. Such events (rare) stay in the window, as all events did.
      this.spill(event, bodyText);
      if (this.sink && event.raw !== undefined) this.keepInWindow(event);
    } else {
      // The disk takes no more (the cap, or a failed write): the newest `windowSize` events stay
      // whole in memory. A recording still gets every event (a stub past the cap, so seqs stay gapless).
      const slot = index % this.windowSize;
      const evicted = this.recent[slot];
      if (this.sink) this.spill(event);
      else if (evicted) this.spill(evicted);
      this.recent[slot] = ownBody(event);
    }
    this.count++;

    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // a failing observer must not lose the event for the others
      }
    }
    return event;
  }

  /** One event by sequence number, from memory or disk, with its exchange's final channel. */
  get(seq: number): TraceEvent | undefined {
    const index = seq - 1;
    if (!Number.isInteger(index) || index < 0 || index >= this.count) return undefined;
    const recent = index >= this.count - this.windowSize ? this.recent[index % this.windowSize] : undefined;
    // A read-only store's window starts empty: what is not in it is read from the recording.
    const event = recent?.seq === seq ? recent : this.readSpilled(index);
    if (!event) return undefined;
    const resolved = this.resolvedChannel(index);
    return resolved === event.channel ? event : { ...event, channel: resolved };
  }

  /** The whole payload of an event whose body was previewed. */
  payload(seq: number): unknown {
    if (this.sink) return this.sinkPayload(seq);
    const blob = this.blobs.get(seq);
    if (!blob || this.blobFd === undefined) return this.get(seq)?.body;
    const buffer = Buffer.alloc(blob.length);
    readSync(this.blobFd, buffer, 0, blob.length, blob.offset);
    return JSON.parse(buffer.toString('utf8'));
  }

  query(q: TraceQuery = {}): TracePage {
    const limit = Math.min(Math.max(1, q.limit ?? 200), MAX_LIMIT);
    const asc = (q.order ?? 'asc') === 'asc';
    const filter = this.compile(q);
    const events: TraceEvent[] = [];
    const total = this.count;
    let i = asc ? (q.cursor ?? 0) : (q.cursor ?? total + 1) - 2;
    for (; asc ? i < total : i >= 0; i += asc ? 1 : -1) {
      if (!filter.index(i)) continue;
      const event = this.get(i + 1);
      if (!event || (filter.text && !matchesText(event, filter.text))) continue;
      events.push(event);
      if (events.length === limit) {
        const next = asc ? i + 1 : i + 1;
        const more = asc ? next < total : i > 0;
        return { events, total, nextCursor: more ? next : undefined };
      }
    }
    return { events, total };
  }

  /** Every event in order, for exports. Reads spilled events back in sequence. */
  *all(): Generator<TraceEvent> {
    for (let seq = 1; seq <= this.count; seq++) {
      const event = this.get(seq);
      if (event) yield event;
    }
  }

  /** Memory held by the index and the window, roughly, for the benchmark and the About panel. */
  indexBytes(): number {
    return [this.tsCol, this.serverCol, this.channelCol, this.kindCol, this.methodCol, this.statusCol, this.flagsCol, this.exchangeCol, this.sessionCol, this.spillOffset, this.spillLength].reduce(
      (sum, c) => sum + c.bytes,
      0,
    );
  }

  /**
   * Hands every event still waiting to disk: to the recording (which writes on its own schedule),
   * or serialized and written out to the spill file (which is otherwise written a 1 MiB buffer at a time).
   */
  drain(): void {
    if (this.readOnly || this.closed) return;
    this.serializeWaiting();
    if (!this.sink) this.flushSpill();
  }

  close(): void {
    if (this.closed) return;
    if (this.sink) {
      this.drain();
      this.closed = true;
      try {
        this.sink.close();
      } catch (error) {
        console.error(`switchboard: trace: the recording could not be closed: ${error instanceof Error ? error.message : String(error)}`);
      }
      return;
    }
    this.closed = true;
    if (this.spillFd !== undefined) closeSync(this.spillFd);
    if (this.blobFd !== undefined) closeSync(this.blobFd);
    if (this.ownsDir) rmSync(this.dir, { recursive: true, force: true });
  }

  /**
   * Query side of Traffic's windows (trace/window.ts): the compiled filter over the index, and
   * the exchange an event belongs to (a channel filter's answer changes once it is answered).
   */
  filterOf(q: TraceQuery): { index: (i: number) => boolean; text?: string; matchesText(event: TraceEvent): boolean } {
    const compiled = this.compile(q);
    return { ...compiled, matchesText: (event) => compiled.text === undefined || matchesText(event, compiled.text) };
  }

  // -------------------------------------------------------------------------------------

  private exchangeId(value: string): number | undefined {
    if (!this.backingExchanges) return this.exchanges.lookup(value);
    const at = this.backingExchanges().indexOf(value);
    return at < 0 ? undefined : at + 1;
  }

  private resolvedChannel(index: number): Channel {
    const exchange = this.exchangeCol.get(index);
    const channel = exchange ? (this.exchangeChannel.get(exchange) ?? this.channelCol.get(index)) : this.channelCol.get(index);
    return CHANNELS[channel]!;
  }

  private compile(q: TraceQuery): { index: (i: number) => boolean; text?: string } {
    const ids = (values: string[] | undefined, interner: Interner) => (values ? new Set(values.map((v) => interner.lookup(v) ?? -1)) : undefined);
    const servers = ids(q.servers, this.servers);
    const methods = ids(q.methods, this.methods);
    const channels = q.channels ? new Set(q.channels.map((c) => CHANNEL_ID.get(c) ?? -1)) : undefined;
    const kinds = q.kinds ? new Set(q.kinds.map((k) => KIND_ID.get(k) ?? -1)) : undefined;
    const exchange = q.exchange === undefined ? undefined : (this.exchangeId(q.exchange) ?? -1);
    const session = q.session === undefined ? undefined : (this.sessions.lookup(q.session) ?? -1);
    const statusClass = q.statusClass ? new Set(q.statusClass) : undefined;
    return {
      text: q.text ? q.text.toLowerCase() : undefined,
      index: (i) => {
        if (servers && !servers.has(this.serverCol.get(i))) return false;
        if (kinds && !kinds.has(this.kindCol.get(i))) return false;
        if (methods && !methods.has(this.methodCol.get(i))) return false;
        if (exchange !== undefined && this.exchangeCol.get(i) !== exchange) return false;
        if (session !== undefined && this.sessionCol.get(i) !== session) return false;
        if (q.errorsOnly && !(this.flagsCol.get(i) & FLAG_ERROR)) return false;
        if (statusClass && !statusClass.has(Math.floor(this.statusCol.get(i) / 100))) return false;
        if (q.fromTs !== undefined && this.tsCol.get(i) < q.fromTs) return false;
        if (q.toTs !== undefined && this.tsCol.get(i) > q.toTs) return false;
        if (channels) {
          const exchangeId = this.exchangeCol.get(i);
          const channel = exchangeId ? (this.exchangeChannel.get(exchangeId) ?? this.channelCol.get(i)) : this.channelCol.get(i);
          if (!channels.has(channel)) return false;
        }
        return true;
      },
    };
  }

  /** Queues an event for the disk: serialized off the append path, on the next turn of the event loop. */
  private spill(event: TraceEvent, bodyText?: string): void {
    this.waiting.push(event);
    this.waitingText.push(bodyText);
    // A synchronous burst never yields to the event loop: bound what waits in memory.
    if (this.waiting.length >= MAX_UNSERIALIZED) {
      this.serializeWaiting();
      return;
    }
    if (!this.serializeScheduled) {
      this.serializeScheduled = true;
      setImmediate(() => this.serializeWaiting());
    }
  }

  /** Never throws: it runs on the append path and from a timer, where a throw would end the process. */
  private serializeWaiting(): void {
    this.serializeScheduled = false;
    if (this.closed) return;
    if (this.sink) {
      this.writeToSink();
      return;
    }
    const texts = this.waitingText;
    for (let j = 0; j < this.waiting.length; j++) {
      const event = this.waiting[j]!;
      const index = event.seq - 1;
      let line: string | LineParts = '';
      let most = 0;
      if (!this.paused) {
        // Encoded straight into one buffer: no line strings to join, measure and encode again.
        line = spillLine(event, texts[j]);
        // A UTF-16 unit is at most 3 bytes of UTF-8 (a pair, 4 bytes for 2 units), plus the newline.
        most = lineUnits(line) * 3 + 1;
        // (which may reach the cap: then this event is not written either)
        if (this.pendingBytes + most > SPILL_FLUSH_BYTES) this.flushSpill();
      }
      if (this.paused) {
        this.spillOffset.set(index, PAUSED_OFFSET);
        this.keepInWindow(event);
        continue;
      }
      if (this.pendingBytes === 0) this.pendingFrom = index;
      this.spillOffset.set(index, this.spillSize + this.pendingBytes);
      if (most > SPILL_FLUSH_BYTES) {
        // A line larger than the buffer is written on its own.
        const chunk = Buffer.from(`${lineText(line)}\n`, 'utf8');
        this.spillLength.set(index, chunk.length);
        this.writeSpill(chunk);
        continue;
      }
      const pending = (this.pending ??= Buffer.allocUnsafe(SPILL_FLUSH_BYTES));
      const length = encodeLine(pending, this.pendingBytes, line);
      this.spillLength.set(index, length);
      this.pendingBytes += length;
    }
    this.waiting = [];
    this.waitingText = [];
  }

  /** Durable mode: each waiting event to the recording, in order (a stub once the cap is reached, so its seqs stay gapless). */
  private writeToSink(): void {
    const sink = this.sink!;
    const events = this.waiting;
    const texts = this.waitingText;
    this.waiting = [];
    this.waitingText = [];
    for (let j = 0; j < events.length; j++) {
      const event = events[j]!;
      const index = event.seq - 1;
      if (!this.paused && sink.bytes() > this.maxSpillBytes) this.pauseAtCap(index);
      // Past the cap the recording gets a stub: the event itself stays in the window.
      if (this.paused) this.keepInWindow(event);
      try {
        const where = this.paused ? sink.append!(this.lostEvent(index, this.paused), undefined) : sink.append!(event, this.blobs.get(event.seq), texts[j]);
        this.spillOffset.set(index, where.offset);
        this.spillLength.set(index, where.length);
      } catch (error) {
        this.spillFailure = `the recording could not be written: ${error instanceof Error ? error.message : String(error)}`;
        this.spillOffset.set(index, -2);
        this.keepInWindow(event);
      }
    }
  }

  private pauseAtCap(from: number): void {
    this.paused = `recording paused at ${formatBytes(this.maxSpillBytes)}: the recording reached its cap; events from #${(from + 1).toLocaleString('en-US')} on keep only their time, server and kind (export what you need and start a new session)`;
    console.error(`switchboard: trace: ${this.paused}`);
    if (this.limitReported) return;
    this.limitReported = true;
    try {
      this.onLimit?.(this.paused);
    } catch {
      /* a listener's failure must not stop the append path */
    }
  }

  private sinkPayload(seq: number): unknown {
    const index = seq - 1;
    let blob = this.blobs.get(seq);
    if (!blob) {
      if (!Number.isInteger(index) || index < 0 || index >= this.count) return undefined;
      if (this.waiting.length && this.spillOffset.get(index) < 0) this.serializeWaiting();
      const offset = this.spillOffset.get(index);
      if (offset < 0) return this.get(seq)?.body;
      try {
        blob = this.sink!.readEvent(offset, this.spillLength.get(index)).blob;
      } catch {
        return this.get(seq)?.body;
      }
      if (!blob) return this.get(seq)?.body;
    }
    const text = this.sink!.readBlob(blob);
    try {
      return JSON.parse(text);
    } catch {
      // A payload that was not JSON (a text body kept whole): as text.
      return text;
    }
  }

  /** Read-only mode: the columns from the recording's index, its strings mapped to this store's ids. */
  private load(backing: TraceBacking): void {
    const map = (values: string[], interner: Interner) => Uint32Array.from([0, ...values.map((v) => interner.id(v))]);
    const servers = map(backing.strings.servers, this.servers);
    const methods = map(backing.strings.methods, this.methods);
    const sessions = map(backing.strings.sessions, this.sessions);
    const responseKind = KIND_ID.get('http-response');
    const channels = CHANNELS.length;
    const kinds = EVENT_KINDS.length;
    const c = backing.columns();
    const n = Math.min(backing.count, c.ts.length);
    // Exchanges keep the recording's ids (dense, one an HTTP exchange): no map of millions of
    // strings; each event's channel is resolved once here (an exchange's channel as its
    // response decided it), since nothing is appended later.
    let exchanges: string[] | undefined;
    this.backingExchanges = () => (exchanges ??= backing.exchanges?.() ?? backing.strings.exchanges);
    let exchangeCount = 0;
    for (let i = 0; i < n; i++) if (c.exchange[i]! > exchangeCount) exchangeCount = c.exchange[i]!;
    exchangeCount = Math.min(exchangeCount, n);
    const exchangeChannel = new Uint8Array(exchangeCount + 1).fill(255);
    for (let i = 0; i < n; i++) {
      c.server[i] = servers[c.server[i]!] ?? 0;
      c.method[i] = methods[c.method[i]!] ?? 0;
      c.session[i] = sessions[c.session[i]!] ?? 0;
      if (c.channel[i]! >= channels) c.channel[i] = 0;
      if (c.kind[i]! >= kinds) c.kind[i] = 0;
      const exchange = c.exchange[i]! <= exchangeCount ? c.exchange[i]! : 0;
      c.exchange[i] = exchange;
      if (exchange && (c.kind[i] === responseKind || exchangeChannel[exchange] === 255)) exchangeChannel[exchange] = c.channel[i]!;
    }
    for (let i = 0; i < n; i++) {
      const exchange = c.exchange[i]!;
      if (exchange) c.channel[i] = exchangeChannel[exchange]!;
    }
    this.tsCol.adopt(c.ts, n);
    this.serverCol.adopt(c.server, n);
    this.channelCol.adopt(c.channel, n);
    this.kindCol.adopt(c.kind, n);
    this.methodCol.adopt(c.method, n);
    this.statusCol.adopt(c.status, n);
    this.flagsCol.adopt(c.flags, n);
    this.exchangeCol.adopt(c.exchange, n);
    this.sessionCol.adopt(c.session, n);
    this.spillOffset.adopt(c.offset, n);
    this.spillLength.adopt(c.length, n);
    this.count = n;
  }

  /** An event the disk did not take: kept whole in the window while it is among the newest `windowSize`. */
  private keepInWindow(event: TraceEvent): void {
    const index = event.seq - 1;
    if (index >= this.count - this.windowSize) this.recent[index % this.windowSize] = ownBody(event);
  }

  /**
   * The lines of `chunk` (events from `pendingFrom` on, at `spillSize` and after) that the file
   * did not take: each still among the newest `windowSize` goes back into the window, parsed, so
   * what was recorded just before the cap or a failed write stays readable; the others are marked
   * `mark` (they read back as stubs saying why).
   */
  private rescue(chunk: Buffer, mark: number): void {
    // The event being appended may be the one whose line is written: its offset is set already.
    const end = this.spillOffset.length;
    for (let i = this.pendingFrom; i < end; i++) {
      const offset = this.spillOffset.get(i);
      if (offset < this.spillSize) continue;
      this.spillOffset.set(i, mark);
      if (i < end - this.windowSize) continue;
      const at = offset - this.spillSize;
      try {
        this.recent[i % this.windowSize] = this.fromLine(i, JSON.parse(chunk.toString('utf8', at, at + this.spillLength.get(i))));
      } catch {
        // a line that cannot be read back is a stub like the others
      }
    }
  }

  private flushSpill(): void {
    if (this.pendingBytes === 0) return;
    this.writeSpill(this.pending!.subarray(0, this.pendingBytes));
  }

  /** Writes serialized lines (events from `pendingFrom` on) at the end of the spill file; the pending buffer is free again after. */
  private writeSpill(chunk: Buffer): void {
    if (this.spillSize + chunk.length > this.maxSpillBytes) {
      // Recording to disk pauses, loudly: from here on the newest events are kept in the window
      // (this chunk's too), older ones read back as stubs saying so; the index (every event's
      // seq, time, server, kind) goes on.
      this.paused ??= `recording paused at ${formatBytes(this.maxSpillBytes)}: the trace's spill file reached its cap; events from here on are kept in memory only, the newest ${this.windowSize.toLocaleString('en-US')} of them (export what you need and start a new session)`;
      this.rescue(chunk, PAUSED_OFFSET);
      this.pendingBytes = 0;
      if (!this.limitReported) {
        this.limitReported = true;
        console.error(`switchboard: trace: ${this.paused}`);
        try {
          this.onLimit?.(this.paused);
        } catch {
          /* a listener's failure must not stop the append path */
        }
      }
      return;
    }
    try {
      this.spillFd ??= openSync(join(this.dir, `trace-${process.pid}-${this.wallBase}.jsonl`), 'w+', 0o600);
      writeSync(this.spillFd, chunk, 0, chunk.length, this.spillSize);
    } catch (error) {
      // A full disk must not end the session: this chunk's events go back into the window (the
      // newest of them) or read back as stubs saying why; later ones are kept in the window.
      this.spillFailure = `the spill file could not be written: ${error instanceof Error ? error.message : String(error)}`;
      console.error(`switchboard: trace: ${this.spillFailure}`);
      this.rescue(chunk, -2);
    }
    this.spillSize += chunk.length;
    this.pendingBytes = 0;
  }

  private readSpilled(index: number): TraceEvent | undefined {
    if (this.waiting.length && this.spillOffset.get(index) < 0) {
      // Still waiting to be serialized (this turn's events): the object itself.
      const queued = this.waiting[index - (this.waiting[0]!.seq - 1)];
      if (queued?.seq === index + 1) return queued;
      this.serializeWaiting();
    }
    if (this.sink) return this.readFromSink(index);
    const offset = this.spillOffset.get(index);
    if (offset === -2) return this.lostEvent(index, this.spillFailure ?? 'the spill file could not be written');
    if (offset === PAUSED_OFFSET) return this.lostEvent(index, this.paused ?? 'recording paused');
    if (offset < 0) return undefined;
    const length = this.spillLength.get(index);
    try {
      // Not written yet: parsed from the buffer (the live tail is read often; no write forced for it).
      if (this.pendingBytes > 0 && offset >= this.spillSize) return this.fromLine(index, JSON.parse(this.pending!.toString('utf8', offset - this.spillSize, offset - this.spillSize + length)));
      const buffer = Buffer.alloc(length);
      readSync(this.spillFd!, buffer, 0, length, offset);
      return this.fromLine(index, JSON.parse(buffer.toString('utf8')));
    } catch (error) {
      return this.lostEvent(index, `the spill file could not be read: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** A spill file's line, parsed, as the event: a short line (`spillLine`) gets back what the columns hold and its summary, keys in the order the event had them. */
  private fromLine(index: number, line: unknown): TraceEvent {
    if (!Array.isArray(line)) return line as TraceEvent;
    const [kind, sse, tag, bytes, body] = line as [number, SseInfo, number, number, unknown];
    if (kind !== SSE_LINE) throw new Error(`a line of an unknown kind (${String(kind)})`);
    const event = { server: this.servers.value(this.serverCol.get(index)) ?? '', channel: CHANNELS[this.channelCol.get(index)]!, kind: 'sse-event', dir: 'in' } as TraceEvent;
    const exchange = this.exchanges.value(this.exchangeCol.get(index));
    if (exchange !== undefined) event.exchange = exchange;
    const session = this.sessions.value(this.sessionCol.get(index));
    if (session !== undefined) event.session = session;
    event.sse = sse;
    if (tag === SUMMARY_TAG.rpc) event.rpc = summarizeBody(body).rpc;
    else if (tag === SUMMARY_TAG.batch) event.batch = summarizeBody(body).batch;
    event.body = body;
    event.bytes = bytes;
    event.seq = index + 1;
    event.ts = this.tsCol.get(index);
    return event;
  }

  private readFromSink(index: number): TraceEvent | undefined {
    const offset = this.spillOffset.get(index);
    if (offset === -2) return this.lostEvent(index, this.spillFailure ?? 'the recording could not be written');
    if (offset < 0) return undefined;
    try {
      const { event } = this.sink!.readEvent(offset, this.spillLength.get(index));
      // The recording's line is the event as numbered here (an imported or repaired file may say otherwise).
      if (event.seq !== index + 1) event.seq = index + 1;
      return event;
    } catch (error) {
      return this.lostEvent(index, `the recording could not be read: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** What the index still knows of an event whose full form was lost. */
  private lostEvent(index: number, why: string): TraceEvent {
    return {
      seq: index + 1,
      ts: this.tsCol.get(index),
      server: this.servers.value(this.serverCol.get(index)) ?? '',
      channel: CHANNELS[this.channelCol.get(index)]!,
      kind: EVENT_KINDS[this.kindCol.get(index)]!,
      dir: 'none',
      text: `(event not available: ${why})`,
    };
  }

  private storeBlob(event: TraceEvent, bodyText: string | undefined): void {
    // The text as it arrived when the transport kept it; otherwise the body, cut if it must be.
    const text = event.raw ?? bodyText ?? wireTextOf(event.body) ?? safeStringify(event.body, { maxDepth: LIMITS.carriedDepth });
    if (this.sink) {
      this.blobs.set(event.seq, this.sink.writeBlob!(text));
    } else {
      // (the bytes the text was decoded from, when the transport kept them: no second encoding)
      const buffer = (event.raw === undefined ? wireBytesOf(event.body) : undefined) ?? Buffer.from(text, 'utf8');
      this.blobFd ??= openSync(join(this.dir, `payloads-${process.pid}-${this.wallBase}.bin`), 'w+', 0o600);
      writeSync(this.blobFd, buffer, 0, buffer.length, this.blobSize);
      this.blobs.set(event.seq, { offset: this.blobSize, length: buffer.length });
      this.blobSize += buffer.length;
    }
    // The blob holds the original text now (payload() parses it back whole).
    delete event.raw;
    const preview = typeof event.body === 'string' ? event.body : text;
    event.body = preview.slice(0, this.previewBytes);
    event.truncated = true;
  }
}

/** The text search: the serialized event (cut where it must be), and the body's original text. */
function matchesText(event: TraceEvent, text: string): boolean {
  if (serializeEvent(event.raw === undefined ? event : { ...event, raw: undefined }).toLowerCase().includes(text)) return true;
  return event.raw !== undefined && event.raw.toLowerCase().includes(text);
}

/** "512.0 MiB", "4.0 GiB": sizes in the store's and the library's messages. */
export function formatBytes(bytes: number): string {
  return bytes >= 1024 ** 3 ? `${(bytes / 1024 ** 3).toFixed(1)} GiB` : `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
}

function writeOwner(dir: string): void {
  try {
    writeFileSync(join(dir, OWNER_FILE), String(process.pid), { mode: 0o600 });
  } catch {
    /* best effort: without it, clean-up leaves the folder alone */
  }
}

/**
 * Removes the temp folders of trace stores whose process is gone (a `kill -9`, a crash): each
 * names its owner in `owner.pid`; a folder whose owner is alive, or that names none, is left.
 * Returns how many folders and bytes were freed.
 */
export function removeOrphanedTraceDirs(root: string = tmpdir()): { folders: number; bytes: number } {
  let folders = 0;
  let bytes = 0;
  let names: string[];
  try {
    names = readdirSync(root).filter((n) => n.startsWith('switchboard-trace-'));
  } catch {
    return { folders, bytes };
  }
  for (const name of names) {
    const dir = join(root, name);
    let pid: number;
    try {
      pid = Number(readFileSync(join(dir, OWNER_FILE), 'utf8').trim());
    } catch {
      continue;
    }
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || isAlive(pid)) continue;
    try {
      for (const file of readdirSync(dir)) bytes += statSync(join(dir, file)).size;
      rmSync(dir, { recursive: true, force: true });
      folders++;
    } catch {
      /* another process cleaning up, or no permission: leave it */
    }
  }
  return { folders, bytes };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
