/**
 * The server info panel's facts, per server, from the trace as it is appended: what the server
 * said at initialize (the `era` event: its implementation info, capabilities, instructions, and
 * the capabilities we declared) and what it did since it connected (the notifications and
 * requests it sent, our requests it answered "Method not found"). A new connection attempt
 * starts the record afresh. Everything here came from a server: bounded before it is kept.
 */
import { LIMITS, boundDepth } from '../../../contract/bounded-json';
import type { ObservedMethod, ServerInfo } from '../../../contract';
import type { RpcSummary, TraceEvent } from '../../../contract/trace';
import type { TraceHub } from '../trace/hub';
import { PROBE_METHOD } from '../trace/negotiation';
import { findMismatches } from './declared';

const METHOD_NOT_FOUND = -32601;
/** Distinct methods kept per list: a server inventing names must not grow memory. */
const MAX_METHODS = 200;
const MAX_METHOD_CHARS = 200;
export const MAX_INSTRUCTIONS_CHARS = 64 * 1024;
const MAX_ICONS = 16;
const MAX_ICON_SRC_CHARS = 256 * 1024;
const MAX_TEXT_CHARS = 2_000;

interface Record_ {
  initialize?: { ts: number; meta: Record<string, unknown> };
  notifications: Map<string, ObservedMethod>;
  requests: Map<string, ObservedMethod>;
  refused: Map<string, ObservedMethod>;
}

export class ServerInfoTracker {
  private readonly servers = new Map<string, Record_>();

  constructor(private readonly hub: TraceHub) {
    hub.store.subscribe((event) => this.apply(event));
    hub.snapshots.onPaired((requestSeq, response, rpc) => this.paired(requestSeq, response, rpc));
  }

  forget(server: string): void {
    this.servers.delete(server);
  }

  info(serverId: string): ServerInfo {
    const record = this.servers.get(serverId);
    const meta = record?.initialize?.meta;
    const observed = {
      notifications: [...(record?.notifications.values() ?? [])],
      requests: [...(record?.requests.values() ?? [])],
      refused: [...(record?.refused.values() ?? [])],
    };
    if (!meta) return { serverId, known: false, ...observed, mismatches: [] };
    const serverCapabilities = objectOf(meta.capabilities);
    const clientCapabilities = objectOf(meta.clientCapabilities);
    const instructions = typeof meta.instructions === 'string' ? meta.instructions : undefined;
    return {
      serverId,
      known: true,
      connectedAt: record!.initialize!.ts,
      era: meta.era === 'modern' ? 'modern' : 'legacy',
      protocolVersion: text(meta.protocolVersion),
      transport: text(meta.transport),
      implementation: implementationOf(meta.serverInfo),
      ...(instructions !== undefined
        ? { instructions: instructions.slice(0, MAX_INSTRUCTIONS_CHARS), ...(instructions.length > MAX_INSTRUCTIONS_CHARS ? { instructionsCut: instructions.length - MAX_INSTRUCTIONS_CHARS } : {}) }
        : {}),
      serverCapabilities: serverCapabilities && boundDepth(serverCapabilities, LIMITS.carriedDepth - 4),
      clientCapabilities: clientCapabilities && boundDepth(clientCapabilities, LIMITS.carriedDepth - 4),
      ...observed,
      mismatches: findMismatches(serverCapabilities, clientCapabilities, observed),
    };
  }

  private record(server: string): Record_ {
    let record = this.servers.get(server);
    if (!record) {
      record = { notifications: new Map(), requests: new Map(), refused: new Map() };
      this.servers.set(server, record);
    }
    return record;
  }

  private apply(event: TraceEvent): void {
    if (event.meta?.check === true) return; // a "Test connection" probe's throwaway connection, not this server's live one
    if (event.channel === 'app') return; // an MCP App's bridge messages are the app's, not the server's
    if (event.kind === 'state' && event.meta?.state === 'connecting') {
      this.servers.set(event.server, { notifications: new Map(), requests: new Map(), refused: new Map() });
      return;
    }
    if (event.kind === 'era' && event.meta) {
      this.record(event.server).initialize = { ts: event.ts, meta: event.meta };
      return;
    }
    if (event.dir !== 'in' || event.negotiation) return;
    const rpcs = event.batch ?? (event.rpc ? [event.rpc] : []);
    for (const rpc of rpcs) {
      if (!rpc.method) continue;
      if (rpc.kind === 'notification') count(this.record(event.server).notifications, rpc.method, event);
      else if (rpc.kind === 'request' && event.kind !== 'http-end') count(this.record(event.server).requests, rpc.method, event);
    }
  }

  /** Our request, answered "Method not found" (not the version probe: that refusal is expected). */
  private paired(requestSeq: number, response: TraceEvent, rpc: RpcSummary): void {
    if (rpc.kind !== 'error' || rpc.errorCode !== METHOD_NOT_FOUND || response.dir !== 'in' || response.negotiation || response.meta?.check === true || response.channel === 'app') return;
    const request = this.hub.store.get(requestSeq);
    const method = request?.rpc?.method ?? request?.batch?.find((r) => r.id === rpc.id)?.method;
    if (!method || method === PROBE_METHOD || request?.dir !== 'out') return;
    count(this.record(response.server).refused, method, { ...response, seq: requestSeq });
  }
}

function count(map: Map<string, ObservedMethod>, rawMethod: string, event: TraceEvent): void {
  const method = rawMethod.slice(0, MAX_METHOD_CHARS);
  const seen = map.get(method);
  if (seen) {
    seen.count++;
    seen.lastAt = event.ts;
    return;
  }
  if (map.size >= MAX_METHODS) return;
  map.set(method, { method, count: 1, firstAt: event.ts, lastAt: event.ts, firstSeq: event.seq });
}

function objectOf(value: unknown): Record<string, unknown> | undefined {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function text(value: unknown, max = MAX_TEXT_CHARS): string | undefined {
  return typeof value === 'string' ? value.slice(0, max) : undefined;
}

function implementationOf(value: unknown): ServerInfo['implementation'] {
  const info = objectOf(value);
  if (!info) return undefined;
  const icons = Array.isArray(info.icons)
    ? info.icons
        .map(objectOf)
        .filter((icon): icon is Record<string, unknown> => typeof icon?.src === 'string' && icon.src.length <= MAX_ICON_SRC_CHARS)
        .slice(0, MAX_ICONS)
        .map((icon) => ({
          src: icon.src as string,
          ...(text(icon.mimeType, 100) ? { mimeType: text(icon.mimeType, 100) } : {}),
          ...(Array.isArray(icon.sizes) ? { sizes: icon.sizes.filter((s): s is string => typeof s === 'string').slice(0, 8).map((s) => s.slice(0, 20)) } : {}),
          ...(text(icon.theme, 20) ? { theme: text(icon.theme, 20) } : {}),
        }))
    : undefined;
  return {
    name: text(info.name) ?? '(no name)',
    ...(text(info.title) ? { title: text(info.title) } : {}),
    ...(text(info.version) ? { version: text(info.version) } : {}),
    ...(text(info.description, 8_000) ? { description: text(info.description, 8_000) } : {}),
    ...(text(info.websiteUrl) ? { websiteUrl: text(info.websiteUrl) } : {}),
    ...(icons?.length ? { icons } : {}),
  };
}
