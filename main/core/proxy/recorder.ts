/**
 * A proxy's trace (#12): a TraceHub whose store writes into a live recording of kind `proxy` in
 * the library (the same crash-safe writer as the app's sessions), and into `--record FILE` as
 * JSONL when asked; the meta's `proxy` info (the client's name and protocol version once seen);
 * and the faults control loop over control.ts (the app asks, the proxy applies and reports).
 *
 * Nothing here may touch the bytes a proxy forwards: every failure is caught, told once on the
 * proxy's stderr, and the proxy goes on (recording less).
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import type { ArmedFault, Fault } from '../../../contract/faults';
import type { ProxyInfo } from '../../../contract/proxy-info';
import type { TraceEvent, TraceEventInput } from '../../../contract/trace';
import { createFaultEngine, unsupportedReason } from '../faults';
import { RecordingLibrary, type LiveRecording } from '../recordings/library';
import { HEADER_RESERVE } from '../recordings/format';
import { eventLine, jsonlLines, scrubber } from '../trace/export-jsonl';
import { LazyLiveExporter } from '../otlp/lazy';
import { TraceHub } from '../trace/hub';
import { faultsRequestStamp, readFaultsRequest, writeFaultsState } from './control';
import type { ProxyRecorder, ProxyRecorderOptions } from './types';

/** How often the app's faults request is looked for. */
export const FAULTS_POLL_MS = 250;
/** faults-state.json is rewritten at most this often while only counts change. */
export const FAULTS_STATE_THROTTLE_MS = 500;
/** `--record FILE`: queued lines are written at least this often (and at close). */
const RECORD_FILE_INTERVAL_MS = 200;
const RECORD_FILE_BATCH_BYTES = 1 << 20;
const APP = 'Switchboard';

/** The server id a proxy's events carry in its own recording: a slug of its `--name`. */
export function proxyServerSlug(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48)
    .replace(/-+$/, '');
  return slug || 'proxy';
}

/** One line per fault for the trace: `latency 200ms (tools/call, rate 0.5)`. */
export function describeFault(fault: Fault): string {
  const f = fault as Fault & { ms?: number; code?: number; status?: number; method?: string | string[]; rate?: number; after?: number; times?: number };
  const detail = f.type === 'latency' ? ` ${f.ms}ms` : f.type === 'jsonrpc-error' ? ` ${f.code}` : f.type === 'http-error' ? ` ${f.status}` : '';
  const scope = [
    f.method !== undefined ? (Array.isArray(f.method) ? f.method.join('|') : f.method) : undefined,
    f.rate !== undefined ? `rate ${f.rate}` : undefined,
    f.after !== undefined ? `after ${f.after}` : undefined,
    f.times !== undefined ? `times ${f.times}` : undefined,
  ].filter(Boolean);
  return `${f.type}${detail}${scope.length ? ` (${scope.join(', ')})` : ''}`;
}

export function createProxyRecorder(options: ProxyRecorderOptions): ProxyRecorder {
  return new Recorder(options);
}

class Recorder implements ProxyRecorder {
  readonly serverId: string;
  readonly recordingId?: string;
  readonly recordingDir?: string;
  readonly redactor;
  readonly faults;
  private readonly hub: TraceHub;
  private readonly live: LiveRecording | undefined;
  private readonly file: JsonlFile | undefined;
  private readonly otlp: LazyLiveExporter | undefined;
  private readonly pollTimer: NodeJS.Timeout | undefined;
  private stateTimer: NodeJS.Timeout | undefined;
  private lastStamp: number | undefined;
  private appliedSeq = 0;
  private refused: string | undefined;
  private clientSeen = false;
  private versionSeen = false;
  private closed = false;
  private readonly warned = new Set<string>();

