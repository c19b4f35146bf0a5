/**
 * `switchboard proxy --upstream URL` as users run it: the built CLI (`out/main/cli.js`, run
 * `npx electron-vite build` first) as a real process between the v2 client and the everything
 * fixture (another process). One stdout line (`LISTENING <url>`); the session recorded into the
 * library (kind proxy, the client's name in the meta, the upstream in the header) and into
 * `--record FILE`; a `--fault` flag seen by the client; SIGTERM closes the recording; a port in
 * use exits 4 with nothing on stdout.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

import { EVENTS_FILE, META_FILE } from '../../main/core/recordings/format';
import { startFixture, type RunningFixture } from '../fixtures/everything/harness';
import { until } from './support/proxy-http';

const ROOT = join(import.meta.dirname, '../..');
const CLI = join(ROOT, 'out/main/cli.js');

interface Running {
  child: ChildProcess;
  url: string;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

function startProxy(args: string[]): Promise<Running> {
  const child = spawn(process.execPath, [CLI, 'proxy', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no LISTENING line; stderr: ${stderr}`)), 20_000);
    const check = () => {
      const line = /^LISTENING (\S+)\n/.exec(stdout);
      if (line) {
        clearTimeout(timer);
        resolve({ child, url: line[1]!, stdout: () => stdout, stderr: () => stderr, exited });
      }
    };
    child.stdout!.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      if (!/^LISTENING /.test(stdout)) reject(Object.assign(new Error(`exited ${code}; stderr: ${stderr}`), { code, stdout, stderr }));
    });
  });
}

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, 'proxy', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

let dir: string;
let fixture: RunningFixture;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sb-proxy-http-cli-'));
  fixture = await startFixture({ transport: 'http', era: 'legacy' });
});
afterAll(async () => {
  await fixture?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('switchboard proxy --upstream (the built CLI, a real process)', () => {
  it('forwards, records into the library and --record FILE, applies --fault, and closes the recording on SIGTERM', async () => {
    const data = join(dir, 'data');
    const file = join(dir, 'trace.jsonl');
    const proxy = await startProxy(['--name', 'My HTTP server', '--upstream', fixture.url, '--data-dir', data, '--record', file, '--fault', 'http-error:status=500,method=tools/call,times=1']);
    expect(proxy.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(proxy.stdout()).toBe(`LISTENING ${proxy.url}\n`);
    await until(() => /^switchboard proxy: forwarding /m.test(proxy.stderr()), 'the forwarding line on stderr');

    const client = new Client({ name: 'cli-proxy-client', version: '4.5.6' }, { versionNegotiation: { mode: 'legacy' } });
    await client.connect(new StreamableHTTPClientTransport(new URL(proxy.url)));
    await expect(client.callTool({ name: 'echo', arguments: { text: 'one' } })).rejects.toThrow(/500/);
    const second = await client.callTool({ name: 'echo', arguments: { text: 'two' } });
    expect(JSON.stringify(second)).toContain('two');
    await client.close();

    proxy.child.kill('SIGTERM');
    expect(await proxy.exited).toBe(0);
    expect(proxy.stdout()).toBe(`LISTENING ${proxy.url}\n`);

    // the library: one recording of kind proxy, closed, with the proxy's info and the client's name
    const recordings = join(data, 'recordings');
    const [id] = readdirSync(recordings).filter((n) => !n.startsWith('.'));
    const meta = JSON.parse(readFileSync(join(recordings, id!, META_FILE), 'utf8')) as { kind: string; name: string; proxy?: { transport: string; target: string; listen?: string; client?: { name: string; version?: string } } };
    expect(meta.kind).toBe('proxy');
    expect(meta.name).toBe('My HTTP server');
    expect(meta.proxy).toMatchObject({ transport: 'http', target: fixture.url, listen: proxy.url, client: { name: 'cli-proxy-client', version: '4.5.6' } });
    const lines = readFileSync(join(recordings, id!, EVENTS_FILE), 'utf8').trim().split('\n');
    const header = JSON.parse(lines[0]!) as { servers: { id: string; target: { type: string; url: string } }[] };
    expect(header.servers[0]).toMatchObject({ id: 'my-http-server', target: { type: 'http', url: fixture.url } });
    const events = lines.slice(1).map((l) => JSON.parse(l) as { server: string; channel: string; kind: string; meta?: Record<string, unknown> });
    expect(events.every((e) => e.server === 'my-http-server')).toBe(true);
    expect(events.some((e) => e.kind === 'fault' && e.meta?.['fault'] === 'http-error')).toBe(true);
    expect(events.some((e) => e.channel === 'post-sse' && e.kind === 'sse-event')).toBe(true);

    // --record FILE: the same trace as JSONL
    const recorded = readFileSync(file, 'utf8').trim().split('\n');
    expect(recorded.length).toBeGreaterThan(5);
    expect(recorded.slice(1).some((l) => l.includes('"kind":"fault"'))).toBe(true);
  });

  it('a port in use: a clear message on stderr, exit 4, nothing on stdout', async () => {
    const taken = http.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as AddressInfo).port;
    try {
      const result = await run(['--name', 'x', '--upstream', fixture.url, '--port', String(port), '--no-library']);
      expect(result.code).toBe(4);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(new RegExp(`switchboard proxy: port ${port} on 127\\.0\\.0\\.1 is in use`));
    } finally {
      await new Promise<void>((resolve) => taken.close(() => resolve()));
    }
  });

  it('bad flags are usage errors: not a URL, a stdio-only fault', async () => {
    const notUrl = await run(['--name', 'x', '--upstream', 'nope', '--no-library']);
    expect(notUrl.code).toBe(2);
    expect(notUrl.stderr).toMatch(/--upstream "nope" is not a URL/);
    const stdioFault = await run(['--name', 'x', '--upstream', fixture.url, '--no-library', '--fault', 'jsonrpc-error']);
    expect(stdioFault.code).toBe(2);
    expect(stdioFault.stderr).toMatch(/jsonrpc-error cannot be (applied|injected) by (the|an) http proxy/i);
  });
});
