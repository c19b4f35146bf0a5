/** Handlers for the recordings library. GROUNDWORK STUB: the library helper implements them. */
import type { Handlers } from '../dispatcher';
import { CoreError } from '../errors';
import type { CoreContext } from './context';

type RecordingHandlers = Pick<Handlers, 'recordingsList' | 'recordingOpen' | 'recordingUpdate' | 'recordingDelete'>;

export function recordingHandlers(_ctx: CoreContext): RecordingHandlers {
  const notYet = async (): Promise<never> => {
    throw new CoreError('failed', 'Recordings are not built yet.');
  };
  return { recordingsList: notYet, recordingOpen: notYet, recordingUpdate: notYet, recordingDelete: notYet };
}