  constructor(private readonly options: ProxyRecorderOptions) {
    this.serverId = options.config.id;
    this.redactor = options.redactor;
    const info: ProxyInfo = { name: options.name, transport: options.transport, target: options.target, ...(options.listen ? { listen: options.listen } : {}), pid: process.pid };
    if (options.libraryDir !== false) {
      try {
        // Retention is the app's to apply (with the person's settings); a proxy only repairs what a killed proxy left.
        const library = new RecordingLibrary({ dir: options.libraryDir, retention: () => ({ maxBytes: 1024 ** 5, maxAgeDays: 0 }), retentionIntervalMs: 0, log: (_level, text) => options.log(text) });
        library.recover();
        this.live = library.startLive({
          kind: 'proxy',
          name: options.name,
          app: { name: APP, version: options.version },
          servers: () => [options.config],
          redact: () => scrubber([this.redactor]),
          proxy: info,
        });
        this.recordingId = this.live.id;
        this.recordingDir = this.live.dir;
      } catch (error) {
        options.log(`not recording into the library (${options.libraryDir}): ${message(error)}`);
      }
    }
    this.hub = new TraceHub(undefined, { store: { ...this.live?.storeOptions, onLimit: (text) => this.warn('limit', `trace: ${text}`) } });
    if (options.recordFile) {
      try {
        this.file = new JsonlFile(options.recordFile, jsonlLines({ app: { name: APP, version: options.version }, startedAt: Date.now(), servers: [options.config], events: [], eventCount: 0, redactors: [this.redactor] }).next().value as string, scrubber([this.redactor]), (text) => this.warn('file', text));
        const file = this.file;
        this.hub.store.subscribe((event) => file.append(event));
      } catch (error) {
        options.log(`--record ${options.recordFile}: ${message(error)}`);
      }
    }
    if (options.otlp) {
      const otlp = new LazyLiveExporter(options.otlp, { serverNames: { [this.serverId]: options.name }, app: { name: APP, version: options.version }, scrub: scrubber([this.redactor]) }, (text) => this.warn('otlp', text));
      this.otlp = otlp;
      this.hub.store.subscribe((event) => otlp.push(event));
    }
    this.faults = createFaultEngine(options.faults);
    this.faults.onChange = () => this.stateSoon();
    if (options.faults.length) this.noteFaults('flags');
    if (this.recordingDir) {
      this.writeState();
      this.pollTimer = setInterval(() => this.poll(), FAULTS_POLL_MS);
      this.pollTimer.unref();
    }
  }

  now(): number {
    return this.hub.now();
  }

  record(event: Omit<TraceEventInput, 'server'>): void {
    if (this.closed) return;
    try {
      this.hub.record({ server: this.serverId, ...event } as TraceEventInput);
    } catch (error) {
      this.warn('record', `an event could not be recorded: ${message(error)}`);
    }
  }

