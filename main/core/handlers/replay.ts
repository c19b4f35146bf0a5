/**
 * Handlers for replay: the recorded requests of a trace source that can be sent again, and a
 * run that sends them to a connected server and compares (main/core/replay/).
 */
import type { Handlers } from '../dispatcher';
import { CoreError } from '../errors';
import { toolsOf } from '../replay/candidates';
import { plannedRequests, replay, type ReplaySource } from '../replay/replay';
import type { CoreContext } from './context';

type ReplayHandlers = Pick<Handlers, 'replayCandidates' | 'replayRun'>;

/** Candidates listed at most (the total says how many there are). */
const MAX_LISTED = 5_000;

export function replayHandlers(ctx: CoreContext): ReplayHandlers {
  const sourceOf = (source: string): ReplaySource => {
    if (source === 'live') return { source, hub: ctx.trace, serverName: (id) => ctx.connections.get(id)?.config.name ?? id };
    const opened = ctx.sources.get(source);
    if (!opened) throw new CoreError('not-found', source.startsWith('rec-') ? `Recording "${source.slice(4)}" is not open (open it from the library).` : `No imported trace "${source}" (it may have been closed).`);
    const names = new Map(opened.servers.map((s) => [s.id, s.name]));
    return { source, hub: opened.hub, serverName: (id) => names.get(id) ?? id };
  };

  return {
    replayCandidates: async ({ source, only, seqs }) => {
      const requests = plannedRequests(sourceOf(source), { only, seqs }).filter((r) => !r.refused);
      return { candidates: requests.slice(0, MAX_LISTED).map((r) => r.candidate), tools: toolsOf(requests), total: requests.length };
    },
    replayRun: async ({ source, ...args }) => replay(ctx, sourceOf(source), args),
  };
}
