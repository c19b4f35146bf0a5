/**
 * Handlers for replay: the recorded requests of a trace source that can be sent again, and a
 * run that sends them to a connected server and compares (main/core/replay/).
 */
import type { Handlers } from '../dispatcher';
import { CoreError } from '../errors';
import { scanRequests, toolsOf, type RecordedRequest } from '../replay/candidates';
import { runReplay } from '../replay/run';
import type { TraceHub } from '../trace/hub';
import type { CoreContext } from './context';

type ReplayHandlers = Pick<Handlers, 'replayCandidates' | 'replayRun'>;

/** Candidates listed at most (the total says how many there are). */
const MAX_LISTED = 5_000;

export function replayHandlers(ctx: CoreContext): ReplayHandlers {
  const sourceOf = (source: string): { hub: TraceHub; serverName: (id: string) => string } => {
    if (source === 'live') return { hub: ctx.trace, serverName: (id) => ctx.connections.get(id)?.config.name ?? id };
    const opened = ctx.sources.get(source);
    if (!opened) throw new CoreError('not-found', source.startsWith('rec-') ? `Recording "${source.slice(4)}" is not open (open it from the library).` : `No imported trace "${source}" (it may have been closed).`);
    const names = new Map(opened.servers.map((s) => [s.id, s.name]));
    return { hub: opened.hub, serverName: (id) => names.get(id) ?? id };
  };

  const scan = (source: string, only?: string[], seqs?: number[]): RecordedRequest[] => {
    const { hub, serverName } = sourceOf(source);
    return scanRequests(hub, { only, seqs, serverName });
  };

  return {
    replayCandidates: async ({ source, only, seqs }) => {
      const requests = scan(source, only, seqs).filter((r) => !r.refused);
      return { candidates: requests.slice(0, MAX_LISTED).map((r) => r.candidate), tools: toolsOf(requests), total: requests.length };
    },
    replayRun: async ({ source, seqs, only, serverId, confirmTools, timeoutMs }) => {
      const requests = scan(source, only, seqs);
      if (requests.length === 0) throw new CoreError('invalid-arguments', 'Nothing to replay: the source has no requests that can be sent again (with these filters).');
      let target;
      if (serverId) {
        target = ctx.connections.get(serverId);
        if (!target) throw new CoreError('not-found', `No server with id "${serverId}".`);
      } else {
        const names = [...new Set(requests.map((r) => r.candidate.serverName))];
        if (names.length > 1) throw new CoreError('invalid-arguments', `These requests went to ${names.length} servers (${names.join(', ')}): pick the target server, or the requests of one server.`);
        target = ctx.connections.all().find((c) => c.config.name === names[0]);
        if (!target) throw new CoreError('not-found', `No server named "${names[0]}" in the server list: add it, or pick the target server.`);
      }
      return runReplay({ trace: ctx.trace, audit: ctx.audit }, { source, requests, target, confirmTools, timeoutMs });
    },
  };
}
