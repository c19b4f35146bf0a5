/**
 * The spill file writes an SSE message event short (#15): its data as the text it came as, beside
 * the event's `sse` and `bytes`; server, channel, exchange, session, seq, time and the JSON-RPC
 * summary come back from the index columns and the body (store.ts, `spillLine`). What must not
 * change: every event reads back as it was recorded, from the write buffer, from the file, and
 * from the window at the spill cap; an event the short form cannot give back exactly (a redacted
 * secret, a body cut for depth, a lossy number, text that is not JSON, escapes JSON.stringify would
 * not write, an event too large for the index, an empty session) is written whole. A real HTTP
 * server on loopback streams the events, the global fetch underneath, the body read as the SDK
 * reads it, and a real trace store.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { EventSourceParserStream } from 'eventsource-parser/stream';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TraceEvent, TraceEventInput } from '../../contract/trace';
import { TraceHub } from '../../main/core/trace/hub';
import { Redactor } from '../../main/core/trace/redact';
import { TraceStore, serializeParts } from '../../main/core/trace/store';
import { createTrackingFetch } from '../../main/core/transport/tracking-fetch';

const SECRET = 'sk-live-0123456789abcdef';
const deep = (n: number): unknown => (n === 0 ? 'bottom' : { d: deep(n - 1) });
const event = (data: string, head = 'event: message\n') => `${head}${data
  .split('\n')
  .map((line) => `data: ${line}`)
  .join('\n')}\n\n`;

/** Events a server streams, and whether each is written short. */
const STREAM: { sse: string; short: boolean }[] = [
  { sse: event(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'héllo — 日本語 🎉' } })), short: true },
  { sse: event(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 't1', progress: 1, total: 2 } }), 'id: e1\nevent: message\n'), short: true },
  { sse: event(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } }), ''), short: true },
  // Pretty-printed over several data lines: line breaks between tokens.
  { sse: event(JSON.stringify({ jsonrpc: '2.0', id: 'srv-1', method: 'sampling/createMessage', params: { messages: [] } }, null, 2)), short: true },
  { sse: event(JSON.stringify([{ jsonrpc: '2.0', id: 3, result: {} }, { jsonrpc: '2.0', method: 'notifications/initialized' }])), short: true },
  { sse: event(JSON.stringify({ not: 'json-rpc', n: [1, 2.5, -3e-7, null, true] })), short: true },
  { sse: event(JSON.stringify({ jsonrpc: '2.0', id: 4, error: { code: -32000, message: 'no' } })), short: true },
  // Written whole: a secret the redactor removes, a body cut for depth, a lossy number, text, escapes.
  { sse: event(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { data: `key ${SECRET}` } })), short: false },
  { sse: event(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { data: deep(200) } })), short: false },
  { sse: event('{"jsonrpc":"2.0","method":"notifications/message","params":{"data":123456789012345678901234567890}}'), short: false },
  { sse: event('this is not JSON'), short: false },
  { sse: event('{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"a\\/b caf\\u00e9"}}'), short: false },
  // The secret written with escapes: not literally in the text, still found (the body is walked) and redacted.
  { sse: event(`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"\\u0073${SECRET.slice(1)}"}}`), short: false },
  // The stream's priming event (an id, no data), a retry and a comment: events of other shapes.
  { sse: 'id: prime-1\ndata:\n\n', short: false },
  { sse: 'retry: 1500\n\n', short: false },
  { sse: ': keep-alive\n\n', short: false },
  { sse: event(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'done' }] } }), 'id: s1\nevent: message\n'), short: true },
];

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const headers: Record<string, string> = { 'content-type': 'text/event-stream' };
      if (req.url === '/session') headers['mcp-session-id'] = 'session-1';
      res.writeHead(200, headers);
      // Chunks cut mid-event as well as between events.
      const whole = STREAM.map((s) => s.sse).join('');
      for (let at = 0; at < whole.length; at += 97) res.write(whole.slice(at, at + 97));
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** One POST answered with the stream, through the tracking fetch into `hub`, read as the SDK reads it; the events as recorded (serialized when appended). */
async function exchange(hub: TraceHub, path: string): Promise<Map<number, string>> {
  const recorded = new Map<number, string>();
  const unsubscribe = hub.store.subscribe((e) => recorded.set(e.seq, JSON.stringify(e)));
  const redactor = new Redactor();
  redactor.addSecret(SECRET);
  const url = new URL(`${base}${path}`);
  const fetchImpl = createTrackingFetch({ server: 'field', endpoint: url, transport: 'streamable-http', record: hub.record, redactor, now: hub.now });
  const response = await fetchImpl(url, { method: 'POST', headers: new Headers({ 'content-type': 'application/json', accept: 'application/json, text/event-stream' }), body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x' } }) });
  const reader = response.body!.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
  while (!(await reader.read()).done) {
    // read to the end, as the SDK does
  }
  // the exchange's end is recorded when the stream closes
  await new Promise((resolve) => setTimeout(resolve, 20));
  unsubscribe();
  return recorded;
}

/** Each event read back from the store, as JSON, against what was recorded (the channel as the store resolves it for the exchange). */
function readBack(store: TraceStore, recorded: Map<number, string>): void {
  for (const [seq, text] of recorded) {
    const back = store.get(seq)!;
    expect(JSON.stringify(back), `event #${seq}`).toBe(JSON.stringify({ ...(JSON.parse(text) as TraceEvent), channel: back.channel }));
  }
}

function spillLines(store: TraceStore): string[] {
  const dir = (store as unknown as { dir: string }).dir;
  const file = readdirSync(dir).find((name) => name.startsWith('trace-'))!;
  return readFileSync(join(dir, file), 'utf8').split('\n').filter(Boolean);
}

describe('SSE message events in the spill file', () => {
  for (const path of ['/session', '/no-session']) {
    it(`read back as recorded, from the write buffer and from the file (${path})`, async () => {
      const hub = new TraceHub(undefined);
      try {
        const recorded = await exchange(hub, path);
        const kinds = [...recorded.values()].map((text) => (JSON.parse(text) as TraceEvent).kind);
        expect(kinds.filter((k) => k === 'sse-event')).toHaveLength(STREAM.filter((s) => s.sse.includes('data:')).length);
        expect(kinds).toContain('sse-retry');
        expect(kinds).toContain('sse-comment');
        // Still in the 1 MiB write buffer: read from it.
        readBack(hub.store, recorded);
        hub.store.drain();
        (hub.store as unknown as { flushSpill(): void }).flushSpill();
        // From the file.
        readBack(hub.store, recorded);
        // Each event that could be written short was, and no other.
        const lines = spillLines(hub.store);
        expect(lines).toHaveLength(recorded.size);
        expect(lines.filter((line) => line.startsWith('[')).length).toBe(STREAM.filter((s) => s.short).length);
        for (const line of lines.filter((l) => l.startsWith('['))) {
          expect(line).not.toMatch(/"server"|"session"|"seq"|"ts"|"rpc"/);
          expect(line).not.toContain(SECRET);
        }
        // The secret is in no line at all, and the redacted event's body says so.
        expect(lines.join('\n')).not.toContain(SECRET);
      } finally {
        hub.close();
      }
    });
  }

  it('read back as recorded from the window, when the spill cap stops the buffer from being written', async () => {
    const hub = new TraceHub(undefined, { store: { windowSize: 1_000, maxSpillBytes: 1_000 } });
    try {
      const recorded = await exchange(hub, '/session');
      // Writing the buffer out meets the cap: its events go back into the window, parsed from their lines.
      hub.store.drain();
      (hub.store as unknown as { flushSpill(): void }).flushSpill();
      expect(hub.store.get(1)?.text ?? '').not.toMatch(/event not available/);
      readBack(hub.store, recorded);
    } finally {
      hub.close();
    }
  });

  it('an event whose index fields would not come back as they are is written whole', () => {
    const store = new TraceStore();
    try {
      const body = { jsonrpc: '2.0', method: 'notifications/message', params: { data: 'x' } };
      const text = JSON.stringify(body);
      const sse = (fields: Partial<TraceEventInput>): TraceEventInput => ({ server: 's', channel: 'get', kind: 'sse-event', dir: 'in', exchange: 'x1', session: 'a', sse: { event: 'message' }, rpc: { method: 'notifications/message', kind: 'notification' }, body, bytes: text.length, ...fields });
      const inputs: TraceEventInput[] = [
        sse({}),
        // '' and absent are one id in the columns
        sse({ session: '' }),
        sse({ exchange: '' }),
        // a time given by the producer comes before the body among the keys
        { ts: 1_700_000_000_000.5, ...sse({}) },
        // a key the short form does not carry
        { ...sse({}), meta: { note: 1 } },
        sse({ channel: 'no-such-channel' as TraceEventInput['channel'] }),
        sse({ dir: 'out' }),
      ];
      const recorded = inputs.map((input) => JSON.stringify(store.append({ ...input, body: structuredClone(body) }, text)));
      store.drain();
      (store as unknown as { flushSpill(): void }).flushSpill();
      const lines = spillLines(store);
      expect(lines.map((line) => line[0])).toEqual(['[', '{', '{', '{', '{', '{', '{']);
      recorded.forEach((text, i) => {
        const back = store.get(i + 1)!;
        expect(JSON.stringify(back)).toBe(JSON.stringify({ ...(JSON.parse(text) as TraceEvent), channel: back.channel }));
      });
      expect(store.get(2)?.session).toBe('');
      expect(store.get(3)?.exchange).toBe('');
    } finally {
      store.close();
    }
  });
});

describe("an SSE message event's line, written field by field", () => {
  // What JSON.stringify makes of the event with the text's value as its body: the line must be
  // exactly that (`serializeParts`), whatever the fields hold.
  const cases: TraceEvent[] = [
    { server: 'plain', channel: 'post-sse', kind: 'sse-event', dir: 'in', exchange: 'x1', session: 's1', sse: { id: '7', event: 'message' }, rpc: { kind: 'result', id: 3 }, body: { jsonrpc: '2.0', id: 3, result: {} }, bytes: 40, seq: 12, ts: 1733480000123.25 },
    { server: 'quote " back \\ and é 日本 \u2028', channel: 'get', kind: 'sse-event', dir: 'in', exchange: undefined, session: undefined, sse: { id: undefined, event: undefined }, body: { jsonrpc: '2.0', method: 'notifications/message', params: { data: 'x\ny' } }, bytes: 0, seq: 1, ts: 0.5 },
    { server: 'b', channel: 'legacy-sse', kind: 'sse-event', dir: 'in', exchange: 'x2', session: 's"2', sse: { id: '9', priming: true }, batch: [{ kind: 'notification', method: 'a' }, { kind: 'request', id: 'r', method: 'b' }], body: [{ jsonrpc: '2.0', method: 'a' }, { jsonrpc: '2.0', id: 'r', method: 'b' }], bytes: 77, seq: 99, ts: Number.MAX_SAFE_INTEGER },
    { server: 'c', channel: 'post-sse', kind: 'sse-event', dir: 'in', exchange: 'x3', session: 's3', sse: {}, body: 'not json', bytes: NaN, seq: 5, ts: -1 },
  ] as unknown as TraceEvent[];
  it.each(cases.map((event, i) => [i, event] as const))('case %i: the line is the event as JSON.stringify writes it', (_i, event) => {
    const text = JSON.stringify(event.body);
    const line = serializeParts(event, text);
    expect(Array.isArray(line)).toBe(true);
    expect((line as readonly string[]).join('')).toBe(JSON.stringify(event));
  });
  it('an event with other keys, or not an incoming sse-event, is serialized around a stand-in as before (same line)', () => {
    const base = cases[0]!;
    for (const event of [{ ...base, meta: { x: 1 } }, { ...base, dir: 'out' }, { ...base, kind: 'http-end' }] as TraceEvent[]) {
      const line = serializeParts(event, JSON.stringify(event.body));
      expect(typeof line === 'string' ? line : line.join('')).toBe(JSON.stringify(event));
    }
  });
});

describe("an SSE message event's line, field by field: generated values", () => {
  it('whatever its sse and summary objects and strings hold, the line is exactly the event as JSON.stringify writes it', () => {
    const scalar = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.double(), fc.integer(), fc.boolean(), fc.constant(undefined), fc.constant(-0));
    const flat = fc.dictionary(fc.oneof(fc.string(), fc.constantFrom('0', '10', '2', '__proto__x', 'a"b')), scalar, { maxKeys: 5 });
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), fc.option(fc.string(), { nil: undefined }), flat, flat, fc.double(), fc.nat(), (server, exchange, session, sse, rpc, ts, seq) => {
        const body = { jsonrpc: '2.0', method: 'notifications/message', params: { data: server } };
        const event = { server, channel: 'post-sse', kind: 'sse-event', dir: 'in', exchange, session, sse, rpc, body, bytes: seq, seq, ts } as unknown as TraceEvent;
        const line = serializeParts(event, JSON.stringify(body));
        expect(typeof line === 'string' ? line : line.join('')).toBe(JSON.stringify(event));
      }),
      { numRuns: 2_000 },
    );
  });
});
