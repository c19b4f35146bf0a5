/**
 * The on-disk format of a recording (docs/recordings.md): one directory per session holding
 *
 *   recording.json  the meta (name, tags, kind, state, owner process, counts), rewritten atomically
 *   events.jsonl    a JSONL trace (docs/trace-format.md): the header line, then one event a line
 *   index.bin       one fixed-width record (INDEX_RECORD bytes) an event: where its line is, and
 *                   the columns the trace store filters on, strings as interned ids
 *   strings.jsonl   the interned strings, append-only: `[table, value]` a line, ids in order per table
 *   exchanges.jsonl the same for the exchange table (`["x", value]`), apart because it is large
 *   payloads.bin    payloads above the preview size, whole (the event line says where: `payloadRef`)
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { ProxyInfo } from '../../../contract/proxy-info';
import { RecordingEnded, RecordingKind, RecordingTag } from '../../../contract/recordings';
import type { IndexRow } from '../trace/store';

export const META_FILE = 'recording.json';
export const EVENTS_FILE = 'events.jsonl';
export const INDEX_FILE = 'index.bin';
export const STRINGS_FILE = 'strings.jsonl';
/** The exchange table of the strings, apart: one an HTTP exchange (millions in a long session), read only when a filter names one. */
export const EXCHANGES_FILE = 'exchanges.jsonl';
export const BLOBS_FILE = 'payloads.bin';
export const RECORDING_FILES = [META_FILE, EVENTS_FILE, INDEX_FILE, STRINGS_FILE, EXCHANGES_FILE, BLOBS_FILE] as const;

export const RECORDING_FORMAT = 'switchboard-recording';
export const RECORDING_FORMAT_VERSION = 1;

/** Bytes of one index record. */
export const INDEX_RECORD = 40;
/** Spaces reserved after the header line's JSON so that it can be rewritten in place at the end (event count, servers). */
export const HEADER_RESERVE = 8 * 1024;
/** The meta file is small; anything bigger is not ours. */
export const META_MAX_BYTES = 1024 * 1024;
/** The strings side file is read whole at open: bounded. */
export const STRINGS_MAX_BYTES = 256 * 1024 * 1024;
/** The header line of events.jsonl is read whole at open: bounded. */
export const HEADER_MAX_BYTES = 4 * 1024 * 1024;
/** One event line read back (the import's line limit, with room for the payload reference). */
export const LINE_MAX_BYTES = 16 * 1024 * 1024 + 1024;
/** One payload read back whole. */
export const BLOB_MAX_BYTES = 256 * 1024 * 1024;
/** Events an index may hold (its columns are 39 bytes an event in memory: about 4 GB at this count). */
export const MAX_EVENTS = 100_000_000;

/** The string tables of the index, by their letter in strings.jsonl. */
export const TABLES = { s: 'servers', m: 'methods', x: 'exchanges', e: 'sessions' } as const;
export type TableLetter = keyof typeof TABLES;

export const Owner = z.object({
  pid: z.number().int(),
  /** What tells this process from a later one with the same pid (Linux: its start time in clock ticks; elsewhere absent). */
  start: z.string().optional(),
  host: z.string().optional(),
});
export type Owner = z.output<typeof Owner>;

export const RecordingMeta = z.object({
  format: z.literal(RECORDING_FORMAT),
  version: z.number().int().min(1),
  id: z.string(),
  name: z.string().max(1000),
  tags: z.array(RecordingTag).max(50).default([]),
  kind: RecordingKind,
  app: z.object({ name: z.string().max(200), version: z.string().max(200) }),
  startedAt: z.number(),
  endedAt: z.number().optional(),
  /** When it entered the library, if later than its events (an import): retention's age counts from here. */
  addedAt: z.number().optional(),
  state: RecordingEnded,
  owner: Owner.optional(),
  events: z.number().int().min(0),
  errors: z.number().int().min(0),
  bytes: z.number().min(0),
  servers: z.array(z.object({ id: z.string().max(200), name: z.string().max(1000) })).max(10_000),
  notes: z.array(z.string().max(2000)).max(100).default([]),
  /** Written by `switchboard proxy` (#12): what it proxies, and the client once known. */
  proxy: ProxyInfo.optional(),
});
export type RecordingMeta = z.output<typeof RecordingMeta>;

