/**
 * The recordings library (#13): one directory per recorded session under the data directory.
 * The live session writes into its own as events happen; past ones are listed, opened read-only,
 * renamed, tagged, deleted, imported; retention bounds the library by size and age.
 *
 * GROUNDWORK STUB: the interface is agreed; the engine helper implements it (see docs/recordings.md).
 */
import type { RecordingKind, RecordingRetention, RecordingSummary, ServerConfig } from '../../../contract';
import type { TraceHub } from '../trace/hub';
import type { TraceStoreOptions } from '../trace/store';

export interface RecordingLibraryOptions {
  /** The library's directory (created if missing). */
  dir: string;
  /** Read whenever retention is applied (the setting may change while running). */
  retention?: () => RecordingRetention;
  /** Lines for the app log (a recording repaired, removed by retention, a write that failed). */
  log?: (level: 'info' | 'warning' | 'error', text: string) => void;
  /** The library changed: the carriers push `recordingsChanged`. */
  onChange?: (reason: string) => void;
}

export interface LiveRecordingStart {
  kind: RecordingKind;
  name?: string;
  app: { name: string; version: string };
  /** The servers' configurations for the recording's header; asked again as servers change. */
  servers: () => ServerConfig[];
  /** The last net before disk: every known secret replaced (the export's scrubber over all redactors). */
  redact: () => (text: string) => string;
}

export interface LiveRecording {
  readonly id: string;
  readonly dir: string;
  /** Options for the live TraceStore so that it writes every event into this recording. */
  readonly storeOptions: TraceStoreOptions;
  /** Writes and fsyncs what is pending now. */
  flush(): void;
  /** Ends it cleanly (`ended: clean`). */
  close(): void;
}

/** A recording opened read-only: a trace hub over its files, and its header. */
export interface OpenedRecording {
  hub: TraceHub;
  summary: RecordingSummary;
  app: { name: string; version: string };
  startedAt: number;
  configs: ServerConfig[];
}

const notYet = (what: string): never => {
  throw new Error(`recordings: ${what} is not built yet`);
};

export class RecordingLibrary {
  readonly dir: string;

  constructor(options: RecordingLibraryOptions) {
    this.dir = options.dir;
  }

  /** Recordings left by processes that died: repaired (torn tail dropped, index rebuilt) and marked `unexpected`; then retention. */
  recover(): { repaired: string[]; removed: string[] } {
    return notYet('recover');
  }

  startLive(_start: LiveRecordingStart): LiveRecording {
    return notYet('startLive');
  }

  /** Newest first. */
  list(): RecordingSummary[] {
    return notYet('list');
  }

  get(_id: string): RecordingSummary | undefined {
    return notYet('get');
  }

  /** Opens read-only without reading it whole: the caller closes the hub. */
  open(_id: string): Promise<OpenedRecording> {
    return notYet('open');
  }

  update(_id: string, _patch: { name?: string; tags?: string[] }): RecordingSummary {
    return notYet('update');
  }

  /** Deletes one from disk; never the live one. */
  delete(_id: string): boolean {
    return notYet('delete');
  }

  /** A JSONL trace streamed into the library as a new recording (`kind: import`). */
  import(_name: string, _chunks: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>): Promise<{ summary: RecordingSummary; problems: { line: number; message: string }[] }> {
    return notYet('import');
  }

  /** Applies retention now; answers the ids removed. */
  enforceRetention(): string[] {
    return notYet('enforceRetention');
  }

  totalBytes(): number {
    return notYet('totalBytes');
  }
}
