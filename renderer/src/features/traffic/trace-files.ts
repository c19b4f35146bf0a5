/**
 * The trace as a file, out and in: what the Traffic view's Export and Import do, and what the
 * command palette's "Export trace" / "Import a trace" do (one implementation for both). Browser
 * mode streams over the host's bulk routes; Electron goes through the contract.
 */
import { notifications } from '@mantine/notifications';
import type { SwitchboardApi as Api } from '../../../../contract/client';
import { bulkTransfer, downloadTrace, uploadTrace } from '../../api/bulk';
import { downloadText } from '../../components/download';
import { navigation } from '../../state/navigation';
import { formatCount } from '../../components/format';
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

/** Saves the whole trace of `source` (live or an imported one), secrets redacted; a failure is a notification. */
export async function exportTraceFile(api: Api, format: 'jsonl' | 'har', source: string): Promise<void> {
  try {
    if (bulkTransfer()) await downloadTrace(format, source);
    else {
      const { filename, mimeType, text } = await api.traceExport({ format, source });
      downloadText(filename, text, mimeType);
    }
  } catch (error) {
    notifications.show({ color: 'red', title: `Export as ${format.toUpperCase()} failed`, message: errorMessage(error) });
  }
}

/** Opens a JSONL trace read-only and shows it (Traffic, Charts and Timeline read it until "Back to live"). */
export async function importTraceFile(api: Api, file: File): Promise<void> {
  try {
    // Browser mode streams the file to the host; the contract would carry it as one message.
    const result = bulkTransfer() ? await uploadTrace(file) : await api.traceImport({ name: file.name, text: await file.text() });
    importedServers.set(result.source, result.servers);
    navigation.useSource({ id: result.source, name: file.name });
    notifications.show({
      color: result.problems.length ? 'yellow' : undefined,
      title: `Opened ${file.name} read-only`,
      message: importSummary(result.events, result.problems),
      autoClose: result.problems.length ? false : undefined,
      'data-testid': 'trace-import-notice',
    });
  } catch (error) {
    notifications.show({ color: 'red', title: `Could not open ${file.name}`, message: errorMessage(error) });
  }
}

/** Asks for a trace file (the system's file picker), then imports it. */
export function pickAndImportTrace(api: Api): void {
  const input = document.createElement('input');
  input.type = 'file';
  input.accept = TRACE_FILE_ACCEPT;
  input.style.display = 'none';
  input.addEventListener('change', () => {
    const file = input.files?.[0];
    input.remove();
    if (file) {
      navigation.show('traffic');
      void importTraceFile(api, file);
    }
  });
  document.body.append(input);
  input.click();
}

/**
 * Adds a JSONL trace file to the recordings library (browser mode: POST /api/recordings/import;
 * Electron: `traceOpenFile({ into: 'library' })`); answers the new recording's summary, or undefined after a notification.
 * GROUNDWORK STUB: the bulk helper builds it.
 */
export async function importRecordingFile(_api: Api, file?: File): Promise<import('../../../../contract').RecordingSummary | undefined> {
  notifications.show({ color: 'red', title: `Could not import ${file?.name ?? 'the file'}`, message: 'Importing into the library is not built yet.' });
  return undefined;
}
