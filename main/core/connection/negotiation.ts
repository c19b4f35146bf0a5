/**
 * Negotiation: how one connect attempt reaches a server and what it learns there.
 *
 * The plan tries, in order, what the configuration allows — for HTTP `auto`, Streamable HTTP then
 * legacy SSE (after a 4xx); for stdio with era `auto`, the SDK's in-place probe, then a plain
 * `initialize` for servers that exit on unknown requests. Each try gets a fresh client declaring
 * only what the policies support, refreshing its lists on list_changed; a sign-in that finished
 * inside the first request connects once more. Once connected, the lists the server declares are
 * fetched, and what it said at initialize becomes the `era` trace event and the connected status.
 */
import { SdkErrorCode, type Client, type ClientCapabilities, type jsonSchemaValidator, type Transport } from '@modelcontextprotocol/client';
import type { ServerConfig, ServerStatus } from '../../../contract';
import { APP_MIME_TYPE, UI_EXTENSION, toolUiProblemLines } from '../apps/tool-ui';
import type { SwitchboardOAuthProvider } from '../auth/oauth-provider';
import type { ServerLists } from '../catalog/catalog-state';
import { TaskAwareClient } from '../tasks/task-client';
import type { Redactor } from '../trace/redact';
import { isHandlingFailure, recordedByTransport } from '../transport/contained';
import { errorCode, httpStatusOf, sdkCodeOf } from './errors';
import { closeClient, errorMessage, interruptedBySignIn, type ConnectionDeps, type TraceWriter } from './parts';
import { createTransport, type HttpKind } from './transport-factory';

export const CLIENT_INFO = { name: 'switchboard', version: '0.1.0' } as const;
export const MODERN_VERSION = '2026-07-28';

type NegotiationMode = 'auto' | 'legacy' | { pin: string };
type ListKey = 'tools' | 'prompts' | 'resources';

/**
 * An inspector shows what the server sent, including a result that breaks its own output
 * schema: the SDK's validator would throw such a result away (and refuse tools whose output
 * schema does not compile). The UI checks structuredContent against the schema and shows any
 * mismatch instead.
 */
const SHOW_EVERYTHING: jsonSchemaValidator = {
  getValidator: () => (input) => ({ valid: true, data: input as never, errorMessage: undefined }),
};

/** What negotiation needs from the connection it connects. */
export interface NegotiationHost {
  readonly id: string;
  config(): ServerConfig;
  readonly deps: ConnectionDeps;
  readonly redactor: Redactor;
  readonly trace: TraceWriter;
  authProvider(): SwitchboardOAuthProvider | undefined;
  /** Installs the handlers of server-initiated requests on a new client. */
  installRequestHandlers(client: Client): void;
  /** The SDK refetched a list after list_changed. */
  listChanged<K extends ListKey>(key: K, items: ServerLists[K]): void;
  /** The client connected: it is the live one from now on (before its lists are fetched). */
  adopt(client: Client, transport: Transport): void;
  /** Connecting with this client failed after all: it is the live one no longer. */
  release(client: Client): void;
}

export interface Negotiated {
  client: Client;
  kind: HttpKind | undefined;
  lists: ServerLists;
}

/** Only what the policies support is declared. */
export function clientCapabilities(config: ServerConfig): ClientCapabilities {
  const caps: ClientCapabilities = {};
  if (config.elicitation !== 'off') caps.elicitation = { form: {}, url: {} };
  if (config.sampling !== 'off') caps.sampling = { tools: {} };
  if (config.roots.length > 0) caps.roots = { listChanged: true };
  // MCP Apps: the SDK sends these capabilities as they are in both eras (the 2025 initialize, the
  // 2026 discover probe and every request's `_meta` envelope), so the extension is told everywhere.
  if (config.apps !== false) caps.extensions = { [UI_EXTENSION]: { mimeTypes: [APP_MIME_TYPE] } };
  return caps;
}

