/**
 * The tracking fetch hands back the real Response, observed in place (#15): whichever way the
 * consumer reads the body — json(), text(), arrayBuffer(), the body stream — it gets the server's
 * bytes unchanged and the trace records the same exchange, body included. A real HTTP server on
 * loopback and the global fetch underneath.
 */
import { getEventListeners } from 'node:events';
import { setFlagsFromString } from 'node:v8';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TraceEventInput } from '../../contract/trace';
import { Redactor } from '../../main/core/trace/redact';
import { createTrackingFetch } from '../../main/core/transport/tracking-fetch';

const ANSWER = { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'héllo — 日本語 🎉' }] } };
// Written in two chunks, cut inside a multi-byte character.
const BODY = JSON.stringify(ANSWER);

let server: Server;
let url: URL;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url === '/hang') return; // never answers
      if (req.url === '/slow') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"jsonrpc":"2.0",'); // and never ends
        return;
      }
      if (req.url === '/big') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { text: 'x'.repeat(4096) } }));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'sess-1' });
      const bytes = Buffer.from(BODY, 'utf8');
      const cut = bytes.indexOf(Buffer.from('日')) + 1;
      res.write(bytes.subarray(0, cut));
      setTimeout(() => res.end(bytes.subarray(cut)), 5);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function tracked(maxMessageBytes?: number) {
  const events: TraceEventInput[] = [];
  const fetchImpl = createTrackingFetch({ server: 's', endpoint: url, transport: 'streamable-http', record: (e) => events.push(e), redactor: new Redactor(), maxMessageBytes });
  return { events, fetchImpl };
}

