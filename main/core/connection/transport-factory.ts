/**
 * Builds the SDK transport for a server's target. HTTP transports get a `fetch` hook, which
 * is where the trace engine observes every request.
 */
import { SSEClientTransport, StreamableHTTPClientTransport, type FetchLike, type Transport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Readable } from 'node:stream';
import type { ServerTarget } from '../../../contract';

export type HttpKind = 'streamable-http' | 'sse';

export interface TransportHooks {
  fetch?: FetchLike;
  onStderrLine?: (line: string) => void;
}

export function createTransport(target: ServerTarget, kind: HttpKind | undefined, hooks: TransportHooks): Transport {
  if (target.type === 'stdio') {
    const transport = new StdioClientTransport({
      command: target.command,
      args: target.args,
      env: { ...inheritedEnv(), ...target.env },
      cwd: target.cwd,
      stderr: 'pipe',
    });
    const stderr = transport.stderr;
    if (stderr instanceof Readable && hooks.onStderrLine) forEachLine(stderr, hooks.onStderrLine);
    return transport;
  }
  const url = new URL(target.url);
  const requestInit: RequestInit = { headers: target.headers };
  if (kind === 'sse') return new SSEClientTransport(url, { requestInit, fetch: hooks.fetch });
  return new StreamableHTTPClientTransport(url, { requestInit, fetch: hooks.fetch });
}

/** PATH and friends, so `npx some-server` works as it does in a terminal. */
function inheritedEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  return env;
}

function forEachLine(stream: Readable, onLine: (line: string) => void): void {
  let buffered = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string | Buffer) => {
    buffered += chunk.toString();
    let newline: number;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      onLine(buffered.slice(0, newline).replace(/\r$/, ''));
      buffered = buffered.slice(newline + 1);
    }
  });
  stream.on('end', () => {
    if (buffered) onLine(buffered);
    buffered = '';
  });
}
