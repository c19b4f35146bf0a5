/**
 * The state machine of one server connection: disconnected → connecting → connected →
 * reconnecting → error (and disabled). It owns the live client and transport, the status it
 * publishes (every transition is recorded in the trace) and the server's CatalogState.
 *
 * Policies: retries with exponential backoff (1 s → 30 s) up to `retries`, never for
 * configuration errors; a lost connection the person wants is healed; `withClient` reconnects
 * after an idle disconnect, repeats a request once after a sign-in that interrupted it, and on a
 * legacy-era 404 renews the session and repeats the request only when it is safe (lists, reads).
 */
import { StreamableHTTPClientTransport, type Client, type Transport } from '@modelcontextprotocol/client';
import type { ConnectionState, ServerConfig, ServerStatus } from '../../../contract';
import { NoOAuthMetadataError, OAuthStepError, type SwitchboardOAuthProvider } from '../auth/oauth-provider';
import { EMPTY_LISTS, type CatalogState, type ServerLists } from '../catalog/catalog-state';
import type { Redactor } from '../trace/redact';
import { backoffDelay, describeConnectError, errorDetailOf, httpStatusOf, metadataRefusal, retryDecision } from './errors';
import { Keepalive } from './keepalive';
import { connectedFacts, negotiate, type NegotiationHost } from './negotiation';
import { chain, closeClient, errorMessage, interruptedBySignIn, isAuthFailure, SessionExpiredError, type ConnectionDeps, type TraceWriter } from './parts';
import { configSecrets } from './transport-factory';

export class ConnectionMachine {
  private configNow: ServerConfig;
  private client: Client | undefined;
  private transport: Transport | undefined;
  private lists: ServerLists = EMPTY_LISTS;
  private published: ServerStatus;
  private connecting: Promise<void> | undefined;
  /** The user wants this server connected: drops are healed, idle disconnects reconnect on use. */
  private wanted = false;
  private failures = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private idle = false;
  /** The error of the last failed connect attempt (kept for "Test connection"). */
  lastConnectError: unknown;
  private readonly keepalive: Keepalive;

  constructor(
    config: ServerConfig,
    private readonly deps: ConnectionDeps,
    private readonly redactor: Redactor,
    private readonly catalog: CatalogState,
    private readonly installRequestHandlers: (client: Client) => void,
  ) {
    this.configNow = config;
    this.published = this.freshStatus(config.disabled ? 'disabled' : 'disconnected');
    for (const secret of configSecrets(config.target)) this.redactor.addSecret(secret);
    this.keepalive = new Keepalive({
      config: () => this.configNow,
      trace: this.trace,
      liveClient: () => this.client,
      unhealthy: (client, reason) => this.unhealthy(client, reason),
      idle: () => void this.goIdle(),
    });
    this.publish();
  }

  get id(): string {
    return this.configNow.id;
  }

  get config(): ServerConfig {
    return this.configNow;
  }

  set config(config: ServerConfig) {
    this.configNow = config;
    this.publish();
  }

  /** The state as published, with the configuration as it is now (a "Test connection" result is part of it). */
  status(): ServerStatus {
    return { ...this.published, name: this.configNow.name, config: this.configNow };
  }

  serverLists(): ServerLists {
    return this.lists;
  }

  /** Disconnected after the idle timeout; the next use reconnects. */
  isIdle(): boolean {
    return this.idle && this.wanted;
  }

  serverCapabilities() {
    return this.client?.getServerCapabilities();
  }

  /** The OAuth provider for this server's current configuration, when it uses OAuth. */
  authProvider(): SwitchboardOAuthProvider | undefined {
    return this.deps.auth?.providerFor(this.configNow, this.redactor);
  }

  /** Connects (or joins a connect under way). Resolves after the first attempt: connected, or failed with retries scheduled. */
  async connect(): Promise<void> {
    if (this.configNow.disabled) throw new Error(`Server "${this.configNow.name}" is disabled.`);
    this.setWanted(true);
    this.setIdle(false);
    if (this.published.state === 'connected') return;
    this.clearRetry();
    this.failures = 0;
    return this.attempt();
  }

