/**
 * #18 item 5: secrets that used to reach traces, exports, the spill file and settings.json.
 * Real servers: the audit fixture over stdio with `--token=…`, `--api-key VALUE`, `--auth V`
 * (a short one) and a secret env value; the everything fixture over HTTP with `?api_key=` and
 * `?key=` in its URL and headers whose names do not look secret (`X-Custom-Key`, and a short
 * value). After calls that send the long secrets back and forth, the JSONL and HAR exports,
 * the spill file, settings.json (outside the server list itself), the remembered inputs and the call audit hold none
 * of them. Secrets shorter than SUBSTRING_MIN are configured only in whole-value positions
 * (an argument, a header, a URL parameter): inside free text they are kept by design.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerStatus } from '../../contract';
import { createCore, type Core } from '../../main/core/app';
import { ConfSettingsStore } from '../../main/core/store/conf-settings';
import { SUBSTRING_MIN } from '../../main/core/trace/redact';
import { exportText } from '../support/trace-export';
import { auditStdioCommand } from '../fixtures/audit/strings';
import { startFixture, type RunningFixture } from '../fixtures/everything/harness';

const LONG = {
  argToken: 'argtoken-7d1e9c',
  argApiKey: 'apikey-arg-5b2f',
  env: 'envvalue-33a1f0',
  queryApiKey: 'querykey-8c4d77',
  header: 'hdrval-6e2a91',
};
const SHORT = { argAuth: 'Zq7Wv', queryKey: 'Yk3Pd', header: 'Xw9Rb' };

let dir: string;
let spillDir: string;
let http: RunningFixture;
let core: Core;

async function ok<T>(method: string, args: unknown): Promise<T> {
  const reply = await core.dispatch(method, args);
  if (!reply.ok) throw new Error(`${method}: ${reply.error.message}`);
  return reply.result as T;
}

/** No long secret anywhere; no short one as a whole token (not inside a longer word). */
function expectNoSecrets(what: string, text: string): void {
  for (const secret of Object.values(LONG)) expect(text.includes(secret), `${what} contains ${secret}`).toBe(false);
  for (const secret of Object.values(SHORT)) expect(new RegExp(`(?<![A-Za-z0-9])${secret}(?![A-Za-z0-9])`).test(text), `${what} contains ${secret}`).toBe(false);
}

beforeAll(async () => {
  expect(Object.values(SHORT).every((s) => s.length < SUBSTRING_MIN)).toBe(true);
  dir = mkdtempSync(join(tmpdir(), 'sb-secrets-'));
  spillDir = mkdtempSync(join(tmpdir(), 'sb-secrets-spill-'));
  http = await startFixture({ transport: 'http', era: 'legacy', sessions: true });
  // No recording (it would replace the spill file this test reads): recording-session.test.ts checks the recording.
  core = createCore({ settings: new ConfSettingsStore({ cwd: dir }), carrier: 'browser', version: 't', trace: { store: { windowSize: 4, dir: spillDir } }, recordings: false });
  await ok('updateSettings', { auditArgumentValues: true });
  const stdio = auditStdioCommand([`--token=${LONG.argToken}`, '--api-key', LONG.argApiKey, '--auth', SHORT.argAuth]);
  const ids = [
    (await ok<ServerStatus>('addServer', { name: 'local', target: { type: 'stdio', ...stdio, env: { FIXTURE_ENV: LONG.env } } })).id,
    (
      await ok<ServerStatus>('addServer', {
        name: 'remote',
        target: { type: 'http', url: `${http.url}?api_key=${LONG.queryApiKey}&key=${SHORT.queryKey}`, headers: { 'X-Custom-Key': LONG.header, 'X-Short': SHORT.header } },
      })
    ).id,
  ];
  await Promise.all(ids.map((id) => ok('connectServer', { id })));
  for (const c of core.connections.all()) expect(c.status().state, c.status().error).toBe('connected');
}, 60_000);

