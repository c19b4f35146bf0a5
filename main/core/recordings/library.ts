/**
 * The recordings library (#13): one directory per recorded session under the data directory.
 * The live session writes into its own as events happen; past ones are listed, opened read-only,
 * renamed, tagged, deleted, imported; retention bounds the library by size and age.
 * The format and its guarantees: docs/recordings.md.
 */
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { ProxyInfo, RecordingKind, RecordingRetention, RecordingSummary, ServerConfig } from '../../../contract';
import { ServerConfig as ServerConfigSchema } from '../../../contract';
import { RecordingId, RecordingTag } from '../../../contract/recordings';
import type { TraceEvent } from '../../../contract/trace';
import { CoreError } from '../errors';
import { NotATraceError, importJsonl } from '../trace/import-jsonl';
import { TraceHub } from '../trace/hub';
import { formatBytes, type TraceStoreOptions } from '../trace/store';
import { EVENTS_FILE, RECORDING_FORMAT, RECORDING_FORMAT_VERSION, currentOwner, newRecordingId, ownerAlive, readMeta, writeMeta, type RecordingMeta } from './format';
import { openBacking, readHeader } from './reader';
import { repairRecording } from './recovery';
import { RecordingWriter, type WriterStats } from './writer';

export interface RecordingLibraryOptions {
  /** The library's directory (created if missing). */
  dir: string;
  /** Read whenever retention is applied (the setting may change while running). */
  retention?: () => RecordingRetention;
  /** Lines for the app log (a recording repaired, removed by retention, a write that failed). */
  log?: (level: 'info' | 'warning' | 'error', text: string) => void;
  /** The library changed: the carriers push `recordingsChanged`. */
  onChange?: (reason: string) => void;
  /** How often retention is applied while a live session records (default a minute; 0: only when asked). */
  retentionIntervalMs?: number;
}

export interface LiveRecordingStart {
  kind: RecordingKind;
  name?: string;
  app: { name: string; version: string };
  /** The servers' configurations for the recording's header; asked again as servers change. */
  servers: () => ServerConfig[];
  /** The last net before disk: every known secret replaced (the export's scrubber over all redactors). */
  redact: () => (text: string) => string;
  /** A proxy's recording (#12): what it proxies (the meta's `proxy`). */
  proxy?: ProxyInfo;
}

export interface LiveRecording {
  readonly id: string;
  readonly dir: string;
  /** Options for the live TraceStore so that it writes every event into this recording. */
  readonly storeOptions: TraceStoreOptions;
  /** Writes and fsyncs what is pending now. */
  flush(): void;
  /** Events handed to the recording, written to its files (safe from kill -9), and fsynced (safe from power loss). */
  progress(): { events: number; written: number; synced: number };
  /** Ends it cleanly (`ended: clean`). */
  close(): void;
  /** A proxy learned more (the client's name, the protocol version): the meta's `proxy` is merged and rewritten now. */
  annotateProxy(patch: Partial<ProxyInfo>): void;
}

/** A recording opened read-only: a trace hub over its files, and its header. */
export interface OpenedRecording {
  hub: TraceHub;
  summary: RecordingSummary;
  app: { name: string; version: string };
  startedAt: number;
  configs: ServerConfig[];
}

export const DEFAULT_RETENTION: RecordingRetention = { maxBytes: 2 * 1024 ** 3, maxAgeDays: 30 };
/** Full events an opened recording keeps in memory (the rest is read from its file on demand). */
const OPENED_WINDOW = 2_000;
/** Events fed to an opened recording's snapshots per turn of the event loop. */
const SNAPSHOT_SLICE = 2_000;
const DAY_MS = 24 * 60 * 60 * 1000;

/** The live session's recording: the store writes into its writer; the meta follows every fsync. */
class Live implements LiveRecording {
  readonly storeOptions: TraceStoreOptions;
  readonly writer: RecordingWriter;
  meta: RecordingMeta;
  closed = false;
  private readonly seen = new Map<string, string>();

