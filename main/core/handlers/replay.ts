/** Handlers for replay. GROUNDWORK STUB: the replay helper implements them (core in main/core/replay/). */
import type { Handlers } from '../dispatcher';
import { CoreError } from '../errors';
import type { CoreContext } from './context';

type ReplayHandlers = Pick<Handlers, 'replayCandidates' | 'replayRun'>;

export function replayHandlers(_ctx: CoreContext): ReplayHandlers {
  const notYet = async (): Promise<never> => {
    throw new CoreError('failed', 'Replay is not built yet.');
  };
  return { replayCandidates: notYet, replayRun: notYet };
}
