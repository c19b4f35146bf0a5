/**
 * The one contract between main and renderer: every method with its argument and result
 * schemas, and every event main pushes. Both carriers (Electron IPC, the browser mode's
 * WebSocket) move exactly these shapes; the dispatcher validates arguments against them.
 */
import { z } from 'zod';
import { CaptureConfig, CaptureResult, ProxySession, ProxySetFaultsArgs } from './proxy';
import { CheckProgress, ConformanceReport, DoctorReport, OtlpHeader, OtlpSendResult } from './checks';
import { Baseline, DriftStatus, InterfaceDiff, InterfaceRef, InterfaceSnapshot, RecordingId, RecordingRetention, RecordingSummary, RecordingTag, ReplayCandidate, ReplayReport } from './recordings';
import type { EventName, MethodName } from './names';
import { CONNECT_ERROR_KINDS, type ErrorDetail } from './errors';
import { CHANNELS, EVENT_KINDS, type ServerSnapshot, type TraceEvent } from './trace';
import { toRootUri } from './field-checks';

export * from './names';
export * from './errors';

/** Error details are produced by our own code (main/core/connection/errors.ts): typed, not re-validated. */
const ErrorDetailShape = z.custom<ErrorDetail>();

// ---------------------------------------------------------------------------------------
// Shared shapes

export const ServerId = z.string().min(1).max(64);

const KeyValues = z.record(z.string(), z.string());

export const StdioTarget = z.object({
  type: z.literal('stdio'),
  command: z.string().trim().min(1, 'command must not be empty'),
  args: z.array(z.string()).default([]),
  env: KeyValues.default({}),
  /** Env names whose values may appear in traces and exports (all others are secrets). */
  nonSecretEnv: z.array(z.string()).default([]),
  cwd: z.string().optional(),
});

/** An http(s) URL with a host name and without a user:password part (credentials go in headers). */
export const ServerUrl = z
  .string()
  .trim()
  .min(1, 'url must not be empty')
  .superRefine((value, ctx) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      ctx.addIssue({ code: 'custom', message: `"${value.slice(0, 200)}" is not a valid URL` });
      return;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') ctx.addIssue({ code: 'custom', message: `url must be http: or https:, not ${url.protocol}` });
    else if (!url.hostname) ctx.addIssue({ code: 'custom', message: 'url must have a host name' });
    if (url.username || url.password) ctx.addIssue({ code: 'custom', message: 'url must not contain a user:password part; put credentials in a header' });
  });

/**
 * OAuth for an HTTP server. Used whenever the server asks for it (401) unless turned off or
 * the server has an Authorization header of its own. The client is, in the spec's order: this
 * client id (and secret), a Client ID Metadata Document URL, or dynamic registration.
 */
export const OAuthSettings = z.object({
  disabled: z.boolean().optional(),
  clientId: z.string().trim().min(1).max(500).optional(),
  clientSecret: z.string().min(1).max(2000).optional(),
  clientMetadataUrl: z
    .string()
    .trim()
    .refine((u) => {
      try {
        const url = new URL(u);
        return url.protocol === 'https:' && url.pathname !== '/';
      } catch {
        return false;
      }
    }, 'clientMetadataUrl must be an https: URL with a path (a Client ID Metadata Document)')
    .optional(),
  scope: z.string().trim().max(2000).optional(),
});

export const HttpTarget = z.object({
  type: z.literal('http'),
  url: ServerUrl,
  headers: KeyValues.default({}),
  /** Header names whose values may appear in traces and exports (all others are secrets). */
  nonSecretHeaders: z.array(z.string()).optional(),
  transport: z.enum(['streamable-http', 'sse', 'auto']).default('auto'),
  oauth: OAuthSettings.optional(),
});

export const ServerTarget = z.discriminatedUnion('type', [StdioTarget, HttpTarget]);

export const ProtocolEraSetting = z.enum(['auto', 'legacy', 'modern']);

export const ElicitationPolicy = z.enum(['ask', 'accept-defaults', 'decline', 'cancel', 'off']);
export const SamplingPolicy = z.enum(['ask', 'reject', 'off']);
export const RootEntry = z.object({
  uri: z
    .string()
    .max(4_096)
    .transform((u, ctx) => {
      // An absolute path becomes a file: URI; a relative path or ~ is refused with the reason.
      const root = toRootUri(u);
      if (root.ok) return root.uri;
      ctx.addIssue({ code: 'custom', message: root.error });
      return z.NEVER;
    }),
  name: z.string().max(200).optional(),
});

const seconds = (field: string, min: number, max: number) =>
  z
    .number({ error: `${field} must be a number of seconds` })
    .int(`${field} must be a whole number of seconds`)
    .min(min, `${field} must be between ${min} and ${max} seconds`)
    .max(max, `${field} must be between ${min} and ${max} seconds`);

/** What a user writes to add a server. Main assigns the id. */
export const ServerConfigInput = z.object({
  name: z.string().trim().min(1, 'name must not be empty').max(120, 'name must be at most 120 characters'),
  target: ServerTarget,
  era: ProtocolEraSetting.default('auto'),
  description: z.string().max(2000).optional(),
  /** Per-request timeout. */
  requestTimeoutSec: seconds('requestTimeoutSec', 1, 300).default(60),
  /** Time allowed for connecting (spawn or first HTTP exchange, and the handshake). */
  connectTimeoutSec: seconds('connectTimeoutSec', 1, 300).default(30),
  /** Reconnect attempts after a failure (exponential backoff 1 s → 30 s). */
  retries: z.number().int('retries must be a whole number').min(0, 'retries must be between 0 and 5').max(5, 'retries must be between 0 and 5').default(3),
  /** Heartbeat for legacy-era servers; 0 turns it off. */
  pingIntervalSec: z.union([z.literal(0), seconds('pingIntervalSec', 1, 300)]).default(30),
  /** Consecutive missed pings that mark the connection unhealthy and reconnect it. */
  pingMisses: z.number().int().min(1).max(10).default(3),
  /** Disconnect after this long without use; the next use reconnects. 0 turns it off. */
  idleTimeoutSec: z.union([z.literal(0), seconds('idleTimeoutSec', 10, 86_400)]).default(0),
  disabled: z.boolean().default(false),
  /** How elicitation requests are answered: a dialog, automatically, or not offered at all. */
  elicitation: ElicitationPolicy.default('ask'),
  /** How sampling requests are answered (no model is called: a person writes the reply). */
  sampling: SamplingPolicy.default('ask'),
  /** The roots this server may see (roots/list). Empty: the capability is not declared. */
  roots: z.array(RootEntry).default([]),
  /** Reconnect at start when it was connected as the app stopped (a server the person disconnected stays disconnected). */
  connectAtStart: z.boolean().default(true),
  /** MCP Apps: declare the `io.modelcontextprotocol/ui` extension so the server may offer tool UIs. */
  apps: z.boolean().default(true),
});

