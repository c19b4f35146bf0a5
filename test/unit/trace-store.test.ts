import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { RecordingWriter } from '../../main/core/recordings/writer';
import { TraceStore } from '../../main/core/trace/store';
import type { TraceEventInput } from '../../contract/trace';

const rpcOut = (i: number, server = 'a'): TraceEventInput => ({
  server,
  channel: 'stdio',
  kind: 'jsonrpc-out',
  dir: 'out',
  rpc: { id: i, method: i % 2 ? 'tools/call' : 'tools/list', kind: 'request' },
  body: { jsonrpc: '2.0', id: i, method: 'tools/call', params: { marker: `m${i}` } },
  bytes: 60,
});

describe('TraceStore', () => {
  it('numbers 100,000 events without gaps while spilling to disk, and reads every one back', () => {
    const store = new TraceStore({ windowSize: 1_000 });
    try {
      for (let i = 0; i < 100_000; i++) store.append(rpcOut(i, i % 3 ? 'a' : 'b'));
      expect(store.size).toBe(100_000);
      let expected = 1;
      let lastTs = 0;
      for (const event of store.all()) {
        expect(event.seq).toBe(expected++);
        // A stub keeps seq and ts: the body says the event itself came back.
        expect(event.body).toEqual(rpcOut(event.seq - 1).body);
        expect(event.ts).toBeGreaterThanOrEqual(lastTs);
        lastTs = event.ts;
      }
      expect(expected - 1).toBe(100_000);
      // written out (old) and still buffered (new) events both come back whole
      expect(store.get(5)!.body).toEqual(rpcOut(4, 'a').body);
      expect(store.get(99_999)!.rpc!.id).toBe(99_998);
    } finally {
      store.close();
    }
  });

  it('writes every event through: no event object outlives its turn, and each reads back whole from the buffer, then the file', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const store = new TraceStore();
    const spillBytes = () => {
      const dir = (store as unknown as { dir: string }).dir;
      return readdirSync(dir)
        .filter((f) => f.startsWith('trace-'))
        .reduce((n, f) => n + statSync(join(dir, f)).size, 0);
    };
    try {
      const refs: WeakRef<object>[] = [];
      for (let i = 0; i < 500; i++) refs.push(new WeakRef(store.append(rpcOut(i))));
      // Within the turn the objects still waiting answer themselves (the first 256 were serialized on the way).
      expect(store.get(500)).toBe(refs[499]!.deref());
      await new Promise((done) => setImmediate(done));
      await new Promise((done) => setTimeout(done, 0));
      gc();
      expect(refs.filter((r) => r.deref() !== undefined)).toHaveLength(0);
      // Serialized into the write buffer, not yet on disk; read back from the buffer.
      expect(spillBytes()).toBe(0);
      expect(store.get(1)).toMatchObject({ seq: 1, body: rpcOut(0).body, rpc: rpcOut(0).rpc });
      expect(store.get(500)).toMatchObject({ seq: 500, body: rpcOut(499).body });
      expect(spillBytes()).toBe(0);
      // drain() writes the buffer out; the same events then come from the file.
      store.drain();
      expect(spillBytes()).toBeGreaterThan(500 * 100);
      expect(store.get(250)).toMatchObject({ seq: 250, body: rpcOut(249).body });
      expect(store.query({ methods: ['tools/list'], limit: 1_000 }).events).toHaveLength(250);
      // Past the first megabyte: the buffer holds lines at offsets after what the file has.
      for (let i = 500; i < 12_000; i++) store.append(rpcOut(i));
      await new Promise((done) => setImmediate(done));
      const written = spillBytes();
      expect(written).toBeGreaterThan(1024 * 1024);
      expect(store.get(12_000)).toMatchObject({ seq: 12_000, body: rpcOut(11_999).body });
      expect(store.get(11_500)).toMatchObject({ seq: 11_500, body: rpcOut(11_499).body });
      expect(spillBytes()).toBe(written);
      expect(store.get(600)).toMatchObject({ seq: 600, body: rpcOut(599).body });
    } finally {
      store.close();
    }
  });

  it('durable mode: an event with raw text (a number JSON.parse cannot keep) reads back with it, though the recording stores that text as the body', () => {
    const dir = mkdtempSync(join(tmpdir(), 'switchboard-raw-'));
    const store = new TraceStore({ sink: new RecordingWriter(join(dir, 'r'), { app: { name: 'Switchboard', version: 't' }, startedAt: Date.now(), servers: [], timers: false }) });
    try {
      const raw = '{"jsonrpc":"2.0","id":1,"result":{"n":1e400}}';
      store.append({ server: 'a', channel: 'stdio', kind: 'jsonrpc-in', dir: 'in', body: JSON.parse(raw) as unknown, raw, bytes: raw.length });
      for (let i = 0; i < 10; i++) store.append(rpcOut(i));
      store.drain();
      expect(store.get(1)).toMatchObject({ raw, body: { result: { n: Infinity } } });
      expect(store.get(11)).toMatchObject({ body: rpcOut(9).body });
    } finally {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('filters by server, kind, method, time, text and pages in both directions', () => {
    const store = new TraceStore({ windowSize: 50 });
    try {
      for (let i = 0; i < 500; i++) store.append(rpcOut(i, i % 2 ? 'a' : 'b'));
      store.append({ server: 'a', channel: 'stdio', kind: 'stderr', dir: 'in', text: 'Something BROKE here' });
      const page1 = store.query({ servers: ['a'], methods: ['tools/call'], limit: 100 });
      expect(page1.events).toHaveLength(100);
      expect(page1.events.every((e) => e.server === 'a' && e.rpc?.method === 'tools/call')).toBe(true);
      const page2 = store.query({ servers: ['a'], methods: ['tools/call'], limit: 1000, cursor: page1.nextCursor });
      expect(page1.events.length + page2.events.length).toBe(250);
      expect(page2.nextCursor).toBeUndefined();
      expect(page2.events[0]!.seq).toBeGreaterThan(page1.events.at(-1)!.seq);

      const text = store.query({ text: 'broke' });
      expect(text.events.map((e) => e.kind)).toEqual(['stderr']);
      const spilledText = store.query({ text: '"m3"' });
      expect(spilledText.events.map((e) => e.seq)).toEqual([4]);

      const desc = store.query({ order: 'desc', limit: 3 });
      expect(desc.events.map((e) => e.seq)).toEqual([501, 500, 499]);
      const desc2 = store.query({ order: 'desc', limit: 3, cursor: desc.nextCursor });
      expect(desc2.events.map((e) => e.seq)).toEqual([498, 497, 496]);

      const t = store.get(100)!.ts;
      expect(store.query({ fromTs: t, toTs: t }).events.map((e) => e.seq)).toContain(100);
      expect(store.query({ servers: ['nobody'] }).events).toEqual([]);
    } finally {
      store.close();
    }
  });

  it('resolves a POST exchange to the channel its response chose', () => {
    const store = new TraceStore();
    try {
      store.append({ server: 'a', channel: 'post-json', kind: 'http-request', dir: 'out', exchange: 'x1' });
      store.append({ server: 'a', channel: 'post-sse', kind: 'http-response', dir: 'in', exchange: 'x1', http: { status: 200 } });
      store.append({ server: 'a', channel: 'post-sse', kind: 'sse-event', dir: 'in', exchange: 'x1' });
      expect(store.get(1)!.channel).toBe('post-sse');
      expect(store.query({ channels: ['post-sse'] }).events).toHaveLength(3);
      expect(store.query({ channels: ['post-json'] }).events).toHaveLength(0);
    } finally {
      store.close();
    }
  });

  it('spills text of every width and lines larger than its write buffer, and reads each back as it was', () => {
    const store = new TraceStore({ windowSize: 4 });
    try {
      // Multi-byte characters (2, 3 and 4 bytes of UTF-8), a lone surrogate (JSON.stringify escapes it), and texts of 400,000
      // characters: up to 1.2 MB of UTF-8 a line, past the 1 MiB buffer the spill writes through.
      const texts = ['plain', 'é'.repeat(1000), '€ and 日本', '😀'.repeat(500), 'lone \ud800 surrogate', 'a'.repeat(400_000), '€'.repeat(400_000), 'after the big ones'];
      for (let round = 0; round < 3; round++) for (const text of texts) store.append({ server: 'a', channel: 'stdio', kind: 'stderr', dir: 'in', text });
      // 24 events, 20 of them out of the 4-event window: read back from the spill file
      for (let seq = 1; seq <= store.size; seq++) expect(store.get(seq)!.text).toBe(texts[(seq - 1) % texts.length]);
      expect(store.query({ text: 'after the big' }).events.map((e) => e.seq)).toEqual([8, 16, 24]);
    } finally {
      store.close();
    }
  });

  it('keeps large payloads whole on disk and previews them', () => {
    const store = new TraceStore({ previewBytes: 1024 });
    try {
      const big = 'x'.repeat(10_000);
      const event = store.append({ server: 'a', channel: 'post-json', kind: 'http-response', dir: 'in', body: { big }, bytes: 10_020 });
      expect(event.truncated).toBe(true);
      expect(String(store.get(1)!.body).length).toBeLessThanOrEqual(1024);
      expect(store.payload(1)).toEqual({ big });
    } finally {
      store.close();
    }
  });

  it('flags errors: JSON-RPC errors, HTTP >= 400 (but not 405), stream errors', () => {
    const store = new TraceStore();
    try {
      store.append({ server: 'a', channel: 'post-json', kind: 'http-response', dir: 'in', http: { status: 500 } });
      store.append({ server: 'a', channel: 'get', kind: 'http-response', dir: 'in', http: { status: 405 } });
      store.append({ server: 'a', channel: 'stdio', kind: 'jsonrpc-in', dir: 'in', rpc: { id: 1, kind: 'error', errorCode: -32601 } });
      store.append({ server: 'a', channel: 'stdio', kind: 'jsonrpc-in', dir: 'in', rpc: { id: 2, kind: 'result' } });
      expect(store.query({ errorsOnly: true }).events.map((e) => e.seq)).toEqual([1, 3]);
      expect(store.query({ statusClass: [4] }).events.map((e) => e.seq)).toEqual([2]);
    } finally {
      store.close();
    }
  });
});
