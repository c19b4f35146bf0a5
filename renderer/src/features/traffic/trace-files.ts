/**
 * The trace as a file, out and in: what the Traffic view's Export and Import do, what the
 * command palette's "Export trace" / "Import a trace" do, and the Recordings view's import (one
 * implementation for all). No file's bytes travel the contract: browser mode streams over the
 * host's bulk routes (the page uploads the `File`, the browser saves a download); Electron asks
 * main (`traceSaveFile` / `traceOpenFile`), whose native dialog picks the path and whose core
 * streams the file to or from disk.
 */
import { notifications } from '@mantine/notifications';
import type { RecordingSummary } from '../../../../contract';
import type { SwitchboardApi as Api } from '../../../../contract/client';
import { bulkTransfer, downloadTrace, uploadRecording, uploadTrace } from '../../api/bulk';
import { navigation } from '../../state/navigation';
import { formatBytes, formatCount } from '../../components/format';
import { importedServers } from './traffic-store';

const errorMessage = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The file types an import accepts (the file picker's filter). */
export const TRACE_FILE_ACCEPT = '.jsonl,.ndjson,.json,.txt,application/x-ndjson,application/json,text/plain';

/** "5,000 events kept. 2 problems: line 4: not JSON …; line 9: …" — what was wrong, where, and what was kept. */
export function importSummary(events: number, problems: { line: number; message: string }[]): string {
  const kept = `${formatCount(events)} events${problems.length ? ' kept' : ''}.`;
  if (problems.length === 0) return kept;
  const shown = problems.slice(0, 3).map((p) => `line ${p.line.toLocaleString('en-US')}: ${p.message}`);
  const more = problems.length > 3 ? `; … ${problems.length - 3} more (${problems.at(-1)!.message})` : '';
  return `${kept} ${problems.length} problem${problems.length === 1 ? '' : 's'}: ${shown.join('; ')}${more}.`;
}

/** Where files are picked: by the page (browser mode, an `<input type=file>`), or by main's native dialog (Electron). */
export function filesPickedInPage(): boolean {
  return bulkTransfer();
}

/** Saves the whole trace of `source` (live, an imported one, a recording), secrets redacted; a failure is a notification. */
export async function exportTraceFile(api: Api, format: 'jsonl' | 'har' | 'otlp', source: string): Promise<void> {
  try {
    if (bulkTransfer()) {
      await downloadTrace(format, source);
      return;
    }
    const saved = await api.traceSaveFile({ format, source });
    if (saved.saved) notifications.show({ title: `Exported as ${format.toUpperCase()}`, message: `${formatBytes(saved.bytes)} written to ${saved.path}`, 'data-testid': 'trace-export-notice' });
  } catch (error) {
    notifications.show({ color: 'red', title: `Export as ${format.toUpperCase()} failed`, message: errorMessage(error) });
  }
}

/**
 * Opens a JSONL trace read-only and shows it (Traffic, Charts and Timeline read it until "Back to
 * live"): the page's `file` uploaded (browser mode), or, without one, a file main's dialog picks (Electron).
 */
export async function importTraceFile(api: Api, file?: File): Promise<void> {
  const name = file?.name ?? 'the file';
  try {
    let opened: { name: string; source: string; events: number; servers: { id: string; name: string }[]; problems: { line: number; message: string }[] };
    if (file && bulkTransfer()) opened = { name: file.name, ...(await uploadTrace(file)) };
    else {
      const reply = await api.traceOpenFile({ into: 'view' });
      if (!reply.opened || !reply.source) return; // the person cancelled the dialog
      opened = { name: reply.name ?? 'trace', source: reply.source, events: reply.events ?? 0, servers: reply.servers ?? [], problems: reply.problems };
    }
    importedServers.set(opened.source, opened.servers);
    navigation.useSource({ id: opened.source, name: opened.name });
    notifications.show({
      color: opened.problems.length ? 'yellow' : undefined,
      title: `Opened ${opened.name} read-only`,
      message: importSummary(opened.events, opened.problems),
      autoClose: opened.problems.length ? false : undefined,
      'data-testid': 'trace-import-notice',
    });
  } catch (error) {
    notifications.show({ color: 'red', title: `Could not open ${name}`, message: errorMessage(error) });
  }
}

/** Asks for a trace file (the page's file picker, or main's dialog in Electron), then imports it. */
export function pickAndImportTrace(api: Api): void {
  if (!filesPickedInPage()) {
    navigation.show('traffic');
    void importTraceFile(api);
    return;
  }
  void pickFile().then((file) => {
    if (!file) return;
    navigation.show('traffic');
    void importTraceFile(api, file);
  });
}

/**
 * Adds a JSONL trace file to the recordings library (browser mode: `file`, or one the page's
 * picker asks for, posted to /api/recordings/import; Electron: `traceOpenFile({ into: 'library' })`,
 * main's dialog); answers the new recording's summary, or undefined (cancelled, or failed with a notification).
 */
export async function importRecordingFile(api: Api, file?: File): Promise<RecordingSummary | undefined> {
  let name = file?.name ?? 'the file';
  try {
    let added: { recording: RecordingSummary; problems: { line: number; message: string }[] };
    if (bulkTransfer()) {
      const picked = file ?? (await pickFile());
      if (!picked) return undefined;
      name = picked.name;
      added = await uploadRecording(picked);
    } else {
      const reply = await api.traceOpenFile({ into: 'library' });
      if (!reply.opened || !reply.recording) return undefined;
      added = { recording: reply.recording, problems: reply.problems };
    }
    notifications.show({
      color: added.problems.length ? 'yellow' : undefined,
      title: `Added ${added.recording.name} to the library`,
      message: importSummary(added.recording.events, added.problems),
      autoClose: added.problems.length ? false : undefined,
      'data-testid': 'recording-import-notice',
    });
    return added.recording;
  } catch (error) {
    notifications.show({ color: 'red', title: `Could not import ${name}`, message: errorMessage(error) });
    return undefined;
  }
}

/** The page's file picker, once: the chosen file, or undefined when the person cancelled. */
function pickFile(): Promise<File | undefined> {
  return new Promise((resolve) => {
    const input = document.createElement('input');
    input.type = 'file';
    input.accept = TRACE_FILE_ACCEPT;
    input.style.display = 'none';
    input.dataset.testid = 'trace-file-picker';
    const done = (file: File | undefined) => {
      input.remove();
      resolve(file);
    };
    input.addEventListener('change', () => done(input.files?.[0]));
    input.addEventListener('cancel', () => done(undefined));
    document.body.append(input);
    input.click();
  });
}
