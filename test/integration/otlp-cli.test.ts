/**
 * The OTLP flags of the built CLI (`out/main/cli.js`: run `npx electron-vite build` first), real
 * processes against the everything fixture and a real OTLP/HTTP endpoint in this test:
 * - `proxy --upstream URL --otlp URL --otlp-header`: spans stream while the proxy runs; a
 *   client's `_meta.traceparent` is the span's parent; the header reaches the endpoint;
 * - `proxy --otlp -- CMD` (stdio): the same, with the pipe transport;
 * - `proxy --otlp` to a port nothing listens on: the client is served all the same, one warning;
 * - `record --otlp`, then `export FILE.jsonl --format otlp --out`, `export FILE.jsonl --otlp`,
 *   `recordings export ID --format otlp`.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { freePort, until } from '../support/core-calls';
import { attributeMap, startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver';
import { startFixture, stdioFixtureCommand, type RunningFixture } from '../fixtures/everything/harness';

const ROOT = join(import.meta.dirname, '../..');
const CLI = join(ROOT, 'out/main/cli.js');
const TOKEN = 'cli-collector-token-2d8e61';
const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const PARENT = 'b7ad6b7169203331';

let dir: string;
let fixture: RunningFixture;
let receiver: OtlpReceiver;

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { cwd: ROOT, timeout: 60_000 }, (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }));
  });
}

async function startProxy(args: string[]): Promise<{ child: ChildProcess; url: string; stderr: () => string; exited: Promise<number | null> }> {
  const child = spawn(process.execPath, [CLI, 'proxy', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const url = await until('the LISTENING line', () => /^LISTENING (\S+)\n/.exec(stdout)?.[1]);
  return { child, url, stderr: () => stderr, exited };
}

async function clientOf(url: string): Promise<Client> {
  const client = new Client({ name: 'otlp-cli-client', version: '1.0.0' }, { versionNegotiation: { mode: 'legacy' } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sb-otlp-cli-'));
  fixture = await startFixture({ transport: 'http', era: 'legacy', sessions: true });
  receiver = await startOtlpReceiver();
});

afterAll(async () => {
  await fixture?.close();
  await receiver?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('switchboard --otlp', () => {
  it('proxy streams spans live, honours the client\'s traceparent and sends the auth header', async () => {
    receiver.requests.length = 0;
    const proxy = await startProxy(['--name', 'Traced', '--upstream', fixture.url, '--no-library', '--quiet', '--otlp', receiver.url, '--otlp-header', `Authorization: Bearer ${TOKEN}`]);
    const client = await clientOf(proxy.url);
    await client.callTool({ name: 'add', arguments: { a: 1, b: 2 }, _meta: { traceparent: `00-${TRACE_ID}-${PARENT}-01` } });
    // Live: the span arrives while the proxy still runs.
    const span = await until('the tools/call span at the endpoint', () => receiver.spans().find((s) => s.name === 'tools/call add'));
    expect(span.traceId).toBe(TRACE_ID);
    expect(span.parentSpanId).toBe(PARENT);
    expect(span.kind).toBe(3); // CLIENT: the client behind the proxy asked
    expect(span.resource['service.name']).toBe('Traced');
    expect(attributeMap(span.attributes)).toMatchObject({ 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'add' });
    expect(receiver.requests[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    await client.close();
    proxy.child.kill('SIGTERM');
    expect(await proxy.exited).toBe(0);
    expect(proxy.stderr()).not.toContain(TOKEN);
    expect(receiver.spans().map((s) => s.name)).toContain('initialize');
  });

  it('the stdio proxy streams spans too (pipe transport) while the client is served through it', async () => {
    receiver.requests.length = 0;
    const server = stdioFixtureCommand();
    const client = new Client({ name: 'otlp-stdio-client', version: '1.0.0' }, { versionNegotiation: { mode: 'legacy' } });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [CLI, 'proxy', '--name', 'Piped', '--no-library', '--quiet', '--otlp', receiver.url, '--', server.command, ...server.args], stderr: 'pipe' }),
    );
    expect(JSON.stringify(await client.callTool({ name: 'add', arguments: { a: 20, b: 22 } }))).toContain('42');
    const span = await until('the stdio tools/call span', () => receiver.spans().find((s) => s.name === 'tools/call add'));
    expect(span.resource['service.name']).toBe('Piped');
    expect(attributeMap(span.attributes)['network.transport']).toBe('pipe');
    await client.close();
  });

  it('proxy: an endpoint that is down never stops the session, and is told once', async () => {
    const dead = `http://127.0.0.1:${await freePort()}`;
    const proxy = await startProxy(['--name', 'Down', '--upstream', fixture.url, '--no-library', '--quiet', '--otlp', dead, '--otlp-header', `x-api-key: ${TOKEN}`]);
    const client = await clientOf(proxy.url);
    for (let i = 0; i < 3; i++) expect(JSON.stringify(await client.callTool({ name: 'add', arguments: { a: i, b: 1 } }))).toContain(String(i + 1));
    await until('the warning', () => (/OTLP: .* did not take the spans/.test(proxy.stderr()) ? true : undefined), 20_000);
    expect(JSON.stringify(await client.callTool({ name: 'echo', arguments: { text: 'still here' } }))).toContain('still here');
    await client.close();
    proxy.child.kill('SIGTERM');
    expect(await proxy.exited).toBe(0);
    expect(proxy.stderr().match(/OTLP:/g)).toHaveLength(1);
    expect(proxy.stderr()).not.toContain(TOKEN);
  });

  it('record --otlp, export --format otlp, export --otlp, recordings export --format otlp', async () => {
    receiver.requests.length = 0;
    const data = join(dir, 'data');
    const trace = join(dir, 'session.jsonl');
    const recorded = await cli(['record', '--url', fixture.url, '--name', 'otlp run', '--call', 'add', '--args', '{"a":5,"b":6}', '--out', trace, '--data-dir', data, '--otlp', receiver.url, '--json']);
    expect(recorded.code, recorded.stderr).toBe(0);
    const live = receiver.spans().map((s) => s.name);
    expect(live).toEqual(expect.arrayContaining(['initialize', 'tools/list', 'tools/call add']));

    const out = join(dir, 'session.otlp.json');
    const exported = await cli(['export', trace, '--format', 'otlp', '--out', out]);
    expect(exported.code, exported.stderr).toBe(0);
    const file = JSON.parse(readFileSync(out, 'utf8')) as { resourceSpans: { scopeSpans: { spans: { name: string }[] }[] }[] };
    expect(file.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans.map((s) => s.name)))).toEqual(expect.arrayContaining(['initialize', 'tools/call add']));

    receiver.requests.length = 0;
    const sent = await cli(['export', trace, '--otlp', `${receiver.url}/v1/traces`]);
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stderr).toMatch(/sent \d+ spans to http:\/\/127\.0\.0\.1:\d+\/v1\/traces in 1 request/);
    expect(receiver.spans().map((s) => s.name)).toContain('tools/call add');

    const refused = await cli(['export', trace, '--otlp', 'ftp://nowhere']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--otlp');

    const { recording } = JSON.parse(recorded.stdout) as { recording: string };
    const fromLibrary = await cli(['recordings', 'export', recording, '--format', 'otlp', '--data-dir', data]);
    expect(fromLibrary.code, fromLibrary.stderr).toBe(0);
    const parsed = JSON.parse(fromLibrary.stdout) as { resourceSpans: { resource: { attributes: { key: string; value: { stringValue?: string } }[] } }[] };
    expect(parsed.resourceSpans[0]!.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue).toBeTruthy();
  });
});
