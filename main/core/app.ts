/**
 * Switchboard's core, assembled: settings, connections, the trace, logs, the call audit, and
 * the handlers behind every contract method. Carriers (Electron, browser mode, the CLI, tests)
 * build one of these and attach.
 */
import { dirname, join } from 'node:path';
import { FileAuditLog, MemoryAuditLog, type AuditLog } from './audit/audit-log';
import { ConnectionManager } from './connection/manager';
import { createDispatcher, type Dispatch, type Handlers } from './dispatcher';
import { EventHub } from './events';
import { AuthService } from './auth/auth-service';
import { AppInstances } from './apps/instances';
import type { AppSandboxHost } from './apps/sandbox-host';
import type { LoginWindow } from './auth/login';
import { PopupLogin } from './auth/popup-login';
import { FileSecretStore, MemorySecretStore, type SecretStore } from './auth/secret-store';
import { appHandlers } from './handlers/apps';
import { authHandlers } from './handlers/auth';
import { callHandlers } from './handlers/calls';
import { requestHandlers, type OpenExternal } from './handlers/requests';
import { RequestBroker } from './requests/broker';
import { catalogHandlers } from './handlers/catalog';
import { connectAllHandlers } from './handlers/connect-all';
import type { CoreContext } from './handlers/context';
import { serverHandlers } from './handlers/servers';
import { taskHandlers } from './handlers/tasks';
import { TaskRunner } from './tasks/task-runner';
import { traceHandlers, type TraceBulk } from './handlers/trace';
import { LogBus } from './logs/log-bus';
import { logServerFailures, writeServerError, writeServerLog } from './logs/server-lines';
import { CALL_MEMORY_FILE, CallMemory } from './store/call-memory';
import type { SettingsStore } from './store/settings';
import { TraceHub, type TraceHubOptions } from './trace/hub';
import { removeOrphanedTraceDirs } from './trace/store';
import { scrubber } from './trace/export-jsonl';
import { RecordingLibrary, type LiveRecording } from './recordings/library';
import { TraceSources } from './trace/sources';
import { DriftMonitor } from './drift/monitor';
import { BASELINES_FILE } from './drift/baselines';
import { connectedSnapshot } from './drift/interface';
import { driftHandlers } from './handlers/drift';
import { recordingHandlers } from './handlers/recordings';
import { replayHandlers } from './handlers/replay';
import { proxyHandlers } from './handlers/proxy';
import { captureHandlers } from './handlers/capture';
import { checkHandlers } from './handlers/checks';
import { createProxyMirror } from './proxy/mirror';
import type { FileDialogs } from './handlers/context';

export interface CoreOptions {
  settings: SettingsStore;
  carrier: 'electron' | 'browser';
  version: string;
  trace?: TraceHubOptions;
  /** Where the call audit is kept; default: beside a file-backed settings store, else memory. */
  audit?: AuditLog;
  /** Remembered inputs and saved calls; default: beside a file-backed settings store, else memory. */
  callMemory?: CallMemory;
  /** Tests only: the reconnect backoff's base delay (default 1 s). */
  backoffBaseMs?: number;
  /** Opens a URL in the system browser (Electron); absent in browser mode, where the page opens it. */
  openExternal?: OpenExternal;
  /** Values merged over elicitation defaults when answered by policy (CLI --elicitation-answer). */
  elicitationAnswers?: Record<string, unknown>;
  /** Where OAuth tokens rest; default: an owner-only file beside a file-backed settings store, else memory. */
  secrets?: SecretStore;
  /** How a person signs in (login window, popup, system browser, headless); absent: nobody can. */
  login?: LoginWindow;
  /** Tests: how long a person has to finish signing in. */
  loginTimeoutMs?: number;
  /** Reconnect at start the servers left connected (default on; their own "Connect at start" decides too). */
  connectAtStart?: boolean;
  /** MCP Apps: where sandbox pages are served (browser mode: a second loopback origin; Electron: a scheme). Absent: apps cannot open. */
  appSandbox?: AppSandboxHost;
  /**
   * The recordings library (#13). Default: `recordings/` beside a file-backed settings store
   * (the live session is recorded there); with memory settings, none. `false`: none.
   */
  recordings?: { dir: string; kind?: 'app' | 'cli' | 'proxy'; name?: string } | false;
  /** Electron: save/open dialogs in main for bulk files. */
  fileDialogs?: FileDialogs;
  /** Proxied sessions (#12): the library's proxy recordings mirrored into the live trace (default on with a library, polled every 250 ms). `false`: off. */
  proxies?: { pollMs?: number } | false;
}

