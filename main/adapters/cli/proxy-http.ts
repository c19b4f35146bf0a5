/**
 * `switchboard proxy --name NAME --upstream URL [--port N] [--transport http|sse]` (#12): the HTTP
 * recording proxy as a process. The flags are parsed by proxy.ts (both modes share them).
 *
 * stdout carries exactly one line, `LISTENING <client URL>`, once the proxy listens; everything
 * else (the proxy's own lines, prefixed `switchboard proxy:`) goes to stderr. Runs until SIGINT or
 * SIGTERM, then closes the recording cleanly. Exit codes: 0 stopped by a signal, 2 bad flags
 * (UsageError), 4 the port is in use.
 */
import { ServerConfig } from '../../../contract';
import { FaultSpecError, parseFaultArg, unsupportedReason, type Fault } from '../../core/faults';
import { PortInUseError, startHttpProxy } from '../../core/proxy/http';
import { createProxyRecorder, proxyServerSlug } from '../../core/proxy/recorder';
import { Redactor, configSecrets } from '../../core/trace/redact';
import type { OtlpEndpoint } from '../../core/otlp/endpoint';
import { UsageError } from './args';
import { otlpEndpointFromFlags } from './otlp-flags';
import { cliDataDir, libraryDir } from './recordings';
import type { Screen } from './run';

export const EXIT_PORT_IN_USE = 4;

export interface HttpProxyFlags {
  upstream: URL;
  port: number;
  transport: 'streamable-http' | 'sse';
  name: string;
  dataDir: string | undefined;
  noLibrary: boolean;
  record: string | undefined;
  faults: Fault[];
  quiet: boolean;
  otlp: OtlpEndpoint | undefined;
}

/** The HTTP mode's flags, checked (throws UsageError). */
export function httpProxyFlags(values: Record<string, unknown>): HttpProxyFlags {
  const text = (key: string): string | undefined => (typeof values[key] === 'string' ? (values[key] as string) : undefined);
  let upstream: URL;
  try {
    upstream = new URL(text('upstream') ?? '');
  } catch {
    throw new UsageError(`proxy: --upstream ${JSON.stringify(text('upstream') ?? '')} is not a URL (give the server's MCP endpoint, e.g. http://127.0.0.1:3000/mcp).`);
  }
  if (upstream.protocol !== 'http:' && upstream.protocol !== 'https:') throw new UsageError(`proxy: --upstream must be an http: or https: URL (got ${upstream.protocol}).`);
  if (upstream.username || upstream.password) throw new UsageError('proxy: --upstream must not carry user:password (the client\'s own Authorization passes through).');
  upstream.hash = '';

  const portText = text('port') ?? '0';
  const port = /^\d{1,5}$/.test(portText) ? Number(portText) : NaN;
  if (!(port >= 0 && port <= 65535)) throw new UsageError(`proxy: --port ${portText} is not a port (0–65535; 0 or none: a free one).`);

  const transportFlag = text('transport') ?? 'http';
  if (transportFlag !== 'http' && transportFlag !== 'sse') throw new UsageError(`proxy: --transport ${transportFlag}: give http (Streamable HTTP, both eras) or sse (legacy HTTP+SSE).`);

  const faults: Fault[] = [];
  for (const arg of Array.isArray(values['fault']) ? (values['fault'] as unknown[]) : []) {
    try {
      faults.push(parseFaultArg(String(arg)));
    } catch (error) {
      if (error instanceof FaultSpecError) throw new UsageError(`proxy: --fault ${String(arg).slice(0, 200)}: ${error.message}`);
      throw error;
    }
  }
  const refused = unsupportedReason(faults, 'http');
  if (refused) throw new UsageError(`proxy: ${refused}.`);

  return {
    upstream,
    port,
    transport: transportFlag === 'sse' ? 'sse' : 'streamable-http',
    name: String(values['name'] ?? '').trim(),
    dataDir: text('data-dir'),
    noLibrary: values['no-library'] === true,
    record: text('record'),
    faults,
    quiet: values['quiet'] === true,
    otlp: otlpEndpointFromFlags(values),
  };
}

/** The server a proxy recording's header holds: the upstream, as an HTTP server config. */
export function httpProxyConfig(name: string, upstream: URL, transport: 'streamable-http' | 'sse'): ServerConfig {
  return ServerConfig.parse({ id: proxyServerSlug(name), name: name.slice(0, 120), target: { type: 'http', url: upstream.href, transport } });
}

function waitForSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(signal);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

export async function httpProxyCommand(values: Record<string, unknown>, io: Screen, stop: Promise<unknown> = waitForSignal()): Promise<number> {
  const flags = httpProxyFlags(values);
  const log = (line: string) => io.err(`switchboard proxy: ${line}\n`);
  const redactor = new Redactor();
  const config = httpProxyConfig(flags.name, flags.upstream, flags.transport);
  for (const secret of configSecrets(config.target)) redactor.addSecret(secret);
  const target = redactor.url(flags.upstream.href);

  let proxy;
  try {
    proxy = await startHttpProxy({
      upstream: flags.upstream,
      port: flags.port,
      transport: flags.transport,
      log,
      recorder: (listen) =>
        createProxyRecorder({
          name: flags.name,
          transport: 'http',
          target,
          listen,
          config,
          libraryDir: flags.noLibrary ? false : libraryDir(cliDataDir(flags.dataDir)),
          ...(flags.record ? { recordFile: flags.record } : {}),
          version: io.version,
          redactor,
          faults: flags.faults,
          log,
          ...(flags.otlp ? { otlp: flags.otlp } : {}),
        }),
    });
  } catch (error) {
    if (error instanceof PortInUseError) {
      log(`${error.message}: choose another --port, or none for a free one.`);
      return EXIT_PORT_IN_USE;
    }
    throw error;
  }
  if (!flags.quiet) {
    log(`forwarding ${proxy.url} → ${target}${flags.transport === 'sse' ? ' (legacy HTTP+SSE)' : ''}`);
    if (proxy.recorder.recordingDir) log(`recording "${flags.name}" into ${proxy.recorder.recordingDir}`);
  }
  io.json(`LISTENING ${proxy.url}\n`);
  await stop;
  await proxy.close();
  await proxy.recorder.close();
  return 0;
}
