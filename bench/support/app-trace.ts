/**
 * The trace a tracked bench side records into, built as the app builds it by default
 * (main/core/app.ts): the session recorded as it happens into a recordings library, every event
 * written to the recording (no spill file). The library lives in a temp dir, removed on close.
 *
 * BENCH_TRACE picks what the tracked side does with what the tracking fetch sees, to tell where
 * tracking's cost goes in the real client processes of bench/run.ts (bench/tracking-cost.ts splits
 * it in one process, where the same parts cost less):
 *   recording   the app's default, as above
 *   spill       recordings off (`recordings: false`): events written through to a per-session spill
 *               file (BENCH_RECORDING=0 says the same)
 *   unwritten   the store indexes, snapshots and hands on every event; its sink writes nothing
 *   unrecorded  the tracking fetch alone (headers, body observation, parsing, summaries): every
 *               event it makes is dropped
 * Only `recording` is the app; the goals are judged on it. The others are for taking it apart.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RecordingLibrary } from '../../main/core/recordings/library';
import { scrubber } from '../../main/core/trace/export-jsonl';
import { TraceHub } from '../../main/core/trace/hub';
import type { Redactor } from '../../main/core/trace/redact';
import type { RecordEvent } from '../../main/core/trace/rpc';
import type { TraceSink } from '../../main/core/trace/store';

export type TraceMode = 'recording' | 'spill' | 'unwritten' | 'unrecorded';
const MODES: readonly TraceMode[] = ['recording', 'spill', 'unwritten', 'unrecorded'];

function modeFromEnv(): TraceMode {
  const asked = process.env['BENCH_TRACE'];
  if (asked === undefined || asked === '') return process.env['BENCH_RECORDING'] === '0' ? 'spill' : 'recording';
  if (!(MODES as readonly string[]).includes(asked)) throw new Error(`BENCH_TRACE=${asked}: expected one of ${MODES.join(', ')}`);
  return asked as TraceMode;
}

export const MODE: TraceMode = modeFromEnv();

const DESCRIPTION: Record<TraceMode, string> = {
  recording: 'recorded to a live recording, as the app does by default',
  spill: 'spill file only (recordings off), not the app default',
  unwritten: 'BENCH_TRACE=unwritten: stored and indexed, written nowhere, not the app',
  unrecorded: 'BENCH_TRACE=unrecorded: the tracking fetch alone, every event dropped, not the app',
};

/** What the tracked side records into, in words (for the printed rows). */
export const TRACE_MODE = DESCRIPTION[MODE];

export interface AppTrace {
  hub: TraceHub;
  /** What the tracking fetch hands its events to (the hub's `record`, or nothing in `unrecorded`). */
  record: RecordEvent;
  close(): void;
}

/** A recording that writes nothing: the store indexes and hands on every event, and serializes none. */
export function discardingSink(): TraceSink {
  let offset = 0;
  return {
    append: () => ({ offset: offset++, length: 1 }),
    writeBlob: () => ({ offset: 0, length: 0 }),
    bytes: () => 0,
    readEvent: () => {
      throw new Error('bench: nothing was written');
    },
    readBlob: () => '',
    close: () => undefined,
  };
}

/** `redactors`: the connections' (the recording's last net before disk, as the app's `scrubber` over them). */
export function appTrace(redactors: Redactor[], mode: TraceMode = MODE): AppTrace {
  if (mode !== 'recording') {
    const hub = new TraceHub(undefined, mode === 'unwritten' ? { store: { sink: discardingSink() } } : undefined);
    return { hub, record: mode === 'unrecorded' ? () => undefined : hub.record, close: () => hub.close() };
  }
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-bench-recordings-'));
  const library = new RecordingLibrary({ dir, retentionIntervalMs: 0 });
  const live = library.startLive({ kind: 'app', app: { name: 'Switchboard bench', version: '0.0.0' }, servers: () => [], redact: () => scrubber(redactors) });
  const hub = new TraceHub(undefined, { store: live.storeOptions });
  return {
    hub,
    record: hub.record,
    close: () => {
      hub.close();
      live.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
