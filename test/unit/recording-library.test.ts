import { appendFileSync, closeSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync, statSync, truncateSync, utimesSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ServerConfig } from '../../contract';
import type { TraceEventInput } from '../../contract/trace';
import { EVENTS_FILE, INDEX_FILE, INDEX_RECORD, readMeta, writeMeta } from '../../main/core/recordings/format';
import { RecordingLibrary, type LiveRecordingStart } from '../../main/core/recordings/library';
import { importJsonl } from '../../main/core/trace/import-jsonl';
import { TraceHub } from '../../main/core/trace/hub';
import { Redactor } from '../../main/core/trace/redact';
import { boundDepth } from '../../contract/bounded-json';
import { scrubber } from '../../main/core/trace/export-jsonl';

const SECRET = 'sk-live-0123456789abcdef';

const config = (id: string): ServerConfig =>
  ({
    id,
    name: `server ${id}`,
    era: 'modern',
    target: { type: 'http', url: 'http://127.0.0.1:1/mcp', headers: { Authorization: `Bearer ${SECRET}` } },
    requestTimeoutSec: 30,
    connectTimeoutSec: 10,
    retries: 3,
    pingIntervalSec: 0,
    pingMisses: 3,
    idleTimeoutSec: 0,
    disabled: false,
    elicitation: 'ask',
    sampling: 'ask',
    roots: [],
    connectAtStart: true,
    apps: true,
  }) as unknown as ServerConfig;

const rpc = (i: number, server = 'a', extra: Partial<TraceEventInput> = {}): TraceEventInput => ({
  server,
  channel: 'stdio',
  kind: i % 2 ? 'jsonrpc-in' : 'jsonrpc-out',
  dir: i % 2 ? 'in' : 'out',
  rpc: { id: i >> 1, method: i % 4 < 2 ? 'tools/call' : 'tools/list', kind: i % 2 ? 'result' : 'request' },
  body: { jsonrpc: '2.0', id: i >> 1, params: { marker: `m${i}` } },
  bytes: 60,
  ...extra,
});

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'sb-rec-lib-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function startSession(library: RecordingLibrary, redactor = new Redactor()): { hub: TraceHub; live: ReturnType<RecordingLibrary['startLive']> } {
  const start: LiveRecordingStart = { kind: 'app', app: { name: 'Switchboard', version: 'test' }, servers: () => [config('a')], redact: () => scrubber([redactor]) };
  const live = library.startLive(start);
  const hub = new TraceHub(undefined, { store: { ...live.storeOptions, windowSize: 100 } });
  return { hub, live };
}

