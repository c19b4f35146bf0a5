/**
 * One configured server: its SDK client, its tracked transport, its state machine
 * (disconnected → connecting → connected → reconnecting → error, and disabled), its lists.
 * Every transition is published and recorded in the trace; failures stay inside this object.
 *
 * Policies: retries with exponential backoff (1 s → 30 s) up to `retries`, never for
 * configuration errors; a legacy-era 404 on a live session re-initializes transparently and
 * repeats the failed request only when it is safe (lists, reads); a ping heartbeat (legacy era)
 * whose consecutive misses reconnect; an idle timeout after which the next use reconnects.
 */
import {
  Client,
  ProtocolError,
  RELATED_TASK_META_KEY,
  SdkError,
  SdkErrorCode,
  StreamableHTTPClientTransport,
  InsufficientScopeError,
  UnauthorizedError,
  type ClientCapabilities,
  type jsonSchemaValidator,
  type Prompt,
  type Resource,
  type ResourceTemplateType as ResourceTemplate,
  type Tool,
  type Transport,
} from '@modelcontextprotocol/client';
import type { ConnectionState, LastCheck, PendingRequest, ServerConfig, ServerStatus } from '../../../contract';
import type { TraceEventInput } from '../../../contract/trace';
import type { RequestBroker } from '../requests/broker';
import { missingRequired, withDefaults, type RequestedSchema } from '../requests/elicitation';
import { AuthService } from '../auth/auth-service';
import { NoOAuthMetadataError, OAuthStepError, type SwitchboardOAuthProvider } from '../auth/oauth-provider';
import { Redactor } from '../trace/redact';
import { isHandlingFailure, recordedByTransport } from '../transport/contained';
import { describeConnectError, errorCode, errorDetailOf, httpStatusOf, metadataRefusal, retryDecision, sdkCodeOf, URL_ELICITATION_REQUIRED, elicitationsOf } from './errors';
import { configSecrets, createTransport, type HttpKind, type TransportContext } from './transport-factory';
import { clientTaskOf, TaskAwareClient } from '../tasks/task-client';

export const CLIENT_INFO = { name: 'switchboard', version: '0.1.0' } as const;
export const MODERN_VERSION = '2026-07-28';
const BACKOFF_BASE_MS = 1_000;
const BACKOFF_CAP_MS = 30_000;

export interface ConnectionObserver {
  onStatus(status: ServerStatus): void;
  onStderrLine(serverId: string, line: string): void;
  onError(serverId: string, message: string): void;
  /** A server's lists changed (after connect, or on list_changed). */
  onListsChanged?(serverId: string): void;
  /** notifications/message from the server. */
  onServerLog?(serverId: string, level: string, logger: string | undefined, data: unknown): void;
  /** notifications/resources/updated for a subscribed resource. */
  onResourceUpdated?(serverId: string, uri: string): void;
  /** notifications/elicitation/complete for a URL-mode elicitation. */
  onElicitationComplete?(serverId: string, elicitationId: string): void;
  /** The person asked for this server to be connected (true) or disconnected (false): remembered for the next start. */
  onWantedChange?(serverId: string, wanted: boolean): void;
}

export interface ConnectionDeps {
  observer: ConnectionObserver;
  /** Where this connection's trace events go (the trace store's append). */
  record: (event: TraceEventInput) => void;
  now?: () => number;
  baseFetch?: TransportContext['baseFetch'];
  /** For tests: the backoff schedule's base (default 1 s). */
  backoffBaseMs?: number;
  /** Where server-initiated requests wait for a person (policy `ask`). */
  broker?: RequestBroker;
  /** Values merged over the schema's defaults when elicitation is answered by policy (CLI --elicitation-answer). */
  elicitationAnswers?: Record<string, unknown>;
  /** Sign-in for HTTP servers that ask for OAuth. */
  auth?: AuthService;
}

export interface ServerLists {
  tools: Tool[];
  prompts: Prompt[];
  resources: Resource[];
  resourceTemplates: ResourceTemplate[];
}

type NegotiationMode = 'auto' | 'legacy' | { pin: string };
/**
 * An inspector shows what the server sent, including a result that breaks its own output
 * schema: the SDK's validator would throw such a result away (and refuse tools whose output
 * schema does not compile). The UI checks structuredContent against the schema and shows any
 * mismatch instead.
 */
const SHOW_EVERYTHING: jsonSchemaValidator = {
  getValidator: () => (input) => ({ valid: true, data: input as never, errorMessage: undefined }),
};

const EMPTY_LISTS: ServerLists = { tools: [], prompts: [], resources: [], resourceTemplates: [] };

/** Backoff before attempt n (1-based): 1 s, 2 s, 4 s … capped at 30 s. */
export function backoffDelay(attempt: number, base = BACKOFF_BASE_MS): number {
  return Math.min(base * 2 ** Math.max(0, attempt - 1), BACKOFF_CAP_MS);
}

export class SessionExpiredError extends Error {
  readonly code = 'SESSION_EXPIRED';
}

