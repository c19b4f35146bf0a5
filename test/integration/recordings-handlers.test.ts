/**
 * #13 item 2: the recordings handlers with a real core, a real settings file and real recordings
 * on disk. A first core records a session with the everything fixture (a real stdio process:
 * stderr lines, tool calls, a log notification) and shuts down; a second core on the same data
 * directory finds it in the library (closed cleanly, the same event count), opens it read-only
 * (`rec-ID`: traceQuery, traceEvent and snapshots read the recorded events), renames and tags it
 * (kept on disk: a third core sees them), refuses to delete its own live recording, answers
 * not-found for an unknown id, and deletes the old one (its source closed, its files gone).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { EventName } from '../../contract';
import type { TraceEvent } from '../../contract/trace';
import { createCore, type Core } from '../../main/core/app';
import { ConfSettingsStore } from '../../main/core/store/conf-settings';
import { stdioFixtureCommand } from '../fixtures/everything/harness';
import { call, until } from '../support/core-calls';

const dir = mkdtempSync(join(tmpdir(), 'sb-recordings-'));
const libraryDir = join(dir, 'recordings');
const cores: Core[] = [];

const start = (): Core => {
  const core = createCore({ settings: new ConfSettingsStore({ cwd: dir }), carrier: 'browser', version: 't', connectAtStart: false, recordings: { dir: libraryDir } });
  cores.push(core);
  return core;
};

async function refused(core: Core, method: 'recordingOpen' | 'recordingUpdate' | 'recordingDelete', args: unknown): Promise<{ code: string; message: string }> {
  const envelope = await core.dispatch(method, args);
  if (envelope.ok) throw new Error(`${method} was not refused`);
  return envelope.error;
}

afterAll(async () => {
  for (const core of cores) await core.shutdown().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

describe('recordings handlers', () => {
  let firstId = '';
  /** The first session's events as it saw them, before it shut down. */
  let recorded: TraceEvent[] = [];
  let second: Core;

  it('a session is recorded as it happens and listed live; deleting it is refused, opening it answers `live`', async () => {
    const first = start();
    const { id: serverId } = await call(first, 'addServer', { name: 'everything', target: { type: 'stdio', ...stdioFixtureCommand(['--stderr-chatter', '--era', 'legacy']) }, pingIntervalSec: 0 });
    await call(first, 'connectServer', { id: serverId });
    for (let i = 1; i <= 3; i++) await call(first, 'callTool', { tool: 'everything__echo', args: { text: `recorded ${i}` } });
    await call(first, 'setLogLevel', { serverId, level: 'debug' });
    await call(first, 'callTool', { tool: 'everything__log', args: { level: 'warning', message: 'disk almost full' } });
    await until('the stderr lines and the log notification in the trace', async () => {
      const stderr = await call(first, 'traceQuery', { kinds: ['stderr'] });
      const logs = await call(first, 'traceQuery', { methods: ['notifications/message'] });
      return stderr.events.length >= 2 && logs.events.length >= 1 ? true : undefined;
    });

    const list = await call(first, 'recordingsList', {});
    expect(list.dir).toBe(libraryDir);
    const live = list.recordings.filter((r) => r.live);
    expect(live).toHaveLength(1);
    firstId = live[0]!.id;
    expect(live[0]).toMatchObject({ ended: 'recording', kind: 'app' });
    expect(list.retention).toEqual({ maxBytes: 2 * 1024 ** 3, maxAgeDays: 30 });

    const deleting = await refused(first, 'recordingDelete', { id: firstId });
    expect(deleting.code).toBe('conflict');
    expect(deleting.message).toContain('cannot be deleted');
    expect(existsSync(join(libraryDir, firstId))).toBe(true);
    expect((await call(first, 'recordingOpen', { id: firstId })).source).toBe('live');

    await call(first, 'disconnectServer', { id: serverId });
    recorded = [];
    for (let cursor: number | undefined = 0; cursor !== undefined; ) {
      const page: { events: TraceEvent[]; nextCursor?: number } = await call(first, 'traceQuery', { cursor, limit: 5000 });
      recorded.push(...page.events);
      cursor = page.nextCursor;
    }
    expect(recorded.length).toBeGreaterThan(10);
    await first.shutdown();
  }, 60_000);

  it('the next start finds it closed, with the same event count, and opens it read-only in every trace handler', async () => {
    second = start();
    const list = await call(second, 'recordingsList', {});
    const old = list.recordings.find((r) => r.id === firstId);
    expect(old, 'the first session is in the library').toBeDefined();
    expect(old).toMatchObject({ live: false, ended: 'clean', servers: [{ name: 'everything' }] });
    // Everything the first session saw, and at most its shutdown's own few events after it.
    expect(old!.events).toBeGreaterThanOrEqual(recorded.length);
    console.log(`first session: ${recorded.length} events seen before it shut down; ${old!.events} in the library after the restart (${old!.events - recorded.length} written by the shutdown itself)`);
    expect(list.recordings.filter((r) => r.live)).toHaveLength(1);
    expect(list.recordings[0]!.startedAt).toBeGreaterThanOrEqual(list.recordings.at(-1)!.startedAt);

    const opened = await call(second, 'recordingOpen', { id: firstId });
    expect(opened.source).toBe(`rec-${firstId}`);
    const source = opened.source;
    const all = await call(second, 'traceQuery', { source, limit: 5000 });
    expect(all.total).toBe(old!.events);
    // Event for event, what the first session recorded (seq, kind, method, text).
    const shape = (e: TraceEvent) => ({ seq: e.seq, kind: e.kind, method: e.rpc?.method, text: e.text });
    expect(all.events.slice(0, recorded.length).map(shape)).toEqual(recorded.map(shape));
    const calls = await call(second, 'traceQuery', { source, methods: ['tools/call'], kinds: ['jsonrpc-out'] });
    expect(calls.events.map((e) => (e.body as { params: { arguments: { text?: string } } }).params.arguments.text)).toEqual(['recorded 1', 'recorded 2', 'recorded 3', undefined]);
    const stderr = await call(second, 'traceQuery', { source, kinds: ['stderr'] });
    expect(stderr.events.map((e) => e.text).join('\n')).toContain('everything: starting');
    const logs = await call(second, 'traceQuery', { source, methods: ['notifications/message'] });
    expect(JSON.stringify(logs.events[0]!.body)).toContain('disk almost full');
    const one = await call(second, 'traceEvent', { source, seq: calls.events[0]!.seq });
    expect(one.event.seq).toBe(calls.events[0]!.seq);
    // Snapshots (Charts, Timeline) are derived in the background as the recording is read back.
    const serverId = old!.servers[0]!.id;
    const snapshot = await until('the recording\'s snapshot of its server', async () => (await call(second, 'snapshots', { source })).find((s) => s.server === serverId && s.totalEvents > 0));
    expect(snapshot.latency['tools/call']?.count).toBe(4);
    // The live trace is another source: none of this is in it.
    expect((await call(second, 'traceQuery', { methods: ['tools/call'] })).events).toHaveLength(0);
    // Opening it again is the same source, not a second copy.
    const [again, twice] = await Promise.all([call(second, 'recordingOpen', { id: firstId }), call(second, 'recordingOpen', { id: firstId })]);
    expect([again.source, twice.source]).toEqual([source, source]);
    expect((await call(second, 'traceQuery', { source, limit: 1 })).total).toBe(old!.events);
  }, 60_000);

  it('renames and tags it, on disk (a third start sees them), and says not-found for an unknown id', async () => {
    const changes: string[] = [];
    const off = second.events.subscribe((event: EventName, payload) => {
      if (event === 'recordingsChanged') changes.push((payload as { reason: string }).reason);
    });
    const renamed = await call(second, 'recordingUpdate', { id: firstId, name: 'Checkout flake' });
    expect(renamed.name).toBe('Checkout flake');
    const tagged = await call(second, 'recordingUpdate', { id: firstId, tags: ['flaky', 'ci'] });
    expect(tagged).toMatchObject({ name: 'Checkout flake', tags: ['flaky', 'ci'] });
    expect((await call(second, 'recordingsList', {})).recordings.find((r) => r.id === firstId)).toMatchObject({ name: 'Checkout flake', tags: ['flaky', 'ci'] });
    const untagged = await call(second, 'recordingUpdate', { id: firstId, tags: ['ci'] });
    expect(untagged.tags).toEqual(['ci']);
    // The library told the carriers (the Library tab lists again).
    await until('recordingsChanged after the updates', () => (changes.length ? true : undefined));
    off();

    for (const method of ['recordingOpen', 'recordingUpdate', 'recordingDelete'] as const) {
      const error = await refused(second, method, { id: '20000101-000000-000-none', ...(method === 'recordingUpdate' ? { name: 'x' } : {}) });
      expect(error.code, method).toBe('not-found');
      expect(error.message).toContain('20000101-000000-000-none');
    }
    // Not an id at all (a path): refused before any handler runs.
    expect((await refused(second, 'recordingOpen', { id: '../settings' })).code).toBe('invalid-arguments');
    expect((await refused(second, 'recordingUpdate', { id: firstId, name: '   ' })).code).toBe('invalid-arguments');

    await second.shutdown();
    second = start();
    expect((await call(second, 'recordingsList', {})).recordings.find((r) => r.id === firstId)).toMatchObject({ name: 'Checkout flake', tags: ['ci'], ended: 'clean' });
  }, 60_000);

  it('deletes a past recording: its open source is closed and its files are gone', async () => {
    const { source } = await call(second, 'recordingOpen', { id: firstId });
    expect((await call(second, 'traceQuery', { source, limit: 1 })).events).toHaveLength(1);
    expect(await call(second, 'recordingDelete', { id: firstId })).toEqual({ deleted: true });
    expect(existsSync(join(libraryDir, firstId))).toBe(false);
    const gone = await second.dispatch('traceQuery', { source });
    expect(gone.ok).toBe(false);
    expect((await call(second, 'recordingsList', {})).recordings.map((r) => r.id)).not.toContain(firstId);
    expect((await refused(second, 'recordingOpen', { id: firstId })).code).toBe('not-found');
  }, 60_000);
});
