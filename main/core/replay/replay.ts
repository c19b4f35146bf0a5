/**
 * Replay from one trace (any hub: the live one, an imported file, an opened recording) to a
 * server of a connection manager: the requests chosen, the target resolved (by id, else the
 * server of the same name), the run. The contract's handlers and the CLI both come through here.
 */
import type { ReplayReport } from '../../../contract';
import type { AuditLog } from '../audit/audit-log';
import type { ConnectionManager } from '../connection/manager';
import { CoreError } from '../errors';
import type { TraceHub } from '../trace/hub';
import { scanRequests, type RecordedRequest } from './candidates';
import { runReplay } from './run';

export interface ReplaySource {
  /** Its name in the report (`live`, `import-N`, `rec-ID`, a file's path). */
  source: string;
  hub: TraceHub;
  serverName: (id: string) => string;
}

export interface ReplayArgs {
  seqs?: number[];
  only?: string[];
  serverId?: string;
  confirmTools: string[];
  timeoutMs?: number;
}

export interface ReplayContext {
  trace: TraceHub;
  audit?: AuditLog;
  connections: ConnectionManager;
}

/** The recorded requests a run would send (or skip), in recorded order. */
export function plannedRequests(from: ReplaySource, args: Pick<ReplayArgs, 'seqs' | 'only'>): RecordedRequest[] {
  return scanRequests(from.hub, { only: args.only, seqs: args.seqs, serverName: from.serverName });
}

export function replayTarget(ctx: ReplayContext, requests: RecordedRequest[], serverId?: string) {
  if (serverId) {
    const target = ctx.connections.get(serverId);
    if (!target) throw new CoreError('not-found', `No server with id "${serverId}".`);
    return target;
  }
  const names = [...new Set(requests.map((r) => r.candidate.serverName))];
  if (names.length > 1) throw new CoreError('invalid-arguments', `These requests went to ${names.length} servers (${names.join(', ')}): pick the target server, or the requests of one server.`);
  const target = ctx.connections.all().find((c) => c.config.name === names[0]);
  if (!target) throw new CoreError('not-found', `No server named "${names[0]}" in the server list: add it, or pick the target server.`);
  return target;
}

export async function replay(ctx: ReplayContext, from: ReplaySource, args: ReplayArgs, requests = plannedRequests(from, args)): Promise<ReplayReport> {
  if (requests.length === 0) throw new CoreError('invalid-arguments', 'Nothing to replay: the source has no requests that can be sent again (with these filters).');
  const target = replayTarget(ctx, requests, args.serverId);
  return runReplay({ trace: ctx.trace, audit: ctx.audit }, { source: from.source, requests, target, confirmTools: args.confirmTools, timeoutMs: args.timeoutMs });
}