export class ServerConnection {
  readonly redactor = new Redactor();
  private client: Client | undefined;
  private transport: Transport | undefined;
  private lists: ServerLists = EMPTY_LISTS;
  private status: ServerStatus;
  private connecting: Promise<void> | undefined;
  /** The user wants this server connected: drops are healed, idle disconnects reconnect on use. */
  private wanted = false;
  private failures = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private pingTimer: NodeJS.Timeout | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private missedPings = 0;
  private idle = false;
  /** The error of the last failed connect attempt (kept for "Test connection"). */
  private lastConnectError: unknown;
  /** Tool calls in flight, so a server's question can be tied to the call that caused it. */
  private readonly activeCalls = new Map<symbol, { tool: string; callId?: string }>();
  /** Tasks this run started here (taskId → tool), so a question sent for a task names it. */
  private readonly startedTasks = new Map<string, string>();

  constructor(
    public config: ServerConfig,
    private readonly deps: ConnectionDeps,
  ) {
    this.status = this.freshStatus(config.disabled ? 'disabled' : 'disconnected');
    for (const secret of configSecrets(config.target)) this.redactor.addSecret(secret);
  }

  get id(): string {
    return this.config.id;
  }

  /** The state as published, with the configuration as it is now (a "Test connection" result is part of it). */
  snapshot(): ServerStatus {
    return { ...this.status, name: this.config.name, config: this.config };
  }

  listTools(): Tool[] {
    return this.lists.tools;
  }

  serverLists(): ServerLists {
    return this.lists;
  }

  /** The OAuth provider for this server's current configuration, when it uses OAuth. */
  authProvider(): SwitchboardOAuthProvider | undefined {
    return this.deps.auth?.providerFor(this.config, this.redactor);
  }

  /** Disconnected after the idle timeout; the next use reconnects. */
  isIdle(): boolean {
    return this.idle && this.wanted;
  }

  serverCapabilities() {
    return this.client?.getServerCapabilities();
  }

  /** Connects (or joins a connect under way). Resolves after the first attempt: connected, or failed with retries scheduled. */
  async connect(): Promise<void> {
    if (this.config.disabled) throw new Error(`Server "${this.config.name}" is disabled.`);
    this.setWanted(true);
    this.idle = false;
    if (this.status.state === 'connected') return;
    this.clearRetry();
    this.failures = 0;
    return this.attempt();
  }

  /** Ends the session (DELETE where the server keeps sessions) and closes the transport. */
  async disconnect(reason?: string): Promise<void> {
    this.setWanted(false);
    this.idle = false;
    this.clearRetry();
    await this.teardown(true);
    this.setState(this.config.disabled ? 'disabled' : 'disconnected', reason ? { reason } : {});
  }

  private setWanted(wanted: boolean): void {
    if (this.wanted === wanted) return;
    this.wanted = wanted;
    this.deps.observer.onWantedChange?.(this.id, wanted);
  }

  /** Replaces the configuration (edit); reconnects if it was connected. */
  async reconfigure(config: ServerConfig): Promise<void> {
    const wasWanted = this.wanted;
    await this.disconnect();
    this.config = config;
    for (const secret of configSecrets(config.target)) this.redactor.addSecret(secret);
    this.setState(config.disabled ? 'disabled' : 'disconnected', {});
    if (wasWanted && !config.disabled) await this.connect().catch(() => undefined);
  }

  /**
   * Runs an operation with the live client: reconnects after an idle disconnect, and heals an
   * expired session. `safe` operations (lists, reads, gets) are repeated once on the new
   * session; unsafe ones (tools/call) are not.
   */
  async withClient<T>(label: string, safe: boolean, op: (client: Client, timeoutMs: number) => Promise<T>): Promise<T> {
    const client = await this.ready();
    this.touch();
    const timeoutMs = this.config.requestTimeoutSec * 1000;
    const started = Date.now();
    try {
      return await op(client, timeoutMs);
    } catch (error) {
      // A 401 or 403 insufficient_scope led to a sign-in (or step-up) that finished: the server
      // refused the request before running it, so it is repeated once — never more.
      const provider = this.authProvider();
      await provider?.settled();
      if (provider?.authorizedSince(started) && interruptedBySignIn(error)) {
        this.trace({ channel: 'auth', kind: 'auth-step', dir: 'none', text: `repeating ${label} once after signing in`, meta: { step: 'retry', label } });
        return op(this.client ?? client, timeoutMs);
      }
      if (provider && isAuthFailure(error)) provider.noteFailure('request', `${label}: ${errorMessage(error)}`);
      if (!this.isSessionExpiry(error)) throw error;
      await this.renewSession();
      if (!safe) {
        throw new SessionExpiredError(
          `The server ended the session (HTTP 404) during ${label}. Switchboard started a new session; ${label} was not repeated because it may not be safe to run twice. Run it again.`,
        );
      }
      this.trace({ channel: 'lifecycle', kind: 'reconnect', dir: 'none', text: `repeating ${label} once on the new session` });
      return op(this.client!, timeoutMs);
    }
  }