/** The transports and eras to try, in order. */
function plan(config: ServerConfig): { kind: HttpKind | undefined; mode: NegotiationMode }[] {
  const { target } = config;
  const mode: NegotiationMode = config.era === 'auto' ? 'auto' : config.era === 'legacy' ? 'legacy' : { pin: MODERN_VERSION };
  if (target.type === 'stdio') {
    // Some legacy stdio servers exit on any request before `initialize`: an in-place probe
    // kills them, so try once more without probing.
    return mode === 'auto' ? [{ kind: undefined, mode }, { kind: undefined, mode: 'legacy' }] : [{ kind: undefined, mode }];
  }
  const kinds: HttpKind[] = target.transport === 'auto' ? ['streamable-http', 'sse'] : [target.transport];
  return kinds.map((kind) => ({ kind, mode: kind === 'sse' && mode === 'auto' ? 'legacy' : mode }));
}

/** Connects by the plan; the first try that connects wins, else the last error is thrown. */
export async function negotiate(host: NegotiationHost): Promise<Negotiated> {
  const { target } = host.config();
  let lastError: unknown;
  for (const [index, attempt] of plan(host.config()).entries()) {
    if (index > 0) {
      host.trace({ channel: 'lifecycle', kind: 'reconnect', dir: 'none', text: `trying ${attempt.kind ?? 'stdio'} with ${typeof attempt.mode === 'string' ? attempt.mode : 'modern'} negotiation after: ${errorMessage(lastError)}` });
    }
    const started = Date.now();
    const provider = host.authProvider();
    const open = () => {
      const client = createClient(host, attempt.mode);
      const transport = createTransport(target, attempt.kind, {
        server: host.id,
        record: host.deps.record,
        redactor: host.redactor,
        now: host.deps.now,
        baseFetch: host.deps.baseFetch,
        authProvider: provider,
        onStderrLine: (line) => host.deps.observer.onStderrLine(host.id, line),
      });
      return { client, transport };
    };
    let { client, transport } = open();
    try {
      let legacyRetried = false;
      for (;;) {
        try {
          await client.connect(transport, { timeout: host.config().connectTimeoutSec * 1000 });
          break;
        } catch (error) {
          // A 2025-03-26 server's own metadata stopped at the issuer check: adopted, connect again, once.
          if (!legacyRetried && (await provider?.adoptLegacyRootMetadata(error))) {
            legacyRetried = true;
            await closeClient(client, transport, false);
            host.trace({ channel: 'auth', kind: 'auth-step', dir: 'none', text: 'connecting again with the 2025-03-26 authorization server metadata', meta: { step: 'retry', label: 'connect' } });
            ({ client, transport } = open());
            continue;
          }
          // The first request met a 401 and the sign-in finished inside it: connect again, once, with the tokens.
          await provider?.settled();
          if (!provider?.authorizedSince(started) || !interruptedBySignIn(error)) throw error;
          await closeClient(client, transport, false);
          host.trace({ channel: 'auth', kind: 'auth-step', dir: 'none', text: 'connecting again after signing in', meta: { step: 'retry', label: 'connect' } });
          ({ client, transport } = open());
          await client.connect(transport, { timeout: host.config().connectTimeoutSec * 1000 });
          break;
        }
      }
      host.adopt(client, transport);
      return { client, kind: attempt.kind, lists: await fetchLists(host, client) };
    } catch (error) {
      lastError = error;
      host.release(client);
      await closeClient(client, transport, false);
      if (!worthAnotherTransport(attempt.kind, error)) break;
    }
  }
  throw lastError;
}

