/**
 * The recording proxy (#12) as the app sees it: proxied sessions (each a `switchboard proxy`
 * process writing a recording of kind `proxy` into the library), their faults, and capturing a
 * client's config so that it goes through the proxy.
 */
import { z } from 'zod';
import { ArmedFault, FaultSchema } from './faults';
import { ProxyInfo } from './proxy-info';
import { RecordingId } from './recordings';

export { ProxyInfo } from './proxy-info';

/** The prefix of a proxied session's server id in the live trace: `px-<recording id>`. */
export const PROXY_SERVER_PREFIX = 'px-';
export const proxyServerId = (recordingId: string): string => `${PROXY_SERVER_PREFIX}${recordingId}`;
export const isProxyServerId = (id: string | undefined): boolean => id !== undefined && id.startsWith(PROXY_SERVER_PREFIX);


export const ProxySession = z.object({
  /** Its server id in the live trace, views and logs (`px-<recordingId>`). */
  id: z.string().min(1).max(100),
  recordingId: RecordingId,
  info: ProxyInfo,
  /** `live`: the proxy process is running; `ended`: it exited (cleanly or not). */
  state: z.enum(['live', 'ended']),
  startedAt: z.number(),
  endedAt: z.number().optional(),
  /** Events mirrored into this app's live trace so far. */
  events: z.number().int().min(0),
  /** Faults switched on (what the proxy last reported: its `faults.json` state). */
  faults: z.array(ArmedFault),
  /** Faults this proxy's transport can act on. */
  supportedFaults: z.array(z.string()),
});
export type ProxySession = z.output<typeof ProxySession>;

// ------------------------------------------------------------------ capture

export const CaptureEntry = z.object({
  /** The entry's key in the client's config. */
  name: z.string().max(500),
  transport: z.enum(['stdio', 'http']),
  /** What it launches or points at (secrets redacted). */
  target: z.string().max(8192),
  /** Already rewritten to go through the proxy (by us). */
  captured: z.boolean(),
  /** Why it cannot be captured (e.g. an HTTP entry whose URL is not parseable). */
  problem: z.string().max(1000).optional(),
});
export type CaptureEntry = z.output<typeof CaptureEntry>;

export const CaptureConfig = z.object({
  client: z.string().max(200),
  path: z.string().max(4096),
  exists: z.boolean(),
  /** JSONC (VS Code): comments and formatting are kept. */
  format: z.enum(['json', 'jsonc']).optional(),
  entries: z.array(CaptureEntry).default([]),
  /** A backup made by `capture` exists: Restore puts it back. */
  backup: z.string().max(4096).optional(),
  /** The file could not be read or parsed: left alone. */
  error: z.string().max(2000).optional(),
});
export type CaptureConfig = z.output<typeof CaptureConfig>;

export const CaptureResult = z.object({
  path: z.string(),
  /** Entries rewritten (capture) or put back (restore). */
  changed: z.array(z.string()),
  backup: z.string().optional(),
  /** HTTP entries point at a local proxy that must run: the command to run it, one per entry. */
  commands: z.array(z.object({ name: z.string(), command: z.string() })).default([]),
  message: z.string(),
});
export type CaptureResult = z.output<typeof CaptureResult>;

export const ProxySetFaultsArgs = z
  .object({
    id: z.string().min(1).max(100),
    faults: z.array(FaultSchema).max(50),
  })
  .strict();
