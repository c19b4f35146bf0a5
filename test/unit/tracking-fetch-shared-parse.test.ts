/**
 * A JSON answer is decoded and parsed once (#15): the SDK's `json()` and the trace's observer
 * share one parse, and the trace writes the body as the text it was parsed from. What this must
 * not change: the trace on disk is the answer as it arrived, whatever the SDK's side later does to
 * the object it was handed; a body that is not JSON, or starts with a BOM, is recorded as before;
 * a secret the redactor knows never reaches the trace; a large answer's blob is its text. The
 * stdio transport hands its parse of a line to the SDK too: the same rule. A real HTTP server on
 * loopback, the global fetch underneath and a real trace store.
 */
import { readSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../contract/trace';
import { TraceHub } from '../../main/core/trace/hub';
import { Redactor } from '../../main/core/trace/redact';
import { traceBody, wireBytesOf, wireTextOf } from '../../main/core/trace/rpc';
import { serializeEvent } from '../../main/core/trace/store';
import { StdioTrace } from '../../main/core/transport/stdio-lines';
import { createTrackingFetch } from '../../main/core/transport/tracking-fetch';

const ANSWER = { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'héllo — 日本語 🎉' }], structuredContent: { nested: { list: [1, 2, 3] } } } };
const SECRET = 'sk-live-0123456789abcdef';
/** Strings a hostile server could send to look like the serializer's stand-in for a body. */
const MARKISH = { jsonrpc: '2.0', id: 1, error: { code: -32000, message: '\u0000body 00000000-0000-0000-0000-000000000000\u0000' }, data: '"\\u0000body x\\u0000"' };
const LARGE = { jsonrpc: '2.0', id: 1, result: { content: Array.from({ length: 3000 }, (_, i) => ({ type: 'text', text: `row ${i}: the quick brown fox jumps over the lazy dog` })) } };

const BODIES: Record<string, string | Buffer> = {
  '/ok': JSON.stringify(ANSWER),
  // Pretty-printed: line breaks between tokens.
  '/pretty': JSON.stringify(ANSWER, null, 2),
  '/bom': Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(ANSWER))]),
  '/not-json': '{"jsonrpc":"2.0","id":1,"result":',
  '/secret': JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: `your key is ${SECRET}` }] } }),
  '/markish': JSON.stringify(MARKISH),
  '/large': JSON.stringify(LARGE, null, 1),
  // Escapes JSON.stringify would not write: `\/` and `\u00e9`.
  '/escaped': '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"token ab\\/cd, caf\\u00e9"}]}}',
  // Large, with a byte that is not UTF-8 inside a string (decoded as U+FFFD).
  '/large-invalid': Buffer.concat([Buffer.from(JSON.stringify(LARGE, null, 1).slice(0, -30)), Buffer.from([0xff]), Buffer.from(JSON.stringify(LARGE, null, 1).slice(-30))]),
  // A negative zero written with a fraction: JSON.parse gives -0, JSON.stringify writes it back as 0.
  '/negative-zero': '{"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"delta":-0.0}}}',
};
const ESCAPED = { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'token ab/cd, café' }] } };