export function readMeta(dir: string): RecordingMeta {
  const text = readFileSync(join(dir, META_FILE));
  if (text.length > META_MAX_BYTES) throw new Error(`${META_FILE} is ${text.length} bytes, more than a recording's meta may have`);
  return RecordingMeta.parse(JSON.parse(text.toString('utf8')));
}

/** Atomically: a temp file beside it, then a rename (a reader sees the old meta or the new one, never half). */
export function writeMeta(dir: string, meta: RecordingMeta): void {
  const path = join(dir, META_FILE);
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, JSON.stringify(meta, null, 1) + '\n', { mode: 0o600 });
  renameSync(temp, path);
}

/**
 * One index record, little-endian, its two doubles 8-byte aligned (so a chunk of records is read
 * through typed arrays without a copy):
 *   0 offset f64 · 8 ts f64 · 16 length u32 · 20 method u32 · 24 exchange u32 · 28 session u32 ·
 *   32 server u16 · 34 status u16 · 36 channel u8 · 37 kind u8 · 38 flags u8 · 39 bit 0: has a payload blob
 */
export function encodeRow(buffer: Buffer, at: number, r: IndexRow, hasBlob: boolean): void {
  buffer.writeDoubleLE(r.offset, at);
  buffer.writeDoubleLE(r.ts, at + 8);
  buffer.writeUInt32LE(r.length >>> 0, at + 16);
  buffer.writeUInt32LE(r.method >>> 0, at + 20);
  buffer.writeUInt32LE(r.exchange >>> 0, at + 24);
  buffer.writeUInt32LE(r.session >>> 0, at + 28);
  buffer.writeUInt16LE(r.server & 0xffff, at + 32);
  buffer.writeUInt16LE(r.status & 0xffff, at + 34);
  buffer.writeUInt8(r.channel & 0xff, at + 36);
  buffer.writeUInt8(r.kind & 0xff, at + 37);
  buffer.writeUInt8(r.flags & 0xff, at + 38);
  buffer.writeUInt8(hasBlob ? 1 : 0, at + 39);
}

/** Fills `r` from the record at `at` (one object reused for every row: no garbage per event). */
export function decodeRow(buffer: Buffer, at: number, r: IndexRow): void {
  r.offset = buffer.readDoubleLE(at);
  r.ts = buffer.readDoubleLE(at + 8);
  r.length = buffer.readUInt32LE(at + 16);
  r.method = buffer.readUInt32LE(at + 20);
  r.exchange = buffer.readUInt32LE(at + 24);
  r.session = buffer.readUInt32LE(at + 28);
  r.server = buffer.readUInt16LE(at + 32);
  r.status = buffer.readUInt16LE(at + 34);
  r.channel = buffer.readUInt8(at + 36);
  r.kind = buffer.readUInt8(at + 37);
  r.flags = buffer.readUInt8(at + 38);
}

export const emptyRow = (): IndexRow => ({ offset: 0, length: 0, ts: 0, server: 0, channel: 0, kind: 0, method: 0, status: 0, flags: 0, exchange: 0, session: 0 });

/** This process as a recording's owner. */
export function currentOwner(): Owner {
  return { pid: process.pid, start: processStart(process.pid) };
}

/** Linux: the process's start time (field 22 of /proc/PID/stat), so a reused pid is not taken for the owner. */
export function processStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count from after it.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19];
  } catch {
    return undefined;
  }
}

/** Whether the process that wrote a recording still runs (a pid alive with another start time is another process). */
export function ownerAlive(owner: Owner | undefined): boolean {
  if (!owner || !Number.isInteger(owner.pid) || owner.pid <= 0) return false;
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (owner.start === undefined) return true;
  const now = processStart(owner.pid);
  return now === undefined || now === owner.start;
}

/** A time-sortable, filesystem-safe id: `20261201-221500-123-ab12` (UTC). */
export function newRecordingId(now = new Date()): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  const stamp = `${now.getUTCFullYear()}${p(now.getUTCMonth() + 1)}${p(now.getUTCDate())}-${p(now.getUTCHours())}${p(now.getUTCMinutes())}${p(now.getUTCSeconds())}-${p(now.getUTCMilliseconds(), 3)}`;
  return `${stamp}-${Math.floor(Math.random() * 0x10000)
    .toString(16)
    .padStart(4, '0')}`;
}
