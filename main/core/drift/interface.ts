/**
 * Interface snapshots (#13): a server's interface — what it said at initialize (protocol version,
 * server info, capabilities, instructions) and its tools, resources, resource templates and
 * prompts — at one moment, as the diff compares it. Taken from a connected server (the catalog's
 * lists, which the SDK joins across pages, and the `era` event its connection recorded), or from
 * any trace store (the live one, an import, a recording): the last `era` event (else the last
 * answered initialize) and the last complete answer of each list, pages joined by cursor. A list
 * never answered goes in `missing`, never as "everything removed".
 *
 * Everything here came from a server: lists are cut at SNAPSHOT_LIMITS.items (sorted first, so
 * the cut is the same every time), items at a fixed depth, scans of a trace at a fixed number of
 * events; a cut is said in `notes`.
 */
import { LIMITS, boundDepth } from '../../../contract/bounded-json';
import type { InterfaceSnapshot } from '../../../contract';
import type { TraceEvent } from '../../../contract/trace';
import type { TraceStore } from '../trace/store';
import type { ServerConnection } from '../connection/server-connection';

export type ListArea = 'tools' | 'resources' | 'resourceTemplates' | 'prompts';

export const SNAPSHOT_LIMITS = {
  /** Items kept a list (the first ones by name/uri). */
  items: 10_000,
  /** Nesting kept in one item (a tool with its schemas): below it, a truncation marker. */
  itemDepth: LIMITS.carriedDepth - 8,
  /** Characters kept of the instructions. */
  instructions: 64 * 1024,
  /** List requests of one kind looked at in a trace, newest first. */
  requests: 2_000,
  /** Pages joined into one list. */
  pages: 1_000,
  /** Events read after a request while looking for its response. */
  responseScan: 5_000,
} as const;

export const LIST_AREAS: readonly { area: ListArea; method: string; key: string; id: string; capability: string }[] = [
  { area: 'tools', method: 'tools/list', key: 'tools', id: 'name', capability: 'tools' },
  { area: 'resources', method: 'resources/list', key: 'resources', id: 'uri', capability: 'resources' },
  { area: 'resourceTemplates', method: 'resources/templates/list', key: 'resourceTemplates', id: 'uriTemplate', capability: 'resources' },
  { area: 'prompts', method: 'prompts/list', key: 'prompts', id: 'name', capability: 'prompts' },
];

type Obj = Record<string, unknown>;

const isObj = (value: unknown): value is Obj => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The key an item is compared by: a tool's or prompt's name, a resource's uri, a template's uriTemplate. */
export function itemKey(area: ListArea, item: unknown): string | undefined {
  if (!isObj(item)) return undefined;
  const value = item[LIST_AREAS.find((a) => a.area === area)!.id];
  return typeof value === 'string' ? value : undefined;
}

/** What a snapshot is made of, before it is bounded, sorted and checked. */
export interface SnapshotParts {
  serverName: string;
  takenAt: number;
  protocolVersion?: unknown;
  serverInfo?: unknown;
  capabilities?: unknown;
  instructions?: unknown;
  /** Absent: never answered (missing). */
  lists: Partial<Record<ListArea, unknown[]>>;
  notes?: string[];
}

