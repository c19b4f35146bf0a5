/**
 * The proxy mirror (#12) over real library directories: proxy recordings written by a real
 * `RecordingLibrary.startLive({kind: 'proxy'})` in this process (as `switchboard proxy` writes
 * them), read by the mirror into a real TraceHub, LogBus and EventHub.
 */
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LogLine, ProxyInfo, ProxySession } from '../../contract';
import type { TraceEvent, TraceEventInput } from '../../contract/trace';
import { EventHub } from '../../main/core/events';
import { LogBus } from '../../main/core/logs/log-bus';
import { readFaultsRequest, writeFaultsState } from '../../main/core/proxy/control';
import { createProxyMirror, MIRROR_LIMITS, type ProxyMirror } from '../../main/core/proxy/mirror';
import { stdioProxyConfig } from '../../main/core/proxy/stdio';
import { EVENTS_FILE } from '../../main/core/recordings/format';
import { RecordingLibrary, type LiveRecording } from '../../main/core/recordings/library';
import { scrubber } from '../../main/core/trace/export-jsonl';
import { TraceHub } from '../../main/core/trace/hub';
import { Redactor } from '../../main/core/trace/redact';

/** The config the stdio proxy writes into its recording's header. */
const config = stdioProxyConfig('echo', 'node', ['server.js'], {}, undefined);

const info = (name: string, transport: 'stdio' | 'http' = 'stdio'): ProxyInfo => ({ name, transport, target: 'node server.js', pid: process.pid });

let root: string;
let app: { hub: TraceHub; events: EventHub; logs: LogBus; pushes: ProxySession[][]; lines: LogLine[] };
const open: { mirror?: ProxyMirror; proxies: { hub: TraceHub; live: LiveRecording }[] } = { proxies: [] };

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'sb-proxy-mirror-'));
  const events = new EventHub();
  const pushes: ProxySession[][] = [];
  const lines: LogLine[] = [];
  events.subscribe((name, payload) => {
    if (name === 'proxySessionsChanged') pushes.push((payload as { sessions: ProxySession[] }).sessions);
    if (name === 'logBatch') lines.push(...(payload as { lines: LogLine[] }).lines);
  });
  app = { hub: new TraceHub(undefined), events, logs: new LogBus(events), pushes, lines };
});
afterEach(() => {
  open.mirror?.stop();
  open.mirror = undefined;
  for (const p of open.proxies) {
    if (!p.hub.store.isClosed) p.hub.close();
    p.live.close();
  }
  open.proxies = [];
  app.hub.close();
  rmSync(root, { recursive: true, force: true });
});

/** A proxy's recording, as `switchboard proxy` writes it: its own library object (its own process, in real life). */
function startProxy(name: string, options: { previewBytes?: number; transport?: 'stdio' | 'http' } = {}) {
  const library = new RecordingLibrary({ dir: root, retentionIntervalMs: 0 });
  const redactor = new Redactor();
  const live = library.startLive({ kind: 'proxy', name, proxy: info(name, options.transport), app: { name: 'Switchboard', version: 'test' }, servers: () => [config], redact: () => scrubber([redactor]) });
  const hub = new TraceHub(undefined, { store: { ...live.storeOptions, ...(options.previewBytes ? { previewBytes: options.previewBytes } : {}) } });
  const proxy = { hub, live, dir: join(root, live.id), record: (e: Omit<TraceEventInput, 'server'>) => hub.record({ ...e, server: config.id } as TraceEventInput) };
  open.proxies.push(proxy);
  return proxy;
}

const call = (id: number, method = 'tools/call'): Omit<TraceEventInput, 'server'> => ({
  channel: 'stdio',
  kind: 'jsonrpc-out',
  dir: 'out',
  rpc: { id, method, kind: 'request' },
  body: { jsonrpc: '2.0', id, method, params: { name: 'echo', arguments: { n: id } } },
  bytes: 80,
});

function mirror(since = 0, maxSessions?: number): ProxyMirror {
  open.mirror = createProxyMirror({ dir: root, trace: app.hub, logs: app.logs, events: app.events, pollMs: 0, since, maxSessions });
  return open.mirror;
}

const mirrored = (serverId: string): TraceEvent[] => app.hub.store.query({ servers: [serverId], limit: 100_000 }).events;