afterAll(async () => {
  await core?.shutdown();
  await http?.close();
  rmSync(dir, { recursive: true, force: true });
  rmSync(spillDir, { recursive: true, force: true });
});

describe('secrets in arguments, URLs and headers', () => {
  it('reach neither the exports, the spill file, the audit nor the remembered inputs', async () => {
    // Each server is sent its own secrets (and answers them back).
    await ok('callTool', { tool: 'local__echo', args: { leak: `${LONG.argToken} ${LONG.argApiKey} ${LONG.env}`, password: 'typed-in-pw-1' } });
    await ok('callTool', { tool: 'remote__echo', args: { text: `${LONG.queryApiKey} ${LONG.header}` } });

    const jsonl = exportText(core, 'jsonl');
    const har = exportText(core, 'har');
    // The positive control: the calls and the spawn are in the exports, redacted.
    expect(jsonl).toContain('--token=[redacted]');
    expect(jsonl).toContain('"--api-key","[redacted]","--auth","[redacted]"');
    expect(jsonl).toContain('"x-custom-key":"[redacted]"');
    expect(jsonl).toContain('"x-short":"[redacted]"');
    expect(jsonl).toMatch(/api_key=%5Bredacted%5D&key=%5Bredacted%5D/);
    expect(jsonl).toContain('echo called with');
    expect(har).toContain('"x-custom-key"');
    expectNoSecrets('JSONL export', jsonl);
    expectNoSecrets('HAR export', har);

    // Every event goes to the spill file; what is still in its write buffer is written out first.
    core.trace.store.drain();
    const spilled = readdirSync(spillDir).map((f) => readFileSync(join(spillDir, f), 'utf8'));
    expect(spilled.join('').length).toBeGreaterThan(0);
    expectNoSecrets('spill file', spilled.join('\n'));

    const settings = JSON.parse(readFileSync(join(dir, 'settings.json'), 'utf8')) as { servers: unknown[] };
    expectNoSecrets('settings.json (outside the server list)', JSON.stringify({ ...settings, servers: [] }));
    await core.callMemory.flush();
    const memory = JSON.parse(readFileSync(join(dir, 'call-memory.json'), 'utf8')) as { toolInputs: Record<string, Record<string, unknown>> };
    expect(Object.keys(memory.toolInputs).sort()).toEqual(['local__echo', 'remote__echo']);
    expect(memory.toolInputs.local__echo!.password).toBe('[redacted]');
    expectNoSecrets('call-memory.json', JSON.stringify(memory));

    await core.audit.flush();
    const audit = readFileSync(join(dir, 'audit.jsonl'), 'utf8');
    expect(audit).toContain('"leak"');
    expectNoSecrets('audit.jsonl', audit);
  }, 60_000);

  it('keeps no argument values in settings.json or the remembered inputs while argument auditing is off', async () => {
    await ok('updateSettings', { auditArgumentValues: false });
    await ok('callTool', { tool: 'local__echo', args: { note: 'not-to-be-kept-4411' } });
    expect(readFileSync(join(dir, 'settings.json'), 'utf8')).not.toContain('not-to-be-kept-4411');
    await core.callMemory.flush();
    const text = readFileSync(join(dir, 'call-memory.json'), 'utf8');
    expect(text).not.toContain('not-to-be-kept-4411');
    expect((JSON.parse(text) as { toolInputs: Record<string, unknown> }).toolInputs).toEqual({});
    expect((await ok<{ args?: unknown }>('lastToolInput', { tool: 'local__echo' })).args).toBeUndefined();
  });

  it("removes one server's secret sent to another from both exports (their last net)", async () => {
    await ok('callTool', { tool: 'remote__echo', args: { text: `from local: ${LONG.argToken}` } });
    for (const format of ['jsonl', 'har'] as const) {
      const text = exportText(core, format);
      expect(text).toContain('from local: [redacted]');
      expectNoSecrets(`${format} export`, text);
    }
  });
});
