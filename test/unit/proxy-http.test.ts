/**
 * The HTTP proxy's byte changes, each on its own (main/core/proxy/http.ts), and the tracking
 * fetch's `forwardOversize` (a proxy forwards a message over the limit whole; the observer stops
 * keeping it and picks the stream up again after it).
 */
import { describe, expect, it } from 'vitest';

import type { TraceEventInput } from '../../contract/trace';
import { endpointRewriter, jwtAudience, moveOrigin, rewriteChallenge, rewritePrm, upstreamRequestHeaders } from '../../main/core/proxy/http';
import { createTrackingFetch } from '../../main/core/transport/tracking-fetch';
import { Redactor } from '../../main/core/trace/redact';

const UP = 'http://127.0.0.1:4000';
const PX = 'http://127.0.0.1:5000';

async function through(stream: TransformStream<Uint8Array, Uint8Array>, chunks: Uint8Array[]): Promise<Buffer> {
  const source = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const c of chunks) controller.enqueue(c);
      controller.close();
    },
  });
  return Buffer.from(await new Response(source.pipeThrough(stream)).arrayBuffer());
}

describe('origin moves', () => {
  it('moveOrigin keeps what follows the origin as written, and only moves the upstream origin', () => {
    expect(moveOrigin(`${UP}/messages?sessionId=a%2Fb#x`, UP, PX)).toBe(`${PX}/messages?sessionId=a%2Fb#x`);
    expect(moveOrigin(`${UP}`, UP, PX)).toBe(PX);
    expect(moveOrigin('http://127.0.0.1:4001/mcp', UP, PX)).toBeUndefined();
    expect(moveOrigin('/messages?x=1', UP, PX)).toBeUndefined();
    expect(moveOrigin('not a url', UP, PX)).toBeUndefined();
  });

  it('rewriteChallenge: resource_metadata quoted or bare; other parameters and other origins untouched', () => {
    expect(rewriteChallenge(`Bearer error="invalid_token", resource_metadata="${UP}/.well-known/oauth-protected-resource/mcp", scope="a b"`, UP, PX)).toBe(
      `Bearer error="invalid_token", resource_metadata="${PX}/.well-known/oauth-protected-resource/mcp", scope="a b"`,
    );
    expect(rewriteChallenge(`Bearer resource_metadata=${UP}/.well-known/x`, UP, PX)).toBe(`Bearer resource_metadata=${PX}/.well-known/x`);
    expect(rewriteChallenge('Bearer resource_metadata="https://elsewhere.example/prm"', UP, PX)).toBeUndefined();
    expect(rewriteChallenge('Bearer realm="x"', UP, PX)).toBeUndefined();
  });

  it('rewritePrm changes only the resource string, and re-serializes only when it cannot find it as written', () => {
    const text = `{\n  "resource": "${UP}/mcp",\n  "authorization_servers": ["https://as.example"]\n}`;
    expect(rewritePrm(text, UP, PX)).toEqual({ text: text.replace(`${UP}/mcp`, `${PX}/mcp`), resource: `${UP}/mcp`, moved: `${PX}/mcp` });
    const escaped = `{"resource":"http:\\/\\/127.0.0.1:4000\\/mcp"}`;
    expect(JSON.parse(rewritePrm(escaped, UP, PX)!.text)).toEqual({ resource: `${PX}/mcp` });
    expect(rewritePrm('{"resource":"https://other.example/mcp"}', UP, PX)).toBeUndefined();
    expect(rewritePrm('[1]', UP, PX)).toBeUndefined();
    expect(rewritePrm('{oops', UP, PX)).toBeUndefined();
  });

  it('jwtAudience reads aud from a JWT bearer (string or list), and nothing else', () => {
    const jwt = (claims: unknown) => `x.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.sig`;
    expect(jwtAudience(`Bearer ${jwt({ aud: `${PX}/mcp` })}`)).toEqual([`${PX}/mcp`]);
    expect(jwtAudience(`Bearer ${jwt({ aud: ['a', 7, 'b'] })}`)).toEqual(['a', 'b']);
    expect(jwtAudience('Bearer opaque-token')).toBeUndefined();
    expect(jwtAudience(`Basic ${jwt({ aud: 'a' })}`)).toBeUndefined();
    expect(jwtAudience(undefined)).toBeUndefined();
  });
});