/** The result of the last "Test connection": a real initialize + list, never a guess. */
export const LastCheck = z.object({
  ok: z.boolean(),
  at: z.number(),
  toolCount: z.number().int(),
  durationMs: z.number(),
  error: z.string().optional(),
  /** The facts behind `error` (kind, HTTP status, retryable). */
  errorDetail: ErrorDetailShape.optional(),
  era: z.enum(['legacy', 'modern']).optional(),
  protocolVersion: z.string().optional(),
});

export const ServerConfig = ServerConfigInput.extend({ id: ServerId, lastCheck: LastCheck.optional() });

export const ConnectionState = z.enum(['disconnected', 'connecting', 'connected', 'reconnecting', 'error', 'disabled']);

export const ServerStatus = z.object({
  id: ServerId,
  name: z.string(),
  config: ServerConfig,
  state: ConnectionState,
  /** A readable error: which server, which channel, what happened, what to try. */
  error: z.string().optional(),
  /** What kind of failure `error` is: decides retries, CLI exit codes and hints. */
  errorKind: z.enum(CONNECT_ERROR_KINDS).optional(),
  /** The facts behind `error` (kind, HTTP status, retryable). */
  errorDetail: ErrorDetailShape.optional(),
  era: z.enum(['legacy', 'modern']).optional(),
  protocolVersion: z.string().optional(),
  serverInfo: z.object({ name: z.string(), version: z.string().optional() }).optional(),
  toolCount: z.number().int().optional(),
  since: z.number(),
  /** While reconnecting: which attempt comes next, and when. */
  attempt: z.number().int().optional(),
  nextAttemptAt: z.number().optional(),
  /** Why the connection last went down (idle timeout, missed pings, server closed…). */
  reason: z.string().optional(),
  /** While connected: the top-level capabilities the server declared (names only; the whole object: `serverInfo`). */
  serverCapabilities: z.array(z.string()).optional(),
});

export const JsonObject = z.record(z.string(), z.unknown());

export const ToolEntry = z.object({
  /** `server__tool`, unique across all servers. */
  name: z.string(),
  serverId: ServerId,
  serverName: z.string(),
  originalName: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  inputSchema: JsonObject,
  outputSchema: JsonObject.optional(),
  annotations: JsonObject.optional(),
  icons: z.array(z.unknown()).optional(),
  /** Other namespaced names that share this tool's bare name. */
  collidesWith: z.array(z.string()).optional(),
  /** MCP tasks (2025-11-25): the tool's `execution.taskSupport`, when it declares one. */
  taskSupport: z.enum(['forbidden', 'optional', 'required']).optional(),
  /**
   * MCP Apps: the tool's `_meta.ui` (or the deprecated flat `_meta["ui/resourceUri"]`), when it
   * names a `ui://` resource (`resourceUri`: the tool has an app) or a visibility (a tool without
   * a UI of its own may still be app-only). `visibility` absent means both; `["app"]` is app-only
   * (hidden from a model), `["model"]` may not be called from an app.
   */
  ui: z.object({ resourceUri: z.string().optional(), visibility: z.array(z.enum(['model', 'app'])).optional() }).optional(),
});

export const PromptEntry = z.object({
  name: z.string(),
  serverId: ServerId,
  serverName: z.string(),
  originalName: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  arguments: z.array(z.object({ name: z.string(), description: z.string().optional(), required: z.boolean().optional() }).passthrough()).optional(),
});

export const ResourceEntry = z
  .object({ serverId: ServerId, serverName: z.string(), uri: z.string(), name: z.string(), title: z.string().optional(), description: z.string().optional(), mimeType: z.string().optional() })
  .passthrough();

export const ResourceTemplateEntry = z
  .object({ serverId: ServerId, serverName: z.string(), uriTemplate: z.string(), name: z.string(), title: z.string().optional(), description: z.string().optional(), mimeType: z.string().optional() })
  .passthrough();

export const AuditRecord = z.object({
  ts: z.number(),
  serverId: ServerId,
  serverName: z.string(),
  tool: z.string(),
  argumentKeys: z.array(z.string()),
  /** Only when the user enabled recording argument values. */
  arguments: JsonObject.optional(),
  durationMs: z.number(),
  outcome: z.enum(['ok', 'tool-error', 'rpc-error', 'timeout', 'transport-error', 'cancelled']),
  errorClass: z.string().optional(),
  error: z.string().optional(),
});

export const ClientFormat = z.enum(['mcpServers', 'vscode', 'switchboard']);

/**
 * MCP tasks (2025-11-25): the task a server's question belongs to. `server`: a task this run
 * started with tools/call (the question came with its related-task meta, through tasks/result);
 * `client`: the server sent the question as a task of Switchboard's (params.task) and polls it.
 */
export const PendingRequestTask = z.object({ taskId: z.string(), side: z.enum(['server', 'client']), tool: z.string().optional() });

/** A request a server made of the client, waiting for a person (or a policy) to answer. */
export const PendingRequest = z.object({
  id: z.string(),
  serverId: ServerId,
  serverName: z.string(),
  kind: z.enum(['elicitation-form', 'elicitation-url', 'sampling']),
  /** The request's params as the server sent them (hostile text: render as text). */
  params: JsonObject,
  era: z.enum(['legacy', 'modern']),
  /** The tool call this request belongs to, when it can be told. */
  call: z.object({ tool: z.string(), callId: z.string().optional() }).optional(),
  task: PendingRequestTask.optional(),
  receivedAt: z.number(),
  deadline: z.number(),
});

export const RequestAnswer = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('elicitation'), action: z.enum(['accept', 'decline', 'cancel']), content: JsonObject.optional() }),
  z.object({
    kind: z.literal('sampling'),
    action: z.enum(['approve', 'reject']),
    result: z
      .object({
        model: z.string().min(1),
        stopReason: z.string().optional(),
        role: z.literal('assistant').default('assistant'),
        content: z.union([JsonObject, z.array(JsonObject)]),
      })
      .optional(),
    reason: z.string().optional(),
  }),
]);

export const LogLevel = z.enum(['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']);

/** Which trace a query reads: the live one, or a file opened read-only. */
/** live: this session; import-N: a file opened read-only; rec-ID: a recording of the library opened read-only. */
export const TraceSource = z
  .string()
  .regex(/^(live|import-\d+|rec-[A-Za-z0-9][A-Za-z0-9_-]{0,79})$/)
  .default('live');

