/**
 * Trace files in and out of browser mode over HTTP, beside the contract: the host's bulk routes
 * (main/adapters/web/bulk-routes.ts). An upload streams the `File` from disk as the request body
 * and a download is a link the browser saves by itself, so a trace of hundreds of megabytes is
 * never one WebSocket message nor one string in the page. Electron has no such routes: there the
 * contract's `traceSaveFile`/`traceOpenFile` open a native dialog in main, which streams the file
 * to or from disk itself. `bulkTransfer()` says which to use; no file's bytes travel the contract.
 */
import type { RecordingSummary } from '../../../contract';
import { carrierKind } from './carrier';

export const BULK_IMPORT_PATH = '/api/trace/import';
export const BULK_EXPORT_PATH = '/api/trace/export';
export const RECORDING_IMPORT_PATH = '/api/recordings/import';

type Problem = { line: number; message: string };

/** POST /api/trace/import's answer: the file opened read-only as `source`. */
export interface TraceUploaded {
  source: string;
  events: number;
  servers: { id: string; name: string }[];
  problems: Problem[];
}

/** POST /api/recordings/import's answer: the file added to the library. */
export interface RecordingUploaded {
  recording: RecordingSummary;
  problems: Problem[];
}

/** True where the HTTP routes exist: browser mode (the page came from the host that has them). */
export function bulkTransfer(): boolean {
  return carrierKind() === 'browser';
}

/** Posts a trace file to the host, opened read-only; throws the host's message. */
export function uploadTrace(file: File): Promise<TraceUploaded> {
  return upload<TraceUploaded>(BULK_IMPORT_PATH, file);
}

/** Posts a trace file to the host, added to the recordings library; throws the host's message. */
export function uploadRecording(file: File): Promise<RecordingUploaded> {
  return upload<RecordingUploaded>(RECORDING_IMPORT_PATH, file);
}

async function upload<T>(path: string, file: File): Promise<T> {
  let response: Response;
  try {
    response = await fetch(`${path}?name=${encodeURIComponent(file.name)}`, {
      method: 'POST',
      body: file,
      headers: { 'content-type': 'application/x-ndjson' },
      credentials: 'same-origin',
    });
  } catch (error) {
    throw new Error(`The upload did not reach Switchboard (${error instanceof Error ? error.message : String(error)}). Is "npm run web" still running?`, { cause: error });
  }
  if (!response.ok) throw new Error(await errorOf(response));
  return (await response.json()) as T;
}

/**
 * Saves an export: the route is checked first (HEAD, no body) so a failure is a message here
 * rather than a broken download, then a link to it is clicked and the browser streams it to disk.
 */
export async function downloadTrace(format: 'jsonl' | 'har' | 'otlp', source: string): Promise<void> {
  const url = `${BULK_EXPORT_PATH}?${new URLSearchParams({ format, source })}`;
  const check = await fetch(url, { method: 'HEAD', credentials: 'same-origin' });
  if (!check.ok) {
    // A HEAD answer has no body: ask again for the words (errors are answered before any streaming).
    const again = await fetch(url, { credentials: 'same-origin' });
    if (again.ok) {
      void again.body?.cancel();
      throw new Error(`HTTP ${check.status} ${check.statusText}`);
    }
    throw new Error(await errorOf(again));
  }
  const a = document.createElement('a');
  a.href = url;
  a.download = '';
  a.rel = 'noopener';
  document.body.append(a);
  a.click();
  a.remove();
}

async function errorOf(response: Response): Promise<string> {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { error?: { message?: string } };
    if (body.error?.message) return body.error.message;
  } catch {
    // not JSON: the gate's plain-text answer
  }
  return `${response.status} ${response.statusText}${text ? `: ${text.trim().slice(0, 300)}` : ''}`;
}
