/**
 * Recordings (#13): every session kept on disk as it happens, the library of past sessions,
 * replay of recorded requests, and interface diffs/drift against a pinned baseline.
 * Schemas only (zod, no other imports): `contract/index.ts` lists the methods that use them.
 */
import { z } from 'zod';
import { ProxyInfo } from './proxy-info';

/** A recording's id: its directory name in the library (time-sortable, filesystem-safe). */
export const RecordingId = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,79}$/, 'not a recording id');

/** Who wrote a recording. */
export const RecordingKind = z.enum(['app', 'cli', 'proxy', 'import']);

/** How a recording ended: still being written by a live process, closed cleanly, or found unfinished after its process died. */
export const RecordingEnded = z.enum(['recording', 'clean', 'unexpected']);

export const RecordingSummary = z.object({
  id: RecordingId,
  name: z.string(),
  tags: z.array(z.string()),
  kind: RecordingKind,
  startedAt: z.number(),
  /** The last event's time (or when it was closed); absent while nothing was recorded. */
  endedAt: z.number().optional(),
  durationMs: z.number(),
  ended: RecordingEnded,
  /** This process's own session (its source is `live`, it cannot be deleted). */
  live: z.boolean(),
  events: z.number().int(),
  errors: z.number().int(),
  /** Bytes on disk (events, index, blobs). */
  bytes: z.number(),
  servers: z.array(z.object({ id: z.string(), name: z.string() })),
  app: z.object({ name: z.string(), version: z.string() }),
  /** Why a recording is incomplete or was repaired, in words ("ended unexpectedly: 312 bytes of a torn last line dropped"). */
  notes: z.array(z.string()).default([]),
  /** A proxy's recording (`kind: proxy`): what it proxies and for which client. */
  proxy: ProxyInfo.optional(),
});

export const RecordingRetention = z.object({
  /** The library's size cap: past it, the oldest recordings (never the live one) are removed. */
  maxBytes: z
    .number()
    .int()
    .min(64 * 1024 ** 2)
    .max(1024 ** 4),
  /** Recordings older than this are removed (0: kept whatever their age). */
  maxAgeDays: z.number().int().min(0).max(3650),
});

export const RecordingTag = z.string().trim().min(1).max(40);

// ---------------------------------------------------------------------------------------
// Replay

/** A recorded request that can be sent again. */
export const ReplayCandidate = z.object({
  seq: z.number().int(),
  serverId: z.string(),
  serverName: z.string(),
  method: z.string(),
  /** tools/call: the tool's name (as the server knows it, not namespaced). */
  tool: z.string().optional(),
  /** A short view of the params (one line). */
  summary: z.string(),
  /** The recorded response's seq, if it was answered. */
  responseSeq: z.number().int().optional(),
});

export const ReplayOutcome = z.object({
  /** The result (JSON-RPC `result`) or absent. */
  result: z.unknown().optional(),
  /** The JSON-RPC error, or a transport failure in words. */
  error: z.object({ code: z.number().optional(), message: z.string() }).optional(),
  latencyMs: z.number().optional(),
  /** Structured content checked against the tool's output schema (tools/call only). */
  schema: z.object({ valid: z.boolean(), errors: z.array(z.string()) }).optional(),
  /** This side's trace seq (request): the recording's for the old side, the live trace's for the new. */
  seq: z.number().int().optional(),
});

export const ReplayDifference = z.object({
  kind: z.enum(['result', 'error', 'latency', 'schema']),
  /** JSON pointer into the result where they differ ("" for the whole value). */
  path: z.string(),
  message: z.string(),
  old: z.unknown().optional(),
  new: z.unknown().optional(),
});

export const ReplayItem = z.object({
  candidate: ReplayCandidate,
  old: ReplayOutcome,
  new: ReplayOutcome,
  differences: z.array(ReplayDifference),
  same: z.boolean(),
  /** Not sent (a tools/call not confirmed, a method never replayed such as initialize), and why. */
  skipped: z.string().optional(),
});

export const ReplayReport = z.object({
  source: z.string(),
  target: z.object({ serverId: z.string(), serverName: z.string() }),
  startedAt: z.number(),
  items: z.array(ReplayItem),
  sent: z.number().int(),
  differ: z.number().int(),
  skipped: z.number().int(),
});

// ---------------------------------------------------------------------------------------
// Interface snapshots, diffs and drift

