/**
 * Switchboard's core, assembled: settings, connections, logs, and the handlers behind every
 * contract method. Carriers (Electron, browser mode, tests) build one of these and attach.
 */
import { randomUUID } from 'node:crypto';
import type { Result, ServerConfig, ToolEntry } from '../../contract';
import { namespacedName } from './catalog/names';
import { ConnectionManager } from './connection/manager';
import { CoreError, createDispatcher, type Dispatch, type Handlers } from './dispatcher';
import { EventHub } from './events';
import { LogBus } from './logs/log-bus';
import type { SettingsStore } from './store/settings';
import { TraceHub, type TraceHubOptions } from './trace/hub';

export interface CoreOptions {
  settings: SettingsStore;
  carrier: 'electron' | 'browser';
  version: string;
  trace?: TraceHubOptions;
}

export interface Core {
  readonly dispatch: Dispatch;
  readonly events: EventHub;
  readonly logs: LogBus;
  readonly connections: ConnectionManager;
  readonly trace: TraceHub;
  shutdown(): Promise<void>;
}

export function createCore(options: CoreOptions): Core {
  const events = new EventHub();
  const logs = new LogBus(events);
  const trace = new TraceHub(events, options.trace);
  const connections = new ConnectionManager({
    observer: {
      onStatus: (status) => events.emit('serverState', status),
      onStderrLine: (serverId, line) => logs.write({ serverId, source: 'stderr', level: 'info', text: line }),
      onError: (serverId, message) => logs.app('error', message, serverId),
    },
    record: trace.record,
    now: trace.now,
  });
  for (const config of options.settings.read().servers) connections.add(config);

  const find = (id: string) => {
    const connection = connections.get(id);
    if (!connection) throw new CoreError('not-found', `No server with id "${id}".`);
    return connection;
  };

  const persist = () => {
    const settings = options.settings.read();
    options.settings.write({ ...settings, servers: connections.all().map((c) => c.config) });
  };

  const catalog = (serverId?: string): ToolEntry[] =>
    connections
      .all()
      .filter((c) => !serverId || c.id === serverId)
      .flatMap((c) =>
        c.listTools().map((tool) => ({
          name: namespacedName(c.config.name, tool.name),
          serverId: c.id,
          serverName: c.config.name,
          originalName: tool.name,
          title: tool.title,
          description: tool.description,
          inputSchema: tool.inputSchema as Record<string, unknown>,
          outputSchema: tool.outputSchema as Record<string, unknown> | undefined,
          annotations: tool.annotations as Record<string, unknown> | undefined,
        })),
      );

  const handlers: Handlers = {
    appInfo: async () => ({
      name: 'Switchboard',
      version: options.version,
      carrier: options.carrier,
      platform: process.platform,
      node: process.versions.node,
    }),
    listServers: async () => connections.all().map((c) => c.snapshot()),
    addServer: async (input) => {
      const taken = connections.all().some((c) => c.config.name.toLowerCase() === input.name.toLowerCase());
      if (taken) throw new CoreError('conflict', `A server named "${input.name}" already exists.`);
      const config: ServerConfig = { ...input, id: randomUUID() };
      const connection = connections.add(config);
      persist();
      return connection.snapshot();
    },
    removeServer: async ({ id }) => {
      const removed = await connections.remove(id);
      if (removed) persist();
      return { removed };
    },
    connectServer: async ({ id }) => {
      const connection = find(id);
      await connection.connect().catch(() => undefined); // the error is in the status
      return connection.snapshot();
    },
    disconnectServer: async ({ id }) => {
      const connection = find(id);
      await connection.disconnect();
      return connection.snapshot();
    },
    listTools: async ({ serverId }) => catalog(serverId),
    callTool: async ({ tool, serverId, args, timeoutMs }): Promise<Result<'callTool'>> => {
      const entry = resolveTool(catalog(), tool, serverId);
      const connection = find(entry.serverId);
      const started = performance.now();
      const result = await connection.callTool(entry.originalName, args, { timeoutMs });
      return { serverId: entry.serverId, tool: entry.name, durationMs: performance.now() - started, result };
    },
    recentLogs: async () => ({ lines: logs.history() }),
    traceQuery: async (query) => trace.store.query(query),
    traceEvent: async ({ seq }) => {
      const event = trace.store.get(seq);
      if (!event) throw new CoreError('not-found', `No trace event #${seq}.`);
      return { event, payload: event.truncated ? trace.store.payload(seq) : event.body };
    },
    snapshots: async ({ server }) =>
      (server ? [server] : trace.snapshots.serverIds()).flatMap((id) => {
        const snapshot = trace.snapshots.snapshot(id);
        return snapshot ? [snapshot] : [];
      }),
  };

  return {
    dispatch: createDispatcher(handlers, (method, error) => logs.app('error', `${method} failed: ${String(error)}`)),
    events,
    logs,
    connections,
    trace,
    shutdown: async () => {
      await connections.closeAll();
      logs.flush();
      trace.close();
    },
  };
}

/** Exact namespaced name first, then a bare name on the given server, then a bare name held by exactly one server. */
function resolveTool(entries: ToolEntry[], name: string, serverId?: string): ToolEntry {
  const exact = entries.find((e) => e.name === name && (!serverId || e.serverId === serverId));
  if (exact) return exact;
  const bare = entries.filter((e) => e.originalName === name && (!serverId || e.serverId === serverId));
  if (bare.length === 1) return bare[0]!;
  if (bare.length > 1) {
    throw new CoreError('conflict', `Tool "${name}" exists on several servers: ${bare.map((e) => e.name).join(', ')}. Use a namespaced name.`);
  }
  throw new CoreError('not-found', `No connected server offers a tool named "${name}".`);
}