export const HistoryEntry = z.object({
  id: z.string(),
  ts: z.number(),
  serverId: ServerId,
  serverName: z.string(),
  tool: z.string(),
  args: JsonObject,
  durationMs: z.number(),
  outcome: z.enum(['ok', 'tool-error', 'rpc-error', 'timeout', 'transport-error', 'cancelled']),
  error: z.string().optional(),
  traceSeq: z.number().optional(),
  responseSeq: z.number().optional(),
});

export const SavedCall = z.object({
  id: z.string(),
  name: z.string().trim().min(1, 'name must not be empty').max(200),
  /** The collection: the server's name (stable across ids). */
  serverName: z.string(),
  tool: z.string().min(1),
  args: JsonObject,
  savedAt: z.number(),
});

export const AppSettings = z.object({
  /** Record tool-call argument values in the audit (keys are always recorded). */
  auditArgumentValues: z.boolean(),
  /** Electron: sign in through the system browser instead of a Switchboard login window. */
  oauthSystemBrowser: z.boolean(),
  /** The recordings library's bounds (size and age); the live session is never cut by them. */
  recordingRetention: RecordingRetention,
});

export const DiscoveredConfig = z.object({
  client: z.string(),
  path: z.string(),
  exists: z.boolean(),
  serverCount: z.number().int().optional(),
  error: z.string().optional(),
});

export const CallToolResult = z.object({
  serverId: ServerId,
  tool: z.string(),
  durationMs: z.number(),
  /** The trace event of the request, to jump to its exchange in the Traffic view. */
  traceSeq: z.number().optional(),
  /** The trace event carrying its response (paired by JSON-RPC id). */
  responseSeq: z.number().optional(),
  /** The server's result, as it arrived (content blocks, structuredContent, isError). */
  result: JsonObject,
});

export const LogLine = z.object({
  ts: z.number(),
  serverId: ServerId.optional(),
  /**
   * `server`: its log notifications (notifications/message); `stderr`: a stdio server's stderr;
   * `protocol`: what went wrong with a server (its error answers, failed lists, broken messages,
   * lost connections), always with its `serverId`; `app`: Switchboard's own; `mcp-app`: an MCP App
   * running in its sandbox (its console errors, CSP violations, log notifications, bridge refusals).
   */
  source: z.enum(['app', 'stderr', 'server', 'protocol', 'mcp-app']),
  /** MCP's eight syslog levels (RFC 5424), each as itself. */
  level: LogLevel,
  text: z.string(),
  /**
   * Main's number for the line, increasing. It starts at main's start time in µs, so a restarted
   * main's lines number after the last one's; lines made elsewhere (a recording's) have none.
   */
  id: z.number().int().nonnegative().optional(),
});

/** How long a `logFeed({ full: true })` lease lasts unless renewed. */
export const LOG_FEED_LEASE_MS = 10_000;
/** Without a log-feed lease, a push carries at most this many of its newest lines (marked `partial` when it had more). */
export const LOG_FEED_TAIL = 100;

/** A feed lease (`traceFeed`, `logFeed`): a window's name for it, and whether it wants the whole feed (taken or renewed) or gives it up. */
const FeedLease = {
  args: z.object({ lease: z.string().min(1).max(64), full: z.boolean() }).strict(),
  result: z.object({ full: z.boolean(), leaseMs: z.number() }),
};

export const AppInfo = z.object({
  name: z.string(),
  version: z.string(),
  carrier: z.enum(['electron', 'browser']),
  platform: z.string(),
  node: z.string(),
});

export const TraceQuery = z
  .object({
    servers: z.array(ServerId).max(500).optional(),
    channels: z.array(z.enum(CHANNELS)).optional(),
    kinds: z.array(z.enum(EVENT_KINDS)).optional(),
    methods: z.array(z.string().max(200)).max(200).optional(),
    exchange: z.string().max(64).optional(),
    session: z.string().max(512).optional(),
    text: z.string().max(1000).optional(),
    errorsOnly: z.boolean().optional(),
    statusClass: z.array(z.number().int().min(1).max(5)).optional(),
    fromTs: z.number().optional(),
    toTs: z.number().optional(),
    cursor: z.number().int().min(0).optional(),
    order: z.enum(['asc', 'desc']).optional(),
    limit: z.number().int().min(1).max(5000).optional(),
    source: TraceSource.optional(),
  })
  .strict();

/**
 * Traffic's window over main's store (#15): `limit` rows at `offset` among the events matching
 * the filters (default: the tail), or around `aroundSeq`; `afterSeq`/`throughSeq` bound the seqs
 * ("Clear view", a paused view). The filters are TraceQuery's.
 */
export const TraceWindowQuery = TraceQuery.omit({ cursor: true, order: true, limit: true })
  .extend({
    afterSeq: z.number().int().min(0).optional(),
    throughSeq: z.number().int().min(0).optional(),
    offset: z.number().int().min(0).optional(),
    aroundSeq: z.number().int().min(1).optional(),
    limit: z.number().int().min(1).max(2000).optional(),
  })
  .strict();

/** Trace events and snapshots are produced by our own code: typed, not re-validated. */
const TraceEventShape = z.custom<TraceEvent>();
const SnapshotShape = z.custom<ServerSnapshot>();

// ---------------------------------------------------------------------------------------
// Methods

/** MCP tasks (2025-11-25): a tool call run as a task, as this run knows it. */
export const TaskStatusName = z.enum(['working', 'input_required', 'completed', 'failed', 'cancelled']);
export const TaskInfo = z.object({
  serverId: ServerId,
  serverName: z.string(),
  taskId: z.string(),
  /** Namespaced tool name. */
  tool: z.string(),
  args: JsonObject,
  status: TaskStatusName,
  statusMessage: z.string().optional(),
  /** When Switchboard sent the tools/call (ms since epoch). */
  startedAt: z.number(),
  /** When a terminal status was first seen. */
  endedAt: z.number().optional(),
  /** The last status message seen before the task was terminal (a terminal one equal to it is stale progress). */
  progressMessage: z.string().optional(),
  /** tasks/result is open (sent on input_required: the server delivers its questions through it). */
  resultPending: z.boolean().optional(),
  pollInterval: z.number().optional(),
  ttl: z.number().nullable().optional(),
  /** The tasks/result payload once fetched (a CallToolResult), or why it could not be fetched. */
  result: JsonObject.optional(),
  resultError: z.string().optional(),
  resultErrorDetail: ErrorDetailShape.optional(),
  /** Polling stopped before a terminal status (bounded polling, server gone…): why. */
  pollError: z.string().optional(),
  pollErrorDetail: ErrorDetailShape.optional(),
});
const TaskRef = z.object({ serverId: ServerId, taskId: z.string().min(1).max(256) }).strict();