/** Where an interface comes from: a connected server now, a server's pinned baseline, or a server as a recording saw it. */
export const InterfaceRef = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('live'), serverId: z.string().min(1).max(64) }).strict(),
  z.object({ kind: z.literal('baseline'), serverId: z.string().min(1).max(64) }).strict(),
  /** `server`: the server's id or name in that recording. */
  z.object({ kind: z.literal('recording'), id: RecordingId, server: z.string().min(1).max(200) }).strict(),
]);

/** A server's interface at one moment: what a diff compares. Lists are raw MCP objects, sorted by name/uri. */
export const InterfaceSnapshot = z.object({
  serverName: z.string(),
  takenAt: z.number(),
  protocolVersion: z.string().optional(),
  serverInfo: z.record(z.string(), z.unknown()).optional(),
  capabilities: z.record(z.string(), z.unknown()).optional(),
  instructions: z.string().optional(),
  tools: z.array(z.record(z.string(), z.unknown())),
  resources: z.array(z.record(z.string(), z.unknown())),
  resourceTemplates: z.array(z.record(z.string(), z.unknown())),
  prompts: z.array(z.record(z.string(), z.unknown())),
  /** Lists the server was never asked for (or failed to answer): absent from a diff rather than "all removed". */
  missing: z.array(z.enum(['tools', 'resources', 'resourceTemplates', 'prompts'])).default([]),
  /** What was cut or left out while taking it, in words (a list past the item limit, pages joined, items without a name). */
  notes: z.array(z.string()).optional(),
});

export const InterfaceChange = z.object({
  area: z.enum(['tools', 'resources', 'resourceTemplates', 'prompts', 'capabilities', 'serverInfo', 'protocolVersion', 'instructions']),
  /** The tool/prompt name, resource uri or template; absent for capabilities/serverInfo as a whole. */
  item: z.string().optional(),
  change: z.enum(['added', 'removed', 'changed']),
  /** What changed in the item: "description", "inputSchema", "inputSchema.required", "annotations", … */
  field: z.string().optional(),
  /** A breaking change for a caller (removed tool, new required argument, narrowed type) vs a notice. */
  severity: z.enum(['breaking', 'warning', 'info']),
  message: z.string(),
  old: z.unknown().optional(),
  new: z.unknown().optional(),
});

/** How each area of a diff is named to people (the Compare tab, the CLI). */
export const INTERFACE_AREA_LABELS: Record<z.output<typeof InterfaceChange>['area'], string> = {
  protocolVersion: 'Protocol version',
  serverInfo: 'Server info',
  capabilities: 'Capabilities',
  instructions: 'Instructions',
  tools: 'Tools',
  resources: 'Resources',
  resourceTemplates: 'Resource templates',
  prompts: 'Prompts',
};

export const InterfaceDiff = z.object({
  same: z.boolean(),
  changes: z.array(InterfaceChange),
});

export const Baseline = z.object({ serverId: z.string(), serverName: z.string(), pinnedAt: z.number(), snapshot: InterfaceSnapshot });

/** A server's standing against its baseline, checked on every connect (and when the lists change). */
export const DriftStatus = z.object({
  serverId: z.string(),
  /** none: no baseline pinned; same; changed: `diff` says how; unknown: not connected since it was pinned. */
  state: z.enum(['none', 'same', 'changed', 'unknown']),
  pinnedAt: z.number().optional(),
  checkedAt: z.number().optional(),
  diff: InterfaceDiff.optional(),
});

export type RecordingSummary = z.output<typeof RecordingSummary>;
export type RecordingKind = z.output<typeof RecordingKind>;
export type RecordingRetention = z.output<typeof RecordingRetention>;
export type ReplayCandidate = z.output<typeof ReplayCandidate>;
export type ReplayOutcome = z.output<typeof ReplayOutcome>;
export type ReplayDifference = z.output<typeof ReplayDifference>;
export type ReplayItem = z.output<typeof ReplayItem>;
export type ReplayReport = z.output<typeof ReplayReport>;
export type InterfaceRef = z.output<typeof InterfaceRef>;
export type InterfaceSnapshot = z.output<typeof InterfaceSnapshot>;
export type InterfaceChange = z.output<typeof InterfaceChange>;
export type InterfaceDiff = z.output<typeof InterfaceDiff>;
export type Baseline = z.output<typeof Baseline>;
export type DriftStatus = z.output<typeof DriftStatus>;