describe('RecordingLibrary', () => {
  it('writes a live session as it happens, lists it live, then reopens it after a clean close with every event', async () => {
    const library = new RecordingLibrary({ dir: root });
    const { hub, live } = startSession(library);
    for (let i = 0; i < 5_000; i++) hub.record(rpc(i, i % 3 ? 'a' : 'b'));
    hub.record({ server: 'a', channel: 'stdio', kind: 'stderr', dir: 'in', text: 'Something BROKE here' });
    live.flush();
    const during = library.list();
    expect(during).toHaveLength(1);
    expect(during[0]).toMatchObject({ id: live.id, live: true, ended: 'recording', events: 5_001 });
    hub.close();
    live.close();
    const after = library.get(live.id)!;
    expect(after).toMatchObject({ live: false, ended: 'clean', events: 5_001, kind: 'app' });
    expect(after.bytes).toBeGreaterThan(5_000 * 60);

    const opened = await library.open(live.id);
    try {
      const store = opened.hub.store;
      expect(store.size).toBe(5_001);
      const all = [...store.all()];
      expect(all.map((e) => e.seq)).toEqual(Array.from({ length: 5_001 }, (_, i) => i + 1));
      expect(store.get(10)!.body).toEqual(rpc(9).body);
      const page = store.query({ servers: ['b'], methods: ['tools/list'], limit: 50 });
      expect(page.events.every((e) => e.server === 'b' && e.rpc?.method === 'tools/list')).toBe(true);
      expect(page.events).toHaveLength(50);
      expect(store.query({ text: 'broke' }).events.map((e) => e.seq)).toEqual([5_001]);
      expect(store.query({ order: 'desc', limit: 2 }).events.map((e) => e.seq)).toEqual([5_001, 5_000]);
      expect(() => store.append(rpc(1))).toThrow(/read-only/);
      // The recording's events file is a JSONL trace any reader takes.
      const summary = await importJsonl([readFileSync(join(library.dir, live.id, EVENTS_FILE))], { name: 'events.jsonl' });
      expect(summary.events).toBe(5_001);
      expect(summary.problems).toEqual([]);
    } finally {
      opened.hub.close();
    }
  });

  it('keeps large payloads whole in its blob file and answers them from a reopened recording', async () => {
    const library = new RecordingLibrary({ dir: root });
    const start: LiveRecordingStart = { kind: 'app', app: { name: 'Switchboard', version: 'test' }, servers: () => [], redact: () => (t) => t };
    const live = library.startLive(start);
    const hub = new TraceHub(undefined, { store: { ...live.storeOptions, windowSize: 10, previewBytes: 1024 } });
    const big = { text: 'x'.repeat(50_000) };
    hub.record(rpc(0, 'a', { body: big, bytes: 50_010 }));
    for (let i = 1; i < 50; i++) hub.record(rpc(i));
    expect(hub.store.payload(1)).toEqual(big);
    hub.close();
    live.close();
    const opened = await library.open(live.id);
    try {
      const first = opened.hub.store.get(1)!;
      expect(first.truncated).toBe(true);
      expect(JSON.stringify(first).length).toBeLessThan(5_000);
      expect(opened.hub.store.payload(1)).toEqual(big);
    } finally {
      opened.hub.close();
    }
  });

  it('writes no secret to disk: header configs and every line pass the redaction net', () => {
    const library = new RecordingLibrary({ dir: root });
    const redactor = new Redactor();
    redactor.addSecret(SECRET);
    const { hub, live } = startSession(library, redactor);
    hub.record({ server: 'a', channel: 'stdio', kind: 'stderr', dir: 'in', text: `the token is ${SECRET} and more` });
    hub.record(rpc(1, 'a', { body: { auth: SECRET } }));
    hub.close();
    live.close();
    const dir = join(library.dir, live.id);
    for (const file of readdirSync(dir)) expect(readFileSync(join(dir, file)).includes(SECRET), file).toBe(false);
    expect(readFileSync(join(dir, EVENTS_FILE), 'utf8')).toContain('[redacted]');
  });

  it('repairs a recording whose process died: torn last line dropped, unindexed events indexed, marked unexpected', async () => {
    const library = new RecordingLibrary({ dir: root });
    const { hub, live } = startSession(library);
    for (let i = 0; i < 1_000; i++) hub.record(rpc(i));
    live.flush();
    // The process "dies": no close. Simulate what a kill leaves: the index behind the events, a torn line.
    const dir = join(library.dir, live.id);
    const indexBytes = statSync(join(dir, INDEX_FILE)).size;
    expect(indexBytes).toBe(1_000 * INDEX_RECORD);
    truncateSync(join(dir, INDEX_FILE), 900 * INDEX_RECORD + 17);
    appendFileSync(join(dir, EVENTS_FILE), '{"seq":1001,"ts":1,"server":"a","chan');
    const meta = readMeta(dir);
    writeMeta(dir, { ...meta, owner: { pid: 999_999_999 } });

    const again = new RecordingLibrary({ dir: root });
    const { repaired } = again.recover();
    expect(repaired).toEqual([live.id]);
    const summary = again.get(live.id)!;
    expect(summary).toMatchObject({ ended: 'unexpected', events: 1_000, live: false });
    expect(summary.notes.join(' ')).toMatch(/torn last line/);
    const opened = await again.open(live.id);
    try {
      expect(opened.hub.store.size).toBe(1_000);
      expect([...opened.hub.store.all()].map((e) => e.seq)).toEqual(Array.from({ length: 1_000 }, (_, i) => i + 1));
      expect(opened.hub.store.get(1_000)!.body).toEqual(rpc(999).body);
    } finally {
      opened.hub.close();
    }
    hub.store.close();
  });

  it('renames, tags, refuses to delete the live one, deletes a past one, imports a trace', async () => {
    const library = new RecordingLibrary({ dir: root });
    const first = startSession(library);
    first.hub.record(rpc(0));
    first.hub.close();
    first.live.close();
    const second = startSession(library);
    expect(library.update(first.live.id, { name: '  before the fix ', tags: ['bug', 'bug', 'v2'] })).toMatchObject({ name: 'before the fix', tags: ['bug', 'v2'] });
    expect(() => library.update(first.live.id, { name: '   ' })).toThrow(/1 to 200/);
    expect(() => library.delete(second.live.id)).toThrow(/cannot be deleted/);
    const text = readFileSync(join(library.dir, first.live.id, EVENTS_FILE));
    const imported = await library.import('old.jsonl', [text]);
    expect(imported.summary).toMatchObject({ kind: 'import', name: 'old.jsonl', events: 1, ended: 'clean' });
    expect(library.list().map((s) => s.id)).toContain(imported.summary.id);
    await expect(library.import('bad.jsonl', ['not a trace\n'])).rejects.toThrow(/not JSON|Nothing was imported/);
    expect(library.delete(first.live.id)).toBe(true);
    expect(library.get(first.live.id)).toBeUndefined();
    second.hub.close();
    second.live.close();
  });

  it('retention removes the oldest past recordings by size and age, never the live one', () => {
    const make = (startedAt: number, bytes: number) => {
      const library = new RecordingLibrary({ dir: root });
      const s = startSession(library);
      s.hub.close();
      s.live.close();
      const dir = join(library.dir, s.live.id);
      writeMeta(dir, { ...readMeta(dir), startedAt, endedAt: startedAt, bytes });
      return s.live.id;
    };
    const day = 86_400_000;
    const ancient = make(Date.now() - 40 * day, 1_000);
    const old = make(Date.now() - 3 * day, 80 * 1024 ** 2);
    const recent = make(Date.now() - day, 10 * 1024 ** 2);
    const logs: string[] = [];
    const library = new RecordingLibrary({ dir: root, retention: () => ({ maxBytes: 64 * 1024 ** 2, maxAgeDays: 30 }), log: (_l, t) => logs.push(t) });
    const live = startSession(library);
    const removed = library.enforceRetention();
    expect(removed).toEqual([ancient, old]);
    expect(library.list().map((s) => s.id)).toEqual([live.live.id, recent]);
    expect(logs.join('\n')).toMatch(/older than 30 days/);
    live.hub.close();
    live.live.close();
  });

  it('an old trace imported today is not removed by the age limit on arrival; it ages from its import', async () => {
    const day = 86_400_000;
    const source = new RecordingLibrary({ dir: mkdtempSync(join(tmpdir(), 'switchboard-old-')) });
    const old = startSession(source);
    old.hub.record({ ...rpc(0), ts: Date.now() - 60 * day });
    old.hub.close();
    old.live.close();
    const text = readFileSync(join(source.dir, old.live.id, EVENTS_FILE));
    rmSync(source.dir, { recursive: true, force: true });
    const library = new RecordingLibrary({ dir: root, retention: () => ({ maxBytes: 64 * 1024 ** 2, maxAgeDays: 30 }) });
    const imported = await library.import('sixty-days.jsonl', [text]);
    expect(imported.summary.endedAt).toBeLessThan(Date.now() - 59 * day);
    expect(library.enforceRetention()).toEqual([]);
    expect(library.get(imported.summary.id)).toMatchObject({ kind: 'import', events: 1 });
    // 31 days after the import it goes like any other.
    const dir = join(library.dir, imported.summary.id);
    writeMeta(dir, { ...readMeta(dir), addedAt: Date.now() - 31 * day });
    expect(library.enforceRetention()).toEqual([imported.summary.id]);
  });

  it('lists 200 recordings from their meta files alone (their events, index and strings gone)', () => {
    const library = new RecordingLibrary({ dir: root });
    const ids: string[] = [];
    for (let i = 0; i < 200; i++) {
      const s = startSession(library);
      s.hub.record(rpc(i));
      s.hub.close();
      s.live.close();
      ids.push(s.live.id);
      for (const file of [EVENTS_FILE, INDEX_FILE, 'strings.jsonl']) rmSync(join(library.dir, s.live.id, file));
    }
    const list = new RecordingLibrary({ dir: root }).list();
    expect(list).toHaveLength(200);
    expect(list.every((s) => s.events === 1 && s.ended === 'clean')).toBe(true);
    // Newest first.
    expect(list.map((s) => s.startedAt)).toEqual([...list.map((s) => s.startedAt)].sort((a, b) => b - a));
    expect(new Set(list.map((s) => s.id))).toEqual(new Set(ids));
  });

  it('leaves alone a recording whose owner still runs, and drops index records that point past the whole events', () => {
    const library = new RecordingLibrary({ dir: root });
    const { hub, live } = startSession(library);
    for (let i = 0; i < 300; i++) hub.record(rpc(i));
    live.flush();
    const dir = join(library.dir, live.id);
    // Alive (this process): not touched.
    expect(new RecordingLibrary({ dir: root }).recover().repaired).toEqual([]);
    // Dead, with the events file cut short of what the index names (a power loss between the two writes).
    hub.store.close();
    const eventsBytes = statSync(join(dir, EVENTS_FILE)).size;
    truncateSync(join(dir, EVENTS_FILE), eventsBytes - 500);
    writeMeta(dir, { ...readMeta(dir), state: 'recording', owner: { pid: 999_999_998 } });
    const again = new RecordingLibrary({ dir: root });
    expect(again.recover().repaired).toEqual([live.id]);
    const summary = again.get(live.id)!;
    expect(summary.events).toBeLessThan(300);
    expect(summary.events).toBeGreaterThan(290);
    expect(summary.notes.join(' ')).toMatch(/index records? past the last whole event dropped/);
    expect(statSync(join(dir, INDEX_FILE)).size).toBe(summary.events * INDEX_RECORD);
  });

  it('a durable store keeps its cap: past it, events are recorded as stubs saying so, seqs stay gapless, and it says so once', async () => {
    const library = new RecordingLibrary({ dir: root });
    const start: LiveRecordingStart = { kind: 'app', app: { name: 'Switchboard', version: 'test' }, servers: () => [], redact: () => (t) => t };
    const live = library.startLive(start);
    const limits: string[] = [];
    const hub = new TraceHub(undefined, { store: { ...live.storeOptions, windowSize: 50, maxSpillBytes: 64 * 1024, onLimit: (m) => limits.push(m) } });
    for (let i = 0; i < 2_000; i++) hub.record(rpc(i));
    hub.close();
    live.close();
    expect(limits).toHaveLength(1);
    expect(limits[0]).toMatch(/recording paused/);
    const opened = await library.open(live.id);
    try {
      const events = [...opened.hub.store.all()];
      expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 2_000 }, (_, i) => i + 1));
      expect(events[0]!.body).toEqual(rpc(0).body);
      expect(events.at(-1)!.text).toMatch(/recording paused/);
    } finally {
      opened.hub.close();
    }
  });

  it("computes an opened recording's snapshots in the background", async () => {
    const library = new RecordingLibrary({ dir: root });
    const { hub, live } = startSession(library);
    for (let i = 0; i < 6_000; i++) hub.record(rpc(i, i % 2 ? 'a' : 'b'));
    hub.close();
    live.close();
    const opened = await library.open(live.id);
    try {
      const total = async () => {
        for (;;) {
          const sum = opened.hub.snapshots.serverIds().reduce((n, id) => n + (opened.hub.snapshots.snapshot(id)?.totalEvents ?? 0), 0);
          if (sum === 6_000) return sum;
          await new Promise((r) => setTimeout(r, 20));
        }
      };
      expect(await total()).toBe(6_000);
      expect(opened.hub.snapshots.serverIds().sort()).toEqual(['a', 'b']);
    } finally {
      opened.hub.close();
    }
  });

  it('warns once when the live session alone is over the cap, and never removes it', () => {
    const logs: string[] = [];
    const library = new RecordingLibrary({ dir: root, retention: () => ({ maxBytes: 64 * 1024 ** 2, maxAgeDays: 0 }), log: (_l, t) => logs.push(t) });
    const start: LiveRecordingStart = { kind: 'app', app: { name: 'Switchboard', version: 'test' }, servers: () => [], redact: () => (t) => t };
    const live = library.startLive(start);
    const hub = new TraceHub(undefined, { store: { ...live.storeOptions, windowSize: 10, previewBytes: 1024 * 1024 } });
    const body = { text: 'z'.repeat(512 * 1024) };
    for (let i = 0; i < 140; i++) hub.record(rpc(i, 'a', { body, bytes: 600 * 1024 }));
    live.flush();
    expect(library.get(live.id)!.bytes).toBeGreaterThan(64 * 1024 ** 2);
    expect(library.enforceRetention()).toEqual([]);
    expect(library.enforceRetention()).toEqual([]);
    expect(logs.filter((l) => /larger than the library/.test(l))).toHaveLength(1);
    expect(library.get(live.id)).toMatchObject({ live: true, events: 140 });
    hub.close();
    live.close();
  });

  it('rebuilds a lost meta file from the events header and repairs the recording; a hostile index cannot make it allocate', async () => {
    const library = new RecordingLibrary({ dir: root });
    const { hub, live } = startSession(library);
    for (let i = 0; i < 100; i++) hub.record(rpc(i));
    live.flush();
    hub.store.close();
    const dir = join(library.dir, live.id);
    rmSync(join(dir, 'recording.json'));
    const old = new Date(Date.now() - 60_000);
    utimesSync(join(dir, EVENTS_FILE), old, old);
    const again = new RecordingLibrary({ dir: root });
    expect(again.recover().repaired).toEqual([live.id]);
    expect(again.get(live.id)).toMatchObject({ ended: 'unexpected', events: 100, servers: [{ id: 'a', name: 'server a' }] });
    expect(again.get(live.id)!.notes.join(' ')).toMatch(/rebuilt from the events file/);

    // A record naming a 3 GB line at offset 0: read back as a stub saying why, nothing allocated.
    const record = Buffer.alloc(INDEX_RECORD);
    record.writeDoubleLE(0, 0);
    record.writeUInt32LE(3_000_000_000, 16);
    const fd = openSync(join(dir, INDEX_FILE), 'r+');
    writeSync(fd, record, 0, INDEX_RECORD, 5 * INDEX_RECORD);
    closeSync(fd);
    const opened = await again.open(live.id);
    try {
      expect(opened.hub.store.get(6)!.text).toMatch(/event not available: the recording could not be read/);
      expect(opened.hub.store.get(7)!.body).toEqual(rpc(6).body);
    } finally {
      opened.hub.close();
    }
  });

  it('the live durable store reads events that left its window back from the recording: whole, a deep body byte for byte', () => {
    const library = new RecordingLibrary({ dir: root });
    const { hub, live } = startSession(library);
    const depth = 10_000;
    const raw = `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":${'['.repeat(depth)}${']'.repeat(depth)}}}`;
    hub.record({ server: 'a', channel: 'stdio', kind: 'jsonrpc-in', dir: 'in', raw, body: boundDepth(JSON.parse(raw), 64), bytes: raw.length });
    for (let i = 0; i < 1_000; i++) hub.record(rpc(i));
    const store = hub.store;
    expect(store.get(1)!.raw).toBe(raw);
    expect(store.get(2)!.body).toEqual(rpc(0).body);
    expect(store.get(500)!.body).toEqual(rpc(498).body);
    // Also before the writer's own timer ran: read back straight after the batch was queued.
    hub.record(rpc(5_000));
    for (let i = 0; i < 200; i++) hub.record(rpc(i));
    expect(store.get(1_002)!.body).toEqual(rpc(5_000).body);
    expect(store.query({ text: 'm498' }).events.map((e) => e.seq)).toEqual([500]);
    hub.close();
    live.close();
  });

  it("a reopened recording resolves an exchange's channel from its response and filters by exchange (its strings read only then)", async () => {
    const library = new RecordingLibrary({ dir: root });
    const { hub, live } = startSession(library);
    for (let x = 0; x < 500; x++) {
      hub.record({ server: 'h', channel: 'post-json', kind: 'http-request', dir: 'out', exchange: `ex-${x}`, http: { method: 'POST', url: 'http://127.0.0.1/mcp' } });
      hub.record({ server: 'h', channel: x % 2 ? 'post-sse' : 'post-json', kind: 'http-response', dir: 'in', exchange: `ex-${x}`, http: { status: x % 10 === 0 ? 500 : 200 } });
    }
    hub.close();
    live.close();
    const opened = await library.open(live.id);
    try {
      const store = opened.hub.store;
      expect(store.get(3)!.channel).toBe('post-sse');
      expect(store.get(1)!.channel).toBe('post-json');
      expect(store.query({ channels: ['post-sse'], limit: 5_000 }).events).toHaveLength(500);
      expect(store.query({ exchange: 'ex-321' }).events.map((e) => e.seq)).toEqual([643, 644]);
      expect(store.query({ exchange: 'nope' }).events).toEqual([]);
      expect(store.query({ statusClass: [5], limit: 5_000 }).events).toHaveLength(50);
      expect(store.query({ errorsOnly: true, limit: 5_000 }).events.map((e) => e.seq)).toEqual(Array.from({ length: 50 }, (_, i) => i * 20 + 2));
    } finally {
      opened.hub.close();
    }
  });
});