  observeClientMessage(value: unknown): void {
    if (this.clientSeen && this.versionSeen) return;
    try {
      for (const item of Array.isArray(value) ? value.slice(0, 100) : [value]) this.observeOne(item);
    } catch (error) {
      this.warn('observe', `the client's message could not be read: ${message(error)}`);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    if (this.pollTimer) clearInterval(this.pollTimer);
    if (this.stateTimer) clearTimeout(this.stateTimer);
    this.stateTimer = undefined;
    if (this.recordingDir) this.writeState();
    this.closed = true;
    try {
      this.hub.close();
      this.live?.close();
    } catch (error) {
      this.options.log(`the recording could not be closed cleanly: ${message(error)}`);
    }
    this.file?.close(this.hub.store.size);
    await this.otlp?.close();
  }

  // --- the client -----------------------------------------------------------------------------

  private observeOne(item: unknown): void {
    if (!isObject(item) || typeof item.method !== 'string') return;
    const params = isObject(item.params) ? item.params : undefined;
    if (!params) return;
    let client: unknown;
    let version: unknown;
    if (item.method === 'initialize') {
      client = params.clientInfo;
      version = params.protocolVersion;
    } else {
      // 2026-07-28 (stateless): every request carries the envelope in `_meta`.
      const meta = isObject(params._meta) ? params._meta : undefined;
      client = meta?.['io.modelcontextprotocol/clientInfo'];
      version = meta?.['io.modelcontextprotocol/protocolVersion'];
    }
    const patch: Partial<ProxyInfo> = {};
    if (!this.clientSeen && isObject(client) && typeof client.name === 'string' && client.name.trim()) {
      patch.client = { name: client.name.slice(0, 200), ...(typeof client.version === 'string' ? { version: client.version.slice(0, 200) } : {}) };
      this.clientSeen = true;
    }
    if (!this.versionSeen && typeof version === 'string' && version.trim()) {
      patch.protocolVersion = version.slice(0, 50);
      this.versionSeen = true;
    }
    if (Object.keys(patch).length) this.live?.annotateProxy(patch);
  }

  // --- faults -----------------------------------------------------------------------------------

  private poll(): void {
    const dir = this.recordingDir;
    if (!dir || this.closed) return;
    try {
      const stamp = faultsRequestStamp(dir);
      if (stamp === undefined || stamp === this.lastStamp) return;
      this.lastStamp = stamp;
      const request = readFaultsRequest(dir);
      if (!request || request.seq <= this.appliedSeq) return;
      this.appliedSeq = request.seq;
      const refused = unsupportedReason(request.faults, this.options.transport);
      if (refused) {
        this.refused = refused;
        this.options.log(`faults asked for by the app refused: ${refused}`);
        this.record({ channel: 'lifecycle', kind: 'fault', dir: 'none', text: `faults refused: ${refused}`, meta: { refused, faults: this.faults.list() } });
      } else {
        this.refused = undefined;
        this.faults.set(request.faults);
        this.noteFaults('app');
      }
      this.writeState();
    } catch (error) {
      this.warn('poll', `the app's faults request could not be read: ${message(error)}`);
    }
  }

  /** The faults in force changed: one `fault` event with the whole list. */
  private noteFaults(source: 'flags' | 'app'): void {
    const armed: ArmedFault[] = this.faults.list();
    const text = armed.length ? `faults in force (${source === 'flags' ? '--fault' : 'from the app'}): ${armed.map((a) => describeFault(a.fault)).join('; ')}` : 'faults off';
    this.record({ channel: 'lifecycle', kind: 'fault', dir: 'none', text, meta: { faults: armed.map((a) => a.fault), source } });
  }

  private stateSoon(): void {
    if (!this.recordingDir || this.stateTimer || this.closed) return;
    this.stateTimer = setTimeout(() => {
      this.stateTimer = undefined;
      this.writeState();
    }, FAULTS_STATE_THROTTLE_MS);
    this.stateTimer.unref();
  }

  private writeState(): void {
    if (!this.recordingDir) return;
    try {
      writeFaultsState(this.recordingDir, { seq: this.appliedSeq, armed: this.faults.list(), at: Date.now(), ...(this.refused ? { refused: this.refused.slice(0, 2000) } : {}) });
    } catch (error) {
      this.warn('state', `faults-state.json could not be written: ${message(error)}`);
    }
  }

  /** Told once per kind of failure: a proxy's stderr is the client's log, not a flood. */
  private warn(kind: string, text: string): void {
    if (this.warned.has(kind)) return;
    this.warned.add(kind);
    try {
      this.options.log(text);
    } catch {
      // nowhere left to tell
    }
  }
}

/**
 * `--record FILE`: the JSONL trace (docs/trace-format.md) written as events happen. The header
 * is written first with room to spare and rewritten at close with the final event count, the
 * way a recording's events file is; lines go through the redaction net.
 */
class JsonlFile {
  private readonly fd: number;
  private readonly headerLength: number;
  private size: number;
  private lines: string[] = [];
  private bytes = 0;
  private failed = false;
  private readonly timer: NodeJS.Timeout;

  constructor(
    path: string,
    private readonly header: string,
    private readonly scrub: (text: string) => string,
    private readonly warn: (text: string) => void,
  ) {
    this.fd = openSync(path, 'w', 0o600);
    const first = Buffer.from(header.replace(/\n$/, '') + ' '.repeat(HEADER_RESERVE) + '\n', 'utf8');
    writeSync(this.fd, first, 0, first.length, 0);
    this.headerLength = first.length;
    this.size = first.length;
    this.timer = setInterval(() => this.flush(), RECORD_FILE_INTERVAL_MS);
    this.timer.unref();
  }

  append(event: TraceEvent): void {
    if (this.failed) return;
    const line = this.scrub(eventLine(event)) + '\n';
    this.lines.push(line);
    this.bytes += line.length;
    if (this.bytes >= RECORD_FILE_BATCH_BYTES) this.flush();
  }

  flush(): void {
    if (this.failed || this.lines.length === 0) return;
    const data = Buffer.from(this.lines.join(''), 'utf8');
    this.lines = [];
    this.bytes = 0;
    try {
      writeSync(this.fd, data, 0, data.length, this.size);
      this.size += data.length;
    } catch (error) {
      this.failed = true;
      this.warn(`--record: writing failed (${message(error)}); the file stops here`);
    }
  }

  close(events: number): void {
    clearInterval(this.timer);
    this.flush();
    try {
      const header = JSON.parse(this.header) as { eventCount: number; exportedAt: string };
      header.eventCount = events;
      header.exportedAt = new Date().toISOString();
      const text = this.scrub(JSON.stringify(header));
      const line = Buffer.from(text.padEnd(this.headerLength - 1, ' ') + '\n', 'utf8');
      if (line.length === this.headerLength) writeSync(this.fd, line, 0, line.length, 0);
    } catch (error) {
      this.warn(`--record: the header could not be finished (${message(error)})`);
    }
    try {
      closeSync(this.fd);
    } catch {
      // closed already
    }
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
