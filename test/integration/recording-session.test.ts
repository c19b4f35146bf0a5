/**
 * #13: a real session recorded into the library as it happens, with real servers that carry
 * secrets (the audit fixture over stdio with secret arguments and env, the everything fixture
 * over HTTP with secret URL parameters and headers). After the session no file of the recording
 * holds any secret; the app restarted on the same data dir finds the previous session in its
 * library, ended cleanly, with the same event count, and opens it read-only.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerStatus } from '../../contract';
import { createCore, type Core } from '../../main/core/app';
import { ConfSettingsStore } from '../../main/core/store/conf-settings';
import { auditStdioCommand } from '../fixtures/audit/strings';
import { startFixture, type RunningFixture } from '../fixtures/everything/harness';

const LONG = {
  argToken: 'argtoken-91c0de',
  argApiKey: 'apikey-arg-77aa',
  env: 'envvalue-5f0b13',
  queryApiKey: 'querykey-2e6d90',
  header: 'hdrval-b41c77',
  bearer: 'bearer-tok-9a8b7c6d',
};

let dir: string;
let http: RunningFixture;
let core: Core;

async function ok<T>(on: Core, method: string, args: unknown): Promise<T> {
  const reply = await on.dispatch(method, args);
  if (!reply.ok) throw new Error(`${method}: ${reply.error.message}`);
  return reply.result as T;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sb-rec-session-'));
  http = await startFixture({ transport: 'http', era: 'legacy', sessions: true });
  core = createCore({ settings: new ConfSettingsStore({ cwd: dir }), carrier: 'browser', version: 't', trace: { store: { windowSize: 8 } } });
  const stdio = auditStdioCommand([`--token=${LONG.argToken}`, '--api-key', LONG.argApiKey]);
  const ids = [
    (await ok<ServerStatus>(core, 'addServer', { name: 'local', target: { type: 'stdio', ...stdio, env: { FIXTURE_ENV: LONG.env } } })).id,
    (
      await ok<ServerStatus>(core, 'addServer', {
        name: 'remote',
        target: { type: 'http', url: `${http.url}?api_key=${LONG.queryApiKey}`, headers: { 'X-Custom-Key': LONG.header, Authorization: `Bearer ${LONG.bearer}` } },
      })
    ).id,
  ];
  await Promise.all(ids.map((id) => ok(core, 'connectServer', { id })));
  for (const c of core.connections.all()) expect(c.status().state, c.status().error).toBe('connected');
}, 60_000);

afterAll(async () => {
  await core?.shutdown();
  await http?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a session recorded into the library', () => {
  it('keeps no secret in any file of the recording, and the restarted app finds it with the same event count', async () => {
    const live = core.liveRecording!;
    expect(live).toBeDefined();
    expect(core.recordings!.list()[0]).toMatchObject({ id: live.id, live: true, ended: 'recording' });
    await ok(core, 'callTool', { tool: 'local__echo', args: { leak: `${LONG.argToken} ${LONG.argApiKey} ${LONG.env}` } });
    await ok(core, 'callTool', { tool: 'remote__echo', args: { text: `${LONG.queryApiKey} ${LONG.header} ${LONG.bearer}` } });
    // One server's secret sent to another: only the last net (every connection's redactor) catches it.
    await ok(core, 'callTool', { tool: 'remote__echo', args: { text: `from local: ${LONG.argToken}` } });
    for (let i = 0; i < 30; i++) await ok(core, 'callTool', { tool: 'remote__echo', args: { text: `call ${i}` } });
    await core.shutdown();
    const recorded = core.trace.store.size;
    expect(recorded).toBeGreaterThan(60);

    const recordingDir = join(dir, 'recordings', live.id);
    const files = readdirSync(recordingDir);
    expect(files).toEqual(expect.arrayContaining(['recording.json', 'events.jsonl', 'index.bin', 'strings.jsonl']));
    const all = files.map((f) => readFileSync(join(recordingDir, f)));
    // The positive control: the calls and the configs are there, redacted.
    const events = readFileSync(join(recordingDir, 'events.jsonl'), 'utf8');
    expect(events).toContain('--token=[redacted]');
    expect(events).toContain('from local: [redacted]');
    expect(events).toContain('call 29');
    for (const [i, bytes] of all.entries()) for (const secret of Object.values(LONG)) expect(bytes.includes(secret), `${files[i]} contains ${secret}`).toBe(false);

    // The app again, on the same data dir.
    const again = createCore({ settings: new ConfSettingsStore({ cwd: dir }), carrier: 'browser', version: 't', connectAtStart: false });
    try {
      const list = again.recordings!.list();
      expect(list[0]).toMatchObject({ id: again.liveRecording!.id, live: true });
      const previous = list.find((s) => s.id === live.id)!;
      expect(previous).toMatchObject({ live: false, ended: 'clean', events: recorded, kind: 'app' });
      expect(previous.servers.map((s) => s.name).sort()).toEqual(['local', 'remote']);
      console.log(`restart: the previous session is in the library with ${previous.events} events (${recorded} recorded), ${(previous.bytes / 1024).toFixed(0)} KiB, ended ${previous.ended}`);
      const opened = await again.recordings!.open(live.id);
      try {
        expect(opened.hub.store.size).toBe(recorded);
        expect(opened.configs.map((c) => c.name).sort()).toEqual(['local', 'remote']);
        expect(JSON.stringify(opened.configs)).not.toContain(LONG.header);
        const calls = opened.hub.store.query({ text: 'call 29' });
        expect(calls.events.length).toBeGreaterThan(0);
        expect([...opened.hub.store.all()].map((e) => e.seq)).toEqual(Array.from({ length: recorded }, (_, i) => i + 1));
      } finally {
        opened.hub.close();
      }
    } finally {
      await again.shutdown();
    }
  }, 60_000);
});