/** What the server said at initialize: the `era` event's meta and the connected status. */
export function connectedFacts(host: NegotiationHost, { client, kind, lists }: Negotiated): { event: Parameters<TraceWriter>[0]; status: Partial<ServerStatus>; era: 'legacy' | 'modern' } {
  const info = client.getServerVersion();
  const era = client.getProtocolEra() === 'modern' ? 'modern' : 'legacy';
  const protocolVersion = client.getNegotiatedProtocolVersion();
  const instructions = client.getInstructions();
  return {
    era,
    event: {
      channel: 'lifecycle',
      kind: 'era',
      dir: 'none',
      text: `${era} era, protocol ${protocolVersion ?? 'unknown'}${kind ? ` over ${kind}` : ''}`,
      meta: {
        era,
        protocolVersion,
        transport: kind ?? 'stdio',
        serverInfo: info ? host.redactor.json(info, false) : undefined,
        // What the server said at initialize besides its name, and what we declared (the server info panel reads them from the `era` event).
        capabilities: host.redactor.json(client.getServerCapabilities() ?? {}, false),
        clientCapabilities: clientCapabilities(host.config()),
        ...(typeof instructions === 'string' ? { instructions: host.redactor.text(instructions) } : {}),
      },
    },
    status: {
      era,
      protocolVersion,
      serverInfo: info ? { name: info.name, version: info.version } : undefined,
      toolCount: lists.tools.length,
      serverCapabilities: Object.keys(client.getServerCapabilities() ?? {}).slice(0, 64),
    },
  };
}

/** Only what the server declares: no spurious "Method not found". One failing list leaves the others. */
async function fetchLists(host: NegotiationHost, client: Client): Promise<ServerLists> {
  const caps = client.getServerCapabilities() ?? {};
  const timeout = host.config().requestTimeoutSec * 1000;
  const safely = async <T>(what: string, run: () => Promise<T[]>): Promise<T[]> => {
    try {
      return await run();
    } catch (error) {
      host.trace({ channel: 'lifecycle', kind: 'error', dir: 'none', text: `${what} failed: ${errorMessage(error)}` });
      host.deps.observer.onError(host.id, `${host.config().name}: ${what} failed: ${errorMessage(error)}`);
      return [];
    }
  };
  const [tools, prompts, resources, resourceTemplates] = await Promise.all([
    caps.tools ? safely('tools/list', async () => reportToolUi(host, (await client.listTools(undefined, { timeout })).tools)) : [],
    caps.prompts ? safely('prompts/list', async () => (await client.listPrompts(undefined, { timeout })).prompts) : [],
    caps.resources ? safely('resources/list', async () => (await client.listResources(undefined, { timeout })).resources) : [],
    caps.resources ? safely('resources/templates/list', async () => (await client.listResourceTemplates(undefined, { timeout })).resourceTemplates) : [],
  ]);
  return { tools, prompts, resources, resourceTemplates };
}

/** Tools whose `_meta.ui` the catalog ignores: one protocol line each, once per tools/list. */
function reportToolUi(host: NegotiationHost, tools: ServerLists['tools']): ServerLists['tools'] {
  for (const line of toolUiProblemLines(tools)) host.deps.observer.onError(host.id, `${host.config().name}: ${line}`);
  return tools;
}

function createClient(host: NegotiationHost, mode: NegotiationMode): Client {
  const { deps, id } = host;
  const config = host.config();
  const onChanged =
    <K extends ListKey>(key: K) =>
    (error: Error | null, items: ServerLists[K] | null) => {
      if (error || !items) {
        if (error) deps.observer.onError(id, `${host.config().name}: refreshing ${key} after list_changed failed: ${error.message}`);
        return;
      }
      if (key === 'tools') reportToolUi(host, items as ServerLists['tools']);
      host.listChanged(key, items);
    };
  const client = new TaskAwareClient(CLIENT_INFO, {
    capabilities: clientCapabilities(config),
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
    if (!recordedByTransport(error)) host.trace({ channel: 'lifecycle', kind: 'error', dir: 'none', text: error.message });
    deps.observer.onError(id, `${host.config().name}: ${error.message}`);
  };
  client.setNotificationHandler('notifications/message', (notification) => {
    const { level, logger, data } = notification.params;
    deps.observer.onServerLog?.(id, level, logger, data);
  });
  client.setNotificationHandler('notifications/resources/updated', (notification) => {
    deps.observer.onResourceUpdated?.(id, notification.params.uri);
  });
  host.installRequestHandlers(client);
  // Tasks (2025-11-25) for the questions the policies let the server ask: told in the 2025 initialize only.
  client.answerTasks({ elicitation: config.elicitation !== 'off', sampling: config.sampling !== 'off' });
  return client;
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