  constructor(
    readonly id: string,
    readonly dir: string,
    private readonly start: LiveRecordingStart,
    private readonly library: RecordingLibrary,
    private readonly report: (level: 'info' | 'warning' | 'error', text: string) => void,
  ) {
    const startedAt = Date.now();
    const servers = this.servers();
    this.meta = {
      format: RECORDING_FORMAT,
      version: RECORDING_FORMAT_VERSION,
      id,
      name: start.name ?? defaultName(start.kind, startedAt),
      tags: [],
      kind: start.kind,
      app: start.app,
      startedAt,
      state: 'recording',
      owner: currentOwner(),
      events: 0,
      errors: 0,
      bytes: 0,
      servers: this.serverList(servers),
      notes: [],
      ...(start.proxy ? { proxy: start.proxy } : {}),
    };
    this.writer = new RecordingWriter(dir, {
      app: start.app,
      startedAt,
      servers,
      redact: start.redact,
      finalServers: () => this.servers(),
      onSync: (stats) => this.synced(stats),
      onError: (message) => report('error', `Recording "${this.meta.name}": ${message}.`),
    });
    this.meta.bytes = this.writer.stats.bytes;
    writeMeta(dir, this.meta);
    this.storeOptions = { sink: this.writer };
  }

  flush(): void {
    this.writer.flush();
    this.writer.sync();
  }

  progress(): { events: number; written: number; synced: number } {
    const { events, written, synced } = this.writer.stats;
    return { events, written, synced };
  }

  close(): void {
    if (this.closed) return;
    const servers = this.servers();
    // Normally closed already by the trace store (which hands over its last events first).
    this.writer.close();
    this.closed = true;
    this.meta = { ...this.fromStats(this.writer.stats), state: 'clean', owner: undefined, servers: this.serverList(servers) };
    this.meta.endedAt = Math.max(this.meta.endedAt ?? 0, Date.now());
    this.save();
  }

  summary(): RecordingSummary {
    const meta = this.closed ? this.meta : this.fromStats(this.writer.stats);
    return summaryOf(meta, !this.closed);
  }

  annotateProxy(patch: Partial<ProxyInfo>): void {
    if (!this.meta.proxy) return;
    this.meta = { ...this.meta, proxy: { ...this.meta.proxy, ...patch } };
    this.save();
  }

  rename(patch: { name?: string; tags?: string[] }): void {
    this.meta = { ...this.meta, ...patch };
    this.save();
  }

  private synced(stats: WriterStats): void {
    const next = this.fromStats(stats);
    if (next.events === this.meta.events && next.bytes === this.meta.bytes && next.servers.length === this.meta.servers.length) return;
    this.meta = next;
    this.save();
  }

  private fromStats(stats: WriterStats): RecordingMeta {
    return { ...this.meta, events: stats.events, errors: stats.errors, bytes: stats.bytes, endedAt: stats.lastTs, servers: this.serverList(this.servers()) };
  }

  private save(): void {
    try {
      writeMeta(this.dir, this.meta);
      this.library.changed('live');
    } catch (error) {
      this.report('error', `Recording "${this.meta.name}": its meta could not be written: ${error instanceof Error ? error.message : String(error)}.`);
    }
  }

  private servers(): ServerConfig[] {
    try {
      return this.start.servers();
    } catch {
      return [];
    }
  }

  /** Every server the session had, a removed one included (in order of appearance). */
  private serverList(configs: ServerConfig[]): { id: string; name: string }[] {
    for (const config of configs) this.seen.set(config.id, config.name);
    return [...this.seen].map(([id, name]) => ({ id, name }));
  }
}

export class RecordingLibrary {
  readonly dir: string;
  private live: Live | undefined;
  private retentionTimer: NodeJS.Timeout | undefined;
  private warnedOversized = false;
  private lastChange = 0;

  constructor(private readonly options: RecordingLibraryOptions) {
    this.dir = options.dir;
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
  }

