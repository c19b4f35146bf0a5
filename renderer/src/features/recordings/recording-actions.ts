/**
 * What a library row does: open a recording read-only (every view reads it until "Back to live"),
 * export it, replay it. A recording is opened in main before anything reads it (`recordingOpen`
 * registers its trace source `rec-ID`; the live session's own answers `live`).
 */
import { notifications } from '@mantine/notifications';
import type { RecordingSummary } from '../../../../contract';
import type { SwitchboardApi as Api } from '../../../../contract/client';
import { navigation } from '../../state/navigation';
import { exportTraceFile, importedServers } from '../traffic';

const errorMessage = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Opens it in main (once) and answers its source; undefined after a notification saying why not. */
export async function openQuietly(api: Api, recording: RecordingSummary): Promise<{ id: string; name: string } | undefined> {
  try {
    const { source, summary } = await api.recordingOpen({ id: recording.id });
    if (source === 'live') return { id: 'live', name: 'Live' };
    // Traffic and Charts name the recording's servers from this (they are not connected now).
    importedServers.set(source, summary.servers);
    return { id: source, name: summary.name };
  } catch (error) {
    notifications.show({ color: 'red', title: `Could not open ${recording.name}`, message: errorMessage(error) });
    return undefined;
  }
}

/** Open: every view reads the recording (read-only) and Traffic shows. */
export async function openRecording(api: Api, recording: RecordingSummary): Promise<void> {
  const source = await openQuietly(api, recording);
  if (!source) return;
  navigation.useSource(source);
  navigation.show('traffic');
}

export async function exportRecording(api: Api, recording: RecordingSummary, format: 'jsonl' | 'har' | 'otlp'): Promise<void> {
  const source = await openQuietly(api, recording);
  if (source) await exportTraceFile(api, format, source.id);
}

export async function replayRecording(api: Api, recording: RecordingSummary): Promise<void> {
  const source = await openQuietly(api, recording);
  if (source) navigation.showRecordings({ tab: 'replay', source });
}
