/**
 * The headless CLI as users run it (the built bin, real fixture servers), and the exports it
 * writes: HAR validated against the HAR 1.2 schema, a JSONL round trip, and redaction of a
 * bearer token and a secret env var that both crossed the wire.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJsonlTrace } from '../../main/core/trace/import-jsonl';
import { TraceStore } from '../../main/core/trace/store';
import { startFixture, stdioFixtureCommand, type RunningFixture } from '../fixtures/everything/harness';

const ROOT = join(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/switchboard.mjs');
const BEARER = 'sk-live-bearer-7f3a9c1e5d';
const ENV_SECRET = 'env-secret-value-42b8e0';

let dir: string;
let http: RunningFixture;

function cli(args: string[], timeout = 60_000): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd: ROOT, timeout }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sb-cli-'));
  http = await startFixture({ transport: 'http', era: 'legacy', sessions: true });
});

afterAll(async () => {
  await http?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('switchboard CLI', () => {
  it('prints the namespaced catalog of several servers from --config', async () => {
    const stdio = stdioFixtureCommand();
    const config = join(dir, 'servers.json');
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          local: { command: stdio.command, args: stdio.args },
          remote: { url: http.url },
          broken: { type: 'carrier-pigeon', url: 'x' },
        },
      }),
    );
    const { code, stdout, stderr } = await cli(['tools', '--config', config]);
    expect(stderr).toContain('server "broken" skipped');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^local__echo\s+Echoes/m);
    expect(stdout).toMatch(/^remote__add\s+/m);

    const json = await cli(['tools', '--config', config, '--server', 'remote', '--json']);
    const parsed = JSON.parse(json.stdout);
    expect(parsed.tools.every((t: { name: string }) => t.name.startsWith('remote__'))).toBe(true);
    expect(parsed.servers[0]).toMatchObject({ name: 'remote', state: 'connected', era: 'legacy' });
  });

  it('calls a tool and maps outcomes to exit codes', async () => {
    const ok = await cli(['call', 'add', '--args', '{"a":20,"b":22}', '--url', http.url, '--json']);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout).result.structuredContent).toEqual({ sum: 42 });

    const toolError = await cli(['call', 'fail', '--args', '{"message":"nope"}', '--url', http.url]);
    expect(toolError.code).toBe(5);
    expect(toolError.stdout).toContain('nope');

    const rpcError = await cli(['call', 'protocol_error', '--url', http.url]);
    expect(rpcError.code).toBe(5);

    const usage = await cli(['call', '--url', http.url]);
    expect(usage.code).toBe(2);
    const badJson = await cli(['call', 'echo', '--args', '{nope', '--url', http.url]);
    expect(badJson.code).toBe(2);
    expect(badJson.stderr).toContain('--args is not valid JSON');

    const unreachable = await cli(['call', 'echo', '--url', 'http://127.0.0.1:59998/mcp']);
    expect(unreachable.code).toBe(4);
    expect(unreachable.stderr).toContain('Connection refused at http://127.0.0.1:59998/mcp');

    const timeout = await cli(['call', 'slow_count', '--args', '{"steps":20,"delayMs":200}', '--timeout', '300ms', '--url', http.url]);
    expect(timeout.code).toBe(6);
  });

  it('records a session with secrets, and neither JSONL nor HAR contains them', async () => {
    const stdio = stdioFixtureCommand();
    const config = join(dir, 'secret-servers.json');
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          local: { command: stdio.command, args: stdio.args, env: { SECRET_TOKEN: ENV_SECRET } },
          remote: { url: http.url, headers: { Authorization: `Bearer ${BEARER}` } },
        },
      }),
    );
    const out = join(dir, 'secret.jsonl');
    const rec = await cli([
      'record', '--config', config, '--out', out, '--for', '200ms', '--data-dir', dir,
      '--call', 'local__echo', '--args', JSON.stringify({ text: `leak ${ENV_SECRET}` }),
      '--call', 'remote__echo', '--args', JSON.stringify({ text: `leak ${BEARER}` }),
    ]);
    expect(rec.stderr).toContain('recorded');
    expect(rec.code).toBe(0);
    const jsonl = readFileSync(out, 'utf8');
    const har = join(dir, 'secret.har');
    expect((await cli(['export', out, '--format', 'har', '--out', har])).code).toBe(0);
    const harText = readFileSync(har, 'utf8');

    // The calls really happened and the redaction markers stand where the secrets were.
    expect(jsonl).toContain('leak [redacted]');
    expect(jsonl).toContain('Bearer [redacted]');
    expect(harText).toContain('leak [redacted]');
    for (const text of [jsonl, harText]) {
      expect(text).not.toContain(BEARER);
      expect(text).not.toContain(ENV_SECRET);
    }
  });
});

describe('exports', () => {
  let jsonlPath: string;

  beforeAll(async () => {
    jsonlPath = join(dir, 'session.jsonl');
    const rec = await cli(['record', '--url', http.url, '--out', jsonlPath, '--data-dir', dir, '--call', 'slow_count', '--args', '{"steps":3,"delayMs":30}', '--call', 'echo', '--args', '{"text":"x"}']);
    expect(rec.code).toBe(0);
  });

  it('writes HAR that validates against the HAR 1.2 schema, with SSE events and MCP facts', async () => {
    const harPath = join(dir, 'session.har');
    expect((await cli(['export', jsonlPath, '--format', 'har', '--out', harPath])).code).toBe(0);
    const har = JSON.parse(readFileSync(harPath, 'utf8'));
    const require = createRequire(import.meta.url);
    const schemas = require('har-schema') as Record<string, { $id?: string; id?: string }>;
    const ajv = new Ajv({ allErrors: true, strict: false, validateSchema: false });
    addFormats(ajv);
    for (const [name, schema] of Object.entries(schemas)) ajv.addSchema(schema as object, `${name}.json`);
    const validate = ajv.getSchema('har.json')!;
    const valid = validate(har);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
    // The validator can fail: a HAR without a request method, or with a bad date, is rejected.
    const broken = structuredClone(har);
    delete broken.log.entries[0].request.method;
    broken.log.entries[1].startedDateTime = 'yesterday';
    expect(validate(broken)).toBe(false);

    const entries = har.log.entries as any[];
    const sse = entries.filter((e) => e._eventSourceMessages?.length);
    expect(sse.length).toBeGreaterThan(0);
    expect(sse[0]._eventSourceMessages[0]).toEqual(expect.objectContaining({ eventId: expect.any(String), eventName: expect.any(String), data: expect.any(String) }));
    expect(entries.some((e) => e._mcp.channel === 'post-sse' && e._mcp.rpc.some((r: any) => r.method === 'tools/call'))).toBe(true);
    expect(entries.some((e) => e.request.method === 'DELETE')).toBe(true);
  });

  it('round-trips JSONL: export → import → the same events, queryable offline', async () => {
    const first = await readJsonlTrace(jsonlPath);
    expect(first.problems).toEqual([]);
    expect(first.events.length).toBe(first.header.eventCount);
    const again = join(dir, 'again.jsonl');
    expect((await cli(['export', jsonlPath, '--format', 'jsonl', '--out', again])).code).toBe(0);
    const second = await readJsonlTrace(again);
    expect(second.events).toEqual(first.events);
    expect(first.events.map((e) => e.seq)).toEqual(first.events.map((_, i) => i + 1));

    // Offline viewing: the imported events load into a store with the same queries.
    const store = new TraceStore();
    try {
      for (const event of second.events) store.append(event);
      expect(store.query({ methods: ['tools/call'] }).events.length).toBeGreaterThan(0);
      expect(store.size).toBe(first.events.length);
    } finally {
      store.close();
    }
  });

  it('reports broken lines of an imported trace by number and keeps the rest', async () => {
    const lines = readFileSync(jsonlPath, 'utf8').split('\n');
    lines.splice(3, 0, '{not json', '{"seq":"x"}');
    const broken = join(dir, 'broken.jsonl');
    writeFileSync(broken, lines.join('\n'));
    const trace = await readJsonlTrace(broken);
    expect(trace.problems.map((p) => p.line)).toEqual([4, 5]);
    expect(trace.events.length).toBe(trace.header.eventCount);
  });
});