  /** Recordings left by processes that died: repaired (torn tail dropped, index rebuilt) and marked `unexpected`; then retention. */
  recover(): { repaired: string[]; removed: string[] } {
    const repaired: string[] = [];
    for (const id of this.ids()) {
      if (id === this.live?.id) continue;
      const dir = join(this.dir, id);
      let meta: RecordingMeta | undefined;
      try {
        meta = readMeta(dir);
      } catch {
        meta = rebuildMeta(id, dir);
      }
      if (!meta || meta.state !== 'recording' || ownerAlive(meta.owner)) continue;
      try {
        const result = repairRecording(dir);
        repaired.push(id);
        this.log('warning', `Recording "${meta.name}" ended unexpectedly (its process stopped without closing it): repaired, ${result.meta.events.toLocaleString('en-US')} events kept${result.droppedBytes ? `, ${result.droppedBytes} bytes of a torn last line dropped` : ''}.`);
      } catch (error) {
        this.log('error', `Recording "${meta.name}" (${id}) ended unexpectedly and could not be repaired: ${error instanceof Error ? error.message : String(error)}.`);
      }
    }
    const removed = this.enforceRetention();
    if (repaired.length) this.changed('recovered');
    return { repaired, removed };
  }

  startLive(start: LiveRecordingStart): LiveRecording {
    if (this.live && !this.live.closed) throw new Error('recordings: a live recording is already running in this process');
    let id = newRecordingId();
    while (existsSync(join(this.dir, id))) id = newRecordingId();
    const dir = join(this.dir, id);
    mkdirSync(dir, { mode: 0o700 });
    this.live = new Live(id, dir, start, this, (level, text) => this.log(level, text));
    const interval = this.options.retentionIntervalMs ?? 60_000;
    if (interval > 0 && !this.retentionTimer) {
      this.retentionTimer = setInterval(() => this.enforceRetention(), interval);
      this.retentionTimer.unref();
    }
    const live = this.live;
    const close = live.close.bind(live);
    live.close = () => {
      close();
      if (this.retentionTimer) clearInterval(this.retentionTimer);
      this.retentionTimer = undefined;
    };
    this.changed('started');
    return live;
  }

  /** Newest first; only the meta files are read. */
  list(): RecordingSummary[] {
    const out: RecordingSummary[] = [];
    for (const id of this.ids()) {
      const summary = this.get(id);
      if (summary) out.push(summary);
    }
    return out.sort((a, b) => b.startedAt - a.startedAt || (a.id < b.id ? 1 : -1));
  }

  get(id: string): RecordingSummary | undefined {
    if (!RecordingId.safeParse(id).success) return undefined;
    if (this.live?.id === id) return this.live.summary();
    try {
      const meta = readMeta(join(this.dir, id));
      return summaryOf({ ...meta, id });
    } catch {
      return undefined;
    }
  }

  /** Opens read-only without reading it whole: the caller closes the hub. */
  async open(id: string): Promise<OpenedRecording> {
    const summary = this.get(id);
    if (!summary) throw new CoreError('not-found', `No recording "${id}" in the library.`);
    // The live one opens as what is on disk now.
    if (this.live?.id === id && !this.live.closed) this.live.flush();
    let opened: ReturnType<typeof openBacking>;
    try {
      opened = openBacking(join(this.dir, id));
    } catch (error) {
      throw new CoreError('failed', `Recording "${summary.name}" could not be opened: ${error instanceof Error ? error.message : String(error)}.`);
    }
    const hub = new TraceHub(undefined, { store: { backing: opened.backing, windowSize: OPENED_WINDOW } });
    feedSnapshots(hub);
    return {
      hub,
      summary: { ...summary, events: hub.store.size },
      app: opened.header.app,
      startedAt: opened.header.startedAt || summary.startedAt,
      configs: opened.header.configs,
    };
  }

  update(id: string, patch: { name?: string; tags?: string[] }): RecordingSummary {
    const next: { name?: string; tags?: string[] } = {};
    if (patch.name !== undefined) {
      const name = patch.name.trim();
      if (name.length === 0 || name.length > 200) throw new CoreError('invalid-arguments', 'A recording name is 1 to 200 characters.');
      next.name = name;
    }
    if (patch.tags !== undefined) {
      if (patch.tags.length > 20) throw new CoreError('invalid-arguments', 'A recording has at most 20 tags.');
      const tags: string[] = [];
      for (const tag of patch.tags) {
        const parsed = RecordingTag.safeParse(tag);
        if (!parsed.success) throw new CoreError('invalid-arguments', `"${String(tag).slice(0, 60)}" is not a tag (1 to 40 characters).`);
        if (!tags.includes(parsed.data)) tags.push(parsed.data);
      }
      next.tags = tags;
    }
    if (this.live?.id === id) {
      this.live.rename(next);
      return this.live.summary();
    }
    const dir = this.dirOf(id);
    let meta: RecordingMeta;
    try {
      meta = readMeta(dir);
    } catch {
      throw new CoreError('not-found', `No recording "${id}" in the library.`);
    }
    if (meta.state === 'recording' && ownerAlive(meta.owner)) throw new CoreError('conflict', `Recording "${meta.name}" is being written by another Switchboard (process ${meta.owner?.pid}); rename it there.`);
    writeMeta(dir, { ...meta, ...next });
    this.changed('updated');
    return this.get(id)!;
  }