describe('endpointRewriter (legacy SSE)', () => {
  const stream = `: hello\n\nevent: endpoint\ndata: ${UP}/messages?sessionId=abc\n\nevent: message\ndata: {"jsonrpc":"2.0","id":1,"result":{"é":"${UP}/x"}}\n\n`;
  const expected = stream.replace(`data: ${UP}/messages`, `data: ${PX}/messages`);

  it('moves the endpoint event, at every split of the stream into two chunks, and leaves every other byte alone', async () => {
    const bytes = Buffer.from(stream, 'utf8');
    for (let cut = 0; cut <= bytes.length; cut++) {
      const notes: string[] = [];
      const out = await through(endpointRewriter(UP, PX, (_was, now) => notes.push(now)), [bytes.subarray(0, cut), bytes.subarray(cut)]);
      expect(out.toString('utf8'), `cut at ${cut}`).toBe(expected);
      expect(notes).toEqual([`${PX}/messages?sessionId=abc`]);
    }
  });

  it('a relative endpoint, CRLF lines, and a stream without an endpoint pass byte for byte', async () => {
    for (const text of ['event: endpoint\r\ndata: /messages?sessionId=1\r\n\r\n', `data: ${UP}/not-an-endpoint\n\n`, 'event: endpoint\ndata: https://other.example/m\n\n']) {
      const notes: string[] = [];
      const out = await through(endpointRewriter(UP, PX, (_w, n) => notes.push(n)), [Buffer.from(text)]);
      expect(out.toString()).toBe(text);
      expect(notes).toEqual([]);
    }
    const crlf = `event: endpoint\r\ndata: ${UP}/m?s=1\r\n\r\n`;
    expect((await through(endpointRewriter(UP, PX, () => undefined), [Buffer.from(crlf)])).toString()).toBe(crlf.replace(UP, PX));
  });
});

describe('upstreamRequestHeaders', () => {
  it('drops hop-by-hop headers, Proxy-*, those Connection names, Host, Content-Length and Accept-Encoding; keeps the rest (Authorization too)', () => {
    const headers = upstreamRequestHeaders(
      new Headers({
        host: '127.0.0.1:5000',
        connection: 'keep-alive, x-hop',
        'keep-alive': 'timeout=5',
        'x-hop': '1',
        'proxy-authorization': 'Basic eA==',
        te: 'trailers',
        'content-length': '12',
        authorization: 'Bearer abc',
        'mcp-session-id': 's1',
        'last-event-id': '7',
        'accept-encoding': 'gzip, br',
      }),
    );
    expect(Object.fromEntries(headers)).toEqual({ authorization: 'Bearer abc', 'mcp-session-id': 's1', 'last-event-id': '7' });
  });
});

describe('tracking fetch: forwardOversize', () => {
  const track = (body: string, contentType: string) => {
    const events: TraceEventInput[] = [];
    const fetch = createTrackingFetch({
      server: 's',
      endpoint: new URL(`${UP}/mcp`),
      transport: 'streamable-http',
      record: (e) => events.push(e),
      redactor: new Redactor(),
      maxMessageBytes: 1000,
      forwardOversize: true,
      // in 500-byte chunks, as a network delivers it
      base: async () => {
        const bytes = Buffer.from(body);
        const stream = new ReadableStream<Uint8Array>({
          start(controller) {
            for (let at = 0; at < bytes.length; at += 500) controller.enqueue(bytes.subarray(at, at + 500));
            controller.close();
          },
        });
        return new Response(stream, { status: 200, headers: { 'content-type': contentType } });
      },
    });
    return { fetch, events };
  };

  it('a JSON body over the limit reaches the consumer whole; the trace keeps its head, flagged', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { text: 'x'.repeat(10_000) } });
    const { fetch, events } = track(body, 'application/json');
    const response = await fetch(`${UP}/mcp`, { method: 'POST', body: '{"jsonrpc":"2.0","id":1,"method":"tools/call"}' });
    expect(await response.text()).toBe(body);
    const end = events.find((e) => e.kind === 'http-end')!;
    expect(end.http?.end).toBe('complete');
    expect(end.bytes).toBe(body.length);
    expect(end.meta?.overLimit).toEqual({ limit: 1000, received: body.length });
    expect(end.truncated).toBe(true);
    expect(String(end.body).length).toBeLessThanOrEqual(4096);
  });

  it('an SSE event over the limit is forwarded whole and skipped in the trace; the next event is observed again', async () => {
    const big = `data: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { data: 'y'.repeat(5000) } })}\n\n`;
    const after = 'id: 9\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n';
    const { fetch, events } = track(big + after, 'text/event-stream');
    const response = await fetch(`${UP}/mcp`, { method: 'POST', body: '{"jsonrpc":"2.0","id":1,"method":"tools/call"}' });
    expect(await response.text()).toBe(big + after);
    const sse = events.filter((e) => e.kind === 'sse-event');
    expect(sse[0]).toMatchObject({ truncated: true, meta: { overLimit: { limit: 1000 } } });
    expect(sse.at(-1)).toMatchObject({ sse: { id: '9' }, rpc: { kind: 'result', id: 1 } });
    expect(events.find((e) => e.kind === 'http-end')?.bytes).toBe(Buffer.byteLength(big + after));
  });
});
