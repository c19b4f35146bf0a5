/** Many servers at once: each connection's failures stay its own. Their catalog is one index over every server's CatalogState. */
import type { ServerConfig } from '../../../contract';
import { CatalogIndex } from '../catalog/catalog-state';
import { ServerConnection, type ConnectionDeps } from './server-connection';

export class ConnectionManager {
  private readonly connections = new Map<string, ServerConnection>();
  /** The merged catalog of every connected (or idle) server, kept current by the connections. */
  readonly catalog = new CatalogIndex();

  constructor(private readonly deps: ConnectionDeps) {}

  add(config: ServerConfig): ServerConnection {
    const connection = new ServerConnection(config, this.deps, this.catalog.track(config.id, config.name));
    this.connections.set(config.id, connection);
    return connection;
  }

  get(id: string): ServerConnection | undefined {
    return this.connections.get(id);
  }

  all(): ServerConnection[] {
    return [...this.connections.values()];
  }

  async remove(id: string): Promise<boolean> {
    const connection = this.connections.get(id);
    if (!connection) return false;
    this.connections.delete(id);
    this.catalog.untrack(id);
    await connection.disconnect();
    // A sign-in waiting for this server ends; its stored tokens stay until "Sign out".
    this.deps.auth?.forget(id);
    return true;
  }

  /**
   * "Connect all": every enabled server that is not connected or on its way, concurrently. Resolves
   * once each has made its first attempt; one that fails (or hangs until its connect timeout)
   * never holds the others back, and its failure is its own status.
   */
  async connectAll(): Promise<{ connections: ServerConnection[]; skippedDisabled: number }> {
    const enabled = this.all().filter((c) => !c.config.disabled);
    const idle = enabled.filter((c) => !['connected', 'connecting', 'reconnecting'].includes(c.status().state));
    await Promise.allSettled(idle.map((c) => c.connect()));
    return { connections: idle, skippedDisabled: this.all().length - enabled.length };
  }

  /** "Disconnect all": every server that is connected or trying to be (the person's choice: none of them comes back at start). */
  async disconnectAll(): Promise<{ connections: ServerConnection[]; skippedDisabled: number }> {
    const live = this.all().filter((c) => !c.config.disabled && (c.status().state !== 'disconnected' || c.isIdle()));
    await Promise.allSettled(live.map((c) => c.disconnect()));
    return { connections: live, skippedDisabled: this.all().filter((c) => c.config.disabled).length };
  }

  /**
   * At start: connects the servers the person left connected whose "Connect at start" is on,
   * concurrently and in the background (the app is ready before any of them answers). Returns
   * the ones it started.
   */
  reconnectAtStart(ids: readonly string[], onFailure: (connection: ServerConnection, error: unknown) => void): ServerConnection[] {
    const wanted = new Set(ids);
    const chosen = this.all().filter((c) => wanted.has(c.id) && c.config.connectAtStart && !c.config.disabled);
    for (const connection of chosen) void connection.connect().catch((error: unknown) => onFailure(connection, error));
    return chosen;
  }

  /** Disconnects everything (quit): stdio children are closed, HTTP sessions ended. */
  async closeAll(): Promise<void> {
    await Promise.allSettled(this.all().map((c) => c.disconnect()));
  }
}
