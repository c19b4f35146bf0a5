/**
 * The app side of the proxy (#12): finds proxied sessions in the recordings library (kind
 * `proxy`), tails each one's `events.jsonl` into the app's live trace as server `px-<id>` (so
 * Traffic, Charts, Timeline and Logs show it within a second), and asks a proxy for faults
 * through control.ts. The only link to a proxy is its recording directory: a proxy that dies
 * leaves its session `ended` with every event it wrote; the app never waits for one.
 *
 * Every poll (default 250 ms, unref'd): the library's directory is listed and each meta file
 * stat'ed; a meta is read again only when its mtime changed. A proxy recording is followed when
 * it is live (`state: recording` and its owner process alive) or ended while this app ran. Its
 * events file is read from the last offset, whole lines only (a torn last line waits for its
 * end), a slice of at most SLICE_EVENTS events a turn of the event loop (a long session's catch-up
 * never blocks it). Each line is parsed as the recording reader parses it, validated as an import
 * validates it (a line that does not is skipped and counted, one log line per session), its whole
 * payload read back from `payloads.bin` when it was previewed (bounded), and appended with its
 * original `ts`. Exchange ids are prefixed with the session's server id (they are per-process
 * counters in every recorder, `x1`, `x2`…, and would otherwise join exchanges of different
 * processes); everything else is kept as recorded.
 */
