/**
 * The live recording's event lines as the writer encodes them: a body written as the text it came
 * as (the tracking fetch's SSE events hand the text over with the event), a line longer than a
 * write batch between short ones, and the redaction net over a line written in parts.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FetchLike } from '@modelcontextprotocol/client';
import type { TraceEvent } from '../../contract/trace';
import { EVENTS_FILE } from '../../main/core/recordings/format';
import { RecordingLibrary } from '../../main/core/recordings/library';
import { WRITE_BATCH_BYTES } from '../../main/core/recordings/writer';
import { importJsonl } from '../../main/core/trace/import-jsonl';
import { scrubber } from '../../main/core/trace/export-jsonl';
import { TraceHub } from '../../main/core/trace/hub';
import { Redactor } from '../../main/core/trace/redact';
import { createTrackingFetch } from '../../main/core/transport/tracking-fetch';

const URL_ = 'http://127.0.0.1:9/mcp';
const SECRET = 'sk-live-fedcba9876543210';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'sb-rec-lines-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function session(redactor = new Redactor()) {
  const library = new RecordingLibrary({ dir: root, retentionIntervalMs: 0 });
  const live = library.startLive({ kind: 'app', app: { name: 'Switchboard', version: 'test' }, servers: () => [], redact: () => scrubber([redactor]) });
  const hub = new TraceHub(undefined, { store: { ...live.storeOptions, windowSize: 10 } });
  const lines = () => readFileSync(join(root, live.id, EVENTS_FILE), 'utf8').split('\n').slice(1, -1);
  return { library, live, hub, lines };
}

/** A base fetch answering every POST with an SSE stream: a notification and the answer, their JSON spaced as some servers write it. */
const spacedSse: FetchLike = async (_url, init) => {
  const { id } = JSON.parse(String(init?.body)) as { id: number };
  const note = '{"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "héllo"}}';
  const answer = `{"result": {"content": [{"type": "text", "text": "echo"}]}, "jsonrpc": "2.0", "id": ${id}}`;
  return new Response(`event: message\ndata: ${note}\n\nevent: message\ndata: ${answer}\n\n`, { status: 200, headers: { 'content-type': 'text/event-stream' } });
};

async function call(fetchImpl: FetchLike, id: number): Promise<void> {
  const response = await fetchImpl(URL_, { method: 'POST', headers: new Headers({ 'content-type': 'application/json' }), body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: {} } }) });
  await response.text();
}

describe('the live recording writes each event line once, encoded where it is written from', () => {
  it('an SSE event whose text came with it is written with that text as its body, and reads back as the same event', async () => {
    const { library, live, hub, lines } = session();
    const fetchImpl = createTrackingFetch({ server: 's', endpoint: new URL(URL_), transport: 'streamable-http', record: hub.record, redactor: new Redactor(), now: hub.now, base: spacedSse });
    for (let id = 1; id <= 3; id++) await call(fetchImpl, id);
    const before = [...hub.store.all()];
    hub.close();
    live.close();

    const sse = lines().filter((line) => line.includes('"kind":"sse-event"'));
    expect(sse).toHaveLength(6);
    // The server's own spacing, key order and non-ASCII text: the text itself, not the body serialized again.
    expect(sse[0]).toContain('"body":{"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "héllo"}}');
    expect(sse[5]).toContain('"body":{"result": {"content": [{"type": "text", "text": "echo"}]}, "jsonrpc": "2.0", "id": 3}');

    const opened = await library.open(live.id);
    try {
      const after = [...opened.hub.store.all()];
      expect(after).toHaveLength(before.length);
      for (let i = 0; i < before.length; i++) expect(after[i]).toEqual(JSON.parse(JSON.stringify(before[i])) as TraceEvent);
    } finally {
      opened.hub.close();
    }
    const summary = await importJsonl([readFileSync(join(root, live.id, EVENTS_FILE))], { name: 'events.jsonl' });
    expect(summary.problems).toEqual([]);
    expect(summary.events).toBe(before.length);
  });

  it('a line longer than a write batch, between short ones: every line whole, at the offset the index gives', async () => {
    const { library, live, hub, lines } = session();
    const long = `x${'日'.repeat(WRITE_BATCH_BYTES / 2)}`; // 1.5 batches of UTF-8
    for (let i = 0; i < 2_000; i++) {
      hub.record({ server: 's', channel: 'stdio', kind: 'jsonrpc-in', dir: 'in', body: { jsonrpc: '2.0', method: 'notifications/message', params: { i } }, bytes: 60 });
      if (i === 700 || i === 701 || i === 1_500) hub.record({ server: 's', channel: 'stdio', kind: 'stderr', dir: 'in', text: `${i} ${long}` });
    }
    hub.close();
    live.close();
    expect(lines()).toHaveLength(2_003);
    const opened = await library.open(live.id);
    try {
      const store = opened.hub.store;
      expect(store.size).toBe(2_003);
      // (compared as booleans: a failure prints no megabyte of text)
      const textIs = (seq: number, text: string) => store.get(seq)!.text === text;
      expect(textIs(702, `700 ${long}`)).toBe(true);
      expect(store.get(703)!.body).toEqual({ jsonrpc: '2.0', method: 'notifications/message', params: { i: 701 } });
      expect(textIs(704, `701 ${long}`)).toBe(true);
      expect(textIs(1_504, `1500 ${long}`)).toBe(true);
      expect(store.get(1_505)!.body).toEqual({ jsonrpc: '2.0', method: 'notifications/message', params: { i: 1_501 } });
      expect(store.get(2_003)!.body).toEqual({ jsonrpc: '2.0', method: 'notifications/message', params: { i: 1_999 } });
    } finally {
      opened.hub.close();
    }
  });

  it('the redaction net sees a line written in parts whole: a secret beside a body passed as text never reaches disk', () => {
    const redactor = new Redactor();
    redactor.addSecret(SECRET);
    const { hub, live, lines } = session(redactor);
    const text = '{"jsonrpc": "2.0", "method": "notifications/message", "params": {"data": "plain"}}';
    hub.record({ server: 's', channel: 'post-sse', kind: 'sse-event', dir: 'in', text: `sent with ${SECRET}`, body: JSON.parse(text) as unknown, bytes: text.length }, text);
    hub.close();
    live.close();
    const [line] = lines();
    expect(line).not.toContain(SECRET);
    expect(line).toContain('sent with [redacted]');
    expect(line).toContain(`"body":${text}`);
  });
});
