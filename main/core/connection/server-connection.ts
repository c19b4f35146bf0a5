/**
 * One configured server: its SDK client, its tracked transport, its state. Every transition is
 * published and recorded in the trace; failures stay inside this object.
 */
import { Client, StreamableHTTPClientTransport, type Tool, type Transport } from '@modelcontextprotocol/client';
import type { ConnectionState, ServerConfig, ServerStatus } from '../../../contract';
import type { TraceEventInput } from '../../../contract/trace';
import { Redactor } from '../trace/redact';
import { classifyError, describeConnectError } from './errors';
import { configSecrets, createTransport, type HttpKind, type TransportContext } from './transport-factory';

export const CLIENT_INFO = { name: 'switchboard', version: '0.1.0' } as const;
export const MODERN_VERSION = '2026-07-28';

export interface ConnectionObserver {
  onStatus(status: ServerStatus): void;
  onStderrLine(serverId: string, line: string): void;
  onError(serverId: string, message: string): void;
}

export interface ConnectionDeps {
  observer: ConnectionObserver;
  /** Where this connection's trace events go (the trace store's append). */
  record: (event: TraceEventInput) => void;
  now?: () => number;
  baseFetch?: TransportContext['baseFetch'];
}

type NegotiationMode = 'auto' | 'legacy' | { pin: string };

export class ServerConnection {
  private client: Client | undefined;
  private transport: Transport | undefined;
  private tools: Tool[] = [];
  private status: ServerStatus;
  private connecting: Promise<void> | undefined;
  readonly redactor = new Redactor();

  constructor(
    readonly config: ServerConfig,
    private readonly deps: ConnectionDeps,
  ) {
    this.status = { id: config.id, name: config.name, config, state: 'disconnected', since: Date.now() };
    for (const secret of configSecrets(config.target)) this.redactor.addSecret(secret);
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

  /** Ends the session (DELETE where the server keeps sessions) and closes the transport. */
  async disconnect(): Promise<void> {
    const { client, transport } = this;
    this.client = undefined;
    this.transport = undefined;
    this.tools = [];
    if (client) await closeClient(client, transport, true);
    if (this.status.state !== 'disconnected') this.setState('disconnected', {});
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
    const attempts: { kind: HttpKind | undefined; mode: NegotiationMode }[] = [];
    const mode: NegotiationMode = this.config.era === 'auto' ? 'auto' : this.config.era === 'legacy' ? 'legacy' : { pin: MODERN_VERSION };
    if (target.type === 'stdio') {
      attempts.push({ kind: undefined, mode });
      // Some legacy stdio servers exit on any request before `initialize`, so an in-place
      // probe kills them: try once more without probing.
      if (mode === 'auto') attempts.push({ kind: undefined, mode: 'legacy' });
    } else {
      const kinds: HttpKind[] = target.transport === 'auto' ? ['streamable-http', 'sse'] : [target.transport];
      for (const kind of kinds) attempts.push({ kind, mode: kind === 'sse' && mode === 'auto' ? 'legacy' : mode });
    }

    let lastError: unknown;
    for (const [index, attempt] of attempts.entries()) {
      if (index > 0) this.trace({ channel: 'lifecycle', kind: 'reconnect', dir: 'none', text: `retrying with ${attempt.kind ?? 'stdio'} (${typeof attempt.mode === 'string' ? attempt.mode : 'modern'} negotiation) after: ${errorMessage(lastError)}` });
      const client = this.createClient(attempt.mode);
      const transport = createTransport(target, attempt.kind, {
        server: this.id,
        record: this.deps.record,
        redactor: this.redactor,
        now: this.deps.now,
        baseFetch: this.deps.baseFetch,
        onStderrLine: (line) => this.deps.observer.onStderrLine(this.id, line),
      });
      try {
        await client.connect(transport);
        const capabilities = client.getServerCapabilities();
        this.tools = capabilities?.tools ? (await client.listTools()).tools : [];
        this.client = client;
        this.transport = transport;
        transport.onclose = chain(transport.onclose, () => this.onTransportClosed(client));
        const info = client.getServerVersion();
        const era = client.getProtocolEra() === 'modern' ? 'modern' : 'legacy';
        const protocolVersion = client.getNegotiatedProtocolVersion();
        this.trace({
          channel: 'lifecycle',
          kind: 'era',
          dir: 'none',
          text: `${era} era, protocol ${protocolVersion ?? 'unknown'}${attempt.kind ? ` over ${attempt.kind}` : ''}`,
          meta: { era, protocolVersion, transport: attempt.kind ?? 'stdio', serverInfo: info ? this.redactor.json(info, false) : undefined },
        });
        this.setState('connected', {
          era,
          protocolVersion,
          serverInfo: info ? { name: info.name, version: info.version } : undefined,
          toolCount: this.tools.length,
        });
        return;
      } catch (error) {
        lastError = error;
        await closeClient(client, transport, false);
        if (!worthAnotherAttempt(attempt.kind, error)) break;
      }
    }
    const message = describeConnectError(target, lastError);
    this.setState('error', { error: message, errorKind: classifyError(lastError) });
    this.deps.observer.onError(this.id, message);
    throw new Error(message);
  }

  private createClient(mode: NegotiationMode): Client {
    return new Client(CLIENT_INFO, { capabilities: {}, versionNegotiation: { mode } });
  }

  private onTransportClosed(client: Client): void {
    if (this.client !== client) return; // a deliberate disconnect already moved on
    this.client = undefined;
    this.transport = undefined;
    this.tools = [];
    const message = `Connection to "${this.config.name}" closed unexpectedly.`;
    this.setState('error', { error: message });
    this.deps.observer.onError(this.id, message);
  }

  private setState(state: ConnectionState, extra: Partial<ServerStatus>): void {
    const { id, name } = this.config;
    this.status = { id, name, config: this.config, state, since: Date.now(), ...extra };
    this.trace({ channel: 'lifecycle', kind: 'state', dir: 'none', text: extra.error ? `${state}: ${extra.error}` : state, meta: { state } });
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
function worthAnotherAttempt(kind: HttpKind | undefined, error: unknown): boolean {
  const message = errorMessage(error);
  if (kind === undefined) return /negotiation failed|closed/i.test(message) && !/ENOENT|EACCES/.test(message);
  return kind === 'streamable-http' && /\b4\d\d\b/.test(message) && !/\b401\b/.test(message);
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

/** Closes quietly; a half-open connection may fail to close, it is gone either way. */
async function closeClient(client: Client, transport: Transport | undefined, endSession: boolean): Promise<void> {
  if (endSession && transport instanceof StreamableHTTPClientTransport && transport.sessionId) {
    await transport.terminateSession().catch(() => undefined);
  }
  await client.close().catch(() => undefined);
  await transport?.close().catch(() => undefined);
}