/** A snapshot from its parts: items without a key dropped (said in notes), duplicates folded, sorted, cut, bounded. */
export function buildSnapshot(parts: SnapshotParts): InterfaceSnapshot {
  const notes = [...(parts.notes ?? [])];
  const lists = {} as Record<ListArea, Obj[]>;
  const missing: ListArea[] = [];
  for (const { area, id } of LIST_AREAS) {
    const raw = parts.lists[area];
    if (!raw) {
      missing.push(area);
      lists[area] = [];
      continue;
    }
    const byKey = new Map<string, Obj>();
    let unnamed = 0;
    for (const item of raw) {
      const key = itemKey(area, item);
      if (key === undefined) unnamed++;
      else if (!byKey.has(key)) byKey.set(key, item as Obj);
    }
    if (unnamed) notes.push(`${unnamed.toLocaleString('en-US')} ${label(area)} without a ${id} were left out.`);
    if (byKey.size < raw.length - unnamed) notes.push(`${(raw.length - unnamed - byKey.size).toLocaleString('en-US')} ${label(area)} listed twice under the same ${id} were compared once (the first).`);
    const keys = [...byKey.keys()].sort(compareText);
    if (keys.length > SNAPSHOT_LIMITS.items) {
      notes.push(`${keys.length.toLocaleString('en-US')} ${label(area)} listed: only the first ${SNAPSHOT_LIMITS.items.toLocaleString('en-US')} (by ${id}) are compared.`);
      keys.length = SNAPSHOT_LIMITS.items;
    }
    lists[area] = keys.map((key) => boundDepth(byKey.get(key)!, SNAPSHOT_LIMITS.itemDepth));
  }
  const instructions = typeof parts.instructions === 'string' ? parts.instructions : undefined;
  if (instructions !== undefined && instructions.length > SNAPSHOT_LIMITS.instructions) notes.push(`The instructions are ${instructions.length.toLocaleString('en-US')} characters long: the first ${SNAPSHOT_LIMITS.instructions.toLocaleString('en-US')} are compared.`);
  return {
    serverName: parts.serverName,
    takenAt: parts.takenAt,
    ...(typeof parts.protocolVersion === 'string' ? { protocolVersion: parts.protocolVersion.slice(0, 100) } : {}),
    ...(isObj(parts.serverInfo) ? { serverInfo: boundDepth(parts.serverInfo, SNAPSHOT_LIMITS.itemDepth) } : {}),
    ...(isObj(parts.capabilities) ? { capabilities: boundDepth(parts.capabilities, SNAPSHOT_LIMITS.itemDepth) } : {}),
    ...(instructions !== undefined ? { instructions: instructions.slice(0, SNAPSHOT_LIMITS.instructions) } : {}),
    tools: lists.tools,
    resources: lists.resources,
    resourceTemplates: lists.resourceTemplates,
    prompts: lists.prompts,
    missing,
    ...(notes.length ? { notes } : {}),
  };
}

function label(area: ListArea): string {
  return area === 'resourceTemplates' ? 'resource templates' : area;
}

/** Code-unit order: the same on every machine and locale. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

// ---------------------------------------------------------------------------------------
// From a connected server

/**
 * A connected (or idle) server's interface now: the catalog's lists, and what the server said at
 * initialize as its connection recorded it (the last `era` event in the live trace). A declared
 * list that is empty because it failed (not because it is empty) is `missing`. Redacted with the
 * connection's own redactor, as the trace is.
 */
export function liveSnapshot(connection: ServerConnection, store: TraceStore): InterfaceSnapshot {
  const state = connection.status().state;
  if (state !== 'connected' && !connection.isIdle()) throw new Error(`"${connection.config.name}" is not connected (${state}): connect it to read its interface.`);
  const era = lastEra(store, connection.id);
  const capabilities = (era?.meta?.capabilities as Obj | undefined) ?? (connection.serverCapabilities() as Obj | undefined);
  const lists = connection.serverLists();
  const since = lastConnecting(store, connection.id);
  const parts: SnapshotParts = {
    serverName: connection.config.name,
    takenAt: Date.now(),
    protocolVersion: era?.meta?.protocolVersion ?? connection.status().protocolVersion,
    serverInfo: era?.meta?.serverInfo,
    capabilities,
    instructions: era?.meta?.instructions,
    lists: {},
  };
  for (const spec of LIST_AREAS) {
    const items = lists[spec.area] as unknown[];
    const declared = !capabilities || isObj(capabilities[spec.capability]);
    // Empty although declared: answered empty, or failed (then the trace since this connect has no answer).
    if (items.length === 0 && declared && capabilities && !extractList(store, connection.id, spec, since)) continue;
    parts.lists[spec.area] = items.map((item) => connection.redactor.json(boundDepth(item, SNAPSHOT_LIMITS.itemDepth), false));
  }
  return buildSnapshot(parts);
}

// ---------------------------------------------------------------------------------------
// From a trace

