/** Many servers at once: each connection's failures stay its own. */
import type { ServerConfig } from '../../../contract';
import { ServerConnection, type ConnectionDeps } from './server-connection';

export class ConnectionManager {
  private readonly connections = new Map<string, ServerConnection>();

  constructor(private readonly deps: ConnectionDeps) {}

  add(config: ServerConfig): ServerConnection {
    const connection = new ServerConnection(config, this.deps);
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
    await connection.disconnect();
    // A sign-in waiting for this server ends; its stored tokens stay until "Sign out".
    this.deps.auth?.forget(id);
    return true;
  }

  /** Disconnects everything (quit): stdio children are closed, HTTP sessions ended. */
  async closeAll(): Promise<void> {
    await Promise.allSettled(this.all().map((c) => c.disconnect()));
  }
}