  /** Deletes one from disk; never the live one. */
  delete(id: string): boolean {
    if (this.live?.id === id && !this.live.closed) throw new CoreError('conflict', 'This session is being recorded into that recording: it cannot be deleted while the session runs.');
    if (!RecordingId.safeParse(id).success) return false;
    const dir = join(this.dir, id);
    if (!existsSync(dir)) return false;
    let meta: RecordingMeta | undefined;
    try {
      meta = readMeta(dir);
    } catch {
      meta = undefined;
    }
    if (meta?.state === 'recording' && ownerAlive(meta.owner)) throw new CoreError('conflict', `Recording "${meta.name}" is being written by another Switchboard (process ${meta.owner?.pid}): it cannot be deleted while that session runs.`);
    rmSync(dir, { recursive: true, force: true });
    this.changed('deleted');
    return true;
  }

  /** A JSONL trace streamed into the library as a new recording (`kind: import`). */
  async import(name: string, chunks: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>): Promise<{ summary: RecordingSummary; problems: { line: number; message: string }[] }> {
    let id = newRecordingId();
    while (existsSync(join(this.dir, id))) id = newRecordingId();
    const dir = join(this.dir, id);
    const head = headerTap(chunks);
    let writer: RecordingWriter | undefined;
    let seq = 0;
    try {
      const result = await importJsonl(head.chunks, {
        name,
        onEvent: (event: TraceEvent) => {
          writer ??= new RecordingWriter(dir, { ...head.header(), timers: false });
          event.seq = ++seq;
          writer.append(event, undefined);
        },
      });
      const header = { app: result.header.app, startedAt: Date.parse(result.header.startedAt) || Date.now(), servers: result.header.servers };
      writer ??= new RecordingWriter(dir, { ...header, timers: false });
      writer.finishHeader(header.servers);
      writer.close();
      const stats = writer.stats;
      const meta: RecordingMeta = {
        format: RECORDING_FORMAT,
        version: RECORDING_FORMAT_VERSION,
        id,
        name: name.trim().slice(0, 200) || 'Imported trace',
        tags: [],
        kind: 'import',
        app: header.app,
        startedAt: header.startedAt,
        endedAt: stats.lastTs ?? header.startedAt,
        addedAt: Date.now(),
        state: 'clean',
        events: stats.events,
        errors: stats.errors,
        bytes: stats.bytes,
        servers: header.servers.map((s) => ({ id: s.id, name: s.name })),
        notes: result.problems.length ? [`imported with ${result.problems.length} problem${result.problems.length === 1 ? '' : 's'} (see the import's report)`] : [],
      };
      writeMeta(dir, meta);
      this.changed('imported');
      this.enforceRetention();
      return { summary: this.get(id) ?? summaryOf(meta), problems: result.problems };
    } catch (error) {
      try {
        writer?.close();
      } catch {
        /* removed below */
      }
      rmSync(dir, { recursive: true, force: true });
      if (error instanceof NotATraceError) throw new CoreError('invalid-arguments', `${error.message} Nothing was imported.`);
      throw new CoreError('failed', `Could not import ${name}: ${error instanceof Error ? error.message : String(error)}. Nothing was imported.`);
    }
  }