/** A server's sign-in, as the UI shows it: never a token, a code or a verifier. */
export const AuthStatus = z.object({
  serverId: ServerId,
  /** This server signs in with OAuth (HTTP, not turned off, no Authorization header of its own). */
  applies: z.boolean(),
  identity: z.string().optional(),
  signedIn: z.boolean(),
  clientId: z.string().optional(),
  clientSource: z.enum(['configured', 'metadata-document', 'dynamic']).optional(),
  issuer: z.string().optional(),
  tokenType: z.string().optional(),
  expiresAt: z.number().optional(),
  hasRefreshToken: z.boolean(),
  scopeRequested: z.string().optional(),
  scopeGranted: z.string().optional(),
  /** The access token's header and claims when it is a JWT (the signature is never shown). */
  jwt: z.object({ header: JsonObject, payload: JsonObject }).optional(),
  inFlow: z.boolean(),
  lastFailure: z.object({ step: z.string(), message: z.string(), hint: z.string().optional(), at: z.number() }).optional(),
  authorizationUrl: z.string().optional(),
  /** Step by step: each OAuth request (and the login) waits for authContinue. */
  stepMode: z.boolean(),
  paused: z.object({ step: z.string(), method: z.string(), url: z.string(), since: z.number() }).optional(),
  /** How the secret store protects tokens at rest, in plain words. */
  storage: z.object({ encrypted: z.boolean(), backend: z.string(), notice: z.string() }),
});

export const SignInPrompt = z.object({
  flowId: z.string(),
  serverId: ServerId,
  serverName: z.string(),
  url: z.string(),
  origin: z.string(),
  scope: z.string().optional(),
});

/** A server's icon as it declared it (hostile: the renderer shows only data: and https: sources). */
export const ServerIcon = z.object({ src: z.string(), mimeType: z.string().optional(), sizes: z.array(z.string()).optional(), theme: z.string().optional() });

/** Something the server did that its declaration does not cover, or refused what it declared. */
export const CapabilityMismatch = z.object({
  /** `undeclared`: the server sent this without declaring the capability; `unasked`: it asked us for something we did not declare; `refused`: it answered Method not found to a method of a capability it declared. */
  kind: z.enum(['undeclared', 'unasked', 'refused']),
  /** The capability path, e.g. `tools.listChanged`, `logging`, client `sampling`. */
  capability: z.string(),
  method: z.string(),
  count: z.number().int(),
  firstAt: z.number(),
  /** Trace seq of the first occurrence (jump to it in Traffic). */
  firstSeq: z.number().int().optional(),
});

/** One method seen during the connection, with how often. */
export const ObservedMethod = z.object({ method: z.string(), count: z.number().int(), firstAt: z.number(), lastAt: z.number(), firstSeq: z.number().int().optional() });

/** What a server said at initialize, what we declared, and what it actually did since it connected. */
export const ServerInfo = z.object({
  serverId: ServerId,
  /** False before the first connection of this run (nothing to show yet). */
  known: z.boolean(),
  connectedAt: z.number().optional(),
  era: z.enum(['legacy', 'modern']).optional(),
  protocolVersion: z.string().optional(),
  transport: z.string().optional(),
  implementation: z
    .object({
      name: z.string(),
      title: z.string().optional(),
      version: z.string().optional(),
      description: z.string().optional(),
      websiteUrl: z.string().optional(),
      icons: z.array(ServerIcon).optional(),
    })
    .optional(),
  /** The server's instructions: untrusted text, bounded (64 KiB) and redacted. */
  instructions: z.string().optional(),
  instructionsCut: z.number().int().optional(),
  serverCapabilities: JsonObject.optional(),
  clientCapabilities: JsonObject.optional(),
  /** Server → client notifications and requests, and our requests it refused (Method not found). */
  notifications: z.array(ObservedMethod),
  requests: z.array(ObservedMethod),
  refused: z.array(ObservedMethod),
  mismatches: z.array(CapabilityMismatch),
});

// ---------------------------------------------------------------------------------------
// MCP Apps (extension io.modelcontextprotocol/ui, spec 2026-01-26)

/** What a UI resource declared it needs (`_meta.ui.csp`), as the server sent it (validated by main). */
export const AppCspDeclared = z.object({
  connectDomains: z.array(z.string()).optional(),
  resourceDomains: z.array(z.string()).optional(),
  frameDomains: z.array(z.string()).optional(),
  baseUriDomains: z.array(z.string()).optional(),
});
export const APP_PERMISSIONS = ['camera', 'microphone', 'geolocation', 'clipboardWrite'] as const;
export const AppPermission = z.enum(APP_PERMISSIONS);

/** An app instance main prepared: the resource read, the policy built, the sandbox page registered. */
export const AppInstance = z.object({
  instanceId: z.string(),
  serverId: ServerId,
  serverName: z.string(),
  uri: z.string(),
  /** The namespaced tool the app belongs to, when opened for one. */
  tool: z.string().optional(),
  mimeType: z.string(),
  /** The app's HTML, as the server sent it (sent to the sandbox proxy, never rendered by us). */
  html: z.string(),
  /** The outer frame's URL: the sandbox proxy page on an origin that is not ours. */
  sandboxUrl: z.string(),
  /** The sandbox origin (for postMessage target checks). */
  sandboxOrigin: z.string(),
  /** The Content-Security-Policy the sandbox page is served with (exact header value). */
  csp: z.string(),
  declared: AppCspDeclared,
  /** Declared entries refused by the policy builder, each with why. */
  refused: z.array(z.object({ directive: z.string(), value: z.string(), reason: z.string() })),
  /** Permissions the resource asks for; granted only after the person consents. */
  permissions: z.array(AppPermission),
  /** Permissions granted to this instance (consent given): these reach the frame's `allow`. */
  granted: z.array(AppPermission),
  prefersBorder: z.boolean().optional(),
  /** `_meta.ui.domain`, if the server asked for a dedicated origin (not honoured: said in `notes`). */
  domain: z.string().optional(),
  /** Plain-words notes for the Devtools strip (what was not honoured and why). */
  notes: z.array(z.string()),
  durationMs: z.number(),
  /** The trace event of the resources/read request. */
  traceSeq: z.number().optional(),
});

