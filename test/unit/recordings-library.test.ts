/**
 * The Recordings library's renderer rules without React: search (name, tag, server, `tag:`,
 * `server:`), sort (newest first by default, stable), how a recording ended, retention in GiB
 * and days (bounded as the contract bounds it), tags; the log lines a recording's trace gives
 * (the same lines the live log writes for the same notification); the tool catalog as it was
 * built from a recording's raw (hostile) tools.
 */
import { describe, expect, it } from 'vitest';
import { RecordingRetention, type RecordingSummary } from '../../contract';
import type { TraceEvent } from '../../contract/trace';
import { EventHub } from '../../main/core/events';
import { LogBus } from '../../main/core/logs/log-bus';
import { writeServerLog } from '../../main/core/logs/server-lines';
import { lineOfEvent } from '../../renderer/src/features/logs/recorded-lines';
import { DEFAULT_SORT, cleanTags, endedView, matchesSearch, nextSort, retentionForm, retentionFromForm, visibleRecordings } from '../../renderer/src/features/recordings/library-rules';
import { recordedToolEntries, recordingIdOf } from '../../renderer/src/features/tools/recorded-catalog';

const rec = (over: Partial<RecordingSummary> & { id: string }): RecordingSummary => ({
  name: over.id,
  tags: [],
  kind: 'app',
  startedAt: 0,
  durationMs: 0,
  ended: 'clean',
  live: false,
  events: 0,
  errors: 0,
  bytes: 0,
  servers: [],
  app: { name: 'Switchboard', version: '1' },
  notes: [],
  ...over,
});

const a = rec({ id: 'a', name: 'Morning flake', tags: ['flaky', 'ci'], startedAt: 1_000, events: 50, bytes: 9, servers: [{ id: 'srv-1', name: 'everything' }] });
const b = rec({ id: 'b', name: 'Checkout bug', tags: ['prod'], startedAt: 3_000, events: 10, bytes: 90, errors: 4, servers: [{ id: 'srv-2', name: 'memory' }] });
const c = rec({ id: 'c', name: 'everything smoke', startedAt: 2_000, events: 50, bytes: 5, servers: [{ id: 'srv-3', name: 'filesystem' }] });
const all = [a, b, c];

describe('library search and sort', () => {
  it('matches every word against name, tags and servers, case-insensitively; tag: and server: look only there', () => {
    expect(visibleRecordings(all, 'EVERYTHING', DEFAULT_SORT).map((r) => r.id)).toEqual(['c', 'a']);
    expect(visibleRecordings(all, 'server:everything', DEFAULT_SORT).map((r) => r.id)).toEqual(['a']);
    expect(visibleRecordings(all, 'tag:prod', DEFAULT_SORT).map((r) => r.id)).toEqual(['b']);
    expect(visibleRecordings(all, 'flaky ci', DEFAULT_SORT).map((r) => r.id)).toEqual(['a']);
    expect(visibleRecordings(all, 'flaky prod', DEFAULT_SORT)).toEqual([]);
    expect(matchesSearch(b, 'srv-2')).toBe(true);
    expect(matchesSearch(b, '   ')).toBe(true);
  });

  it('lists newest first by default; a column sorts, a second click flips it; ties keep the newest first', () => {
    expect(visibleRecordings(all, '', DEFAULT_SORT).map((r) => r.id)).toEqual(['b', 'c', 'a']);
    const byEvents = nextSort(DEFAULT_SORT, 'events');
    expect(byEvents).toEqual({ key: 'events', desc: true });
    expect(visibleRecordings(all, '', byEvents).map((r) => r.id)).toEqual(['c', 'a', 'b']);
    expect(visibleRecordings(all, '', nextSort(byEvents, 'events')).map((r) => r.id)).toEqual(['b', 'c', 'a']);
    expect(visibleRecordings(all, '', nextSort(DEFAULT_SORT, 'name')).map((r) => r.name)).toEqual(['Checkout bug', 'everything smoke', 'Morning flake']);
    expect(visibleRecordings(all, '', { key: 'bytes', desc: true }).map((r) => r.id)).toEqual(['b', 'a', 'c']);
    // The input is not reordered in place.
    expect(all.map((r) => r.id)).toEqual(['a', 'b', 'c']);
  });
});

describe('how a recording ended', () => {
  it('flags an unexpected end with its notes, and marks the live one', () => {
    const crashed = endedView(rec({ id: 'x', ended: 'unexpected', notes: ['ended unexpectedly: 312 bytes of a torn last line dropped'] }));
    expect(crashed).toMatchObject({ label: 'ended unexpectedly', color: 'orange' });
    expect(crashed.hint).toContain('312 bytes');
    expect(endedView(rec({ id: 'y', ended: 'unexpected' })).hint).toContain('last flush');
    expect(endedView(rec({ id: 'z', ended: 'recording', live: true })).label).toBe('recording now');
    expect(endedView(rec({ id: 'w', ended: 'recording' })).label).toBe('recording');
    expect(endedView(rec({ id: 'v' })).label).toBe('closed');
  });
});