/** A server's interface as a trace saw it (the last initialize and the last complete lists). */
export function traceSnapshot(store: TraceStore, serverId: string, serverName: string): InterfaceSnapshot {
  const notes: string[] = [];
  let takenAt = 0;
  const era = lastEra(store, serverId);
  let facts: Obj | undefined = era?.meta;
  if (era) takenAt = era.ts;
  else {
    // A trace without the `era` event (another writer): the initialize (or discover) answer itself.
    for (const method of ['initialize', 'server/discover']) {
      const answer = lastAnswer(store, serverId, method);
      if (answer && isObj(answer.result)) {
        facts = answer.result;
        takenAt = answer.ts;
        break;
      }
    }
  }
  const capabilities = isObj(facts?.capabilities) ? facts.capabilities : undefined;
  const parts: SnapshotParts = {
    serverName,
    takenAt,
    protocolVersion: facts?.protocolVersion,
    serverInfo: facts?.serverInfo,
    capabilities,
    instructions: facts?.instructions,
    lists: {},
    notes,
  };
  if (!facts) notes.push('The trace holds no initialize answer of this server: its server info, capabilities and instructions are unknown.');
  for (const spec of LIST_AREAS) {
    // A server that declared no such capability has none (an empty list, not a missing one).
    if (capabilities && !isObj(capabilities[spec.capability])) {
      parts.lists[spec.area] = [];
      continue;
    }
    const found = extractList(store, serverId, spec);
    if (!found) continue;
    parts.lists[spec.area] = found.items;
    takenAt = Math.max(takenAt, found.ts);
    if (found.note) notes.push(found.note);
  }
  return buildSnapshot({ ...parts, takenAt: takenAt || Date.now() });
}

/** The last `era` event of a server's own connection (what it said at initialize), not a "Test connection" probe's. */
export function lastEra(store: TraceStore, serverId: string): TraceEvent | undefined {
  let cursor: number | undefined;
  for (let pages = 0; pages < 10; pages++) {
    const page = store.query({ servers: [serverId], kinds: ['era'], order: 'desc', limit: 50, cursor });
    const found = page.events.find((e) => e.meta && e.meta.check !== true);
    if (found) return found;
    if (page.nextCursor === undefined) return undefined;
    cursor = page.nextCursor;
  }
  return undefined;
}

/** The seq of the last `connecting` state of a server (where its current connection's events start). */
function lastConnecting(store: TraceStore, serverId: string): number | undefined {
  let cursor: number | undefined;
  for (let pages = 0; pages < 20; pages++) {
    const page = store.query({ servers: [serverId], kinds: ['state'], order: 'desc', limit: 100, cursor });
    const found = page.events.find((e) => e.meta?.state === 'connecting' && e.meta.check !== true);
    if (found) return found.seq;
    if (page.nextCursor === undefined) return undefined;
    cursor = page.nextCursor;
  }
  return undefined;
}

interface Answer {
  /** The request's params.cursor. */
  cursor: string | undefined;
  ok: boolean;
  result: unknown;
  ts: number;
}

/** The newest requests of `method` to a server, newest first, each with its answer (if any). */
function* answers(store: TraceStore, serverId: string, method: string, fromSeq?: number): Generator<Answer> {
  let cursor: number | undefined;
  let seen = 0;
  for (;;) {
    const page = store.query({ servers: [serverId], methods: [method], order: 'desc', limit: 200, cursor });
    for (const event of page.events) {
      if (fromSeq !== undefined && event.seq < fromSeq) return;
      if (event.dir !== 'out' || event.kind === 'http-end' || event.meta?.check === true || event.rpc?.kind !== 'request' || event.rpc.id === undefined) continue;
      if (++seen > SNAPSHOT_LIMITS.requests) return;
      const request = bodyOf(store, event);
      const params = isObj(request) && isObj(request.params) ? request.params : undefined;
      const response = responseTo(store, serverId, event);
      yield { cursor: typeof params?.cursor === 'string' ? params.cursor : undefined, ok: response?.ok ?? false, result: response?.result, ts: response?.ts ?? event.ts };
    }
    if (page.nextCursor === undefined) return;
    cursor = page.nextCursor;
  }
}

/** The last successful answer of a method (initialize, server/discover). */
function lastAnswer(store: TraceStore, serverId: string, method: string): { result: unknown; ts: number } | undefined {
  for (const answer of answers(store, serverId, method)) if (answer.ok) return answer;
  return undefined;
}

