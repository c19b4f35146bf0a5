/**
 * Property test of the tracking fetch's SSE path: one fixed SSE byte stream, delivered by the
 * underlying fetch in randomly chosen chunks (seeded, reproducible), must
 *   (a) reach the consumer byte for byte, and
 *   (b) produce the same sse-event / sse-comment / sse-retry trace events whatever the chunking,
 *       equal to the hand-written expectation.
 * The fake `base` fetch is the only stand-in: the unit under test is the tracking fetch itself.
 */
import { describe, expect, it } from 'vitest';
import type { TraceEventInput } from '../../contract/trace';
import { Redactor } from '../../main/core/trace/redact';
import { createTrackingFetch } from '../../main/core/transport/tracking-fetch';
import { prng } from '../support/prng';

const ENDPOINT = new URL('http://127.0.0.1:9/mcp');
const ITERATIONS = 400;
const SEED = 0x5eed_2026;

const LOG_NOTIFICATION = {
  jsonrpc: '2.0',
  method: 'notifications/message',
  params: { level: 'info', data: 'héllo wörld — 日本語 🎉 ü' },
};

/** Mixed line endings on purpose: LF, CRLF and bare CR are all line terminators in SSE. */
const STREAM_TEXT = [
  ': keep-alive\n',
  '\n',
  // the priming event: id + retry + empty data
  'id: prime-1\r\n',
  'retry: 1500\r\n',
  'data: \r\n',
  '\r\n',
  'event: message\n',
  'id: 2\n',
  `data: ${JSON.stringify(LOG_NOTIFICATION)}\n`,
  '\n',
  ':ünïcödé comment 💬\r\n',
  // bare CR line endings, multi-line text data
  'event: custom\r',
  'data: line one\r',
  'data: line two 🚀\r',
  '\r',
  // multi-line JSON data (joined with \n, still valid JSON)
  'id: 4\n',
  'data: {"jsonrpc":"2.0",\n',
  'data: "id":7,"result":{"text":"multi-line json €"}}\n',
  '\n',
  'retry: 250\n',
  '\n',
  // an event without an id line
  'data: no id here\r\n',
  '\r\n',
  // an id line without a value: an empty id
  'id\n',
  'data: {"jsonrpc":"2.0","id":8,"result":{}}\n',
  '\n',
  // a trailing event without its blank line is never dispatched (the stream ended mid-event)
  'data: dangling',
].join('');
const STREAM_BYTES = new TextEncoder().encode(STREAM_TEXT);

/** What the trace must hold for this stream, in order (exchange and session left out). */
const EXPECTED: TraceEventInput[] = [
  { server: 's', channel: 'post-sse', kind: 'sse-comment', dir: 'in', text: 'keep-alive', bytes: 10 },
  { server: 's', channel: 'post-sse', kind: 'sse-retry', dir: 'in', sse: { retry: 1500 }, text: 'retry: 1500 ms' },
  { server: 's', channel: 'post-sse', kind: 'sse-event', dir: 'in', sse: { id: 'prime-1', event: undefined, priming: true }, body: undefined, bytes: 0 },
  {
    server: 's',
    channel: 'post-sse',
    kind: 'sse-event',
    dir: 'in',
    sse: { id: '2', event: 'message' },
    rpc: { id: undefined, method: 'notifications/message', kind: 'notification' },
    body: LOG_NOTIFICATION,
    bytes: Buffer.byteLength(JSON.stringify(LOG_NOTIFICATION)),
  },
  { server: 's', channel: 'post-sse', kind: 'sse-comment', dir: 'in', text: 'ünïcödé comment 💬', bytes: 'ünïcödé comment 💬'.length },
  {
    server: 's',
    channel: 'post-sse',
    kind: 'sse-event',
    dir: 'in',
    // the id recorded is the event's own id line (none here), as the SDK sees it, not EventSource's carried-over lastEventId
    sse: { id: undefined, event: 'custom' },
    body: 'line one\nline two 🚀',
    bytes: Buffer.byteLength('line one\nline two 🚀'),
  },
  {
    server: 's',
    channel: 'post-sse',
    kind: 'sse-event',
    dir: 'in',
    sse: { id: '4', event: undefined },
    rpc: { id: 7, kind: 'result' },
    body: { jsonrpc: '2.0', id: 7, result: { text: 'multi-line json €' } },
    bytes: Buffer.byteLength('{"jsonrpc":"2.0",\n"id":7,"result":{"text":"multi-line json €"}}'),
  },
  { server: 's', channel: 'post-sse', kind: 'sse-retry', dir: 'in', sse: { retry: 250 }, text: 'retry: 250 ms' },
  { server: 's', channel: 'post-sse', kind: 'sse-event', dir: 'in', sse: { id: undefined, event: undefined }, body: 'no id here', bytes: 10 },
  {
    server: 's',
    channel: 'post-sse',
    kind: 'sse-event',
    dir: 'in',
    sse: { id: '', event: undefined },
    rpc: { id: 8, kind: 'result' },
    body: { jsonrpc: '2.0', id: 8, result: {} },
    bytes: Buffer.byteLength('{"jsonrpc":"2.0","id":8,"result":{}}'),
  },
];