describe('retention and tags', () => {
  it('shows retention in GiB and days and writes back what the contract accepts, whatever was typed', () => {
    expect(retentionForm({ maxBytes: 2 * 1024 ** 3, maxAgeDays: 30 })).toEqual({ gib: 2, days: 30 });
    expect(retentionFromForm(0.5, 7)).toEqual({ maxBytes: 512 * 1024 ** 2, maxAgeDays: 7 });
    for (const [gib, days] of [
      [0, -3],
      [1e9, 1e9],
      [Number.NaN, Number.NaN],
      [0.01, 2.6],
    ] as const) {
      const retention = retentionFromForm(gib, days);
      expect(RecordingRetention.safeParse(retention).success, `${gib} GiB, ${days} days`).toBe(true);
    }
    expect(retentionFromForm(0.01, 2.6)).toEqual({ maxBytes: 64 * 1024 ** 2, maxAgeDays: 3 });
  });

  it('keeps each tag once (whatever its case), trimmed, at most 40 characters and 20 tags', () => {
    expect(cleanTags([' flaky ', 'Flaky', '', 'ci'])).toEqual(['flaky', 'ci']);
    expect(cleanTags(['x'.repeat(100)])[0]).toHaveLength(40);
    expect(cleanTags(Array.from({ length: 30 }, (_, i) => `t${i}`))).toHaveLength(20);
  });
});

const event = (over: Partial<TraceEvent>): TraceEvent => ({ seq: 1, ts: 5, server: 's1', channel: 'stdio', kind: 'jsonrpc-in', dir: 'in', ...over });

describe("a recording's log lines", () => {
  it('gives a log notification the same line the live log writes for it', () => {
    const logs = new LogBus(new EventHub());
    const cases: [unknown, unknown, unknown][] = [
      ['warning', 'db', 'disk almost full'],
      ['panic', undefined, { a: 1 }],
      ['error', '', ['x', 2]],
    ];
    for (const [level, logger, data] of cases) {
      writeServerLog(logs, 's1', level, logger, data);
      const line = lineOfEvent(event({ rpc: { kind: 'notification', method: 'notifications/message' }, body: { jsonrpc: '2.0', method: 'notifications/message', params: { level, logger, data } } }));
      const live = logs.history().at(-1)!;
      expect(line).toMatchObject({ serverId: 's1', source: 'server', level: live.level, text: live.text });
    }
  });

  it('reads stderr and errors; anything else (our own requests, results) is not a line', () => {
    expect(lineOfEvent(event({ kind: 'stderr', dir: 'none', text: 'Traceback (most recent call last):' }))).toMatchObject({ source: 'stderr', level: 'info', text: 'Traceback (most recent call last):' });
    expect(lineOfEvent(event({ kind: 'error', text: 'connection reset' }))).toMatchObject({ source: 'protocol', level: 'error', text: 'connection reset' });
    expect(lineOfEvent(event({ rpc: { kind: 'notification', method: 'notifications/message' }, dir: 'out', body: {} }))).toBeUndefined();
    expect(lineOfEvent(event({ rpc: { kind: 'result', id: 1 } }))).toBeUndefined();
    // A hostile body: no params, params not an object.
    expect(lineOfEvent(event({ rpc: { kind: 'notification', method: 'notifications/message' }, body: 'garbage' }))).toMatchObject({ level: 'info' });
    expect(lineOfEvent(event({ rpc: { kind: 'notification', method: 'notifications/message' }, body: { params: null } }))).toMatchObject({ level: 'info' });
  });
});

describe('the tool catalog as it was', () => {
  it('keeps only well-typed fields of hostile tools, names each server__tool once, and marks bare-name collisions', () => {
    const entries = recordedToolEntries([
      {
        serverId: 'a',
        serverName: 'alpha',
        tools: [
          { name: 'echo', description: 'Echoes', inputSchema: { type: 'object', properties: { m: { type: 'string' } } }, annotations: { readOnlyHint: true } },
          { name: 42, description: 'no name' },
          { name: 'echo', inputSchema: 'not a schema', outputSchema: [1], annotations: 'x', icons: 'x' },
        ],
      },
      { serverId: 'b', serverName: 'beta', tools: [{ name: 'echo', title: 7 }] },
    ]);
    expect(entries.map((e) => e.name)).toEqual(['alpha__echo', 'alpha__echo~2', 'beta__echo']);
    expect(entries[0]).toMatchObject({ serverId: 'a', originalName: 'echo', description: 'Echoes', annotations: { readOnlyHint: true } });
    expect(entries[1]).toMatchObject({ inputSchema: {}, outputSchema: undefined, annotations: undefined, icons: undefined });
    expect(entries[2]!.title).toBeUndefined();
    expect(entries[2]!.collidesWith).toEqual(['alpha__echo', 'alpha__echo~2']);
    expect(recordedToolEntries([{ serverId: 'a', serverName: 'a', tools: [{ name: 'solo' }] }])[0]!.collidesWith).toBeUndefined();
  });

  it('reads the recording id of a rec- source only', () => {
    expect(recordingIdOf('rec-20261201-221500-123-ab12')).toBe('20261201-221500-123-ab12');
    expect(recordingIdOf('import-3')).toBeUndefined();
    expect(recordingIdOf('live')).toBeUndefined();
  });
});