/** One bridge message, as the renderer saw it cross (`out`: host → app, `in`: app → host). */
export const AppBridgeMessage = z.object({
  dir: z.enum(['in', 'out']),
  ts: z.number(),
  message: z.unknown(),
  /** Messages the host refused or dropped unprocessed (flood, refused call, bad origin): why. */
  refused: z.string().max(2000).optional(),
});

export const AppLogEntry = z.object({
  ts: z.number(),
  level: LogLevel,
  /** `console`: console.error/warn or an uncaught error; `csp`: a CSP violation; `log`: notifications/message; `bridge`: the host refused or contained something. */
  kind: z.enum(['console', 'csp', 'log', 'bridge']),
  text: z.string().max(20_000),
});

const NoArgs = z.object({}).strict().default({});
const ById = z.object({ id: ServerId }).strict();

/** What "Connect all" / "Disconnect all" did: the servers it acted on, as they are after it. */
export const BulkConnectResult = z.object({ servers: z.array(ServerStatus), skippedDisabled: z.number().int() });

export const methods = {
  appInfo: { args: NoArgs, result: AppInfo },
  listServers: { args: NoArgs, result: z.array(ServerStatus) },
  addServer: { args: ServerConfigInput.strict(), result: ServerStatus },
  removeServer: { args: ById, result: z.object({ removed: z.boolean() }) },
  connectServer: { args: ById, result: ServerStatus },
  disconnectServer: { args: ById, result: ServerStatus },
  listTools: { args: z.object({ serverId: ServerId.optional() }).strict().default({}), result: z.array(ToolEntry) },
  callTool: {
    args: z
      .object({
        /** A namespaced name (`server__tool`), or a bare name with `serverId`. */
        tool: z.string().min(1),
        serverId: ServerId.optional(),
        args: JsonObject.default({}),
        timeoutMs: z.number().int().min(1).max(3_600_000).optional(),
        /** Restart the timeout whenever a progress notification arrives. */
        resetTimeoutOnProgress: z.boolean().default(true),
        /** Chosen by the caller, so it can follow progress (`callProgress`) and cancel (`cancelCall`). */
        callId: z.string().min(1).max(64).optional(),
        /** A call an MCP App made through the bridge: refused unless the tool is visible to apps and on the app's server. */
        fromApp: z.object({ instanceId: z.string().min(1).max(64) }).strict().optional(),
      })
      .strict(),
    result: CallToolResult,
  },
  /** Cancels a call in flight: the SDK sends notifications/cancelled (legacy) or aborts the request (modern). */
  cancelCall: { args: z.object({ callId: z.string().min(1).max(64) }).strict(), result: z.object({ cancelled: z.boolean() }) },
  /** Calls made in this run, newest first, with arguments and outcome. */
  listHistory: { args: z.object({ limit: z.number().int().min(1).max(1000).default(200) }).strict().default({ limit: 200 }), result: z.array(HistoryEntry) },
  listSavedCalls: { args: z.object({ serverName: z.string().optional() }).strict().default({}), result: z.array(SavedCall) },
  saveCall: { args: SavedCall.omit({ id: true, savedAt: true }).strict(), result: SavedCall },
  deleteSavedCall: { args: z.object({ id: z.string() }).strict(), result: z.object({ deleted: z.boolean() }) },
  /** The arguments last used with a tool (namespaced name), to pre-fill its form. */
  lastToolInput: { args: z.object({ tool: z.string() }).strict(), result: z.object({ args: JsonObject.optional() }) },
  getPrompt: {
    args: z.object({ name: z.string().min(1), serverId: ServerId.optional(), args: z.record(z.string(), z.string()).default({}) }).strict(),
    result: z.object({ serverId: ServerId, name: z.string(), result: JsonObject, durationMs: z.number() }),
  },
  readResource: {
    args: z.object({ serverId: ServerId, uri: z.string().min(1).max(10_000) }).strict(),
    result: z.object({ serverId: ServerId, uri: z.string(), result: JsonObject, durationMs: z.number() }),
  },
  complete: {
    args: z
      .object({
        serverId: ServerId,
        ref: z.discriminatedUnion('type', [z.object({ type: z.literal('ref/prompt'), name: z.string() }), z.object({ type: z.literal('ref/resource'), uri: z.string() })]),
        argument: z.object({ name: z.string(), value: z.string() }),
        context: z.object({ arguments: z.record(z.string(), z.string()) }).optional(),
      })
      .strict(),
    result: z.object({ values: z.array(z.string()), total: z.number().optional(), hasMore: z.boolean().optional() }),
  },
  subscribeResource: { args: z.object({ serverId: ServerId, uri: z.string(), subscribe: z.boolean() }).strict(), result: z.object({ subscribed: z.boolean() }) },
  /** `logging/setLevel` (legacy era; the modern era sets the level per request). */
  setLogLevel: { args: z.object({ serverId: ServerId, level: LogLevel }).strict(), result: z.object({ level: LogLevel }) },
  listPendingRequests: { args: NoArgs, result: z.array(PendingRequest) },
  answerRequest: { args: z.object({ id: z.string(), answer: RequestAnswer }).strict(), result: z.object({ answered: z.boolean() }) },
  /** Replaces a server's roots and tells the server (notifications/roots/list_changed, legacy era). */
  setRoots: { args: z.object({ serverId: ServerId, roots: z.array(RootEntry) }).strict(), result: ServerStatus },
  /** Opens an http(s) URL outside the app after the user consented: the system browser in Electron; in browser mode the page opens it itself (`opened: false`). */
  openExternal: { args: z.object({ url: z.string().max(8192) }).strict(), result: z.object({ opened: z.boolean() }) },
  getSettings: { args: NoArgs, result: AppSettings },
  updateSettings: { args: AppSettings.partial().strict(), result: AppSettings },
  /** Main's newest log lines, oldest first (it keeps 50,000, and at most 8 Mi characters of text). */
  recentLogs: { args: NoArgs, result: z.object({ lines: z.array(LogLine) }) },
  /**
   * What the log pushes (`logBatch`) carry: `full: true` asks for every line (the Logs view) for
   * the next `LOG_FEED_LEASE_MS`, renewed while wanted; without a lease a push carries only its
   * newest `LOG_FEED_TAIL` lines (`partial` when it had more), so a server's log flood is not
   * carried to windows that do not show it. Read the rest with `recentLogs`.
   */
  logFeed: FeedLease,
  updateServer: { args: z.object({ id: ServerId, config: ServerConfigInput }).strict(), result: ServerStatus },
  duplicateServer: { args: ById, result: ServerStatus },
  /** A real initialize + list on a throwaway connection; stores lastCheck on the server. */
  testServer: { args: ById, result: LastCheck },
  listPrompts: { args: z.object({ serverId: ServerId.optional() }).strict().default({}), result: z.array(PromptEntry) },
  listResources: {
    args: z.object({ serverId: ServerId.optional() }).strict().default({}),
    result: z.object({ resources: z.array(ResourceEntry), templates: z.array(ResourceTemplateEntry) }),
  },
  /** Bare tool names that several servers offer → their namespaced names. */
  toolCollisions: { args: NoArgs, result: z.record(z.string(), z.array(z.string())) },
  importServers: {
    args: z.object({ text: z.string().max(5_000_000), connect: z.boolean().default(false) }).strict(),
    result: z.object({ format: ClientFormat, added: z.array(ServerStatus), problems: z.array(z.object({ name: z.string(), message: z.string() })) }),
  },
  exportServers: { args: z.object({ ids: z.array(ServerId).optional(), format: ClientFormat }).strict(), result: z.object({ text: z.string() }) },
  discoverConfigs: { args: NoArgs, result: z.array(DiscoveredConfig) },
  readConfigFile: { args: z.object({ path: z.string().min(1).max(4096) }).strict(), result: z.object({ text: z.string() }) },
  listAudit: { args: z.object({ limit: z.number().int().min(1).max(5000).default(200), serverId: ServerId.optional() }).strict().default({ limit: 200 }), result: z.array(AuditRecord) },
  traceQuery: {
    args: TraceQuery.default({}),
    result: z.object({ events: z.array(TraceEventShape), nextCursor: z.number().optional(), total: z.number() }),
  },
  /** A window of Traffic's rows from main's store: `matched` events match, `events` start at position `offset`; `at` is aroundSeq's position (-1: it does not match). */
  traceWindow: {
    args: TraceWindowQuery.default({}),
    result: z.object({ events: z.array(TraceEventShape), offset: z.number(), matched: z.number(), total: z.number(), at: z.number().optional() }),
  },
  /**
   * What the live trace pushes carry. `full: true` asks for every event (a view that draws all of
   * them: the Timeline) for the next `TRACE_FEED_LEASE_MS`, renewed while wanted;
   * without such a lease each push carries only the newest events (`partial`), enough for a
   * table following the newest rows. Each window names its lease (`lease`); `full: false` gives
   * that one up at once. The pushes are whole while any lease runs.
   */
  traceFeed: FeedLease,
  /** One event whole: its full payload even when the stored body is a preview. */
  traceEvent: { args: z.object({ seq: z.number().int().min(1), source: TraceSource.optional() }).strict(), result: z.object({ event: TraceEventShape, payload: z.unknown() }) },
  /** Full snapshots (all time buckets) of one server or all. */
  snapshots: { args: z.object({ server: ServerId.optional(), source: TraceSource.optional() }).strict().default({}), result: z.array(SnapshotShape) },
  /** Calls a tool as an MCP task (tools/call with `task: { ttl }`); the core then polls tasks/get and emits `taskStatus`. */
  runToolAsTask: {
    args: z.object({ tool: z.string().min(1), serverId: ServerId.optional(), args: JsonObject.default({}), ttlMs: z.number().int().min(1000).max(86_400_000).optional() }).strict(),
    result: z.object({ serverId: ServerId, taskId: z.string(), status: TaskStatusName }),
  },
  /** tasks/get, now (also updates this run's record of the task). */
  getTask: { args: TaskRef, result: TaskInfo },
  /** tasks/result: the CallToolResult of a finished task (blocks on the server until it is terminal). */
  taskResult: { args: TaskRef, result: z.object({ serverId: ServerId, taskId: z.string(), result: JsonObject }) },
  /** tasks/cancel. */
  cancelTask: { args: TaskRef, result: TaskInfo },
  /** The tasks started in this run, newest first. */
  listTasks: { args: NoArgs, result: z.array(TaskInfo) },
  /** A server's sign-in state (OAuth). */
  authStatus: { args: ById, result: AuthStatus },
  /** Connects, signing in when the server asks for it (a login window or popup prompt appears). */
  signIn: { args: ById, result: ServerStatus },
  /** Revokes the tokens where the server supports it, forgets everything stored for this server, disconnects. */
  signOut: { args: ById, result: z.object({ revoked: z.number().int(), errors: z.array(z.string()) }) },
  /** Ends a sign-in that waits for a person (the prompt's flow, or the server's). */
  cancelSignIn: { args: z.object({ flowId: z.string().optional(), serverId: ServerId.optional() }).strict(), result: z.object({ cancelled: z.boolean() }) },
  /** Step by step: pause before each OAuth request of this server (and before the login opens). */
  authStepMode: { args: z.object({ id: ServerId, on: z.boolean() }).strict(), result: z.object({ stepMode: z.boolean() }) },
  /** Step by step: send the paused request. */
  authContinue: { args: ById, result: z.object({ continued: z.boolean() }) },
  /** Sign-in prompts waiting for a click (browser mode), e.g. for a page opened late. */
  pendingSignIns: { args: NoArgs, result: z.array(SignInPrompt) },
  /** The server info panel: what the server declared at initialize, what we declared, what it did. */
  serverInfo: { args: ById, result: ServerInfo },
  /** Connects every enabled server that is not connected, concurrently; resolves after each one's first attempt. */
  connectAll: { args: NoArgs, result: BulkConnectResult },
  /** Disconnects every server that is connected or trying to be. */
  disconnectAll: { args: NoArgs, result: BulkConnectResult },
  /** MCP Apps: reads a `ui://` resource (resources/read, traced), builds its CSP, registers its sandbox page. */
  appOpen: {
    args: z
      .object({
        serverId: ServerId,
        uri: z.string().min(1).max(10_000),
        tool: z.string().max(300).optional(),
        /** Permissions the person consented to for this instance (a subset of what the resource asks). */
        grant: z.array(AppPermission).default([]),
      })
      .strict(),
    result: AppInstance,
  },
  /** Forgets an app instance (its sandbox page stops being served). */
  appClose: { args: z.object({ instanceId: z.string().min(1).max(64) }).strict(), result: z.object({ closed: z.boolean() }) },
  /** Bridge messages of an app instance, batched by the renderer: each becomes a trace event on the `app` channel. */
  appTrace: {
    args: z.object({ instanceId: z.string().min(1).max(64), messages: z.array(AppBridgeMessage).max(1000) }).strict(),
    result: z.object({ recorded: z.number().int() }),
  },
  /** An app's console errors, CSP violations and log notifications, into Logs (source `mcp-app`). */
  appLog: { args: z.object({ instanceId: z.string().min(1).max(64), entries: z.array(AppLogEntry).max(1000) }).strict(), result: z.object({ written: z.number().int() }) },
  // ------------------------------------------------------------------ recordings (#13)
  /** The library: every recorded session, newest first, the live one included (`live: true`). `dir` absent: this run records nothing (no data directory). */
  recordingsList: {
    args: NoArgs,
    result: z.object({ recordings: z.array(RecordingSummary), dir: z.string().optional(), totalBytes: z.number(), retention: RecordingRetention }),
  },
  /** Opens a recording read-only as a trace source (`rec-ID`; the live session's own is `live`). */
  recordingOpen: { args: z.object({ id: RecordingId }).strict(), result: z.object({ source: TraceSource, summary: RecordingSummary }) },
  recordingUpdate: {
    args: z.object({ id: RecordingId, name: z.string().trim().min(1).max(200).optional(), tags: z.array(RecordingTag).max(20).optional() }).strict(),
    result: RecordingSummary,
  },
  /** Deletes a recording from disk (not the live one: `conflict`). */
  recordingDelete: { args: z.object({ id: RecordingId }).strict(), result: z.object({ deleted: z.boolean() }) },
  /** Electron: a save dialog in main, then the trace streamed to that file. Browser mode uses GET /api/trace/export instead (`failed` here). */
  traceSaveFile: {
    args: z.object({ format: z.enum(['jsonl', 'har', 'otlp']), source: TraceSource.optional() }).strict(),
    result: z.object({ saved: z.boolean(), path: z.string().optional(), bytes: z.number().optional() }),
  },
  /** Electron: an open dialog in main, then the file streamed in: opened read-only (`into: view`) or added to the library. Browser mode uses the POST routes. */
  traceOpenFile: {
    args: z.object({ into: z.enum(['view', 'library']).default('view') }).strict(),
    result: z.object({
      opened: z.boolean(),
      name: z.string().optional(),
      source: TraceSource.optional(),
      events: z.number().optional(),
      servers: z.array(z.object({ id: z.string(), name: z.string() })).optional(),
      recording: RecordingSummary.optional(),
      problems: z.array(z.object({ line: z.number(), message: z.string() })).default([]),
    }),
  },
  /** The requests of a trace source that can be sent again (never initialize, notifications or responses). */
  replayCandidates: {
    args: z.object({ source: TraceSource, only: z.array(z.string().max(200)).max(50).optional(), seqs: z.array(z.number().int().min(1)).max(5000).optional() }).strict(),
    result: z.object({ candidates: z.array(ReplayCandidate), tools: z.array(z.string()), total: z.number().int() }),
  },
  /**
   * Sends recorded requests again, to the same server (by name) or `serverId`, and compares.
   * A tools/call is sent only if its tool is named in `confirmTools` (the person confirmed it); others are skipped, not sent.
   */
  replayRun: {
    args: z
      .object({
        source: TraceSource,
        seqs: z.array(z.number().int().min(1)).max(1000).optional(),
        only: z.array(z.string().max(200)).max(50).optional(),
        serverId: ServerId.optional(),
        confirmTools: z.array(z.string().max(300)).max(1000).default([]),
        timeoutMs: z.number().int().min(100).max(600_000).optional(),
      })
      .strict(),
    result: ReplayReport,
  },
  /** A server's interface now, as pinned, or as a recording saw it. */
  interfaceSnapshot: { args: z.object({ ref: InterfaceRef }).strict(), result: InterfaceSnapshot },
  interfaceDiff: {
    args: z.object({ a: InterfaceRef, b: InterfaceRef }).strict(),
    result: z.object({ a: InterfaceSnapshot, b: InterfaceSnapshot, diff: InterfaceDiff }),
  },
  /** Pins the connected server's interface as its baseline (replacing any earlier one). */
  baselinePin: { args: z.object({ serverId: ServerId }).strict(), result: Baseline },
  baselineClear: { args: z.object({ serverId: ServerId }).strict(), result: z.object({ cleared: z.boolean() }) },
  /** Every server's standing against its baseline. */
  driftStatus: { args: NoArgs, result: z.array(DriftStatus) },
  // ------------------------------------------------------------------ proxy and capture (#12)
  /** Proxied sessions this app has seen in the library (live ones, and those that ended while it ran). */
  proxySessions: { args: NoArgs, result: z.array(ProxySession) },
  /** Replaces a live proxy's faults (the proxy picks them up within a second; the trace notes it). */
  proxySetFaults: { args: ProxySetFaultsArgs, result: ProxySession },
  /** The client configs on this machine, with their entries and whether each goes through the proxy. */
  captureScan: { args: NoArgs, result: z.array(CaptureConfig) },
  /** Rewrites these entries of one config to go through the proxy (a backup first; refused if the file changed since `captureScan`). */
  captureApply: {
    args: z.object({ path: z.string().min(1).max(4096), names: z.array(z.string().max(500)).min(1).max(500) }).strict(),
    result: CaptureResult,
  },
  /** Puts a captured config back, byte for byte, from its backup. */
  captureRestore: { args: z.object({ path: z.string().min(1).max(4096) }).strict(), result: CaptureResult },
  // ------------------------------------------------------------------ judging a server (#16)
  /** The official conformance suite's server scenarios against this (HTTP) server, through a recording proxy; progress as `checkProgress`. */
  conformanceRun: {
    args: z.object({ serverId: ServerId, runId: z.string().min(1).max(100).optional(), scenarios: z.array(z.string().min(1).max(200)).max(200).optional() }).strict(),
    result: ConformanceReport,
  },
  /** Stops a conformance run or a doctor run started with this runId (its report says so). */
  checkCancel: { args: z.object({ runId: z.string().min(1).max(100) }).strict(), result: z.object({ cancelled: z.boolean() }) },
  /** Walks this server's connection step by step (config, DNS, TCP, TLS, HTTP, OAuth metadata, both eras; or the stdio command). */
  doctorRun: { args: z.object({ serverId: ServerId, runId: z.string().min(1).max(100).optional() }).strict(), result: DoctorReport },
  /** Sends a trace source as OTLP traces to an OTLP/HTTP endpoint (secrets redacted as for exports). */
  otlpSend: {
    args: z.object({ source: TraceSource, url: z.string().url().max(4096), headers: z.array(OtlpHeader).max(50).default([]) }).strict(),
    result: OtlpSendResult,
  },
} as const satisfies Record<MethodName, { args: z.ZodType; result: z.ZodType }>;

