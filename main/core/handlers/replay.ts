/**
 * Handlers for replay: the recorded requests of a trace source that can be sent again, and a
 * run that sends them to a connected server and compares (main/core/replay/).
 */
import type { Handlers } from '../dispatcher';
import { scanRequests, toolsOf } from '../replay/candidates';
import { replay, type ReplaySource } from '../replay/replay';
import type { CoreContext } from './context';

type ReplayHandlers = Pick<Handlers, 'replayCandidates' | 'replayRun'>;

/** Candidates listed at most (the total says how many there are). */
const MAX_LISTED = 5_000;

export function replayHandlers(ctx: CoreContext): ReplayHandlers {
  const sourceOf = (source: string): ReplaySource => {
    if (source === 'live') return { source, hub: ctx.trace, serverName: (id) => ctx.connections.get(id)?.config.name ?? id };
    const opened = ctx.sources.require(source);
    const names = new Map(opened.servers.map((s) => [s.id, s.name]));
    return { source, hub: opened.hub, serverName: (id) => names.get(id) ?? id };
  };

  return {
    replayCandidates: async ({ source, only, seqs }) => {
      const from = sourceOf(source);
      // A listing keeps no bodies: summaries and pairing only.
      const { requests, total } = scanRequests(from.hub, { only, seqs, serverName: from.serverName, max: MAX_LISTED, bodies: false });
      const listed = requests.filter((r) => !r.refused);
      return { candidates: listed.map((r) => r.candidate), tools: toolsOf(listed), total: total - (requests.length - listed.length) };
    },
    replayRun: async ({ source, ...args }) => replay(ctx, sourceOf(source), args),
  };
}