  async callTool(
    name: string,
    args: Record<string, unknown>,
    options: { timeoutMs?: number; onprogress?: (p: { progress: number; total?: number; message?: string }) => void; signal?: AbortSignal; resetTimeoutOnProgress?: boolean; callId?: string } = {},
  ): Promise<Record<string, unknown>> {
    const token = Symbol(name);
    this.activeCalls.set(token, { tool: name, callId: options.callId });
    try {
      return await this.callToolNow(name, args, options);
    } catch (error) {
      throw withElicitationUrls(error);
    } finally {
      this.activeCalls.delete(token);
    }
  }

  /** A task started with tools/call on this server: its questions (related-task meta) are tied to it. */
  noteTask(taskId: string, tool: string): void {
    this.startedTasks.set(taskId, tool);
    if (this.startedTasks.size > 500) this.startedTasks.delete(this.startedTasks.keys().next().value as string);
  }

  /** Replaces the roots and tells a legacy-era server they changed. */
  async setRoots(roots: ServerConfig['roots']): Promise<void> {
    const hadRoots = this.config.roots.length > 0;
    this.config = { ...this.config, roots };
    this.status = { ...this.status, config: this.config };
    this.deps.observer.onStatus(this.snapshot());
    if (!this.client || this.status.state !== 'connected') return;
    // Declared capabilities are fixed at connect: going from none to some needs a reconnect.
    if (!hadRoots && roots.length > 0) {
      await this.teardown(true);
      await this.attempt();
      return;
    }
    if (this.status.era === 'legacy') await this.client.sendRootsListChanged().catch(() => undefined);
  }

  private async callToolNow(
    name: string,
    args: Record<string, unknown>,
    options: { timeoutMs?: number; onprogress?: (p: { progress: number; total?: number; message?: string }) => void; signal?: AbortSignal; resetTimeoutOnProgress?: boolean },
  ): Promise<Record<string, unknown>> {
    return this.withClient('tools/call', false, async (client, defaultTimeout) => {
      const timeout = options.timeoutMs ?? defaultTimeout;
      const paused = this.status.era === 'legacy' && this.asksPeople() ? this.pausableTimeout(timeout, options) : undefined;
      try {
        const result = await client.callTool(
          { name, arguments: args },
          paused?.options ?? {
            timeout,
            onprogress: options.onprogress,
            resetTimeoutOnProgress: options.onprogress !== undefined && options.resetTimeoutOnProgress !== false,
            signal: options.signal,
          },
        );
        return result as Record<string, unknown>;
      } finally {
        paused?.dispose();
      }
    });
  }

  private asksPeople(): boolean {
    return this.deps.broker !== undefined && (this.config.elicitation === 'ask' || this.config.sampling === 'ask');
  }