describe('proxy mirror', () => {
  it('shows a live proxy session as px-<id>, tails its events with their own times, and learns its client', async () => {
    const proxy = startProxy('Echo via proxy');
    proxy.record({ channel: 'stdio', kind: 'spawn', dir: 'none', text: 'node server.js' });
    proxy.record(call(1));
    proxy.record({ channel: 'stdio', kind: 'stderr', dir: 'in', text: 'server says hello' });
    proxy.live.flush();
    const recorded = [...proxy.hub.store.all()];

    const m = mirror();
    await m.poll();
    const [session] = m.sessions();
    expect(session).toMatchObject({ id: `px-${proxy.live.id}`, recordingId: proxy.live.id, state: 'live', events: 3, info: { name: 'Echo via proxy', transport: 'stdio' } });
    expect(session!.supportedFaults).toEqual(['latency', 'stall', 'drop-notifications', 'jsonrpc-error']);
    const events = mirrored(session!.id);
    expect(events.map((e) => e.kind)).toEqual(['spawn', 'jsonrpc-out', 'stderr']);
    expect(events.map((e) => e.ts)).toEqual(recorded.map((e) => e.ts));
    expect(events[1]!.body).toEqual(recorded[1]!.body);
    expect(app.pushes.at(-1)?.[0]?.id).toBe(session!.id);

    // Later bytes are tailed from where the last read stopped.
    proxy.record({ channel: 'stdio', kind: 'jsonrpc-in', dir: 'in', rpc: { id: 1, kind: 'result' }, body: { jsonrpc: '2.0', id: 1, result: {} }, bytes: 40 });
    proxy.live.flush();
    await m.poll();
    expect(mirrored(session!.id).map((e) => e.kind)).toEqual(['spawn', 'jsonrpc-out', 'stderr', 'jsonrpc-in']);

    // The client's name arrives in the meta: a push says so.
    const before = app.pushes.length;
    proxy.live.annotateProxy({ client: { name: 'Claude Desktop', version: '1.2' }, protocolVersion: '2025-06-18' });
    await m.poll();
    expect(app.pushes.length).toBeGreaterThan(before);
    expect(app.pushes.at(-1)![0]!.info.client).toEqual({ name: 'Claude Desktop', version: '1.2' });

    // Its stderr is a log line of that session, as a tracked connection's is.
    app.logs.flush();
    expect(app.lines).toContainEqual(expect.objectContaining({ serverId: session!.id, source: 'stderr', text: 'server says hello' }));
  });

  it('prefixes exchange ids with the session (every process counts x1, x2…)', async () => {
    const proxy = startProxy('http one', { transport: 'http' });
    proxy.record({ channel: 'post-json', kind: 'http-request', dir: 'out', exchange: 'x1', http: { method: 'POST', url: 'http://127.0.0.1:1/mcp' } });
    proxy.live.flush();
    app.hub.record({ server: 'own', channel: 'post-json', kind: 'http-request', dir: 'out', exchange: 'x1' });
    const m = mirror();
    await m.poll();
    const id = m.sessions()[0]!.id;
    expect(mirrored(id)[0]!.exchange).toBe(`${id}/x1`);
    expect(app.hub.store.query({ exchange: 'x1', limit: 10 }).events.map((e) => e.server)).toEqual(['own']);
    expect(m.sessions()[0]!.supportedFaults).toContain('http-error');
  });

  it('waits for a torn last line, and skips lines that are not events (counted, one log line)', async () => {
    const proxy = startProxy('torn');
    proxy.record(call(1));
    proxy.live.flush();
    const m = mirror();
    await m.poll();
    const id = m.sessions()[0]!.id;
    const file = join(proxy.dir, EVENTS_FILE);
    const line = JSON.stringify({ seq: 2, ts: 1_700_000_000_123.5, server: config.id, channel: 'stdio', kind: 'jsonrpc-out', dir: 'out', rpc: { id: 2, method: 'tools/list', kind: 'request' } });
    appendFileSync(file, line.slice(0, 30));
    await m.poll();
    expect(mirrored(id)).toHaveLength(1);
    appendFileSync(file, line.slice(30) + '\n');
    await m.poll();
    expect(mirrored(id).map((e) => e.rpc?.method)).toEqual(['tools/call', 'tools/list']);
    expect(mirrored(id)[1]!.ts).toBe(1_700_000_000_123.5);

    appendFileSync(file, 'garbage that is not JSON\n{"seq":3}\n[1,2]\n{"seq":4,"ts":"now","server":"s","channel":"nope","kind":"x","dir":"in"}\n' + line.replace('"seq":2', '"seq":5') + '\n');
    await m.poll();
    expect(mirrored(id)).toHaveLength(3);
    app.logs.flush();
    const warnings = app.lines.filter((l) => l.serverId === id && l.source === 'app' && /could not be read/.test(l.text));
    expect(warnings).toHaveLength(1);
  });

  it('reads previewed payloads whole from payloads.bin', async () => {
    const proxy = startProxy('big', { previewBytes: 1024 });
    const text = 'x'.repeat(50_000);
    proxy.record({ channel: 'stdio', kind: 'jsonrpc-in', dir: 'in', rpc: { id: 7, kind: 'result' }, body: { jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text }] } }, bytes: 50_100 });
    proxy.live.flush();
    const m = mirror();
    await m.poll();
    const [event] = mirrored(m.sessions()[0]!.id);
    // The app's store keeps its own preview; the whole payload is what it reads back.
    const whole = app.hub.store.payload(event!.seq) as { result: { content: { text: string }[] } };
    expect(whole.result.content[0]!.text).toBe(text);
  });

  it('catches up on a long session a slice at a time (the event loop turns between slices)', async () => {
    const proxy = startProxy('long');
    const n = MIRROR_LIMITS.sliceEvents * 2 + 500;
    for (let i = 0; i < n; i++) proxy.record(call(i));
    proxy.live.flush();
    const m = mirror();
    const done = m.poll();
    // The first slice is read at once; the rest after the event loop has turned.
    expect(app.hub.store.size).toBe(MIRROR_LIMITS.sliceEvents);
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(app.hub.store.size).toBeLessThan(n);
    await done;
    expect(app.hub.store.size).toBe(n);
  });

  it('ends a session whose proxy closed its recording, keeping every event; ignores other kinds, old sessions and broken dirs', async () => {
    // A broken recording dir and an app recording beside the proxies.
    mkdirSync(join(root, '20260101-000000-000-dead'));
    writeFileSync(join(root, '20260101-000000-000-dead', 'recording.json'), '{not json');
    const appLibrary = new RecordingLibrary({ dir: root, retentionIntervalMs: 0 });
    const own = appLibrary.startLive({ kind: 'app', app: { name: 'Switchboard', version: 'test' }, servers: () => [], redact: () => (t) => t });
    const old = startProxy('ended before the app started');
    old.record(call(1));
    old.hub.close();
    old.live.close();

    const proxy = startProxy('will end');
    proxy.record(call(1));
    proxy.live.flush();
    const m = mirror(Date.now());
    await m.poll();
    expect(m.sessions().map((s) => s.info.name)).toEqual(['will end']);
    const id = m.sessions()[0]!.id;

    proxy.record(call(2));
    proxy.hub.close();
    proxy.live.close();
    await m.poll();
    expect(m.sessions()[0]).toMatchObject({ id, state: 'ended', events: 2 });
    expect(app.pushes.at(-1)![0]!.state).toBe('ended');
    expect(mirrored(id)).toHaveLength(2);
    expect(() => m.setFaults(id, [{ type: 'latency', ms: 10 }])).toThrow(/has ended/);
    own.close();
  });

  it('asks a live proxy for faults through faults-request.json and shows what it reports in faults-state.json', async () => {
    const proxy = startProxy('faulty');
    proxy.live.flush();
    const m = mirror();
    await m.poll();
    const id = m.sessions()[0]!.id;

    expect(() => m.setFaults(id, [{ type: 'http-error', status: 503, contentType: 'text/plain' }])).toThrow(/cannot inject "http-error"/);
    expect(readFaultsRequest(proxy.dir)).toBeUndefined();
    expect(() => m.setFaults('px-nope', [])).toThrow(/No proxied session/);

    const fault = { type: 'jsonrpc-error' as const, code: -32000, message: 'boom', method: 'tools/call', rate: 0.5 };
    m.setFaults(id, [fault]);
    expect(readFaultsRequest(proxy.dir)).toMatchObject({ seq: 1, faults: [fault] });

    // The proxy answers with what is in force (its counts move as it applies them).
    const pushes = app.pushes.length;
    writeFaultsState(proxy.dir, { seq: 1, at: Date.now(), armed: [{ id: 1, fault, seen: 3, hits: 1, exhausted: false }] });
    await m.poll();
    expect(m.sessions()[0]!.faults).toEqual([{ id: 1, fault, seen: 3, hits: 1, exhausted: false }]);
    expect(app.pushes.length).toBe(pushes + 1);

    // A refusal is said in the log.
    m.setFaults(id, []);
    writeFaultsState(proxy.dir, { seq: 2, at: Date.now() + 1, armed: [], refused: 'no such fault here' });
    await m.poll();
    app.logs.flush();
    expect(app.lines).toContainEqual(expect.objectContaining({ serverId: id, level: 'warning', text: expect.stringContaining('no such fault here') }));
  });

  it('at its cap, lets the oldest ended session go for a new live one, and says so when none has ended', async () => {
    const first = startProxy('first');
    first.live.flush();
    const m = mirror(0, 1);
    await m.poll();
    expect(m.sessions().map((s) => s.info.name)).toEqual(['first']);
    first.hub.close();
    first.live.close();
    await m.poll();
    expect(m.sessions()[0]!.state).toBe('ended');
    const second = startProxy('second');
    second.live.flush();
    await m.poll();
    expect(m.sessions().map((s) => s.info.name)).toEqual(['second']);
    // Not brought back on the next look.
    await m.poll();
    expect(m.sessions().map((s) => s.info.name)).toEqual(['second']);
    const third = startProxy('third');
    third.live.flush();
    await m.poll();
    expect(m.sessions().map((s) => s.info.name)).toEqual(['second']);
    app.logs.flush();
    expect(app.lines.filter((l) => /More than 1 proxied sessions/.test(l.text))).toHaveLength(1);
  });
});