  /** Applies retention now; answers the ids removed (oldest first; never the live one, nor one another process is writing). */
  enforceRetention(): string[] {
    let retention: RecordingRetention;
    try {
      retention = this.options.retention?.() ?? DEFAULT_RETENTION;
    } catch {
      retention = DEFAULT_RETENTION;
    }
    const all = this.list().reverse(); // oldest first
    const keep = (s: RecordingSummary) => s.live || (s.ended === 'recording' && this.writtenElsewhere(s.id));
    const removed: string[] = [];
    const remove = (s: RecordingSummary, why: string) => {
      try {
        rmSync(join(this.dir, s.id), { recursive: true, force: true });
        removed.push(s.id);
        this.log('info', `Recording "${s.name}" (${formatBytes(s.bytes)}) removed: ${why}.`);
      } catch (error) {
        this.log('warning', `Recording "${s.name}" could not be removed (${why}): ${error instanceof Error ? error.message : String(error)}.`);
      }
    };
    const now = Date.now();
    let rest: RecordingSummary[] = [];
    // A recording's age counts from its last event, or from when it was imported if that is later
    // (an old trace imported today is not removed on arrival).
    const age = (s: RecordingSummary) => now - Math.max(s.endedAt ?? s.startedAt, (s.kind === 'import' ? this.addedAt(s.id) : undefined) ?? 0);
    for (const s of all) {
      if (!keep(s) && retention.maxAgeDays > 0 && age(s) > retention.maxAgeDays * DAY_MS) remove(s, `older than ${retention.maxAgeDays} days`);
      else rest.push(s);
    }
    let total = rest.reduce((sum, s) => sum + s.bytes, 0);
    for (const s of rest) {
      if (total <= retention.maxBytes) break;
      if (keep(s)) continue;
      remove(s, `the library is over its ${formatBytes(retention.maxBytes)} cap`);
      total -= s.bytes;
    }
    rest = rest.filter((s) => !removed.includes(s.id));
    const live = rest.find((s) => s.live);
    if (live && live.bytes > retention.maxBytes && !this.warnedOversized) {
      this.warnedOversized = true;
      this.log('warning', `This session's recording (${formatBytes(live.bytes)}) is larger than the library's ${formatBytes(retention.maxBytes)} cap: it is kept whole (a live session is never cut); older recordings are removed first, and it will be removed by retention after the session when it is still over the cap.`);
    }
    if (removed.length) this.changed('retention');
    return removed;
  }

  private addedAt(id: string): number | undefined {
    try {
      return readMeta(join(this.dir, id)).addedAt;
    } catch {
      return undefined;
    }
  }

  totalBytes(): number {
    return this.list().reduce((sum, s) => sum + s.bytes, 0);
  }

  /** The live session's own recording id, if any. */
  get liveId(): string | undefined {
    return this.live && !this.live.closed ? this.live.id : undefined;
  }

  /** @internal Tells the carriers (throttled for the live recording's growth: at most once a second). */
  changed(reason: string): void {
    if (reason === 'live') {
      const now = Date.now();
      if (now - this.lastChange < 1000) return;
      this.lastChange = now;
    }
    try {
      this.options.onChange?.(reason);
    } catch {
      /* a carrier's failure is its own */
    }
  }

  // -------------------------------------------------------------------------------------------

  private ids(): string[] {
    try {
      return readdirSync(this.dir).filter((name) => RecordingId.safeParse(name).success);
    } catch {
      return [];
    }
  }

  private dirOf(id: string): string {
    if (!RecordingId.safeParse(id).success) throw new CoreError('invalid-arguments', `"${String(id).slice(0, 80)}" is not a recording id.`);
    return join(this.dir, id);
  }

  private writtenElsewhere(id: string): boolean {
    try {
      return ownerAlive(readMeta(join(this.dir, id)).owner);
    } catch {
      return false;
    }
  }

  private log(level: 'info' | 'warning' | 'error', text: string): void {
    try {
      this.options.log?.(level, text);
    } catch {
      /* the log's failure is its own */
    }
  }
}

