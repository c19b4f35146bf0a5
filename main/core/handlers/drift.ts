/**
 * Handlers for interface snapshots, diffs, baselines and drift (#13). A snapshot comes from a
 * connected server, a pinned baseline, or a recording (the live session's own reads the live
 * trace; another is read from the open `rec-ID` source, else opened for the snapshot and closed).
 */
import type { InterfaceRef, InterfaceSnapshot } from '../../../contract';
import type { Handlers } from '../dispatcher';
import { liveSnapshot, findTraceServer, traceSnapshot } from '../drift/interface';
import { diffInterfaces } from '../drift/diff';
import { CoreError } from '../errors';
import type { TraceHub } from '../trace/hub';
import { findConnection, type CoreContext } from './context';

type DriftHandlers = Pick<Handlers, 'interfaceSnapshot' | 'interfaceDiff' | 'baselinePin' | 'baselineClear' | 'driftStatus'>;

export function driftHandlers(ctx: CoreContext): DriftHandlers {
  const connected = (serverId: string): InterfaceSnapshot => {
    const connection = findConnection(ctx, serverId);
    try {
      return liveSnapshot(connection, ctx.trace.store);
    } catch (error) {
      throw new CoreError('conflict', (error as Error).message);
    }
  };
  const snapshot = async (ref: InterfaceRef): Promise<InterfaceSnapshot> => {
    if (ref.kind === 'live') return connected(ref.serverId);
    if (ref.kind === 'baseline') {
      const baseline = ctx.drift.baseline(ref.serverId);
      if (!baseline) throw new CoreError('not-found', `No baseline is pinned for ${serverName(ctx, ref.serverId)}: pin one from the server's menu first.`);
      return baseline.snapshot;
    }
    return recordingSnapshot(ctx, ref.id, ref.server);
  };
  return {
    interfaceSnapshot: async ({ ref }) => snapshot(ref),
    interfaceDiff: async ({ a, b }) => {
      const [left, right] = [await snapshot(a), await snapshot(b)];
      return { a: left, b: right, diff: diffInterfaces(left, right) };
    },
    baselinePin: async ({ serverId }) => ctx.drift.pin(serverId, connected(serverId)),
    baselineClear: async ({ serverId }) => ({ cleared: ctx.drift.clear(serverId) }),
    driftStatus: async () => ctx.drift.status(ctx.connections.all().map((c) => c.id)),
  };
}

function serverName(ctx: CoreContext, serverId: string): string {
  const name = ctx.connections.get(serverId)?.config.name ?? ctx.drift.baseline(serverId)?.serverName;
  return name ? `"${name}"` : `server "${serverId}"`;
}

async function recordingSnapshot(ctx: CoreContext, id: string, server: string): Promise<InterfaceSnapshot> {
  const take = (hub: TraceHub, servers: readonly { id: string; name: string }[]) => {
    const found = findTraceServer(servers, server);
    if (!found) throw new CoreError('not-found', `The recording has no server "${server}" (it has: ${servers.map((s) => s.name).join(', ') || 'none'}).`);
    return traceSnapshot(hub.store, found.id, found.name);
  };
  if (ctx.liveRecording?.id === id) {
    return take(ctx.trace, ctx.connections.all().map((c) => ({ id: c.id, name: c.config.name })));
  }
  const open = ctx.sources.get(`rec-${id}`);
  if (open) return take(open.hub, open.servers);
  if (!ctx.recordings) throw new CoreError('not-found', 'This run keeps no recordings library (it has no data directory).');
  let opened;
  try {
    opened = await ctx.recordings.open(id);
  } catch (error) {
    throw new CoreError('not-found', `Recording "${id}" could not be opened: ${(error as Error).message}`);
  }
  try {
    return take(opened.hub, opened.summary.servers);
  } finally {
    opened.hub.close();
  }
}
