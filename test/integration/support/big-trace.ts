/**
 * Writes large, valid JSONL traces for the bulk tests, streaming (a 600 MB file is never one
 * string): HTTP exchanges of three events each (request, response, end with a padded result
 * body), until the file reaches the asked size. Also returns a hash of the event lines, so an
 * export of the imported trace can be compared line for line.
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';

export interface BigTrace {
  path: string;
  bytes: number;
  events: number;
  exchanges: number;
  /** sha256 of every event line (header excluded), each with its newline. */
  eventsHash: string;
}

export const SERVER_ID = 'srv-bulk';

export function traceHeader(eventCount: number): string {
  return JSON.stringify({
    format: 'switchboard-trace',
    version: 1,
    app: { name: 'Switchboard', version: 'test' },
    startedAt: '2026-12-01T09:00:00.000Z',
    exportedAt: '2026-12-01T09:05:00.000Z',
    eventCount,
    servers: [{ id: SERVER_ID, name: 'bulk', target: { type: 'http', url: 'http://127.0.0.1:1/mcp', headers: {}, transport: 'auto' }, era: 'auto', requestTimeoutSec: 60, connectTimeoutSec: 30, retries: 3, pingIntervalSec: 30, pingMisses: 3, idleTimeoutSec: 0, disabled: false, elicitation: 'ask', sampling: 'ask', roots: [] }],
    redaction: 'on',
  });
}

/** The three events of exchange `i`, keys in the order the importer writes them back. */
export function exchangeLines(i: number, padding: string, firstSeq: number): string[] {
  const ts = 1_764_579_600_000 + i * 2.5;
  const exchange = `x${i}`;
  const url = 'http://127.0.0.1:1/mcp';
  const rpc = { id: i, method: 'tools/call', kind: 'request' };
  return [
    JSON.stringify({ seq: firstSeq, ts, server: SERVER_ID, channel: 'post-json', kind: 'http-request', dir: 'out', exchange, rpc, http: { method: 'POST', url, headers: { 'content-type': 'application/json' } }, body: { jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'echo', arguments: { n: i } } }, bytes: 90 }),
    JSON.stringify({ seq: firstSeq + 1, ts: ts + 0.5, server: SERVER_ID, channel: 'post-json', kind: 'http-response', dir: 'in', exchange, http: { method: 'POST', url, status: 200, statusText: 'OK', headers: { 'content-type': 'application/json' }, contentType: 'application/json', ttfbMs: 0.5 } }),
    JSON.stringify({ seq: firstSeq + 2, ts: ts + 1, server: SERVER_ID, channel: 'post-json', kind: 'http-end', dir: 'in', exchange, rpc: { id: i, kind: 'result' }, http: { method: 'POST', url, status: 200, end: 'complete' }, body: { jsonrpc: '2.0', id: i, result: { content: [{ type: 'text', text: padding }] } }, bytes: padding.length + 60, durationMs: 1 }),
  ];
}

/** A valid trace of about `targetBytes` (one exchange more or less), written to `path`. */
export async function writeBigTrace(path: string, targetBytes: number, paddingBytes = 2_000): Promise<BigTrace> {
  const padding = 'p'.repeat(paddingBytes);
  // Every exchange has the same length but for its numbers: measure one, then size the file.
  const sample = exchangeLines(500_000, padding, 1_500_000).join('\n').length + 1;
  const exchanges = Math.max(1, Math.round(targetBytes / sample));
  const events = exchanges * 3;
  const out = createWriteStream(path);
  const hash = createHash('sha256');
  let bytes = 0;
  const write = async (text: string) => {
    bytes += Buffer.byteLength(text);
    if (!out.write(text)) await once(out, 'drain');
  };
  await write(traceHeader(events) + '\n');
  let pending: string[] = [];
  for (let i = 0; i < exchanges; i++) {
    for (const line of exchangeLines(i, padding, i * 3 + 1)) pending.push(line + '\n');
    if (pending.length >= 600 || i === exchanges - 1) {
      const text = pending.join('');
      hash.update(text);
      pending = [];
      await write(text);
    }
  }
  out.end();
  await once(out, 'close');
  return { path, bytes, events, exchanges, eventsHash: hash.digest('hex') };
}