/** Cut points (exclusive ends) for one iteration. Some iterations are all 1-byte chunks. */
function chunking(random: () => number, iteration: number, length: number): number[] {
  const ends: number[] = [];
  if (iteration % 10 === 0) {
    for (let i = 1; i <= length; i++) ends.push(i);
    return ends;
  }
  const maxChunk = [1, 2, 3, 5, 8, 17, 64, 300][Math.floor(random() * 8)]!;
  let at = 0;
  while (at < length) {
    at = Math.min(length, at + 1 + Math.floor(random() * maxChunk));
    ends.push(at);
  }
  return ends;
}

function chunked(bytes: Uint8Array, ends: number[]): ReadableStream<Uint8Array> {
  let index = 0;
  let start = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (index >= ends.length) {
        controller.close();
        return;
      }
      const end = ends[index++]!;
      controller.enqueue(bytes.slice(start, end));
      start = end;
    },
  });
}

async function readAll(body: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const reader = body.getReader();
  const parts: Uint8Array[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
  }
  return new Uint8Array(Buffer.concat(parts));
}

async function runOnce(ends: number[]): Promise<{ received: Uint8Array; events: TraceEventInput[] }> {
  const events: TraceEventInput[] = [];
  const tracked = createTrackingFetch({
    server: 's',
    endpoint: ENDPOINT,
    transport: 'streamable-http',
    record: (event) => events.push(event),
    redactor: new Redactor(),
    base: async () =>
      new Response(chunked(STREAM_BYTES, ends), { status: 200, headers: { 'content-type': 'text/event-stream' } }),
  });
  const response = await tracked(ENDPOINT.href, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'slow_count' } }),
  });
  const received = await readAll(response.body!);
  return { received, events };
}

const SSE_KINDS = new Set(['sse-event', 'sse-comment', 'sse-retry', 'error']);
const sseEvents = (events: TraceEventInput[]) =>
  events.filter((e) => SSE_KINDS.has(e.kind)).map(({ exchange: _exchange, session: _session, ...rest }) => rest);

function isContinuationByte(byte: number): boolean {
  return (byte & 0xc0) === 0x80;
}

describe('tracking fetch: SSE parsing under random chunking', () => {
  it('the single-chunk run matches the hand-written expectation', async () => {
    const { received, events } = await runOnce([STREAM_BYTES.length]);
    expect(Buffer.compare(Buffer.from(received), Buffer.from(STREAM_BYTES))).toBe(0);
    expect(sseEvents(events)).toEqual(EXPECTED);
    const kinds = events.map((e) => e.kind);
    expect(kinds[0]).toBe('http-request');
    expect(kinds[1]).toBe('http-response');
    expect(kinds.at(-1)).toBe('http-end');
    const end = events.at(-1)!;
    expect(end.http?.end).toBe('server-closed');
    expect(end.bytes).toBe(STREAM_BYTES.length);
    expect(end.meta).toEqual({ events: EXPECTED.filter((e) => e.kind === 'sse-event').length });
  });

  it(`${ITERATIONS} random chunkings: consumer bytes identical, trace identical`, async () => {
    const random = prng(SEED);
    let splitInsideCodepoint = 0;
    let splitInsideCrLf = 0;
    let oneByteRuns = 0;
    for (let iteration = 0; iteration < ITERATIONS; iteration++) {
      const ends = chunking(random, iteration, STREAM_BYTES.length);
      if (ends.length === STREAM_BYTES.length) oneByteRuns++;
      for (const end of ends.slice(0, -1)) {
        if (isContinuationByte(STREAM_BYTES[end]!)) splitInsideCodepoint++;
        if (STREAM_BYTES[end - 1] === 0x0d && STREAM_BYTES[end] === 0x0a) splitInsideCrLf++;
      }
      const { received, events } = await runOnce(ends);
      const context = `iteration ${iteration} (seed ${SEED}), chunk ends ${JSON.stringify(ends.slice(0, 40))}…`;
      expect(Buffer.compare(Buffer.from(received), Buffer.from(STREAM_BYTES)), context).toBe(0);
      expect(sseEvents(events), context).toEqual(EXPECTED);
      const end = events.at(-1)!;
      expect(end.kind, context).toBe('http-end');
      expect(end.bytes, context).toBe(STREAM_BYTES.length);
    }
    // the interesting boundaries were actually exercised
    expect(oneByteRuns).toBeGreaterThanOrEqual(ITERATIONS / 10);
    expect(splitInsideCodepoint).toBeGreaterThan(ITERATIONS);
    expect(splitInsideCrLf).toBeGreaterThan(ITERATIONS / 10);
  });
});