const post = (fetchImpl: ReturnType<typeof tracked>['fetchImpl'], to: URL = url, signal?: AbortSignal) => {
  const headers = new Headers({ 'content-type': 'application/json', accept: 'application/json, text/event-stream' });
  return fetchImpl(to, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo' } }), signal });
};

async function ended(events: TraceEventInput[]): Promise<TraceEventInput> {
  for (let i = 0; i < 100 && !events.some((e) => e.kind === 'http-end'); i++) await new Promise((r) => setTimeout(r, 10));
  return events.find((e) => e.kind === 'http-end')!;
}

const readers: Record<string, (response: Response) => Promise<string>> = {
  json: async (r) => JSON.stringify(await r.json()),
  text: (r) => r.text(),
  arrayBuffer: async (r) => new TextDecoder().decode(await r.arrayBuffer()),
  'body stream': async (r) => {
    const reader = r.body!.getReader();
    const chunks: Uint8Array[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
    }
    return new TextDecoder().decode(Buffer.concat(chunks));
  },
};

describe('the tracking fetch, observed in place', () => {
  for (const [how, read] of Object.entries(readers)) {
    it(`read by ${how}: the consumer gets the bytes, the trace the exchange`, async () => {
      const { events, fetchImpl } = tracked();
      const response = await post(fetchImpl);
      expect(response.status).toBe(200);
      expect(response.headers.get('mcp-session-id')).toBe('sess-1');
      const got = await read(response);
      expect(got).toBe(BODY);
      const end = await ended(events);
      expect(end.http).toMatchObject({ end: 'complete', status: 200 });
      expect(end.bytes).toBe(Buffer.byteLength(BODY));
      expect(end.rpc).toMatchObject({ id: 1, kind: 'result' });
      expect(end.body).toEqual(ANSWER);
      expect(events.map((e) => e.kind)).toEqual(['http-request', 'http-response', 'session', 'http-end']);
    });
  }

  it('a body read once cannot be read again, in any form', async () => {
    const { fetchImpl } = tracked();
    const response = await post(fetchImpl);
    await response.text();
    await expect(response.json()).rejects.toThrow(TypeError);
    await expect(response.arrayBuffer()).rejects.toThrow(TypeError);
  });

  it('every observed response has the same hidden class (no per-response getter: a new V8 map per call made each one slow)', async () => {
    setFlagsFromString('--allow-natives-syntax');
    const sameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;
    const { fetchImpl } = tracked();
    const first = await post(fetchImpl);
    const second = await post(fetchImpl);
    expect(sameMap(first, second)).toBe(true);
    // Their methods still answer for their own response: this one's body, not the other's.
    const [a, b] = await Promise.all([first.text(), second.json()]);
    expect(a).toBe(BODY);
    expect(b).toEqual(ANSWER);
    // Called on something that is not an observed response, a method fails as a Response's would.
    await expect(first.formData.call({})).rejects.toThrow(TypeError);
    // The state is not enumerable: a spread or an inspection of the response shows none of it.
    expect(Object.getOwnPropertySymbols({ ...first }).map(String)).not.toContain('Symbol(switchboard.observedInPlace)');
  });

  it("the caller's long-lived signal (the SDK's, one per transport) holds one listener of ours, however many exchanges it carries", async () => {
    const { fetchImpl } = tracked();
    const transportSignal = new AbortController().signal;
    for (let i = 0; i < 50; i++) {
      const response = await post(fetchImpl, url, transportSignal);
      await response.text();
      expect(getEventListeners(transportSignal, 'abort')).toHaveLength(1);
    }
    // 20 at once, under way together: still the one.
    const responses = await Promise.all(Array.from({ length: 20 }, () => post(fetchImpl, url, transportSignal)));
    expect(getEventListeners(transportSignal, 'abort')).toHaveLength(1);
    await Promise.all(responses.map((r) => r.text()));
    expect(getEventListeners(transportSignal, 'abort')).toHaveLength(1);
  });

  it("an abort of the caller's signal still aborts the request, with the caller's reason, before and after the headers", async () => {
    const { events, fetchImpl } = tracked();
    const before = new AbortController();
    const pending = post(fetchImpl, new URL('/hang', url), before.signal);
    await new Promise((r) => setTimeout(r, 50));
    before.abort(); // as the SDK's transport does on close: an AbortError
    await expect(pending).rejects.toBe(before.signal.reason);
    expect(getEventListeners(before.signal, 'abort')).toHaveLength(0);

    const during = new AbortController();
    const response = await post(fetchImpl, new URL('/slow', url), during.signal);
    const reading = response.text();
    during.abort();
    await expect(reading).rejects.toBe(during.signal.reason);
    const ends = events.filter((e) => e.kind === 'http-end');
    expect(ends.map((e) => (e.http as { end?: string }).end)).toEqual(['client-aborted', 'client-aborted']);
    expect(getEventListeners(during.signal, 'abort')).toHaveLength(0);

    // Many exchanges under way on one signal (more than share one signal of ours, some ended
    // before): its one abort ends each of those under way.
    const shared = new AbortController();
    for (let i = 0; i < 40; i++) await (await post(fetchImpl, url, shared.signal)).text();
    const hanging = Array.from({ length: 70 }, () => post(fetchImpl, new URL('/hang', url), shared.signal));
    const streaming = await post(fetchImpl, new URL('/slow', url), shared.signal);
    const streamed = streaming.text();
    // (exchanges that end beside the ones under way, on the same signal of ours, leave them on it)
    for (let i = 0; i < 3; i++) await (await post(fetchImpl, url, shared.signal)).text();
    await new Promise((r) => setTimeout(r, 50));
    shared.abort();
    for (const pending of [...hanging, streamed]) await expect(pending).rejects.toBe(shared.signal.reason);
    expect(getEventListeners(shared.signal, 'abort')).toHaveLength(0);
  });

  it('a JSON body over the limit fails the read at once and the trace keeps what arrived, flagged', async () => {
    const { events, fetchImpl } = tracked(1024);
    const response = await post(fetchImpl, new URL('/big', url));
    await expect(response.json()).rejects.toThrow(/larger than Switchboard's limit/);
    const end = await ended(events);
    expect(end.http).toMatchObject({ end: 'error' });
    expect((end.meta as { overLimit?: { limit: number } }).overLimit?.limit).toBe(1024);
    expect(typeof end.body).toBe('string');
  });
});
