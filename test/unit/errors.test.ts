/**
 * The error envelope's detail (main/core/errors.ts, the dispatcher, the contract client) and the
 * reading of errors in main/core/connection/errors.ts, on real SDK error objects and real Node
 * network errors (loopback only): codes, data, statuses and causes come from the objects' fields,
 * never from their text.
 */
import { createServer, type Server } from 'node:http';
import { freePort } from '../support/core-calls';
import type { AddressInfo } from 'node:net';
import { ProtocolError, SdkError, SdkErrorCode, SdkHttpError, SseError, UrlElicitationRequiredError } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METHOD_NAMES, type Envelope, type ErrorDetail, type ServerTarget } from '../../contract';
import { depthOf, LIMITS } from '../../contract/bounded-json';
import { ContractError, createApi, errorDetailOf as contractDetailOf, type Carrier } from '../../contract/client';
import { classifyError, describeConnectError, errorDetailOf, httpStatusOf, retryDecision } from '../../main/core/connection/errors';
import { createDispatcher, type Handlers } from '../../main/core/dispatcher';
import { CoreError } from '../../main/core/errors';
import { parseUrlElicitationRequired } from '../../renderer/src/features/requests/url-elicitation';
import { errorOutcome } from '../../renderer/src/features/tools/call-outcome';

function handlers(overrides: Partial<Handlers>): Handlers {
  const unexpected = async () => {
    throw new Error('not under test');
  };
  return { ...(Object.fromEntries(METHOD_NAMES.map((m) => [m, unexpected])) as unknown as Handlers), ...overrides };
}

const http = (url: string): ServerTarget => ({ type: 'http', url, headers: {}, transport: 'auto' });

/** A port nothing listens on: bound, then closed. */

/** What the SDK's version probe throws when fetch() fails: the real Node error, wrapped as the SDK wraps it. */
async function probeFailure(url: string): Promise<SdkError> {
  const cause = await fetch(url, { method: 'POST', body: '{}' }).then(
    () => {
      throw new Error(`expected ${url} to fail`);
    },
    (error: unknown) => error,
  );
  const message = `Version negotiation probe failed: ${(cause as Error).message}`;
  return new SdkError(SdkErrorCode.EraNegotiationFailed, message, { cause }, { cause });
}

describe('the envelope carries the detail', () => {
  it('a CoreError with a detail reaches the envelope whole; the contract client keeps it on the error it throws', async () => {
    const detail: ErrorDetail = { kind: 'rpc', rpcCode: -32602, rpcData: { field: 'x' }, requestSeq: 7, responseSeq: 9, durationMs: 12.5, retryable: false };
    const dispatch = createDispatcher(handlers({ callTool: async () => Promise.reject(new CoreError('failed', 'it broke', detail)) }));
    const reply = await dispatch('callTool', { tool: 'a__b' });
    expect(reply).toEqual({ ok: false, error: { code: 'failed', message: 'it broke', detail } });

    const carrier: Carrier = { invoke: async (method, args) => dispatch(method, args), subscribe: () => () => undefined };
    const thrown = await createApi(carrier)
      .callTool({ tool: 'a__b' })
      .catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(ContractError);
    expect((thrown as ContractError).detail).toEqual(detail);
    expect(contractDetailOf(thrown)).toEqual(detail);
    expect(contractDetailOf(new Error('plain'))).toBeUndefined();
  });

  it('an error without a detail has none in the envelope (and the old shape is unchanged)', async () => {
    const dispatch = createDispatcher(handlers({ callTool: async () => Promise.reject(new CoreError('not-found', 'no such tool')) }));
    const reply: Envelope = await dispatch('callTool', { tool: 'a__b' });
    expect(reply).toEqual({ ok: false, error: { code: 'not-found', message: 'no such tool' } });
  });

  it('the renderer reads a failed call from the detail alone, whatever the message says', () => {
    const lying = new ContractError({ code: 'failed', message: 'JSON-RPC error -32602: Cancelled: timed out (HTTP 503)' });
    expect(errorOutcome(lying)).toMatchObject({ rpcCode: undefined, cancelled: false, timedOut: false, clientRejected: false, traceSeq: undefined });
    const rpc = new ContractError({ code: 'failed', message: 'boom', detail: { kind: 'rpc', rpcCode: -32001, requestSeq: 3, responseSeq: 5 } });
    expect(errorOutcome(rpc)).toMatchObject({ message: 'boom', rpcCode: -32001, timedOut: true, traceSeq: 3, responseSeq: 5 });
    expect(errorOutcome(new ContractError({ code: 'failed', message: 'x', detail: { kind: 'client-rejected', rpcCode: -32602 } })).clientRejected).toBe(true);
    expect(errorOutcome(new ContractError({ code: 'failed', message: 'x', detail: { kind: 'cancelled' } })).cancelled).toBe(true);
  });

  it('-32042 links come from the detail; a message that merely looks like one is not such an error', () => {
    expect(parseUrlElicitationRequired(undefined)).toBeNull();
    expect(parseUrlElicitationRequired({ kind: 'rpc', rpcCode: -32602, elicitations: [{ url: 'https://x.example/' }] })).toBeNull();
    const links = parseUrlElicitationRequired({
      kind: 'rpc',
      rpcCode: -32042,
      elicitations: [{ url: 'https://link.example/a', elicitationId: 'e1', message: 'Link it' }, { bogus: true } as never, ...Array.from({ length: 20 }, (_, i) => ({ url: `https://x.example/${i}` }))],
    });
    expect(links).toHaveLength(10);
    expect(links![0]).toEqual({ url: 'https://link.example/a', elicitationId: 'e1', message: 'Link it' });
  });
});

