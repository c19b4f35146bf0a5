/**
 * The trace a tracked bench side records into, built as the app builds it by default
 * (main/core/app.ts): the session recorded as it happens into a recordings library, every event
 * written to the recording (no spill file). The library lives in a temp dir, removed on close.
 *
 * BENCH_RECORDING=0 measures the app with recordings turned off instead (`recordings: false`:
 * events written through to a per-session spill file).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RecordingLibrary } from '../../main/core/recordings/library';
import { scrubber } from '../../main/core/trace/export-jsonl';
import { TraceHub } from '../../main/core/trace/hub';
import type { Redactor } from '../../main/core/trace/redact';

export const RECORDING = process.env['BENCH_RECORDING'] !== '0';

/** What the tracked side records into, in words (for the printed rows). */
export const TRACE_MODE = RECORDING ? 'recorded to a live recording, as the app does by default' : 'spill file only (BENCH_RECORDING=0: recordings off)';

export interface AppTrace {
  hub: TraceHub;
  close(): void;
}

/** `redactors`: the connections' (the recording's last net before disk, as the app's `scrubber` over them). */
export function appTrace(redactors: Redactor[]): AppTrace {
  if (!RECORDING) {
    const hub = new TraceHub(undefined);
    return { hub, close: () => hub.close() };
  }
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-bench-recordings-'));
  const library = new RecordingLibrary({ dir, retentionIntervalMs: 0 });
  const live = library.startLive({ kind: 'app', app: { name: 'Switchboard bench', version: '0.0.0' }, servers: () => [], redact: () => scrubber(redactors) });
  const hub = new TraceHub(undefined, { store: live.storeOptions });
  return {
    hub,
    close: () => {
      hub.close();
      live.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
