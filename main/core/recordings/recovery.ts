/**
 * Crash recovery: a recording whose process died (kill -9, a crash, power loss) is repaired so
 * that it opens like any other: a torn last line is dropped, index records that point past the
 * events that are whole are dropped, whole events that the index does not have yet are indexed,
 * and it is marked `ended: unexpected` with notes saying what was done.
 */
import { closeSync, fstatSync, ftruncateSync, openSync, readSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { isErrorEvent, type TraceEvent } from '../../../contract/trace';
import { Interner } from '../trace/columns';
import { CHANNEL_ID, FLAG_ERROR, KIND_ID, type IndexRow } from '../trace/store';
import { EVENTS_FILE, INDEX_FILE, INDEX_RECORD, STRINGS_FILE, TABLES, emptyRow, encodeRow, readMeta, writeMeta, type RecordingMeta, type TableLetter } from './format';
import { parseRecordedLine, readHeader, readIndex, readStrings } from './reader';
import { recordingBytes } from './sizes';

const SCAN_CHUNK = 4 * 1024 * 1024;
/** A line longer than this while re-indexing is not one of ours: the scan stops there (what follows is dropped, and said). */
const MAX_LINE = 64 * 1024 * 1024;

export interface RepairResult {
  meta: RecordingMeta;
  /** Events indexed again (written but not yet in the index when the process died). */
  reindexed: number;
  /** Index records dropped (pointing past the whole events). */
  droppedRecords: number;
  /** Bytes dropped from the end of the events file (a torn last line). */
  droppedBytes: number;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** Repairs one recording in place. Throws when it is not a recording at all (no meta, no header). */
export function repairRecording(dir: string): RepairResult {
  const meta = readMeta(dir);
  const eventsFd = openSync(join(dir, EVENTS_FILE), 'r+');
  const indexFd = openSync(join(dir, INDEX_FILE), 'a+');
  const stringsFd = openSync(join(dir, STRINGS_FILE), 'a+');
  try {
    const header = readHeader(eventsFd);
    const eventsSize = fstatSync(eventsFd).size;
    // Strings: whole lines only (a torn one is cut off; an id it would have named is re-interned below).
    const strings = readStrings(stringsFd);
    if (strings.validBytes < fstatSync(stringsFd).size) ftruncateSync(stringsFd, strings.validBytes);
    const interners: Record<TableLetter, Interner> = { s: new Interner(), m: new Interner(), x: new Interner(), e: new Interner() };
    for (const letter of Object.keys(TABLES) as TableLetter[]) for (const value of strings.tables[TABLES[letter]]) interners[letter].id(value);
    const known: Record<TableLetter, number> = { s: strings.tables.servers.length, m: strings.tables.methods.length, x: strings.tables.exchanges.length, e: strings.tables.sessions.length };

    // The index: the longest prefix of records whose lines are whole and in order, naming known strings.
    let valid = 0;
    let end = header.length;
    let errors = 0;
    let lastTs: number | undefined;
    const newline = Buffer.alloc(1);
    const records = readIndex(indexFd, (r, i) => {
      if (valid !== i) return;
      if (r.offset !== end || r.length <= 0 || r.offset + r.length > eventsSize) return;
      if (r.server > known.s || r.method > known.m || r.exchange > known.x || r.session > known.e) return;
      if (readSync(eventsFd, newline, 0, 1, r.offset + r.length - 1) !== 1 || newline[0] !== 10) return;
      end = r.offset + r.length;
      valid++;
      if (r.flags & FLAG_ERROR) errors++;
      lastTs = r.ts;
    });
    const droppedRecords = records - valid;
    const indexSize = fstatSync(indexFd).size;
    if (indexSize !== valid * INDEX_RECORD) ftruncateSync(indexFd, valid * INDEX_RECORD);

    // Events after the index's end: whole lines are indexed; a torn or unreadable tail is dropped.
    let reindexed = 0;
    let position = end;
    const out = Buffer.alloc(INDEX_RECORD * 4096);
    let outUsed = 0;
    let newStrings: string[] = [];
    const flushOut = () => {
      if (newStrings.length) {
        const text = Buffer.from(newStrings.join(''), 'utf8');
        writeSync(stringsFd, text);
        newStrings = [];
      }
      if (outUsed) writeSync(indexFd, out, 0, outUsed);
      outUsed = 0;
    };
    const intern = (letter: TableLetter, value: string | undefined) => {
      if (value === undefined || value === '' || typeof value !== 'string') return 0;
      const had = interners[letter].lookup(value);
      if (had !== undefined) return had;
      newStrings.push(JSON.stringify([letter, value]) + '\n');
      return interners[letter].id(value);
    };
    const row: IndexRow = emptyRow();
    let carry: Buffer = Buffer.alloc(0);
    const chunk = Buffer.alloc(SCAN_CHUNK);
    let stop = false;
    scan: while (position < eventsSize && !stop) {
      const read = readSync(eventsFd, chunk, 0, Math.min(chunk.length, eventsSize - position - carry.length), position + carry.length);
      if (read <= 0) break;
      const data = carry.length ? Buffer.concat([carry, chunk.subarray(0, read)]) : chunk.subarray(0, read);
      let start = 0;
      for (;;) {
        const nl = data.indexOf(10, start);
        if (nl < 0) break;
        const text = data.toString('utf8', start, nl + 1);
        let event: TraceEvent;
        try {
          event = parseRecordedLine(text).event;
          if (typeof event.ts !== 'number' || typeof event.server !== 'string') throw new Error('not an event');
        } catch {
          stop = true;
          break scan;
        }
        row.offset = position + start;
        row.length = nl + 1 - start;
        row.ts = event.ts;
        row.server = intern('s', event.server);
        row.channel = CHANNEL_ID.get(event.channel) ?? 0;
        row.kind = KIND_ID.get(event.kind) ?? 0;
        row.method = intern('m', event.rpc?.method);
        row.status = typeof event.http?.status === 'number' ? event.http.status : 0;
        const error = isErrorEvent(event);
        row.flags = error ? FLAG_ERROR : 0;
        row.exchange = intern('x', event.exchange);
        row.session = intern('e', event.session);
        encodeRow(out, outUsed, row, text.includes('"payloadRef":'));
        outUsed += INDEX_RECORD;
        if (outUsed === out.length) flushOut();
        reindexed++;
        if (error) errors++;
        lastTs = event.ts;
        end = position + nl + 1;
        start = nl + 1;
      }
      const rest = data.subarray(start);
      if (rest.length > MAX_LINE) break;
      position += start;
      carry = Buffer.from(rest);
    }
    flushOut();
    const droppedBytes = eventsSize - end;
    if (droppedBytes > 0) ftruncateSync(eventsFd, end);

    const notes = [...meta.notes];
    const events = valid + reindexed;
    const repairs: string[] = [];
    if (droppedBytes > 0) repairs.push(`${plural(droppedBytes, 'byte')} of a torn last line dropped`);
    if (reindexed > 0) repairs.push(`${plural(reindexed, 'event')} indexed again`);
    if (droppedRecords > 0) repairs.push(`${plural(droppedRecords, 'index record')} past the last whole event dropped`);
    notes.push(`ended unexpectedly (its process ${meta.owner ? `${meta.owner.pid} ` : ''}stopped without closing it): ${plural(events, 'event')} kept${repairs.length ? `; ${repairs.join('; ')}` : ''}`);
    const repaired: RecordingMeta = {
      ...meta,
      state: 'unexpected',
      events,
      errors,
      endedAt: lastTs ?? meta.endedAt ?? meta.startedAt,
      notes: notes.slice(-100),
      owner: undefined,
      bytes: 0,
    };
    closeSync(eventsFd);
    closeSync(indexFd);
    closeSync(stringsFd);
    repaired.bytes = recordingBytes(dir);
    writeMeta(dir, repaired);
    return { meta: repaired, reindexed, droppedRecords, droppedBytes };
  } catch (error) {
    for (const fd of [eventsFd, indexFd, stringsFd]) {
      try {
        closeSync(fd);
      } catch {
        /* closed already */
      }
    }
    throw error;
  }
}