  /**
   * Legacy era: a server's questions arrive while its tools/call is open, so the time a person
   * takes to answer would count against the call's timeout. Here the timeout is kept by us and
   * stands still while a question of this server waits for an answer (the modern era times each
   * round trip on its own, so it needs none of this).
   */
  private pausableTimeout(limit: number, options: { onprogress?: (p: { progress: number; total?: number; message?: string }) => void; signal?: AbortSignal; resetTimeoutOnProgress?: boolean }) {
    const broker = this.deps.broker!;
    const controller = new AbortController();
    const outer = options.signal;
    const forward = () => controller.abort(outer?.reason);
    if (outer?.aborted) forward();
    else outer?.addEventListener('abort', forward, { once: true });
    let remaining = limit;
    let last = Date.now();
    const timer = setInterval(
      () => {
        const now = Date.now();
        if (!broker.list().some((r) => r.serverId === this.id)) remaining -= now - last;
        last = now;
        if (remaining <= 0 && !controller.signal.aborted) controller.abort(new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out', { timeout: limit }));
      },
      Math.max(10, Math.min(250, limit / 4)),
    );
    const reset = options.onprogress !== undefined && options.resetTimeoutOnProgress !== false;
    const onprogress = options.onprogress;
    return {
      options: {
        timeout: 2_000_000_000,
        signal: controller.signal,
        onprogress: onprogress
          ? (p: { progress: number; total?: number; message?: string }) => {
              if (reset) remaining = limit;
              onprogress(p);
            }
          : undefined,
      },
      dispose: () => {
        clearInterval(timer);
        outer?.removeEventListener('abort', forward);
      },
    };
  }

  /** "Test connection": a real initialize + list on a throwaway connection. Never touches the live one. */
  async check(): Promise<LastCheck> {
    const started = performance.now();
    const probe = new ServerConnection({ ...this.config, retries: 0, pingIntervalSec: 0, idleTimeoutSec: 0, disabled: false }, {
      ...this.deps,
      // Its events are this server's in the trace, marked as the check's (not the live connection's).
      record: (event) => this.deps.record({ ...event, meta: { ...event.meta, check: true } }),
      observer: { onStatus: () => undefined, onStderrLine: () => undefined, onError: () => undefined },
    });
    try {
      await probe.connect();
      const status = probe.snapshot();
      if (status.state !== 'connected') throw probe.lastConnectError ?? new Error(status.error ?? 'connection failed');
      return { ok: true, at: Date.now(), toolCount: probe.listTools().length, durationMs: performance.now() - started, era: status.era, protocolVersion: status.protocolVersion };
    } catch (error) {
      const durationMs = performance.now() - started;
      return { ok: false, at: Date.now(), toolCount: 0, durationMs, error: describeConnectError(this.config.target, error), errorDetail: errorDetailOf(error, { durationMs, retryable: retryDecision(error).retry }) };
    } finally {
      await probe.disconnect();
    }
  }

  // --------------------------------------------------------------------------------------
  // Connecting

  private attempt(): Promise<void> {
    this.connecting ??= this.establish()
      .then(() => {
        this.failures = 0;
        this.lastConnectError = undefined;
      })
      .catch((error: unknown) => this.onConnectFailed(error))
      .finally(() => {
        this.connecting = undefined;
      });
    return this.connecting;
  }

  private onConnectFailed(error: unknown): void {
    const message = describeConnectError(this.config.target, error);
    const decision = retryDecision(error);
    const errorDetail = errorDetailOf(error, { kind: decision.kind, retryable: decision.retry });
    this.lastConnectError = error;
    this.failures++;
    // The sign-in's own failures are already on its record; others that are about auth go there too.
    if (decision.kind === 'auth' && !(error instanceof OAuthStepError) && !(error instanceof NoOAuthMetadataError)) this.authProvider()?.noteFailure(metadataRefusal(error) ? 'as-metadata' : 'connect', message);
    this.deps.observer.onError(this.id, message);
    if (this.wanted && decision.retry && this.failures <= this.config.retries) {
      const delay = backoffDelay(this.failures, this.deps.backoffBaseMs);
      const nextAttemptAt = Date.now() + delay;
      this.trace({ channel: 'lifecycle', kind: 'reconnect', dir: 'none', text: `attempt ${this.failures + 1} of ${this.config.retries + 1} in ${delay} ms`, meta: { attempt: this.failures + 1, delayMs: delay, nextAttemptAt } });
      this.setState('reconnecting', { error: message, errorKind: decision.kind, errorDetail, attempt: this.failures + 1, nextAttemptAt });
      this.retryTimer = setTimeout(() => {
        this.retryTimer = undefined;
        if (this.wanted) void this.attempt();
      }, delay);
      return;
    }
    const why = !decision.retry ? ` Switchboard did not retry, because ${decision.why}.` : this.config.retries > 0 && this.wanted ? ` Switchboard gave up after ${this.failures} attempts.` : '';
    this.setState('error', { error: message + why, errorKind: decision.kind, errorDetail });
  }

  private async establish(): Promise<void> {
    this.setState('connecting', this.failures > 0 ? { attempt: this.failures + 1 } : {});
    const { target } = this.config;
    const mode: NegotiationMode = this.config.era === 'auto' ? 'auto' : this.config.era === 'legacy' ? 'legacy' : { pin: MODERN_VERSION };
    const attempts: { kind: HttpKind | undefined; mode: NegotiationMode }[] = [];
    if (target.type === 'stdio') {
      attempts.push({ kind: undefined, mode });
      // Some legacy stdio servers exit on any request before `initialize`: an in-place probe
      // kills them, so try once more without probing.
      if (mode === 'auto') attempts.push({ kind: undefined, mode: 'legacy' });
    } else {
      const kinds: HttpKind[] = target.transport === 'auto' ? ['streamable-http', 'sse'] : [target.transport];
      for (const kind of kinds) attempts.push({ kind, mode: kind === 'sse' && mode === 'auto' ? 'legacy' : mode });
    }

    let lastError: unknown;
    for (const [index, attempt] of attempts.entries()) {
      if (index > 0) {
        this.trace({ channel: 'lifecycle', kind: 'reconnect', dir: 'none', text: `trying ${attempt.kind ?? 'stdio'} with ${typeof attempt.mode === 'string' ? attempt.mode : 'modern'} negotiation after: ${errorMessage(lastError)}` });
      }
      const started = Date.now();
      const provider = this.authProvider();
      const open = () => {
        const client = this.createClient(attempt.mode);
        const transport = createTransport(target, attempt.kind, {
          server: this.id,
          record: this.deps.record,
          redactor: this.redactor,
          now: this.deps.now,
          baseFetch: this.deps.baseFetch,
          authProvider: provider,
          onStderrLine: (line) => this.deps.observer.onStderrLine(this.id, line),
        });
        return { client, transport };
      };
      let { client, transport } = open();
      try {
        try {
          await client.connect(transport, { timeout: this.config.connectTimeoutSec * 1000 });
        } catch (error) {
          // The first request met a 401 and the sign-in finished inside it: connect again, once, with the tokens.
          await provider?.settled();
          if (!provider?.authorizedSince(started) || !interruptedBySignIn(error)) throw error;
          await closeClient(client, transport, false);
          this.trace({ channel: 'auth', kind: 'auth-step', dir: 'none', text: 'connecting again after signing in', meta: { step: 'retry', label: 'connect' } });
          ({ client, transport } = open());
          await client.connect(transport, { timeout: this.config.connectTimeoutSec * 1000 });
        }
        this.client = client;
        this.transport = transport;
        transport.onclose = chain(transport.onclose, () => this.onTransportClosed(client));
        this.lists = await this.fetchLists(client);
        this.onConnected(client, attempt.kind);
        return;
      } catch (error) {
        lastError = error;
        if (this.client === client) {
          this.client = undefined;
          this.transport = undefined;
        }
        await closeClient(client, transport, false);
        if (!worthAnotherTransport(attempt.kind, error)) break;
      }
    }
    throw lastError;
  }

  private onConnected(client: Client, kind: HttpKind | undefined): void {
    const info = client.getServerVersion();
    const era = client.getProtocolEra() === 'modern' ? 'modern' : 'legacy';
    const protocolVersion = client.getNegotiatedProtocolVersion();
    this.trace({
      channel: 'lifecycle',
      kind: 'era',
      dir: 'none',
      text: `${era} era, protocol ${protocolVersion ?? 'unknown'}${kind ? ` over ${kind}` : ''}`,
      meta: { era, protocolVersion, transport: kind ?? 'stdio', serverInfo: info ? this.redactor.json(info, false) : undefined, ...this.initializeFacts(client) },
    });
    this.setState('connected', {
      era,
      protocolVersion,
      serverInfo: info ? { name: info.name, version: info.version } : undefined,
      toolCount: this.lists.tools.length,
      serverCapabilities: Object.keys(client.getServerCapabilities() ?? {}).slice(0, 64),
    });
    this.deps.observer.onListsChanged?.(this.id);
    this.startHeartbeat(era);
    this.touch();
  }

  /** What the server said at initialize besides its name, and what we declared (the server info panel reads them from the `era` event). */
  private initializeFacts(client: Client): Record<string, unknown> {
    const instructions = client.getInstructions();
    return {
      capabilities: this.redactor.json(client.getServerCapabilities() ?? {}, false),
      clientCapabilities: this.capabilities(),
      ...(typeof instructions === 'string' ? { instructions: this.redactor.text(instructions) } : {}),
    };
  }

  /** Only what the server declares: no spurious "Method not found". One failing list leaves the others. */
  private async fetchLists(client: Client): Promise<ServerLists> {
    const caps = client.getServerCapabilities() ?? {};
    const timeout = this.config.requestTimeoutSec * 1000;
    const safely = async <T>(what: string, run: () => Promise<T[]>): Promise<T[]> => {
      try {
        return await run();
      } catch (error) {
        this.trace({ channel: 'lifecycle', kind: 'error', dir: 'none', text: `${what} failed: ${errorMessage(error)}` });
        this.deps.observer.onError(this.id, `${this.config.name}: ${what} failed: ${errorMessage(error)}`);
        return [];
      }
    };
    const [tools, prompts, resources, resourceTemplates] = await Promise.all([
      caps.tools ? safely('tools/list', async () => (await client.listTools(undefined, { timeout })).tools) : [],
      caps.prompts ? safely('prompts/list', async () => (await client.listPrompts(undefined, { timeout })).prompts) : [],
      caps.resources ? safely('resources/list', async () => (await client.listResources(undefined, { timeout })).resources) : [],
      caps.resources ? safely('resources/templates/list', async () => (await client.listResourceTemplates(undefined, { timeout })).resourceTemplates) : [],
    ]);
    return { tools, prompts, resources, resourceTemplates };
  }

  private createClient(mode: NegotiationMode): Client {
    const onChanged =
      <K extends 'tools' | 'prompts' | 'resources'>(key: K) =>
      (error: Error | null, items: ServerLists[K] | null) => {
        if (error || !items) {
          if (error) this.deps.observer.onError(this.id, `${this.config.name}: refreshing ${key} after list_changed failed: ${error.message}`);
          return;
        }
        this.lists = { ...this.lists, [key]: items };
        if (key === 'tools' && this.status.state === 'connected') this.setState('connected', { ...this.connectedExtras(), toolCount: items.length });
        this.deps.observer.onListsChanged?.(this.id);
      };
    const client = new TaskAwareClient(CLIENT_INFO, {
      capabilities: this.capabilities(),
      versionNegotiation: { mode },
      jsonSchemaValidator: SHOW_EVERYTHING,
      listChanged: {
        tools: { onChanged: onChanged('tools'), debounceMs: 100 },
        prompts: { onChanged: onChanged('prompts'), debounceMs: 100 },
        resources: { onChanged: onChanged('resources'), debounceMs: 100 },
      },
    });
    // A failure handling one of this server's messages is this server's error (Logs, trace), never the process's.
    client.onerror = (error) => {
      if (!isHandlingFailure(error)) return;
      if (!recordedByTransport(error)) this.trace({ channel: 'lifecycle', kind: 'error', dir: 'none', text: error.message });
      this.deps.observer.onError(this.id, `${this.config.name}: ${error.message}`);
    };
    client.setNotificationHandler('notifications/message', (notification) => {
      const { level, logger, data } = notification.params;
      this.deps.observer.onServerLog?.(this.id, level, logger, data);
    });
    client.setNotificationHandler('notifications/resources/updated', (notification) => {
      this.deps.observer.onResourceUpdated?.(this.id, notification.params.uri);
    });
    this.installRequestHandlers(client);
    // Tasks (2025-11-25) for the questions the policies let the server ask: told in the 2025 initialize only.
    client.answerTasks({ elicitation: this.config.elicitation !== 'off', sampling: this.config.sampling !== 'off' });
    return client;
  }

  // --------------------------------------------------------------------------------------
  // When the server asks

  /** Only what the policies support is declared. */
  private capabilities(): ClientCapabilities {
    const caps: ClientCapabilities = {};
    if (this.config.elicitation !== 'off') caps.elicitation = { form: {}, url: {} };
    if (this.config.sampling !== 'off') caps.sampling = { tools: {} };
    if (this.config.roots.length > 0) caps.roots = { listChanged: true };
    return caps;
  }

  private installRequestHandlers(client: Client): void {
    const era = () => (client.getProtocolEra() === 'modern' ? 'modern' : 'legacy') as 'legacy' | 'modern';
    const call = () => {
      const calls = [...this.activeCalls.values()];
      return calls.length === 1 ? calls[0] : undefined;
    };
    // A question sent for a server-side task (related-task meta) belongs to that task; one the
    // server sent as a task of ours (params.task) is answered inside a client-side task.
    const task = (params: Record<string, unknown>, ctx: unknown): PendingRequest['task'] => {
      const clientTaskId = clientTaskOf(ctx);
      if (clientTaskId) return { taskId: clientTaskId, side: 'client' };
      const related = (params._meta as Record<string, unknown> | undefined)?.[RELATED_TASK_META_KEY] as { taskId?: unknown } | undefined;
      if (typeof related?.taskId !== 'string') return undefined;
      const tool = this.startedTasks.get(related.taskId);
      return { taskId: related.taskId, side: 'server', ...(tool ? { tool } : {}) };
    };
    const base = (params: Record<string, unknown> = {}, ctx?: unknown) => {
      const ofTask = task(params, ctx);
      return { serverId: this.id, serverName: this.config.name, era: era(), call: ofTask?.side === 'server' ? undefined : call(), ...(ofTask ? { task: ofTask } : {}) };
    };

    if (this.config.elicitation !== 'off') {
      client.setRequestHandler('elicitation/create', async (request, ctx) => {
        const params = request.params as Record<string, unknown> & { mode?: string; requestedSchema?: RequestedSchema };
        const kind = params.mode === 'url' ? 'elicitation-url' : 'elicitation-form';
        const policy = this.config.elicitation;
        if (policy === 'decline' || policy === 'cancel') {
          this.deps.broker?.answeredByPolicy({ ...base(params, ctx), kind, params }, policy);
          return { action: policy };
        }
        if (policy === 'accept-defaults') {
          if (kind === 'elicitation-url') {
            this.deps.broker?.answeredByPolicy({ ...base(params, ctx), kind, params }, 'decline (a URL needs a person to open it)');
            return { action: 'decline' };
          }
          const schema = params.requestedSchema ?? {};
          const content = withDefaults(schema, this.deps.elicitationAnswers);
          const missing = missingRequired(schema, content);
          if (missing.length) {
            const why = `decline: required field${missing.length > 1 ? 's' : ''} ${missing.join(', ')} ha${missing.length > 1 ? 've' : 's'} no default and no supplied answer`;
            this.deps.observer.onError(this.id, `${this.config.name}: elicitation ${why}`);
            this.deps.broker?.answeredByPolicy({ ...base(params, ctx), kind, params }, why);
            return { action: 'decline' };
          }
          this.deps.broker?.answeredByPolicy({ ...base(params, ctx), kind, params }, 'accept with defaults');
          return { action: 'accept', content: content as Record<string, string | number | boolean | string[]> };
        }
        if (!this.deps.broker) return { action: 'decline' };
        const answer = await this.deps.broker.ask({ ...base(params, ctx), kind, params }, { signal: ctx.mcpReq.signal });
        if (answer.kind !== 'elicitation') return { action: 'cancel' };
        if (answer.action !== 'accept' || kind === 'elicitation-url') return { action: answer.action };
        return { action: 'accept', content: withDefaults(params.requestedSchema ?? {}, answer.content) as Record<string, string | number | boolean | string[]> };
      });
    }

    if (this.config.sampling !== 'off') {
      client.setRequestHandler('sampling/createMessage', async (request, ctx) => {
        const params = request.params as unknown as Record<string, unknown>;
        if (this.config.sampling === 'reject' || !this.deps.broker) {
          this.deps.broker?.answeredByPolicy({ ...base(params, ctx), kind: 'sampling', params }, 'reject');
          throw new ProtocolError(-1, 'The user rejected the sampling request (Switchboard policy: reject).');
        }
        const answer = await this.deps.broker.ask({ ...base(params, ctx), kind: 'sampling', params }, { signal: ctx.mcpReq.signal });
        if (answer.kind !== 'sampling' || answer.action !== 'approve' || !answer.result) {
          throw new ProtocolError(-1, `The user rejected the sampling request${answer.kind === 'sampling' && answer.reason ? `: ${answer.reason}` : '.'}`);
        }
        return { role: 'assistant', model: answer.result.model, stopReason: answer.result.stopReason, content: answer.result.content } as never;
      });
    }

    if (this.config.roots.length > 0) {
      client.setRequestHandler('roots/list', async () => ({ roots: this.config.roots.map((r) => ({ uri: r.uri, ...(r.name ? { name: r.name } : {}) })) }));
    }

    client.setNotificationHandler('notifications/elicitation/complete', (notification) => {
      this.deps.observer.onElicitationComplete?.(this.id, notification.params.elicitationId);
    });
  }

  // --------------------------------------------------------------------------------------
  // Staying connected

  private onTransportClosed(client: Client): void {
    if (this.client !== client) return; // a deliberate disconnect already moved on
    this.client = undefined;
    this.transport = undefined;
    this.stopTimers();
    this.dropped(`the connection to "${this.config.name}" closed unexpectedly`);
  }

  /** A live connection was lost: heal it if the user wants it, else say so. */
  private dropped(reason: string): void {
    this.deps.broker?.abandon(this.id);
    this.lists = EMPTY_LISTS;
    this.deps.observer.onListsChanged?.(this.id);
    this.deps.observer.onError(this.id, `${this.config.name}: ${reason}`);
    if (!this.wanted) {
      this.setState('error', { error: reason, reason });
      return;
    }
    this.failures = 0;
    this.onConnectFailed(Object.assign(new Error(reason), { code: 'CONNECTION_LOST' }));
  }

  private startHeartbeat(era: 'legacy' | 'modern'): void {
    this.stopTimers();
    this.missedPings = 0;
    const interval = this.config.pingIntervalSec * 1000;
    if (era !== 'legacy' || interval <= 0) return; // the modern era has no ping
    const beat = async () => {
      const client = this.client;
      if (!client) return;
      try {
        await client.ping({ timeout: Math.min(interval, this.config.requestTimeoutSec * 1000) });
        this.missedPings = 0;
      } catch (error) {
        if (this.client !== client) return;
        this.missedPings++;
        this.trace({ channel: 'lifecycle', kind: 'error', dir: 'none', text: `ping missed (${this.missedPings} of ${this.config.pingMisses}): ${errorMessage(error)}` });
        if (this.missedPings >= this.config.pingMisses) {
          const reason = `${this.missedPings} pings in a row went unanswered; the connection is unhealthy`;
          this.client = undefined;
          const transport = this.transport;
          this.transport = undefined;
          this.stopTimers();
          await closeClient(client, transport, false);
          this.dropped(reason);
          return;
        }
      }
      if (this.client === client) this.pingTimer = setTimeout(beat, interval);
    };
    this.pingTimer = setTimeout(beat, interval);
  }

  private touch(): void {
    const idle = this.config.idleTimeoutSec * 1000;
    if (idle <= 0) return;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      void this.goIdle();
    }, idle);
  }

  private async goIdle(): Promise<void> {
    if (this.status.state !== 'connected') return;
    this.trace({ channel: 'lifecycle', kind: 'state', dir: 'none', text: `idle for ${this.config.idleTimeoutSec} s: disconnecting; the next use reconnects`, meta: { idle: true } });
    this.idle = true;
    const lists = this.lists;
    await this.teardown(true);
    this.lists = lists; // the catalog keeps offering its tools: using one reconnects
    this.setState('disconnected', { reason: `idle for ${this.config.idleTimeoutSec} s; reconnects on next use` });
  }

  /** The live client, reconnecting first after an idle disconnect. */
  private async ready(): Promise<Client> {
    if (this.client && this.status.state === 'connected') return this.client;
    if (this.idle && this.wanted) {
      this.idle = false;
      await this.attempt();
      if (this.client) return this.client;
    }
    if (this.connecting) {
      await this.connecting;
      if (this.client) return this.client;
    }
    throw new Error(`Server "${this.config.name}" is not connected (${this.status.state}${this.status.error ? `: ${this.status.error}` : ''}).`);
  }

  private isSessionExpiry(error: unknown): boolean {
    return this.transport instanceof StreamableHTTPClientTransport && httpStatusOf(error) === 404 && this.client !== undefined;
  }

  /** The server forgot our session: start a new one (the trace shows both ids). */
  private async renewSession(): Promise<void> {
    const client = this.client;
    const transport = this.transport;
    this.client = undefined;
    this.transport = undefined;
    this.stopTimers();
    this.trace({ channel: 'lifecycle', kind: 'reconnect', dir: 'none', text: 'session expired (HTTP 404): re-initializing with a new session' });
    if (client) await closeClient(client, transport, false);
    try {
      await this.establish();
    } catch (error) {
      // establish() left the state at 'connecting': apply the connect policy (retry or error) like any failed connect.
      this.failures = 0;
      this.onConnectFailed(error);
      throw error;
    }
  }

  private async teardown(endSession: boolean): Promise<void> {
    this.stopTimers();
    this.deps.broker?.abandon(this.id);
    const { client, transport } = this;
    this.client = undefined;
    this.transport = undefined;
    this.lists = EMPTY_LISTS;
    if (client) {
      await closeClient(client, transport, endSession);
      this.deps.observer.onListsChanged?.(this.id);
    }
  }

  private stopTimers(): void {
    if (this.pingTimer) clearTimeout(this.pingTimer);
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.pingTimer = undefined;
    this.idleTimer = undefined;
  }

  private clearRetry(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
  }

  // --------------------------------------------------------------------------------------

  private connectedExtras(): Partial<ServerStatus> {
    const { era, protocolVersion, serverInfo, toolCount, serverCapabilities } = this.status;
    return { era, protocolVersion, serverInfo, toolCount, serverCapabilities };
  }

  private freshStatus(state: ConnectionState): ServerStatus {
    return { id: this.config.id, name: this.config.name, config: this.config, state, since: Date.now() };
  }

  private setState(state: ConnectionState, extra: Partial<ServerStatus>): void {
    this.status = { ...this.freshStatus(state), ...extra };
    this.trace({ channel: 'lifecycle', kind: 'state', dir: 'none', text: extra.error ? `${state}: ${extra.error}` : state, meta: { state, attempt: extra.attempt, nextAttemptAt: extra.nextAttemptAt } });
    this.deps.observer.onStatus(this.snapshot());
  }

  private trace(event: Omit<TraceEventInput, 'server'>): void {
    try {
      this.deps.record({ server: this.id, ...event });
    } catch {
      // the trace never breaks a connection
    }
  }
}