export const events = {
  serverState: ServerStatus,
  /** A server was removed (by any window, or a client of browser mode): views drop it and what they hold of it. */
  serverRemoved: z.object({ id: ServerId }),
  /** New log lines, at most every 100 ms; `partial`: the push's older lines were left out (no `logFeed` lease runs). */
  logBatch: z.object({ lines: z.array(LogLine), partial: z.boolean().optional() }),
  /** New trace events, a few times a second; large bodies are left out (fetch them with traceEvent). */
  traceBatch: z.object({
    events: z.array(TraceEventShape),
    total: z.number(),
    /**
     * True when the push carries only the newest events, the ones the auth views watch
     * (`isAuthRelevant`) and HTTP responses, not every event since the last push: no window asked for all of them
     * (`traceFeed`). A gap in seqs is then expected; what is missing is read from main.
     */
    partial: z.boolean().optional(),
  }),
  /** A server's snapshot with only its most recent time buckets, throttled. */
  snapshot: SnapshotShape,
  /** Progress notifications of a call started with a callId. */
  callProgress: z.object({ callId: z.string(), progress: z.number(), total: z.number().optional(), message: z.string().optional() }),
  requestPending: PendingRequest,
  requestResolved: z.object({ id: z.string(), outcome: z.enum(['answered', 'policy', 'timeout', 'cancelled-by-server', 'connection-closed']), action: z.string().optional() }),
  /** notifications/elicitation/complete for a URL-mode elicitation. */
  elicitationComplete: z.object({ serverId: ServerId, elicitationId: z.string(), ts: z.number() }),
  /** A subscribed resource changed (notifications/resources/updated). */
  resourceUpdated: z.object({ serverId: ServerId, uri: z.string(), ts: z.number() }),
  /** A task's status changed (seen by polling tasks/get, or on tasks/cancel), or its result arrived. */
  taskStatus: z.object({ serverId: ServerId, taskId: z.string(), tool: z.string(), status: TaskStatusName, statusMessage: z.string().optional(), ts: z.number() }),
  /** A server's sign-in state changed: fetch authStatus again. */
  authChanged: z.object({ serverId: ServerId }),
  /** Browser mode: a sign-in waits for a click that opens the authorization URL in a popup. */
  signInPrompt: SignInPrompt,
  signInEnded: z.object({ flowId: z.string(), serverId: ServerId, outcome: z.enum(['completed', 'failed', 'cancelled']), message: z.string().optional() }),
  /** Browser mode: this socket fell behind and `held` pushes since `since` were not sent; query what you show again. */
  resync: z.object({ held: z.number().int(), since: z.number() }),
  /** A server's drift standing changed (checked on connect and when its lists change). */
  driftChanged: DriftStatus,
  /** The library changed (a recording added, renamed, deleted, ended, removed by retention): list it again. */
  recordingsChanged: z.object({ reason: z.string() }),
  /** A proxied session appeared, learned its client, changed faults or ended: the whole list. */
  proxySessionsChanged: z.object({ sessions: z.array(ProxySession) }),
  /** A conformance or doctor run moved on (started with a runId). */
  checkProgress: CheckProgress,
} as const satisfies Record<EventName, z.ZodType>;