/** A meta file lost or damaged (a power loss before the rename reached the disk): rebuilt from the events file's header, to be repaired. */
function rebuildMeta(id: string, dir: string): RecordingMeta | undefined {
  let fd: number | undefined;
  try {
    const events = join(dir, EVENTS_FILE);
    // One that is being created right now (its meta follows its files within milliseconds) is left alone.
    if (Date.now() - statSync(events).mtimeMs < 10_000) return undefined;
    fd = openSync(events, 'r');
    const header = readHeader(fd);
    const meta: RecordingMeta = {
      format: RECORDING_FORMAT,
      version: RECORDING_FORMAT_VERSION,
      id,
      name: `Recovered recording ${id}`,
      tags: [],
      kind: 'app',
      app: header.app,
      startedAt: header.startedAt || statSync(events).birthtimeMs || Date.now(),
      state: 'recording',
      events: 0,
      errors: 0,
      bytes: 0,
      servers: header.configs.map((c) => ({ id: c.id, name: c.name })),
      notes: ['its meta file was missing or damaged: rebuilt from the events file'],
    };
    writeMeta(dir, meta);
    return meta;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function summaryOf(meta: RecordingMeta, live = false): RecordingSummary {
  const endedAt = meta.endedAt;
  return {
    id: meta.id,
    name: meta.name,
    tags: meta.tags,
    kind: meta.kind,
    startedAt: meta.startedAt,
    endedAt,
    durationMs: endedAt !== undefined ? Math.max(0, endedAt - meta.startedAt) : live ? Math.max(0, Date.now() - meta.startedAt) : 0,
    ended: meta.state,
    live,
    events: meta.events,
    errors: meta.errors,
    bytes: meta.bytes,
    servers: meta.servers,
    app: meta.app,
    notes: meta.notes,
    ...(meta.proxy ? { proxy: meta.proxy } : {}),
  };
}

function defaultName(kind: RecordingKind, at: number): string {
  const when = new Date(at).toISOString().slice(0, 16).replace('T', ' ');
  return `${kind === 'cli' ? 'CLI recording' : kind === 'proxy' ? 'Proxy session' : 'Session'} ${when} UTC`;
}

/** An opened recording's snapshots, computed in the background a slice at a time (opening never waits for them). */
function feedSnapshots(hub: TraceHub): void {
  let seq = 1;
  const step = () => {
    if (hub.store.isClosed) return;
    const end = Math.min(hub.store.size, seq + SNAPSHOT_SLICE - 1);
    try {
      for (; seq <= end; seq++) {
        const event = hub.store.get(seq);
        if (event) hub.snapshots.apply(event);
      }
    } catch {
      return;
    }
    if (seq <= hub.store.size) setImmediate(step);
  };
  setImmediate(step);
}

/** Passes chunks through, remembering the header line (so a writer can be made before the import ends). */
function headerTap(chunks: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>): {
  chunks: AsyncIterable<Uint8Array | string>;
  header: () => { app: { name: string; version: string }; startedAt: number; servers: ServerConfig[] };
} {
  let first: Buffer[] = [];
  let firstBytes = 0;
  let done = false;
  let parsed: { app: { name: string; version: string }; startedAt: number; servers: ServerConfig[] } | undefined;
  async function* pass(): AsyncGenerator<Uint8Array | string> {
    for await (const chunk of chunks) {
      if (!done) {
        const buffer = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
        const nl = buffer.indexOf(10);
        first.push(Buffer.from(nl < 0 ? buffer : buffer.subarray(0, nl)));
        firstBytes += nl < 0 ? buffer.length : nl;
        if (nl >= 0 || firstBytes > 16 * 1024 * 1024) done = true;
      }
      yield chunk;
    }
  }
  return {
    chunks: pass(),
    header: () => {
      if (parsed) return parsed;
      let value: { app?: { name?: unknown; version?: unknown }; startedAt?: unknown; servers?: unknown } = {};
      try {
        value = JSON.parse(Buffer.concat(first).toString('utf8')) as typeof value;
      } catch {
        /* importJsonl has accepted it: it is JSON */
      }
      first = [];
      const servers = Array.isArray(value.servers) ? value.servers.flatMap((s) => {
        const ok = ServerConfigSchema.safeParse(s);
        return ok.success ? [ok.data] : [];
      }) : [];
      parsed = {
        app: { name: String(value.app?.name ?? 'Switchboard'), version: String(value.app?.version ?? '') },
        startedAt: (typeof value.startedAt === 'string' && Date.parse(value.startedAt)) || Date.now(),
        servers,
      };
      return parsed;
    },
  };
}