import { closeSync, fstatSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { LIMITS, boundDepth, depthOf } from '../../../contract/bounded-json';
import { FAULTS_BY_TRANSPORT, type ArmedFault, type Fault } from '../../../contract/faults';
import { proxyServerId, type ProxySession } from '../../../contract/proxy';
import { RecordingId } from '../../../contract/recordings';
import type { TraceEvent, TraceEventInput } from '../../../contract/trace';
import { CoreError } from '../errors';
import type { EventHub } from '../events';
import type { LogBus } from '../logs/log-bus';
import { writeServerError, writeServerLog } from '../logs/server-lines';
import { BLOBS_FILE, EVENTS_FILE, LINE_MAX_BYTES, META_FILE, ownerAlive, readMeta, type RecordingMeta } from '../recordings/format';
import { parseRecordedLine, readBlobAt } from '../recordings/reader';
import { EventSchema } from '../trace/import-jsonl';
import type { TraceHub } from '../trace/hub';
import { FAULTS_STATE_FILE, readFaultsState, writeFaultsRequest } from './control';

export interface ProxyMirror {
  sessions(): ProxySession[];
  setFaults(id: string, faults: Fault[]): ProxySession;
  /** One scan now, resolved when every session it found has caught up (tests; the timer calls it too). */
  poll(): Promise<void>;
  stop(): void;
}

export interface ProxyMirrorOptions {
  /** The library's directory (`<data dir>/recordings`). */
  dir: string;
  trace: Pick<TraceHub, 'record'>;
  logs: LogBus;
  events: EventHub;
  /** Default 250 ms; 0: no timer (tests call `poll`). */
  pollMs?: number;
  /** Recordings that ended before this time are not shown (default: now, the app's start). */
  since?: number;
  /** Tests: sessions followed at once (default MIRROR_LIMITS.sessions). */
  maxSessions?: number;
}

/** The bounds of the mirror (docs/limits.md). */
export const MIRROR_LIMITS = {
  /** Events appended per turn of the event loop while a session catches up. */
  sliceEvents: 2_000,
  /** Bytes read from an events file at a time (a longer line grows the read up to the line limit). */
  readBytes: 1024 * 1024,
  /** A previewed payload read back whole from `payloads.bin` up to this; above, the preview is shown. */
  blobBytes: 16 * 1024 * 1024,
  /** Proxied sessions followed at once (the newest first); the rest are left out, and said once. */
  sessions: 200,
  /** Recording directories looked at per poll. */
  entries: 20_000,
} as const;

interface Tracked {
  id: string;
  dir: string;
  serverId: string;
  meta: RecordingMeta;
  metaStamp: string;
  state: 'live' | 'ended';
  /** Bytes of events.jsonl consumed (whole lines). */
  offset: number;
  readSize: number;
  /** A line longer than the limit is being skipped up to its end. */
  discarding: boolean;
  events: number;
  skipped: number;
  warned: boolean;
  faults: ArmedFault[];
  faultsStamp: string;
  faultsSeq: number;
  pumping: Promise<void> | undefined;
  /** The proxy stopped (or its recording went away): ends once what it wrote is read. */
  ending: boolean;
  endedAt?: number;
}

/** What tells one version of a small file from the next: both are written by a rename (a new inode), and mtimes can repeat within their resolution. */
function fileStamp(path: string): string {
  const stat = statSync(path);
  return `${stat.ino}:${stat.mtimeMs}:${stat.size}`;
}

const VALID_ID = (id: string) => RecordingId.safeParse(id).success && proxyServerId(id).length <= 64;

export function createProxyMirror(options: ProxyMirrorOptions): ProxyMirror {
  const { dir, trace, logs, events } = options;
  const since = options.since ?? Date.now();
  const maxSessions = options.maxSessions ?? MIRROR_LIMITS.sessions;
  const tracked = new Map<string, Tracked>();
  /** Meta files looked at and not followed (another kind, ended before we started, broken): by mtime. */
  const ignored = new Map<string, string>();
  let stopped = false;
  let warnedTooMany = false;

  const session = (t: Tracked): ProxySession => ({
    id: t.serverId,
    recordingId: t.id,
    info: t.meta.proxy!,
    state: t.state === 'ended' || t.ending ? 'ended' : 'live',
    startedAt: t.meta.startedAt,
    ...(t.state === 'ended' ? { endedAt: t.endedAt ?? t.meta.endedAt ?? Date.now() } : {}),
    events: t.events,
    faults: t.faults,
    supportedFaults: [...FAULTS_BY_TRANSPORT[t.meta.proxy!.transport]],
  });
  const list = () => [...tracked.values()].sort((a, b) => b.meta.startedAt - a.meta.startedAt || (a.id < b.id ? 1 : -1)).map(session);
  let changedPending = false;
  const changed = () => {
    changedPending = true;
  };
  const emitIfChanged = () => {
    if (!changedPending || stopped) return;
    changedPending = false;
    events.emit('proxySessionsChanged', { sessions: list() });
  };

  function scan(): void {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      names = [];
    }
    const present = new Set<string>();
    for (const name of names.slice(0, MIRROR_LIMITS.entries)) {
      if (!VALID_ID(name)) continue;
      present.add(name);
      const recordingDir = join(dir, name);
      let stamp: string;
      try {
        stamp = fileStamp(join(recordingDir, META_FILE));
      } catch {
        continue;
      }
      const t = tracked.get(name);
      if (!t) {
        if (ignored.get(name) === stamp) continue;
        let meta: RecordingMeta;
        try {
          meta = { ...readMeta(recordingDir), id: name };
        } catch {
          ignored.set(name, stamp);
          continue;
        }
        const live = meta.state === 'recording' && ownerAlive(meta.owner);
        const endedHere = meta.state !== 'recording' && (meta.endedAt ?? meta.startedAt) >= since;
        if (meta.kind !== 'proxy' || !meta.proxy || !(live || endedHere)) {
          ignored.set(name, stamp);
          continue;
        }
        if (tracked.size >= maxSessions && !forgetOldestEnded()) {
          if (!warnedTooMany) logs.app('warning', `More than ${maxSessions} proxied sessions at once: the others are not shown live (they are in the library).`);
          warnedTooMany = true;
          continue;
        }
        ignored.delete(name);
        tracked.set(name, {
          id: name,
          dir: recordingDir,
          serverId: proxyServerId(name),
          meta,
          metaStamp: stamp,
          state: 'live',
          offset: 0,
          readSize: MIRROR_LIMITS.readBytes,
          discarding: false,
          events: 0,
          skipped: 0,
          warned: false,
          faults: [],
          faultsStamp: '',
          faultsSeq: -1,
          pumping: undefined,
          ending: !live,
        });
        changed();
        continue;
      }
      if (t.state === 'ended') continue;
      if (stamp !== t.metaStamp) {
        t.metaStamp = stamp;
        try {
          const meta = { ...readMeta(recordingDir), id: name };
          if (meta.proxy) {
            const before = t.meta.proxy;
            if (before?.client?.name !== meta.proxy.client?.name || before?.client?.version !== meta.proxy.client?.version || before?.protocolVersion !== meta.proxy.protocolVersion) changed();
            t.meta = meta;
          }
        } catch {
          /* mid-rewrite or damaged: the last good meta stays */
        }
      }
      if (!t.ending && (t.meta.state !== 'recording' || !ownerAlive(t.meta.owner))) {
        t.ending = true;
        changed();
      }
    }
    for (const t of tracked.values()) {
      if (t.state === 'ended') continue;
      if (!present.has(t.id) && !t.ending) {
        t.ending = true;
        changed();
      }
      readFaults(t);
    }
    for (const name of ignored.keys()) if (!present.has(name)) ignored.delete(name);
  }

  /** At the cap, the oldest ended session leaves the list (its events stay in the trace): room for a live one. */
  function forgetOldestEnded(): boolean {
    let oldest: Tracked | undefined;
    for (const t of tracked.values()) if (t.state === 'ended' && !t.pumping && (!oldest || (t.endedAt ?? 0) < (oldest.endedAt ?? 0))) oldest = t;
    if (!oldest) return false;
    tracked.delete(oldest.id);
    ignored.set(oldest.id, oldest.metaStamp);
    changed();
    return true;
  }

  function readFaults(t: Tracked): void {
    let stamp: string;
    try {
      stamp = fileStamp(join(t.dir, FAULTS_STATE_FILE));
    } catch {
      return;
    }
    if (stamp === t.faultsStamp) return;
    t.faultsStamp = stamp;
    const state = readFaultsState(t.dir);
    if (!state) return;
    if (JSON.stringify(state.armed) !== JSON.stringify(t.faults)) {
      t.faults = state.armed;
      changed();
    }
    if (state.seq !== t.faultsSeq) {
      if (state.refused && t.faultsSeq >= 0) logs.app('warning', `Proxy "${t.meta.proxy!.name}" did not apply the faults asked for: ${state.refused}`, t.serverId);
      t.faultsSeq = state.seq;
    }
  }

  /** Reads what is new in a session's events file, a slice per turn of the event loop. */
  function pump(t: Tracked): Promise<void> {
    if (t.pumping) return t.pumping;
    t.pumping = (async () => {
      try {
        for (;;) {
          if (stopped) return;
          const more = readSlice(t);
          if (!more) break;
          await new Promise<void>((resolve) => setImmediate(resolve));
        }
        if (t.ending && t.state === 'live') {
          // Once more: what the proxy wrote between the last read and its end.
          while (!stopped && readSlice(t)) await new Promise<void>((resolve) => setImmediate(resolve));
          t.state = 'ended';
          t.endedAt = t.meta.endedAt ?? Date.now();
          closeBlobs(t);
          changed();
          emitIfChanged();
        }
      } finally {
        if (t.events !== lastCount.get(t.id)) {
          lastCount.set(t.id, t.events);
          countsMoved = true;
        }
      }
    })();
    const running = t.pumping;
    // Cleared once it settles (not inside it: a pump with nothing to wait for ends before it is assigned).
    running
      .finally(() => {
        if (t.pumping === running) t.pumping = undefined;
      })
      .catch(() => undefined);
    return running;
  }
  const lastCount = new Map<string, number>();
  let countsMoved = false;

  const blobFds = new Map<string, number>();
  function closeBlobs(t: Tracked): void {
    const fd = blobFds.get(t.id);
    if (fd !== undefined) closeSync(fd);
    blobFds.delete(t.id);
  }

  /** One slice: up to SLICE_EVENTS whole lines. Answers whether more may be waiting. */
  function readSlice(t: Tracked): boolean {
    let fd: number;
    try {
      fd = openSync(join(t.dir, EVENTS_FILE), 'r');
    } catch {
      return false;
    }
    try {
      let done = 0;
      for (;;) {
        const size = fstatSync(fd).size;
        if (t.offset >= size) return false;
        const want = Math.min(size - t.offset, t.readSize);
        const buffer = Buffer.alloc(want);
        const got = readSync(fd, buffer, 0, want, t.offset);
        const last = buffer.lastIndexOf(10, got - 1);
        if (last < 0) {
          if (got >= size - t.offset) return false; // a torn last line: it waits for its end
          if (t.readSize > LINE_MAX_BYTES) {
            // Longer than any event line may be: skipped up to its end.
            if (!t.discarding) skip(t, `a line longer than ${LINE_MAX_BYTES} bytes`);
            t.discarding = true;
            t.offset += got;
          } else t.readSize = Math.min(t.readSize * 4, LINE_MAX_BYTES + 1);
          continue;
        }
        t.readSize = MIRROR_LIMITS.readBytes;
        let start = 0;
        while (start <= last) {
          const nl = buffer.indexOf(10, start);
          const lineStart = t.offset;
          t.offset += nl - start + 1;
          if (t.discarding) t.discarding = false;
          else if (lineStart === 0) {
            /* the header line */
          } else if (nl > start) {
            line(t, buffer.toString('utf8', start, nl));
            done++;
          }
          start = nl + 1;
          if (done >= MIRROR_LIMITS.sliceEvents) return true;
        }
      }
    } catch (error) {
      if (!t.warned) logs.app('warning', `Proxied session "${t.meta.proxy!.name}": its events file could not be read (${error instanceof Error ? error.message : String(error)}); trying again.`, t.serverId);
      t.warned = true;
      return false;
    } finally {
      closeSync(fd);
    }
  }

  function skip(t: Tracked, why: string): void {
    t.skipped++;
    if (t.warned) return;
    t.warned = true;
    logs.app('warning', `Proxied session "${t.meta.proxy!.name}": a line of its recording could not be read (${why}): skipped (and any more, counted).`, t.serverId);
  }

  function line(t: Tracked, text: string): void {
    let event: TraceEvent;
    let blob: { offset: number; length: number } | undefined;
    try {
      ({ event, blob } = parseRecordedLine(text));
    } catch (error) {
      return skip(t, error instanceof Error ? error.message.slice(0, 200) : 'not JSON');
    }
    const valid = EventSchema.safeParse(event);
    if (!valid.success) return skip(t, `not a trace event: ${valid.error.issues[0]?.path.join('.') || 'event'}`);
    if (blob && blob.length <= MIRROR_LIMITS.blobBytes) {
      const whole = readBlob(t, blob);
      if (whole !== undefined) {
        let body: unknown;
        try {
          body = JSON.parse(whole);
        } catch {
          body = whole;
        }
        event = { ...event };
        delete event.truncated;
        if (depthOf(body, LIMITS.carriedDepth) > LIMITS.carriedDepth) {
          event.body = boundDepth(body, LIMITS.carriedDepth);
          event.raw = whole;
        } else event.body = body;
      }
    }
    const input = { ...event, server: t.serverId, ...(typeof event.exchange === 'string' ? { exchange: `${t.serverId}/${event.exchange}` } : {}) } as TraceEventInput & { seq?: number };
    delete input.seq;
    try {
      trace.record(input);
    } catch {
      return; // the trace is closed: the app is stopping
    }
    t.events++;
    alsoLog(t, event);
  }

  /** What a tracked connection's observer writes to the log: stderr lines, errors, the server's log notifications. */
  function alsoLog(t: Tracked, event: TraceEvent): void {
    if (event.kind === 'stderr' && typeof event.text === 'string') logs.write({ serverId: t.serverId, source: 'stderr', level: 'info', text: event.text, ts: event.ts });
    else if (event.kind === 'error' && typeof event.text === 'string') writeServerError(logs, t.serverId, event.text);
    else if (event.kind === 'jsonrpc-in' && event.rpc?.method === 'notifications/message') {
      const params = (event.body as { params?: { level?: unknown; logger?: unknown; data?: unknown } } | undefined)?.params;
      if (params && typeof params === 'object') writeServerLog(logs, t.serverId, params.level, params.logger, params.data);
    }
  }

  function readBlob(t: Tracked, blob: { offset: number; length: number }): string | undefined {
    try {
      let fd = blobFds.get(t.id);
      if (fd === undefined) {
        fd = openSync(join(t.dir, BLOBS_FILE), 'r');
        blobFds.set(t.id, fd);
      }
      return readBlobAt(fd, blob, fstatSync(fd).size);
    } catch {
      return undefined;
    }
  }

  function poll(): Promise<void> {
    if (stopped) return Promise.resolve();
    try {
      scan();
    } catch (error) {
      logs.app('error', `Proxied sessions: ${error instanceof Error ? error.message : String(error)}`);
    }
    // A session appears (or ends) now; its catch-up follows, a slice at a time.
    emitIfChanged();
    const pumps = [...tracked.values()].filter((t) => t.state === 'live').map((t) => pump(t));
    return Promise.all(pumps).then(() => {
      // Counts move with every event: at most one push a second for them alone.
      if (countsMoved && Date.now() - lastCountPush >= 1000) {
        countsMoved = false;
        lastCountPush = Date.now();
        changed();
      }
      emitIfChanged();
    });
  }
  let lastCountPush = 0;

  const pollMs = options.pollMs ?? 250;
  const timer = pollMs > 0 ? setInterval(() => void poll(), pollMs) : undefined;
  timer?.unref();
  if (pollMs > 0) void poll();

  return {
    sessions: list,
    poll,
    setFaults(id, faults) {
      const t = [...tracked.values()].find((s) => s.serverId === id || s.id === id);
      if (!t) throw new CoreError('not-found', `No proxied session "${id}".`);
      const name = t.meta.proxy!.name;
      if (t.state === 'ended' || t.ending) throw new CoreError('conflict', `Proxied session "${name}" has ended: its proxy is not running, so no fault can be switched on in it.`);
      const supported = FAULTS_BY_TRANSPORT[t.meta.proxy!.transport];
      const refused = [...new Set(faults.map((f) => f.type).filter((type) => !supported.includes(type)))];
      if (refused.length) {
        throw new CoreError('invalid-arguments', `A ${t.meta.proxy!.transport} proxy cannot inject ${refused.map((r) => `"${r}"`).join(', ')}: it can inject ${supported.join(', ')}.`, undefined);
      }
      try {
        writeFaultsRequest(t.dir, faults);
      } catch (error) {
        throw new CoreError('failed', `The faults for "${name}" could not be written into its recording directory: ${error instanceof Error ? error.message : String(error)}`);
      }
      return session(t);
    },
    stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      for (const t of tracked.values()) closeBlobs(t);
    },
  };
}