export interface Core {
  readonly dispatch: Dispatch;
  readonly events: EventHub;
  readonly logs: LogBus;
  readonly connections: ConnectionManager;
  readonly trace: TraceHub;
  readonly audit: AuditLog;
  /** Remembered inputs and saved calls. */
  readonly callMemory: CallMemory;
  readonly auth: AuthService;
  /** Trace files in and out as streams (browser mode's HTTP routes), outside the contract. */
  readonly traceBulk: TraceBulk;
  /** The recordings library (#13); absent without a data directory. */
  readonly recordings?: RecordingLibrary;
  /** This session's own recording, written as events happen. */
  readonly liveRecording?: LiveRecording;
  shutdown(): Promise<void>;
}

export function createCore(options: CoreOptions): Core {
  const events = new EventHub();
  const logs = new LogBus(events);
  // No event lost without a line saying so (a carrier failing to send one, say).
  events.reportListenerErrors((event, error) => logs.app('error', `The "${event}" event could not be delivered: ${error instanceof Error ? error.message : String(error)}`));
  // Temp folders of sessions that ended without closing their trace (kill -9, a crash).
  const orphans = removeOrphanedTraceDirs();
  if (orphans.folders > 0) logs.app('info', `Removed ${orphans.folders} trace folder${orphans.folders === 1 ? '' : 's'} left by Switchboard sessions that ended unexpectedly (${(orphans.bytes / 1024 ** 2).toFixed(1)} MiB).`);
  // The recordings library (#13): the live session writes into it as events happen.
  const recordings = defaultRecordings(options, logs, events);
  // The connections are made after the trace (which they record into): the recording asks for them late.
  const late: { connections?: ConnectionManager } = {};
  let liveRecording: LiveRecording | undefined;
  if (recordings) {
    try {
      recordings.library.recover();
      const configs = () => late.connections?.all().map((c) => c.config) ?? options.settings.read().servers;
      liveRecording = recordings.library.startLive({
        kind: recordings.kind,
        name: recordings.name,
        app: { name: 'Switchboard', version: options.version },
        servers: configs,
        redact: () => scrubber(late.connections?.all().map((c) => c.redactor)),
      });
    } catch (error) {
      logs.app('error', `This session is not being recorded: the recordings library (${recordings.library.dir}) could not be used: ${error instanceof Error ? error.message : String(error)}.`);
    }
  }
  const trace = new TraceHub(events, { ...options.trace, store: { ...options.trace?.store, ...liveRecording?.storeOptions, onLimit: (message) => logs.app('error', `Trace: ${message}.`) } });
  const broker = new RequestBroker(events, trace.record);
  const popup = options.login instanceof PopupLogin ? options.login : undefined;
  popup?.attach({ prompt: (prompt) => events.emit('signInPrompt', prompt), ended: (ended) => events.emit('signInEnded', ended) });
  const auth = new AuthService({
    store: options.secrets ?? defaultSecrets(options.settings),
    login: options.login,
    record: trace.record,
    onChange: (serverId) => events.emit('authChanged', { serverId }),
    loginTimeoutMs: options.loginTimeoutMs,
  });
  const connections = new ConnectionManager({
    observer: {
      onStatus: (status) => events.emit('serverState', status),
      onStderrLine: (serverId, line) => logs.write({ serverId, source: 'stderr', level: 'info', text: line }),
      onError: (serverId, message) => writeServerError(logs, serverId, message),
      onServerLog: (serverId, level, logger, data) => writeServerLog(logs, serverId, level, logger, data),
      onResourceUpdated: (serverId, uri) => events.emit('resourceUpdated', { serverId, uri, ts: Date.now() }),
      onElicitationComplete: (serverId, elicitationId) => events.emit('elicitationComplete', { serverId, elicitationId, ts: Date.now() }),
      onWantedChange: (serverId, wanted) => rememberConnected(serverId, wanted),
      onListsChanged: (serverId) => drift.listsChanged(serverId),
    },
    broker,
    auth,
    elicitationAnswers: options.elicitationAnswers,
    record: trace.record,
    now: trace.now,
    backoffBaseMs: options.backoffBaseMs,
  });
  late.connections = connections;
  const writeFailed = (what: string) => (error: unknown) => logs.app('error', `${what} could not be written (tried again with the next change): ${error instanceof Error ? error.message : String(error)}`);
  const audit = options.audit ?? defaultAudit(options.settings, writeFailed('The call audit'));
  const callMemory = options.callMemory ?? defaultCallMemory(options.settings, writeFailed('Remembered inputs and saved calls'));
  for (const problem of audit.problems ?? []) logs.app('warning', problem);
  for (const problem of options.settings.problems ?? []) logs.app('warning', problem);
  for (const problem of callMemory.problems) logs.app('warning', problem);
  // Argument values are remembered only while the audit may keep them.
  if (!options.settings.read().auditArgumentValues) callMemory.forgetInputs();
  for (const config of options.settings.read().servers) connections.add(config);

  // Which servers the person wants connected, for the next start. Quitting disconnects everything
  // but changes nobody's choice; a server removed from the list leaves it too.
  let stopping = false;
  function rememberConnected(serverId: string, wanted: boolean): void {
    if (stopping) return;
    try {
      const settings = options.settings.read();
      const others = settings.connectedServers.filter((id) => id !== serverId && settings.servers.some((s) => s.id === id));
      const next = wanted && settings.servers.some((s) => s.id === serverId) ? [...others, serverId] : others;
      if (next.length === settings.connectedServers.length && next.every((id) => settings.connectedServers.includes(id))) return;
      options.settings.write({ ...settings, connectedServers: next });
    } catch (error) {
      logs.app('warning', `Could not remember which servers are connected: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  const apps = new AppInstances(options.appSandbox);
  const sources = new TraceSources();
  // Baselines beside a file-backed settings store (owner-only), else in memory; checked on every connect and list change.
  const drift = new DriftMonitor({
    file: options.settings.location.startsWith('(') ? undefined : join(dirname(options.settings.location), BASELINES_FILE),
    onChange: (status) => events.emit('driftChanged', status),
    snapshot: (serverId) => connectedSnapshot(connections.get(serverId), trace.store),
    log: (level, text, serverId) => logs.app(level, text, serverId),
  });
  const ctx: CoreContext = {
    settings: options.settings,
    callMemory,
    connections,
    events,
    logs,
    trace,
    audit,
    carrier: options.carrier,
    version: options.version,
    apps,
    sources,
    drift,
    fileDialogs: options.fileDialogs,
    recordings: recordings?.library,
    liveRecording,
    proxies: recordings && options.proxies !== false ? createProxyMirror({ dir: recordings.library.dir, trace, logs, events, pollMs: options.proxies?.pollMs }) : undefined,
  };
  const trace$ = traceHandlers(ctx);
  const tasks = new TaskRunner({ emit: (payload) => events.emit('taskStatus', payload) });
  const handlers: Handlers = {
    appInfo: async () => ({ name: 'Switchboard', version: options.version, carrier: options.carrier, platform: process.platform, node: process.versions.node }),
    recentLogs: async () => ({ lines: logs.history() }),
    logFeed: async ({ lease, full }) => logs.feed(lease, full),
    listAudit: async ({ limit, serverId }) => audit.list({ limit, serverId }),
    getSettings: async () => appSettings(options.settings.read()),
    updateSettings: async (patch) => {
      const settings = { ...options.settings.read(), ...patch };
      options.settings.write(settings);
      if (!settings.auditArgumentValues) callMemory.forgetInputs();
      return appSettings(settings);
    },
    ...serverHandlers(ctx),
    ...connectAllHandlers(ctx),
    ...catalogHandlers(ctx),
    ...callHandlers(ctx),
    ...taskHandlers(ctx, tasks),
    ...requestHandlers(ctx, broker, options.openExternal),
    ...authHandlers(ctx, auth, popup),
    ...appHandlers(ctx, options.appSandbox),
    traceQuery: trace$.traceQuery,
    traceWindow: trace$.traceWindow,
    traceFeed: trace$.traceFeed,
    traceEvent: trace$.traceEvent,
    snapshots: trace$.snapshots,
    traceSaveFile: trace$.traceSaveFile,
    traceOpenFile: trace$.traceOpenFile,
    ...recordingHandlers(ctx),
    ...replayHandlers(ctx),
    ...driftHandlers(ctx),
    ...proxyHandlers(ctx),
    ...captureHandlers(ctx),
    ...checkHandlers(ctx, auth),
  };

  // In the background: the carriers attach and the page loads while these connect.
  if (options.connectAtStart !== false) {
    const started = connections.reconnectAtStart(options.settings.read().connectedServers, (connection, error) =>
      logs.app('error', `Reconnecting "${connection.config.name}" at start failed: ${error instanceof Error ? error.message : String(error)}`, connection.id),
    );
    if (started.length) logs.app('info', `Reconnecting ${started.length} server${started.length === 1 ? '' : 's'} left connected: ${started.map((c) => c.config.name).join(', ')}.`);
    // From here on the list is what this run wants connected: one left connected but not brought back
    // ("Connect at start" off, disabled, removed) is not brought back later either.
    const remembered = options.settings.read();
    const wantedNow = started.map((c) => c.id);
    if (wantedNow.length !== remembered.connectedServers.length) {
      try {
        options.settings.write({ ...remembered, connectedServers: wantedNow });
      } catch (error) {
        logs.app('warning', `Could not remember which servers are connected: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }

  return {
    dispatch: logServerFailures(
      createDispatcher(handlers, (method, error) => logs.app('error', `${method} failed: ${String(error)}`)),
      logs,
    ),
    events,
    logs,
    connections,
    trace,
    audit,
    callMemory,
    auth,
    traceBulk: trace$.bulk,
    recordings: recordings?.library,
    liveRecording,
    shutdown: async () => {
      stopping = true;
      ctx.proxies?.stop();
      apps.closeAll();
      // What waits is on disk even if closing the servers takes longer than the carrier waits;
      // what the calls cut short by closing add is written after.
      const early = Promise.all([audit.flush(), callMemory.flush()]);
      await connections.closeAll();
      await early;
      await Promise.all([audit.close(), callMemory.close()]);
      logs.flush();
      // The trace hands its last events to the recording, which is then closed cleanly.
      trace.close();
      liveRecording?.close();
      trace$.closeImports();
      drift.close();
      tasks.close();
    },
  };
}

function defaultRecordings(options: CoreOptions, logs: LogBus, events: EventHub): { library: RecordingLibrary; kind: 'app' | 'cli' | 'proxy'; name?: string } | undefined {
  if (options.recordings === false) return undefined;
  const given = options.recordings;
  if (!given && options.settings.location.startsWith('(')) return undefined;
  const dir = given ? given.dir : join(dirname(options.settings.location), 'recordings');
  try {
    const library = new RecordingLibrary({
      dir,
      retention: () => options.settings.read().recordingRetention,
      log: (level, text) => logs.app(level, text),
      onChange: (reason) => events.emit('recordingsChanged', { reason }),
    });
    return { library, kind: given ? (given.kind ?? 'app') : 'app', name: given ? given.name : undefined };
  } catch (error) {
    logs.app('error', `The recordings library (${dir}) could not be opened: ${error instanceof Error ? error.message : String(error)}.`);
    return undefined;
  }
}

function defaultAudit(settings: SettingsStore, onError: (error: unknown) => void): AuditLog {
  return settings.location.startsWith('(') ? new MemoryAuditLog() : new FileAuditLog(join(dirname(settings.location), 'audit.jsonl'), { onError });
}

function defaultCallMemory(settings: SettingsStore, onError: (error: unknown) => void): CallMemory {
  return settings.location.startsWith('(') ? new CallMemory() : new CallMemory({ path: join(dirname(settings.location), CALL_MEMORY_FILE), onError });
}

function defaultSecrets(settings: SettingsStore): SecretStore {
  return settings.location.startsWith('(') ? new MemorySecretStore() : new FileSecretStore(join(dirname(settings.location), 'secrets.json'));
}

function appSettings(settings: ReturnType<SettingsStore['read']>) {
  return { auditArgumentValues: settings.auditArgumentValues, oauthSystemBrowser: settings.oauthSystemBrowser, recordingRetention: settings.recordingRetention };
}