let server: Server;
let base: string;
const hubs: TraceHub[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(BODIES[req.url ?? ''] ?? '{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
afterEach(() => {
  for (const hub of hubs.splice(0)) hub.close();
});

/** One exchange through the tracking fetch into a real store; the answer read with `read`. */
async function exchange<T>(path: string, read: (response: Response) => Promise<T>, redactor = new Redactor(), hub = new TraceHub(undefined)) {
  hubs.push(hub);
  const url = new URL(`${base}${path}`);
  const appended: TraceEvent[] = [];
  hub.store.subscribe((event) => appended.push(event));
  const fetchImpl = createTrackingFetch({ server: 's', endpoint: url, transport: 'streamable-http', record: hub.record, redactor, now: hub.now });
  const headers = new Headers({ 'content-type': 'application/json', accept: 'application/json, text/event-stream' });
  const response = await fetchImpl(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo' } }) });
  const result = await read(response).then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  const end = appended.find((e) => e.kind === 'http-end')!;
  expect(end, 'the exchange ended in the trace').toBeDefined();
  return { hub, result, end, seq: end.seq };
}

/** An event's payload as the blob file holds it, byte for byte (the store's own fields: no API reads raw bytes). */
function blobBytes(hub: TraceHub, seq: number): Buffer {
  const store = hub.store as unknown as { blobs: Map<number, { offset: number; length: number }>; blobFd: number };
  const blob = store.blobs.get(seq)!;
  const buffer = Buffer.alloc(blob.length);
  readSync(store.blobFd, buffer, 0, blob.length, blob.offset);
  return buffer;
}

/** The event as the store gives it back once its turn is over: read from the spill file. */
async function fromDisk(hub: TraceHub, seq: number): Promise<TraceEvent> {
  await new Promise((resolve) => setImmediate(resolve));
  hub.store.drain();
  return hub.store.get(seq)!;
}

describe('a JSON answer parsed once, for the SDK and the trace', () => {
  it('json() hands the SDK the object the trace recorded, and the trace on disk stays the answer as it arrived after the SDK changes that object', async () => {
    const { hub, result, end, seq } = await exchange('/ok', (r) => r.json() as Promise<typeof ANSWER>);
    expect(result.ok).toBe(true);
    const value = (result as { value: typeof ANSWER }).value;
    expect(value).toEqual(ANSWER);
    // One parse: the end event's body is the SDK's value itself.
    expect(end.body).toBe(value);
    expect(end.rpc).toMatchObject({ id: 1, kind: 'result' });
    // The SDK's side (or whoever it hands parts to) changes the object before the trace is written.
    value.result.content[0]!.text = 'changed by the consumer';
    value.result.structuredContent.nested.list.push(4);
    const stored = await fromDisk(hub, seq);
    expect(stored.body).toEqual(ANSWER);
  });

  it('an answer with a number the parse cannot keep (-0.0) keeps its text as `raw`, on disk too', async () => {
    const { hub, result, end, seq } = await exchange('/negative-zero', (r) => r.json());
    expect(Object.is((result as { value: { result: { structuredContent: { delta: number } } } }).value.result.structuredContent.delta, -0)).toBe(true);
    expect(end.raw).toBe(BODIES['/negative-zero']);
    expect(wireTextOf(end.body)).toBeUndefined();
    expect((await fromDisk(hub, seq)).raw).toBe(BODIES['/negative-zero']);
  });

  it('text() shares the decoded text; the trace parses it for the body as before', async () => {
    const { hub, result, seq } = await exchange('/ok', (r) => r.text());
    expect(result).toEqual({ ok: true, value: JSON.stringify(ANSWER) });
    expect((await fromDisk(hub, seq)).body).toEqual(ANSWER);
  });

  it('a pretty-printed answer is written on one line and reads back as the same value', async () => {
    const { hub, result, seq } = await exchange('/pretty', (r) => r.json());
    expect((result as { value: unknown }).value).toEqual(ANSWER);
    expect((await fromDisk(hub, seq)).body).toEqual(ANSWER);
  });

  it('a body that is not JSON fails json() with a SyntaxError and is recorded as its text', async () => {
    const { hub, result, seq } = await exchange('/not-json', (r) => r.json());
    expect(result.ok).toBe(false);
    expect((result as { error: unknown }).error).toBeInstanceOf(SyntaxError);
    const stored = await fromDisk(hub, seq);
    expect(stored.body).toBe(BODIES['/not-json']);
    expect(stored.rpc).toBeUndefined();
  });

  it('a body that starts with a BOM: the SDK gets the value (as Response.json() gives it), the trace keeps the text as it came, BOM included', async () => {
    const { hub, result, seq } = await exchange('/bom', (r) => r.json());
    expect((result as { value: unknown }).value).toEqual(ANSWER);
    const stored = await fromDisk(hub, seq);
    expect(stored.body).toBe(`\uFEFF${JSON.stringify(ANSWER)}`);
  });

  it('a secret the redactor knows never reaches the trace, though the SDK gets the answer whole', async () => {
    const redactor = new Redactor();
    redactor.addSecret(SECRET);
    const { hub, result, end, seq } = await exchange('/secret', (r) => r.json(), redactor);
    expect(JSON.stringify((result as { value: unknown }).value)).toContain(SECRET);
    // Redacted: a copy, so no text of the answer is written for it.
    expect(wireTextOf(end.body)).toBeUndefined();
    const stored = await fromDisk(hub, seq);
    expect(JSON.stringify(stored)).not.toContain(SECRET);
    expect(JSON.stringify(stored.body)).toContain('[redacted');
  });

  it('an answer that escapes what JSON.stringify would not (\\/, \\u00e9) gets a parse of its own, written as the body always was: the scrubbers see the secret as text', async () => {
    expect(BODIES['/escaped']).toContain('ab\\/cd');
    const { hub, result, end, seq } = await exchange('/escaped', (r) => r.json() as Promise<typeof ESCAPED>);
    const value = (result as { value: typeof ESCAPED }).value;
    expect(value).toEqual(ESCAPED);
    expect(end.body).toEqual(ESCAPED);
    expect(end.body).not.toBe(value);
    expect(wireTextOf(end.body)).toBeUndefined();
    value.result.content[0]!.text = 'changed by the consumer';
    const stored = await fromDisk(hub, seq);
    expect(stored.body).toEqual(ESCAPED);
    expect(serializeEvent(end)).toContain('token ab/cd, café');
  });

  it('with the disk full (the spill file at its cap), the event kept in memory holds a body of its own', async () => {
    const hub = new TraceHub(undefined, { store: { maxSpillBytes: 1 } });
    // The first write reaches the cap: from here on events stay in the window.
    hub.record({ server: 's', channel: 'lifecycle', kind: 'state', dir: 'none', text: 'before' });
    hub.store.drain();
    const { result, seq } = await exchange('/ok', (r) => r.json() as Promise<typeof ANSWER>, new Redactor(), hub);
    const value = (result as { value: typeof ANSWER }).value;
    value.result.content[0]!.text = 'changed by the consumer';
    const kept = hub.store.get(seq)!;
    expect(kept.body).not.toBe(value);
    expect(kept.body).toEqual(ANSWER);
  });

  it('strings shaped like the stand-in for a body change nothing', async () => {
    const { hub, result, seq } = await exchange('/markish', (r) => r.json());
    expect((result as { value: unknown }).value).toEqual(MARKISH);
    const stored = await fromDisk(hub, seq);
    expect(stored.body).toEqual(MARKISH);
    expect(stored.rpc).toMatchObject({ kind: 'error', errorMessage: MARKISH.error.message });
  });

  it('a large answer goes to the blob file as the text it came as, and reads back whole', async () => {
    const text = BODIES['/large'] as string;
    expect(text.length).toBeGreaterThan(256 * 1024);
    const { hub, result, end, seq } = await exchange('/large', (r) => r.json());
    expect((result as { value: unknown }).value).toEqual(LARGE);
    // The event keeps a preview: the text's head.
    expect(end.truncated).toBe(true);
    expect(end.body).toBe(text.slice(0, 256 * 1024));
    expect(hub.store.payload(seq)).toEqual(LARGE);
    const stored = await fromDisk(hub, seq);
    expect(stored.body).toBe(text.slice(0, 256 * 1024));
    // The blob was written from the bytes the answer came as, not from its text encoded again.
    expect(Buffer.from(wireBytesOf((result as { value: unknown }).value)!).equals(Buffer.from(text))).toBe(true);
    expect(blobBytes(hub, seq).equals(Buffer.from(text))).toBe(true);
  });

  it('a large answer whose bytes are not all UTF-8: the blob is its decoded text (U+FFFD in place), not the bytes', async () => {
    const { hub, result, seq } = await exchange('/large-invalid', (r) => r.text());
    const decoded = new TextDecoder().decode(BODIES['/large-invalid'] as Buffer);
    expect(decoded).toContain('\uFFFD');
    expect(result).toEqual({ ok: true, value: decoded });
    expect(hub.store.payload(seq)).toEqual(JSON.parse(decoded));
    // The blob file holds the decoded text's UTF-8 (EF BF BD where the answer had FF).
    expect(blobBytes(hub, seq).equals(Buffer.from(decoded))).toBe(true);
  });
});

describe('an event written with its body as the text it came as', () => {
  const event = (body: unknown): TraceEvent => ({ seq: 7, ts: 1, server: 's', channel: 'post-json', kind: 'http-end', dir: 'in', exchange: 'x1', body, bytes: 10, http: { end: 'complete', status: 200 } });

  it('keeps the keys in their order, on one line, with the value unchanged', () => {
    const text = JSON.stringify(ANSWER, null, 2);
    const { body } = traceBody(JSON.parse(text), text, new Redactor(), false, 'shared');
    expect(wireTextOf(body)).toBe(text);
    const e = event(body);
    const line = serializeEvent(e);
    expect(line).not.toMatch(/[\r\n]/);
    const back = JSON.parse(line) as TraceEvent;
    expect(Object.keys(back)).toEqual(Object.keys(e));
    expect(back).toEqual(e);
    // The event itself is left as it was.
    expect(e.body).toBe(body);
  });

  it('is the plain serialization for a body parsed from text that only a second parse would keep whole (lossy numbers keep `raw`)', () => {
    const text = '{"jsonrpc":"2.0","id":1,"result":{"big":123456789012345678901234567890}}';
    const kept = traceBody(JSON.parse(text), text, new Redactor(), false, 'shared');
    expect(kept.raw).toBe(text);
    expect(wireTextOf(kept.body)).toBeUndefined();
    expect(serializeEvent(event(kept.body))).toBe(JSON.stringify(event(kept.body)));
  });

  it('is not kept for a small body nobody else holds (SSE and stdio messages are serialized as before)', () => {
    const text = JSON.stringify(ANSWER);
    const { body } = traceBody(JSON.parse(text), text, new Redactor(), false);
    expect(wireTextOf(body)).toBeUndefined();
  });
});

describe('a stdio line handed to the SDK', () => {
  it('is written to the trace as the line it came as, whatever the SDK later does to the value', async () => {
    const hub = new TraceHub(undefined);
    hubs.push(hub);
    const trace = new StdioTrace((event) => hub.record({ server: 's', ...event }), new Redactor());
    const line = JSON.stringify(ANSWER);
    const seen = trace.serverLine(line, false);
    expect(seen.kind).toBe('messages');
    const value = (seen as { value: typeof ANSWER }).value;
    value.result.content[0]!.text = 'changed by the consumer';
    const stored = await fromDisk(hub, hub.store.size);
    expect(stored.kind).toBe('jsonrpc-in');
    expect(stored.body).toEqual(ANSWER);
  });
});
