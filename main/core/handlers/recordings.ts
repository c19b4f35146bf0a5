/**
 * Handlers for the recordings library (#13): list, open read-only, rename/tag, delete.
 * An opened recording is a trace source `rec-<id>` in `ctx.sources` (a TraceHub over its files,
 * like an imported trace), so every trace handler — queries, events, snapshots, exports — reads it.
 * The live session's own recording answers source `live` and is never deleted.
 */
import type { RecordingSummary } from '../../../contract';
import type { Handlers } from '../dispatcher';
import { CoreError } from '../errors';
import type { RecordingLibrary } from '../recordings/library';
import type { CoreContext } from './context';

type RecordingHandlers = Pick<Handlers, 'recordingsList' | 'recordingOpen' | 'recordingUpdate' | 'recordingDelete'>;

/** The trace source a recording is read through once opened. */
export const recordingSource = (id: string): string => `rec-${id}`;

export function recordingHandlers(ctx: CoreContext): RecordingHandlers {
  const library = (): RecordingLibrary => {
    if (!ctx.recordings) throw new CoreError('failed', 'This run records nothing: it has no data directory (start it with --data-dir to keep recordings).');
    return ctx.recordings;
  };
  const isLive = (id: string) => ctx.liveRecording?.id === id;
  /** The summary as this process sees it: only its own recording is `live`. */
  const marked = (summary: RecordingSummary): RecordingSummary => (isLive(summary.id) === summary.live ? summary : { ...summary, live: isLive(summary.id) });
  const find = (id: string): RecordingSummary => {
    const summary = library().get(id);
    if (!summary) throw new CoreError('not-found', `No recording "${id}" in the library (it may have been deleted or removed by retention).`);
    return marked(summary);
  };
  /** Opening the same recording twice (two views, a second click) opens its files once. */
  const opening = new Map<string, Promise<void>>();

  return {
    recordingsList: async () => {
      const retention = ctx.settings.read().recordingRetention;
      if (!ctx.recordings) return { recordings: [], totalBytes: 0, retention };
      const recordings = ctx.recordings.list().map(marked);
      // The total from the same listing (totalBytes() would read every meta file again).
      return { recordings, dir: ctx.recordings.dir, totalBytes: recordings.reduce((sum, r) => sum + r.bytes, 0), retention };
    },

    recordingOpen: async ({ id }) => {
      const summary = find(id);
      if (summary.live) return { source: 'live', summary };
      const source = recordingSource(id);
      if (!ctx.sources.get(source)) {
        let pending = opening.get(source);
        if (!pending) {
          pending = (async () => {
            let opened;
            try {
              opened = await library().open(id);
            } catch (error) {
              if (error instanceof CoreError) throw error;
              throw new CoreError('failed', `Could not open recording "${summary.name}": ${error instanceof Error ? error.message : String(error)}`);
            }
            ctx.sources.set(source, {
              hub: opened.hub,
              name: opened.summary.name,
              app: opened.app,
              startedAt: opened.startedAt,
              servers: opened.summary.servers,
              configs: opened.configs,
            });
          })().finally(() => opening.delete(source));
          opening.set(source, pending);
        }
        await pending;
      }
      return { source, summary };
    },

    recordingUpdate: async ({ id, name, tags }) => {
      find(id);
      const patch: { name?: string; tags?: string[] } = {};
      if (name !== undefined) patch.name = name;
      if (tags !== undefined) patch.tags = tags;
      const summary = marked(library().update(id, patch));
      const open = ctx.sources.get(recordingSource(id));
      if (open && patch.name !== undefined) ctx.sources.set(recordingSource(id), { ...open, name: summary.name });
      return summary;
    },

    recordingDelete: async ({ id }) => {
      const summary = find(id);
      if (summary.live) throw new CoreError('conflict', `"${summary.name}" is this session's own recording, still being written: it cannot be deleted while Switchboard runs. Delete it from the library after a restart.`);
      // Its files go: a view reading it would read nothing.
      ctx.sources.close(recordingSource(id));
      return { deleted: library().delete(id) };
    },
  };
}
