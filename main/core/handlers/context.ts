/** What every group of handlers works with. */
import type { AuditLog } from '../audit/audit-log';
import type { ConnectionManager } from '../connection/manager';
import type { ServerConnection } from '../connection/server-connection';
import { CoreError } from '../dispatcher';
import type { EventHub } from '../events';
import type { LogBus } from '../logs/log-bus';
import type { SettingsStore } from '../store/settings';
import type { TraceHub } from '../trace/hub';

export interface CoreContext {
  settings: SettingsStore;
  connections: ConnectionManager;
  events: EventHub;
  logs: LogBus;
  trace: TraceHub;
  audit: AuditLog;
  carrier: 'electron' | 'browser';
  version: string;
}

export function findConnection(ctx: CoreContext, id: string): ServerConnection {
  const connection = ctx.connections.get(id);
  if (!connection) throw new CoreError('not-found', `No server with id "${id}".`);
  return connection;
}