describe('connection/errors.ts reads the error objects', () => {
  it('a JSON-RPC error: its code, and its data cut to the carried depth', () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 500; i++) deep = { next: deep };
    const error = new ProtocolError(-32602, 'bad params', { deep });
    const detail = errorDetailOf(error);
    expect(detail).toMatchObject({ kind: 'rpc', rpcCode: -32602, retryable: false });
    expect(depthOf(detail.rpcData)).toBeLessThanOrEqual(LIMITS.carriedDepth);
    expect(JSON.stringify(detail.rpcData)).toContain('$switchboard:truncated');
    expect(httpStatusOf(error)).toBeUndefined();
  });

  it('-32042 (the SDK reconstructs UrlElicitationRequiredError): the links, bounded, and retryable', () => {
    const error = ProtocolError.fromError(-32042, 'Link your account', { elicitations: [{ mode: 'url', url: 'https://link.example/?a=1', elicitationId: 'link-1', message: 'Link "acme"' }] });
    expect(error).toBeInstanceOf(UrlElicitationRequiredError);
    expect(errorDetailOf(error)).toMatchObject({ kind: 'rpc', rpcCode: -32042, retryable: true, elicitations: [{ url: 'https://link.example/?a=1', elicitationId: 'link-1', message: 'Link "acme"' }] });
  });

  it('an HTTP error: the status from SdkHttpError, the SSE transport\'s code, not from any text', () => {
    const error = new SdkHttpError(SdkErrorCode.EraNegotiationFailed, 'Version negotiation failed: the server answered the probe with HTTP 503', { status: 503, statusText: 'Service Unavailable' });
    expect(httpStatusOf(error)).toBe(503);
    expect(errorDetailOf(error)).toMatchObject({ httpStatus: 503, retryable: true });
    expect(describeConnectError(http('http://h.example/mcp'), error)).toBe('http://h.example/mcp answered HTTP 503: Version negotiation failed: the server answered the probe with HTTP 503.');
    expect(httpStatusOf(new SseError(401, 'Non-200 status code (401)', undefined as never))).toBe(401);
    expect(classifyError(new SdkHttpError(SdkErrorCode.ClientHttpForbidden, 'denied', { status: 403 }))).toBe('auth');
    expect(retryDecision(new SdkHttpError(SdkErrorCode.ClientHttpNotImplemented, 'x', { status: 400 }))).toMatchObject({ retry: false, kind: 'config', status: 400 });
    // Text alone carries no status any more.
    expect(httpStatusOf(new Error('HTTP 503 Service Unavailable'))).toBeUndefined();
    expect(classifyError(new Error('401 unauthorized, timed out, fetch failed'))).toBe('protocol');
  });

  it('a timeout: the SDK\'s RequestTimeout, with the limit from its data', () => {
    const error = new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out', { timeout: 1500 });
    expect(classifyError(error)).toBe('timeout');
    expect(errorDetailOf(error)).toMatchObject({ kind: 'timeout', retryable: true });
    expect(describeConnectError(http('http://h.example/mcp'), error)).toBe('http://h.example/mcp did not answer within 1.5 s (connect timeout).');
    expect(describeConnectError({ type: 'stdio', command: 'srv', args: [], env: {}, nonSecretEnv: [] }, error)).toBe('The process "srv" did not complete the MCP handshake within 1.5 s. Its stderr is in Logs.');
  });

  it('a method the client library refuses before sending (no capability, not in this era): kind "unsupported"', () => {
    expect(errorDetailOf(new SdkError(SdkErrorCode.CapabilityNotSupported, 'Server does not support completions (required for completion/complete)'))).toMatchObject({ kind: 'unsupported', retryable: false });
    expect(errorDetailOf(new SdkError(SdkErrorCode.MethodNotSupportedByProtocolVersion, 'x', { method: 'tasks/get', era: 'modern' }))).toMatchObject({ kind: 'unsupported' });
  });

  it('a process that exits during the handshake: the SDK\'s ConnectionClosed code', () => {
    const error = new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed');
    expect(describeConnectError({ type: 'stdio', command: 'srv', args: [], env: {}, nonSecretEnv: [] }, error)).toBe('The process "srv" exited before completing the MCP handshake (Connection closed). Its stderr is in Logs.');
  });
});

