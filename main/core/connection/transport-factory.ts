/**
 * Builds the tracked transport for a server's target: our tracked stdio transport, or the
 * SDK's HTTP transports with the tracking fetch, so every channel lands in the trace.
 */
import { SSEClientTransport, StreamableHTTPClientTransport, type FetchLike, type Transport } from '@modelcontextprotocol/client';
import { getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import type { ServerTarget } from '../../../contract';
import type { RecordEvent } from '../trace/rpc';
import type { SwitchboardOAuthProvider } from '../auth/oauth-provider';
import type { Redactor } from '../trace/redact';
import { TrackedStdioTransport } from '../transport/tracked-stdio';
import { createTrackingFetch, type HttpTransportKind } from '../transport/tracking-fetch';

export type HttpKind = HttpTransportKind;

export interface TransportContext {
  server: string;
  record: RecordEvent;
  redactor: Redactor;
  now?: () => number;
  onStderrLine?: (line: string) => void;
  /** The fetch underneath the tracking one (tests, OAuth wrappers); default global fetch. */
  baseFetch?: FetchLike;
  /** OAuth for this server: the SDK transport runs `auth()` with it on 401 and 403 insufficient_scope. */
  authProvider?: SwitchboardOAuthProvider;
}

export function createTransport(target: ServerTarget, kind: HttpKind | undefined, context: TransportContext): Transport {
  if (target.type === 'stdio') {
    return new TrackedStdioTransport(
      { command: target.command, args: target.args, env: { ...getDefaultEnvironment(), ...target.env }, cwd: target.cwd, nonSecretEnv: target.nonSecretEnv },
      { server: context.server, record: context.record, redactor: context.redactor, onStderrLine: context.onStderrLine },
    );
  }
  const url = new URL(target.url);
  const transport = kind ?? 'streamable-http';
  const tracked = createTrackingFetch({
    server: context.server,
    endpoint: url,
    transport,
    record: context.record,
    redactor: context.redactor,
    now: context.now,
    base: context.baseFetch,
  });
  const requestInit: RequestInit = { headers: target.headers };
  const authProvider = context.authProvider;
  // The provider's own requests (refresh, code exchange, revocation) go through the same tracked fetch.
  const fetch = authProvider ? authProvider.useFetch(tracked, url, context.redactor) : tracked;
  if (transport === 'sse') return new SSEClientTransport(url, { requestInit, fetch, authProvider });
  return new StreamableHTTPClientTransport(url, { requestInit, fetch, authProvider });
}

export { configSecrets } from '../trace/redact';
