/**
 * One configured server, as the rest of the core sees it: a thin composition of its parts.
 *
 * - `state-machine.ts` — the states (disconnected → connecting → connected → reconnecting →
 *   error, and disabled), retries with backoff, `withClient` (idle reconnect, session renewal,
 *   the repeat after a sign-in), and the server's CatalogState;
 * - `negotiation.ts` — one connect: transports and eras to try, the client, the lists, what the
 *   server said at initialize;
 * - `server-requests.ts` — elicitation, sampling and roots from the server, tied to the call or
 *   task that caused them, and tool calls with the legacy era's pausable timeout;
 * - `keepalive.ts` — the legacy era's ping heartbeat and the idle timeout.
 *
 * Every transition is published and recorded in the trace; failures stay inside this object.
 */
import type { Client, Tool } from '@modelcontextprotocol/client';
import type { LastCheck, ServerConfig, ServerStatus } from '../../../contract';
import type { SwitchboardOAuthProvider } from '../auth/oauth-provider';
import { CatalogState, type ServerLists } from '../catalog/catalog-state';
import { Redactor } from '../trace/redact';
import { describeConnectError, errorDetailOf, retryDecision } from './errors';
import type { ConnectionDeps } from './parts';
import { ServerRequests, type CallOptions } from './server-requests';
import { ConnectionMachine } from './state-machine';

export type { ConnectionDeps, ConnectionObserver } from './parts';
export { SessionExpiredError } from './parts';
export type { ServerLists } from '../catalog/catalog-state';
export { CLIENT_INFO, MODERN_VERSION } from './negotiation';
export { backoffDelay } from './errors';

export class ServerConnection {
  readonly redactor = new Redactor();
  private readonly machine: ConnectionMachine;
  private readonly requests: ServerRequests;

  /** `catalog`: this server's part of the catalog (the connection manager's index tracks it). */
  constructor(
    config: ServerConfig,
    private readonly deps: ConnectionDeps,
    catalog = new CatalogState(config.id, config.name),
  ) {
    this.requests = new ServerRequests(config.id, deps, () => this.machine.config);
    this.machine = new ConnectionMachine(config, deps, this.redactor, catalog, (client) => this.requests.install(client));
  }

  get id(): string {
    return this.machine.id;
  }

  get config(): ServerConfig {
    return this.machine.config;
  }

  set config(config: ServerConfig) {
    this.machine.config = config;
  }

  /** The state as published, with the configuration as it is now (a "Test connection" result is part of it). */
  status(): ServerStatus {
    return this.machine.status();
  }

  listTools(): Tool[] {
    return this.machine.serverLists().tools;
  }

  serverLists(): ServerLists {
    return this.machine.serverLists();
  }

  /** The OAuth provider for this server's current configuration, when it uses OAuth. */
  authProvider(): SwitchboardOAuthProvider | undefined {
    return this.machine.authProvider();
  }

  /** Disconnected after the idle timeout; the next use reconnects. */
  isIdle(): boolean {
    return this.machine.isIdle();
  }

  serverCapabilities() {
    return this.machine.serverCapabilities();
  }

  /** Connects (or joins a connect under way). Resolves after the first attempt: connected, or failed with retries scheduled. */
  connect(): Promise<void> {
    return this.machine.connect();
  }

  /** Ends the session (DELETE where the server keeps sessions) and closes the transport. */
  disconnect(reason?: string): Promise<void> {
    return this.machine.disconnect(reason);
  }

  /** Replaces the configuration (edit); reconnects if it was connected. */
  reconfigure(config: ServerConfig): Promise<void> {
    return this.machine.reconfigure(config);
  }

  /**
   * Runs an operation with the live client: reconnects after an idle disconnect, and heals an
   * expired session. `safe` operations (lists, reads, gets) are repeated once on the new
   * session; unsafe ones (tools/call) are not.
   */
  withClient<T>(label: string, safe: boolean, op: (client: Client, timeoutMs: number) => Promise<T>): Promise<T> {
    return this.machine.withClient(label, safe, op);
  }

  callTool(name: string, args: Record<string, unknown>, options: CallOptions = {}): Promise<Record<string, unknown>> {
    return this.requests.callTool({ withClient: (label, safe, op) => this.machine.withClient(label, safe, op), era: () => this.machine.status().era }, name, args, options);
  }

  /** A task started with tools/call on this server: its questions (related-task meta) are tied to it. */
  noteTask(taskId: string, tool: string): void {
    this.requests.noteTask(taskId, tool);
  }

  /** Replaces the roots and tells a legacy-era server they changed. */
  setRoots(roots: ServerConfig['roots']): Promise<void> {
    return this.machine.setRoots(roots);
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
      const status = probe.status();
      if (status.state !== 'connected') throw probe.machine.lastConnectError ?? new Error(status.error ?? 'connection failed');
      return { ok: true, at: Date.now(), toolCount: probe.listTools().length, durationMs: performance.now() - started, era: status.era, protocolVersion: status.protocolVersion };
    } catch (error) {
      const durationMs = performance.now() - started;
      return { ok: false, at: Date.now(), toolCount: 0, durationMs, error: describeConnectError(this.config.target, error), errorDetail: errorDetailOf(error, { durationMs, retryable: retryDecision(error).retry }) };
    } finally {
      await probe.disconnect();
    }
  }
}