describe('connect failures read as sentences (the probe error unwrapped to its cause)', () => {
  let plain: Server;
  let plainPort: number;
  beforeAll(async () => {
    plain = createServer((_req, res) => res.end('plain http'));
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    plainPort = (plain.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => plain.close(() => resolve()));
  });

  it('a refused connection: "Connection refused at …: nothing is listening there."', async () => {
    const url = `http://127.0.0.1:${await freePort()}/mcp`;
    const error = await probeFailure(url);
    expect(error.message).toBe('Version negotiation probe failed: fetch failed');
    expect(describeConnectError(http(url), error)).toBe(`Connection refused at ${url}: nothing is listening there.`);
    expect(errorDetailOf(error)).toMatchObject({ kind: 'unreachable', retryable: true });
    expect(retryDecision(error).retry).toBe(true);
  });

  it('TLS spoken to a plain HTTP port: the TLS handshake, in words', async () => {
    const url = `https://127.0.0.1:${plainPort}/mcp`;
    const sentence = describeConnectError(http(url), await probeFailure(url));
    expect(sentence).toMatch(new RegExp(`^The TLS handshake with ${url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} failed \\((ERR_SSL_WRONG_VERSION_NUMBER|EPROTO)\\): it does not speak TLS on this port`));
  });

  it('a host that does not resolve: not retried', async () => {
    const url = 'http://does-not-exist.invalid/mcp';
    const error = await probeFailure(url);
    expect(describeConnectError(http(url), error)).toBe(`No such host: "does-not-exist.invalid" does not resolve (DNS lookup failed for ${url}). Check the host name.`);
    expect(retryDecision(error)).toMatchObject({ retry: false, kind: 'config' });
  });

  it('the legacy SSE transport: the eventsource library leaves only text, so only there the errno is read from it', () => {
    const url = 'http://127.0.0.1:9/sse';
    const error = new SseError(undefined, 'TypeError: fetch failed: connect ECONNREFUSED 127.0.0.1:9', undefined as never);
    expect(describeConnectError(http(url), error)).toBe(`Connection refused at ${url}: nothing is listening there.`);
    // Any other error with that text is not read.
    expect(describeConnectError(http(url), new Error('connect ECONNREFUSED 127.0.0.1:9'))).toBe(`${url}: connect ECONNREFUSED 127.0.0.1:9.`);
  });
});
