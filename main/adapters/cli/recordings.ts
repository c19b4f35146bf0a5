/**
 * `switchboard recordings list|export`: the recordings library (#13) from the command line.
 * Reads the library under `--data-dir` (the CLI's default data directory otherwise) without
 * starting a core or connecting anything; an export is streamed from the recording's files to
 * the output (a file, or stdout) with backpressure, never held whole.
 */
import { join } from 'node:path';
import envPaths from 'env-paths';
import type { RecordingSummary } from '../../../contract';
import { exportTrace } from '../../core/handlers/trace';
import { RecordingLibrary } from '../../core/recordings/library';
import { saveChunksToFile, writeChunks, type ChunkSink } from '../../core/trace/bulk-io';
import { EXIT, UsageError } from './args';

/** Where the CLI keeps what outlives a run (tokens, the audit, the recordings library). */
export function cliDataDir(flag: string | undefined): string {
  return flag ?? envPaths('switchboard', { suffix: '' }).config;
}

/** The library inside a data directory (the same place the app's `--data-dir` uses). */
export function libraryDir(dataDir: string): string {
  return join(dataDir, 'recordings');
}

export interface RecordingsIo {
  out: (text: string) => void;
  err: (text: string) => void;
  /** Exact output (JSON). */
  json: (text: string) => void;
  /** Raw stdout for streamed exports (backpressure); absent: `json` is used. */
  stdout?: ChunkSink;
  version: string;
}

export const RECORDINGS_HELP = `  switchboard recordings list [--data-dir DIR] [--json]
  switchboard recordings export ID --format har|jsonl|otlp [--out FILE] [--data-dir DIR]`;

/**
 * The library as the CLI reads it: recordings whose process died are repaired first (as the app
 * does at start), but nothing is removed: retention is the app's setting, not this command's.
 */
function openLibrary(dir: string): RecordingLibrary {
  const library = new RecordingLibrary({ dir, retention: () => ({ maxBytes: 1024 ** 4, maxAgeDays: 0 }) });
  library.recover();
  return library;
}

export async function recordingsCommand(sub: string | undefined, values: { 'data-dir'?: string; json?: boolean; format?: string; out?: string }, positionals: string[], io: RecordingsIo): Promise<number> {
  const dir = libraryDir(cliDataDir(values['data-dir']));
  if (sub === 'list') {
    if (positionals.length) throw new UsageError(`recordings list takes no arguments (got "${positionals[0]}").`);
    const library = openLibrary(dir);
    const recordings = library.list();
    if (values.json) io.json(JSON.stringify({ dir, totalBytes: library.totalBytes(), recordings }, null, 2) + '\n');
    else if (recordings.length === 0) io.err(`switchboard: no recordings in ${dir}.\n`);
    else io.out(listText(recordings));
    return EXIT.ok;
  }
  if (sub === 'export') return exportRecording(dir, values, positionals, io);
  throw new UsageError(sub === undefined ? `recordings needs a subcommand:\n${RECORDINGS_HELP}` : `Unknown recordings subcommand "${sub}": list or export.`);
}

async function exportRecording(dir: string, values: { format?: string; out?: string }, positionals: string[], io: RecordingsIo): Promise<number> {
  const id = positionals[0];
  if (!id || positionals.length > 1) throw new UsageError('recordings export needs one recording id: switchboard recordings export ID --format har|jsonl|otlp [--out FILE].');
  const format = values.format;
  if (format !== 'har' && format !== 'jsonl' && format !== 'otlp') throw new UsageError('--format must be har, jsonl or otlp.');
  const library = openLibrary(dir);
  if (!library.get(id)) throw new UsageError(`No recording "${id}" in ${dir} ("switchboard recordings list" shows them).`);
  const opened = await library.open(id);
  try {
    const { chunks } = exportTrace(format, {
      hub: opened.hub,
      opened: { app: opened.app, startedAt: opened.startedAt, servers: opened.summary.servers, configs: opened.configs },
      // Redacted before it reached disk; nothing of this run's servers to add.
      configs: [],
      redactors: [],
      version: io.version,
    });
    if (values.out) {
      let bytes: number;
      try {
        bytes = await saveChunksToFile(values.out, chunks);
      } catch (error) {
        throw new UsageError(`Cannot write ${values.out}: ${(error as Error).message}`);
      }
      io.err(`wrote ${values.out} (${opened.summary.events} events, ${bytes} bytes)\n`);
      return EXIT.ok;
    }
    if (!io.stdout) {
      for await (const chunk of chunks) io.json(chunk);
      return EXIT.ok;
    }
    try {
      await writeChunks(chunks, io.stdout);
    } catch (error) {
      // The reader went away (`| head`): what it wanted it has.
      if ((error as NodeJS.ErrnoException).code !== 'EPIPE') throw error;
    }
    return EXIT.ok;
  } finally {
    opened.hub.close();
  }
}

function listText(recordings: RecordingSummary[]): string {
  const rows = recordings.map((r) => [
    r.id,
    new Date(r.startedAt).toISOString().replace('T', ' ').slice(0, 19),
    duration(r.durationMs),
    String(r.events),
    String(r.errors),
    size(r.bytes),
    r.ended === 'recording' ? 'still recording' : r.ended === 'unexpected' ? 'ended unexpectedly' : r.ended,
    r.kind,
    [r.name, ...r.tags.map((t) => `#${t}`)].join(' '),
  ]);
  const header = ['ID', 'STARTED (UTC)', 'DURATION', 'EVENTS', 'ERRORS', 'SIZE', 'ENDED', 'KIND', 'NAME'];
  const widths = header.map((h, i) => Math.min(40, Math.max(h.length, ...rows.map((row) => row[i]!.length))));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd() + '\n';
  return [header, ...rows].map(line).join('');
}

function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 ** 2) return `${(bytes / 1024).toFixed(1)} KB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
  return `${(bytes / 1024 ** 3).toFixed(2)} GB`;
}