  /** Ends the session (DELETE where the server keeps sessions) and closes the transport. */
  async disconnect(reason?: string): Promise<void> {
    this.setWanted(false);
    this.setIdle(false);
    this.clearRetry();
    await this.teardown(true);
    this.setState(this.configNow.disabled ? 'disabled' : 'disconnected', reason ? { reason } : {});
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

  /** Replaces the roots and tells a legacy-era server they changed. */
  async setRoots(roots: ServerConfig['roots']): Promise<void> {
    const hadRoots = this.configNow.roots.length > 0;
    this.config = { ...this.configNow, roots };
    this.published = { ...this.published, config: this.configNow };
    this.deps.observer.onStatus(this.status());
    if (!this.client || this.published.state !== 'connected') return;
    // Declared capabilities are fixed at connect: going from none to some needs a reconnect.
    if (!hadRoots && roots.length > 0) {
      await this.teardown(true);
      await this.attempt();
      return;
    }
    if (this.published.era === 'legacy') await this.client.sendRootsListChanged().catch(() => undefined);
  }

  /**
   * Runs an operation with the live client: reconnects after an idle disconnect, and heals an
   * expired session. `safe` operations (lists, reads, gets) are repeated once on the new
   * session; unsafe ones (tools/call) are not.
   */
  async withClient<T>(label: string, safe: boolean, op: (client: Client, timeoutMs: number) => Promise<T>): Promise<T> {
    const client = await this.ready();
    this.keepalive.touch();
    const timeoutMs = this.configNow.requestTimeoutSec * 1000;
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
      const sessionExpired = this.transport instanceof StreamableHTTPClientTransport && httpStatusOf(error) === 404 && this.client !== undefined;
      if (!sessionExpired) throw error;
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

  // --------------------------------------------------------------------------------------
  // Connecting, and retrying

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
    const message = describeConnectError(this.configNow.target, error);
    const decision = retryDecision(error);
    const errorDetail = errorDetailOf(error, { kind: decision.kind, retryable: decision.retry });
    this.lastConnectError = error;
    this.failures++;
    // The sign-in's own failures are already on its record; others that are about auth go there too.
    if (decision.kind === 'auth' && !(error instanceof OAuthStepError) && !(error instanceof NoOAuthMetadataError)) this.authProvider()?.noteFailure(metadataRefusal(error) ? 'as-metadata' : 'connect', message);
    this.deps.observer.onError(this.id, message);
    if (this.wanted && decision.retry && this.failures <= this.configNow.retries) {
      const delay = backoffDelay(this.failures, this.deps.backoffBaseMs);
      const nextAttemptAt = Date.now() + delay;
      this.trace({ channel: 'lifecycle', kind: 'reconnect', dir: 'none', text: `attempt ${this.failures + 1} of ${this.configNow.retries + 1} in ${delay} ms`, meta: { attempt: this.failures + 1, delayMs: delay, nextAttemptAt } });
      this.setState('reconnecting', { error: message, errorKind: decision.kind, errorDetail, attempt: this.failures + 1, nextAttemptAt });
      this.retryTimer = setTimeout(() => {
        this.retryTimer = undefined;
        if (this.wanted) void this.attempt();
      }, delay);
      return;
    }
    const why = !decision.retry ? ` Switchboard did not retry, because ${decision.why}.` : this.configNow.retries > 0 && this.wanted ? ` Switchboard gave up after ${this.failures} attempts.` : '';
    this.setState('error', { error: message + why, errorKind: decision.kind, errorDetail });
  }

  private async establish(): Promise<void> {
    this.setState('connecting', this.failures > 0 ? { attempt: this.failures + 1 } : {});
    const host = this.negotiationHost();
    const negotiated = await negotiate(host);
    this.setLists(negotiated.lists);
    const facts = connectedFacts(host, negotiated);
    this.trace(facts.event);
    this.setState('connected', facts.status);
    this.deps.observer.onListsChanged?.(this.id);
    this.keepalive.start(facts.era);
    this.keepalive.touch();
  }

  private negotiationHost(): NegotiationHost {
    return {
      id: this.id,
      config: () => this.configNow,
      deps: this.deps,
      redactor: this.redactor,
      trace: this.trace,
      authProvider: () => this.authProvider(),
      installRequestHandlers: this.installRequestHandlers,
      listChanged: (key, items) => {
        this.setLists({ ...this.lists, [key]: items });
        const { state, era, protocolVersion, serverInfo, serverCapabilities } = this.published;
        if (key === 'tools' && state === 'connected') this.setState('connected', { era, protocolVersion, serverInfo, serverCapabilities, toolCount: items.length });
        this.deps.observer.onListsChanged?.(this.id);
      },
      adopt: (client, transport) => {
        this.client = client;
        this.transport = transport;
        transport.onclose = chain(transport.onclose, () => this.onTransportClosed(client));
      },
      release: (client) => {
        if (this.client !== client) return;
        this.client = undefined;
        this.transport = undefined;
      },
    };
  }

  // --------------------------------------------------------------------------------------
  // Staying connected

  /** The live client and transport, which are the live ones no longer (the timers stop). */
  private detach(): { client: Client | undefined; transport: Transport | undefined } {
    const { client, transport } = this;
    this.client = undefined;
    this.transport = undefined;
    this.keepalive.stop();
    return { client, transport };
  }

  private onTransportClosed(client: Client): void {
    if (this.client !== client) return; // a deliberate disconnect already moved on
    this.detach();
    this.dropped(`the connection to "${this.configNow.name}" closed unexpectedly`);
  }

  /** The heartbeat gave up on this client. */
  private async unhealthy(client: Client, reason: string): Promise<void> {
    await closeClient(client, this.detach().transport, false);
    this.dropped(reason);
  }

  /** A live connection was lost: heal it if the user wants it, else say so. */
  private dropped(reason: string): void {
    this.deps.broker?.abandon(this.id);
    this.setLists(EMPTY_LISTS);
    this.deps.observer.onListsChanged?.(this.id);
    this.deps.observer.onError(this.id, `${this.configNow.name}: ${reason}`);
    if (!this.wanted) {
      this.setState('error', { error: reason, reason });
      return;
    }
    this.failures = 0;
    this.onConnectFailed(Object.assign(new Error(reason), { code: 'CONNECTION_LOST' }));
  }

  private async goIdle(): Promise<void> {
    if (this.published.state !== 'connected') return;
    this.trace({ channel: 'lifecycle', kind: 'state', dir: 'none', text: `idle for ${this.configNow.idleTimeoutSec} s: disconnecting; the next use reconnects`, meta: { idle: true } });
    this.setIdle(true);
    const lists = this.lists;
    await this.teardown(true);
    this.setLists(lists); // the catalog keeps offering its tools: using one reconnects
    this.setState('disconnected', { reason: `idle for ${this.configNow.idleTimeoutSec} s; reconnects on next use` });
  }

  /** The live client, reconnecting first after an idle disconnect. */
  private async ready(): Promise<Client> {
    if (this.client && this.published.state === 'connected') return this.client;
    if (this.idle && this.wanted) {
      this.setIdle(false);
      await this.attempt();
      if (this.client) return this.client;
    }
    if (this.connecting) {
      await this.connecting;
      if (this.client) return this.client;
    }
    throw new Error(`Server "${this.configNow.name}" is not connected (${this.published.state}${this.published.error ? `: ${this.published.error}` : ''}).`);
  }

  /** The server forgot our session: start a new one (the trace shows both ids). */
  private async renewSession(): Promise<void> {
    const { client, transport } = this.detach();
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
    this.deps.broker?.abandon(this.id);
    const { client, transport } = this.detach();
    this.setLists(EMPTY_LISTS);
    if (client) {
      await closeClient(client, transport, endSession);
      this.deps.observer.onListsChanged?.(this.id);
    }
  }

  private clearRetry(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
  }

  // --------------------------------------------------------------------------------------
  // What is published

  private setWanted(wanted: boolean): void {
    if (this.wanted === wanted) return;
    this.wanted = wanted;
    this.publish();
    this.deps.observer.onWantedChange?.(this.id, wanted);
  }

  private setIdle(idle: boolean): void {
    this.idle = idle;
    this.publish();
  }

  private setLists(lists: ServerLists): void {
    this.lists = lists;
    this.publish();
  }

  /** The server's part of the catalog: its lists while it is connected, or idle (using a tool reconnects). */
  private publish(): void {
    this.catalog.update({ name: this.configNow.name, lists: this.lists, offered: this.published.state === 'connected' || this.isIdle() });
  }

  private freshStatus(state: ConnectionState): ServerStatus {
    return { id: this.configNow.id, name: this.configNow.name, config: this.configNow, state, since: Date.now() };
  }

  private setState(state: ConnectionState, extra: Partial<ServerStatus>): void {
    this.published = { ...this.freshStatus(state), ...extra };
    this.publish();
    this.trace({ channel: 'lifecycle', kind: 'state', dir: 'none', text: extra.error ? `${state}: ${extra.error}` : state, meta: { state, attempt: extra.attempt, nextAttemptAt: extra.nextAttemptAt } });
    this.deps.observer.onStatus(this.status());
  }

  readonly trace: TraceWriter = (event) => {
    try {
      this.deps.record({ server: this.id, ...event });
    } catch {
      // the trace never breaks a connection
    }
  };
}
