/**
 * The recording proxy (#12): the seams between its parts.
 *
 *   recorder.ts  a proxy's trace: a TraceHub writing into a live recording of kind `proxy` in the
 *                library (and `--record FILE`), the meta's `proxy` info, the faults control loop
 *   stdio.ts     `switchboard proxy --name N -- CMD ARGS…`: byte-for-byte pipes, recorded like a tracked stdio connection
 *   http.ts      `switchboard proxy --name N --upstream URL [--port P]`: a loopback HTTP server forwarding
 *                through the tracking fetch (one channel classification and SSE observation)
 *   control.ts   the app ↔ proxy files in the recording's directory (faults asked for, faults in force)
 *   mirror.ts    the app side: proxied sessions in the library, tailed into the live trace
 */
import type { OtlpEndpoint } from '../otlp/endpoint';
import type { ServerConfig } from '../../../contract';
import type { ArmedFault, Fault } from '../../../contract/faults';
import type { ProxyInfo } from '../../../contract/proxy-info';
import type { TraceEventInput } from '../../../contract/trace';
import type { Redactor } from '../trace/redact';
import type { FaultEngine } from '../faults';

export interface ProxyRecorderOptions {
  /** `--name`: the recording's name and the server's name in it. */
  name: string;
  transport: ProxyInfo['transport'];
  /** For the meta and the recording header: what is proxied (redacted). */
  target: string;
  /** http: the URL clients connect to. */
  listen?: string;
  /** The server as a config, for the recording's header (so a recording opens like any other). */
  config: ServerConfig;
  /** The library's directory (`<data dir>/recordings`); `false`: none (`--no-library`). */
  libraryDir: string | false;
  /** `--record FILE`: the JSONL trace (docs/trace-format.md), written as events happen. */
  recordFile?: string;
  version: string;
  redactor: Redactor;
  /** Faults from `--fault` flags, in force from the start. */
  faults: Fault[];
  /** The proxy's own diagnostics (stderr, prefixed; never stdout). */
  log: (line: string) => void;
  /** `--otlp URL`: spans streamed live to an OTLP/HTTP endpoint as requests complete (#16). */
  otlp?: OtlpEndpoint;
}

export interface ProxyRecorder {
  /** The server id its events carry (the config's id). */
  readonly serverId: string;
  /** The library recording, when there is one. */
  readonly recordingId?: string;
  readonly recordingDir?: string;
  readonly redactor: Redactor;
  /** The trace store's clock. */
  now(): number;
  /** Records one event (the server id is filled in). Never throws. */
  record(event: Omit<TraceEventInput, 'server'>): void;
  /** A message from the client (parsed): picks up `clientInfo` and the protocol version for the meta. */
  observeClientMessage(message: unknown): void;
  /** The faults in force (updated from the app through control.ts, and noted in the trace when they change). */
  readonly faults: FaultEngine;
  /** Ends the recording cleanly (flushes `--record FILE`). */
  close(): Promise<void>;
}

export type { ArmedFault, Fault };
