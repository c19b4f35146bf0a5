/**
 * One configured server: its SDK client, its transport, its state. Every transition is
 * published; failures stay inside this object.
 */
import { Client, type Tool, type Transport } from '@modelcontextprotocol/client';
import type { ConnectionState, ServerConfig, ServerStatus } from '../../../contract';
import { describeConnectError } from './errors';
import { createTransport, type HttpKind, type TransportHooks } from './transport-factory';

export const CLIENT_INFO = { name: 'switchboard', version: '0.1.0' } as const;
const MODERN_VERSION = '2026-07-28';

export interface ConnectionObserver {
  onStatus(status: ServerStatus): void;
  onStderrLine(serverId: string, line: string): void;
  onError(serverId: string, message: string): void;
}

export class ServerConnection {
  private client: Client | undefined;
  private transport: Transport | undefined;
  private tools: Tool[] = [];
  private status: ServerStatus;
  private connecting: Promise<void> | undefined;

  constructor(
    readonly config: ServerConfig,
    private readonly observer: ConnectionObserver,
    private readonly hooks: Pick<TransportHooks, 'fetch'> = {},
  ) {
    this.status = { id: config.id, name: config.name, config, state: 'disconnected', since: Date.now() };
  }

  get id(): string {
    return this.config.id;
  }

  snapshot(): ServerStatus {
    return { ...this.status };
  }

  listTools(): Tool[] {
    return this.tools;
  }

  /** Connects (or joins a connect already under way). Resolves when connected; rejects with a readable error. */
  connect(): Promise<void> {
    if (this.status.state === 'connected') return Promise.resolve();
    this.connecting ??= this.doConnect().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  async disconnect(): Promise<void> {
    const { client, transport } = this;
    this.client = undefined;
    this.transport = undefined;
    this.tools = [];
    if (client) await closeQuietly(client, transport);
    this.setState('disconnected', {});
  }

  async callTool(name: string, args: Record<string, unknown>, timeoutMs?: number): Promise<Record<string, unknown>> {
    const client = this.client;
    if (!client || this.status.state !== 'connected') {
      throw new Error(`Server "${this.config.name}" is not connected (state: ${this.status.state}).`);
    }
    const result = await client.callTool({ name, arguments: args }, timeoutMs ? { timeout: timeoutMs } : undefined);
    return result as Record<string, unknown>;
  }

  private async doConnect(): Promise<void> {
    this.setState('connecting', {});
    const { target } = this.config;
    const kinds: (HttpKind | undefined)[] =
      target.type === 'stdio' ? [undefined] : target.transport === 'auto' ? ['streamable-http', 'sse'] : [target.transport];
    let lastError: unknown;
    for (const kind of kinds) {
      const client = this.createClient();
      const transport = createTransport(target, kind, {
        fetch: this.hooks.fetch,
        onStderrLine: (line) => this.observer.onStderrLine(this.id, line),
      });
      try {
        await client.connect(transport);
        const capabilities = client.getServerCapabilities();
        this.tools = capabilities?.tools ? (await client.listTools()).tools : [];
        this.client = client;
        this.transport = transport;
        transport.onclose = chain(transport.onclose, () => this.onTransportClosed(client));
        const info = client.getServerVersion();
        this.setState('connected', {
          era: client.getProtocolEra() === 'modern' ? 'modern' : 'legacy',
          protocolVersion: client.getNegotiatedProtocolVersion(),
          serverInfo: info ? { name: info.name, version: info.version } : undefined,
          toolCount: this.tools.length,
        });
        return;
      } catch (error) {
        lastError = error;
        await closeQuietly(client, transport);
        // Only an HTTP 4xx from a Streamable HTTP endpoint suggests trying legacy SSE instead.
        if (kind !== 'streamable-http' || !/\b4\d\d\b/.test(String((error as Error)?.message))) break;
      }
    }
    const message = describeConnectError(target, lastError);
    this.setState('error', { error: message });
    this.observer.onError(this.id, message);
    throw new Error(message);
  }

  private createClient(): Client {
    const era = this.config.era;
    return new Client(CLIENT_INFO, {
      capabilities: {},
      versionNegotiation: { mode: era === 'auto' ? 'auto' : era === 'legacy' ? 'legacy' : { pin: MODERN_VERSION } },
    });
  }

  private onTransportClosed(client: Client): void {
    if (this.client !== client) return; // a deliberate disconnect already moved on
    this.client = undefined;
    this.transport = undefined;
    this.tools = [];
    const message = `Connection to "${this.config.name}" closed unexpectedly.`;
    this.setState('error', { error: message });
    this.observer.onError(this.id, message);
  }

  private setState(state: ConnectionState, extra: Partial<ServerStatus>): void {
    const { id, name } = this.config;
    this.status = { id, name, config: this.config, state, since: Date.now(), ...extra };
    this.observer.onStatus(this.snapshot());
  }
}

function chain(first: (() => void) | undefined, second: () => void): () => void {
  return () => {
    first?.();
    second();
  };
}

async function closeQuietly(client: Client, transport: Transport | undefined): Promise<void> {
  try {
    await client.close();
  } catch {
    // closing a half-open connection may fail; it is gone either way
  }
  try {
    await transport?.close();
  } catch {
    // same
  }
}