/**
 * The last complete list of one kind: the newest last page (an answer without nextCursor) and,
 * walking back, the pages whose nextCursor named the cursor of the page after them, down to a
 * first page (a request without cursor). Undefined when no complete list was answered.
 */
export function extractList(store: TraceStore, serverId: string, spec: (typeof LIST_AREAS)[number], fromSeq?: number): { items: unknown[]; ts: number; note?: string } | undefined {
  let chain: Answer[] | undefined;
  let needed: string | undefined;
  const itemsOf = (answer: Answer) => {
    const items = isObj(answer.result) ? answer.result[spec.key] : undefined;
    return Array.isArray(items) ? items : undefined;
  };
  const nextOf = (answer: Answer) => (isObj(answer.result) && typeof answer.result.nextCursor === 'string' ? answer.result.nextCursor : undefined);
  const complete = (pages: Answer[]) => {
    const items = pages.flatMap((page) => itemsOf(page)!);
    return { items, ts: pages.at(-1)!.ts, ...(pages.length > 1 ? { note: `${label(spec.area)}: ${pages.length} pages joined.` } : {}) };
  };
  for (const answer of answers(store, serverId, spec.method, fromSeq)) {
    const usable = answer.ok && itemsOf(answer) !== undefined;
    if (chain && usable && nextOf(answer) === needed) {
      chain.unshift(answer);
      if (chain.length > SNAPSHOT_LIMITS.pages) chain = undefined;
      else if (answer.cursor === undefined) return complete(chain);
      else {
        needed = answer.cursor;
        continue;
      }
    }
    // A last page starts a chain (again).
    if (usable && nextOf(answer) === undefined) {
      if (answer.cursor === undefined) return complete([answer]);
      chain = [answer];
      needed = answer.cursor;
    }
  }
  return undefined;
}

/** An event's whole body (from disk when the event holds a preview). */
function bodyOf(store: TraceStore, event: TraceEvent): unknown {
  if (!event.truncated) return event.body;
  try {
    return store.payload(event.seq);
  } catch {
    return event.body;
  }
}

/** The response to a request: the next message from the server with its id (within a bounded scan, before the next connect). */
function responseTo(store: TraceStore, serverId: string, request: TraceEvent): { ok: boolean; result: unknown; ts: number } | undefined {
  const id = request.rpc!.id;
  let cursor: number | undefined = request.seq;
  let scanned = 0;
  while (cursor !== undefined && scanned < SNAPSHOT_LIMITS.responseScan) {
    const page = store.query({ servers: [serverId], order: 'asc', limit: 200, cursor });
    for (const event of page.events) {
      scanned++;
      if (event.meta?.check === true) continue;
      if (event.kind === 'state' && event.meta?.state === 'connecting') return undefined;
      if (event.dir !== 'in') continue;
      const rpcs = event.batch ?? (event.rpc ? [event.rpc] : []);
      const rpc = rpcs.find((r) => (r.kind === 'result' || r.kind === 'error') && r.id === id);
      if (!rpc) continue;
      if (rpc.kind === 'error') return { ok: false, result: undefined, ts: event.ts };
      const body = bodyOf(store, event);
      const message = Array.isArray(body) ? body.find((m) => isObj(m) && m.id === id) : body;
      return { ok: isObj(message) && 'result' in message, result: isObj(message) ? message.result : undefined, ts: event.ts };
    }
    cursor = page.nextCursor;
  }
  return undefined;
}

/** The connected server's snapshot, or undefined when it is not connected (the drift monitor checks only then). */
export function connectedSnapshot(connection: ServerConnection | undefined, store: TraceStore): InterfaceSnapshot | undefined {
  // Without a client it is on its way out (a disconnect tells its lists changed before its state does).
  if (!connection || connection.status().state !== 'connected' || !connection.serverCapabilities()) return undefined;
  return liveSnapshot(connection, store);
}

/** A server of a trace by id, else by name (exactly, then ignoring case). */
export function findTraceServer(servers: readonly { id: string; name: string }[], wanted: string): { id: string; name: string } | undefined {
  return servers.find((s) => s.id === wanted) ?? servers.find((s) => s.name === wanted) ?? servers.find((s) => s.name.toLowerCase() === wanted.toLowerCase());
}