// Compile-time proof that names.ts and the schemas list the same things.
type Exact<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const _methodsCovered: Exact<keyof typeof methods, MethodName> = true;
const _eventsCovered: Exact<keyof typeof events, EventName> = true;
void _methodsCovered;
void _eventsCovered;

// ---------------------------------------------------------------------------------------
// Types inferred from the schemas

export type Methods = typeof methods;
/** What a caller may pass (defaults not yet applied). */
export type ArgsIn<M extends MethodName> = z.input<Methods[M]['args']>;
/** What a handler receives (validated, defaults applied). */
export type Args<M extends MethodName> = z.output<Methods[M]['args']>;
export type Result<M extends MethodName> = z.output<Methods[M]['result']>;
export type EventPayload<E extends EventName> = z.output<(typeof events)[E]>;

export type ServerConfigInput = z.input<typeof ServerConfigInput>;
export type ServerConfig = z.output<typeof ServerConfig>;
export type ServerTarget = z.output<typeof ServerTarget>;
export type ServerStatus = z.output<typeof ServerStatus>;
export type ConnectionState = z.output<typeof ConnectionState>;
export type ToolEntry = z.output<typeof ToolEntry>;
export type TaskInfo = z.output<typeof TaskInfo>;
export type TaskStatusName = z.output<typeof TaskStatusName>;
export type LogLine = z.output<typeof LogLine>;
export type AppInfo = z.output<typeof AppInfo>;
export type LastCheck = z.output<typeof LastCheck>;
export type AuditRecord = z.output<typeof AuditRecord>;
export type ClientFormat = z.output<typeof ClientFormat>;
export type PromptEntry = z.output<typeof PromptEntry>;
export type HistoryEntry = z.output<typeof HistoryEntry>;
export type SavedCall = z.output<typeof SavedCall>;
export type AppSettings = z.output<typeof AppSettings>;
export type LogLevel = z.output<typeof LogLevel>;
export type PendingRequest = z.output<typeof PendingRequest>;
export type AuthStatus = z.output<typeof AuthStatus>;
export type SignInPrompt = z.output<typeof SignInPrompt>;
export type RequestAnswer = z.output<typeof RequestAnswer>;
export type ErrorKind = NonNullable<ServerStatus['errorKind']>;
export type ServerInfo = z.output<typeof ServerInfo>;
export type CapabilityMismatch = z.output<typeof CapabilityMismatch>;
export type ServerIcon = z.output<typeof ServerIcon>;
export type ObservedMethod = z.output<typeof ObservedMethod>;
export type AppInstance = z.output<typeof AppInstance>;
export type AppCspDeclared = z.output<typeof AppCspDeclared>;
export type AppPermission = z.output<typeof AppPermission>;
export type AppBridgeMessage = z.output<typeof AppBridgeMessage>;
export type AppLogEntry = z.output<typeof AppLogEntry>;
export * from './recordings';
export * from './proxy';
export * from './faults';
export * from './checks';

/** Every reply on either carrier is one of these; errors are values, never thrown across. */
export type Envelope<T = unknown> = { ok: true; result: T } | { ok: false; error: ContractErrorShape };

export type ContractErrorCode = 'invalid-arguments' | 'unknown-method' | 'not-found' | 'conflict' | 'failed';

export interface ContractErrorShape {
  code: ContractErrorCode;
  message: string;
  /** Field-level detail for invalid arguments: path → message. */
  issues?: { path: string; message: string }[];
  /** What main knew about the failure (JSON-RPC code, HTTP status, trace seqs…): never parse the message. */
  detail?: ErrorDetail;
}