/**
 * stdio: a probe that killed the process deserves one plain `initialize`.
 * HTTP: a 4xx from a Streamable HTTP endpoint suggests the legacy SSE transport instead.
 */
function worthAnotherTransport(kind: HttpKind | undefined, error: unknown): boolean {
  if (kind === undefined) {
    const code = errorCode(error);
    const sdk = sdkCodeOf(error);
    return (sdk === SdkErrorCode.EraNegotiationFailed || sdk === SdkErrorCode.ConnectionClosed) && code !== 'ENOENT' && code !== 'EACCES';
  }
  const status = httpStatusOf(error);
  return kind === 'streamable-http' && status !== undefined && status >= 400 && status < 500 && status !== 401 && status !== 403;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function chain(first: (() => void) | undefined, second: () => void): () => void {
  return () => {
    first?.();
    second();
  };
}

/**
 * A `-32042` error (URL elicitation required, 2025 era) names the URLs only in its data: put them
 * in the message, readable (the links travel typed in the error's detail: `elicitations`).
 */
function withElicitationUrls(error: unknown): unknown {
  if (!(error instanceof ProtocolError) || error.code !== URL_ELICITATION_REQUIRED) return error;
  const elicitations = elicitationsOf(error.data);
  if (!elicitations) return error;
  const lines = elicitations.map((x) => `  ${x.url}${x.message ? ` — ${x.message}` : ''}`).join('\n');
  return new ProtocolError(
    URL_ELICITATION_REQUIRED,
    `URL elicitation required (-32042): ${error.message}\nThe server asks you to open ${elicitations.length > 1 ? 'these links' : 'this link'} first, then call again:\n${lines}`,
    error.data,
  );
}

/** Closes quietly; a half-open connection may fail to close, it is gone either way. */
async function closeClient(client: Client, transport: Transport | undefined, endSession: boolean): Promise<void> {
  if (endSession && transport instanceof StreamableHTTPClientTransport && transport.sessionId) {
    await transport.terminateSession().catch(() => undefined);
  }
  await client.close().catch(() => undefined);
  await transport?.close().catch(() => undefined);
}

/**
 * The request was refused for a sign-in that then ran inside it (the SDK reports "redirect" as
 * UnauthorizedError), or it timed out while a person was signing in: the server did not run it.
 * Not a 401 after the SDK's own refresh-and-retry: that one is an error, not another round.
 */
function interruptedBySignIn(error: unknown): boolean {
  return error instanceof UnauthorizedError || (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout);
}

/** The server refused for lack of (enough) authorization: 401, 403, or the SDK's UnauthorizedError. */
function isAuthFailure(error: unknown): boolean {
  if (error instanceof UnauthorizedError || error instanceof InsufficientScopeError) return true;
  const status = httpStatusOf(error);
  return status === 401 || status === 403;
}
