/**
 * Containment (issues #10 and #18): nothing a server sends can crash or hang the process.
 *
 * Drives the built browser-mode host (`out/main/web.js`, run with `npx electron-vite build`
 * first) over its WebSocket as a real client does (token header, allowed Origin), against the
 * "deep" fixture over stdio and Streamable HTTP: answers nested 5,000 levels, a notification
 * nested 100,000 levels pushed out of the trace window, a WebSocket frame over 16 MiB,
 * arguments nested 5,000 levels, answers over 64 MiB, and a throw inside a server's handling.
 * The CLI's `record` meets the same notification.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS, depthOf, isTruncationMarker } from '../../contract/bounded-json';
import type { Envelope } from '../../contract';
import type { TraceEvent } from '../../contract/trace';
import { forwardEvents, registerIpc } from '../../main/adapters/electron/ipc';
import { EventHub } from '../../main/core/events';
import { jsonlLines } from '../../main/core/trace/export-jsonl';
import { Redactor } from '../../main/core/trace/redact';
import { TraceStore } from '../../main/core/trace/store';
import { TrackedStdioTransport } from '../../main/core/transport/tracked-stdio';
import { startBrowserMode, type BrowserModeApp } from '../e2e/support/browser-mode';
import { tsxNodeArgs, type ListeningProcess } from '../fixtures/spawn-listening';
import { deepContentLine, deepNotificationLine, deepStdioCommand, deepStructuredLine, startDeepHttp } from '../fixtures/deep/harness';
import { HostClient as Client } from '../support/host-client';
import { exportOverHttp } from '../support/trace-export';

const ROOT = resolve(import.meta.dirname, '../..');
/** Over the 64 MiB limit for one message. */
const HUGE_BYTES = 64 * 1024 * 1024 + 1024 * 1024;

let app: BrowserModeApp;
let client: Client;
let http: ListeningProcess;
const ids: Record<string, string> = {};

async function addServer(name: string, target: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<string> {
  const status = await client.ok<{ id: string }>('addServer', { name, target, era: 'legacy', retries: 0, pingIntervalSec: 0, requestTimeoutSec: 300, ...extra });
  return status.id;
}

async function waitConnected(id: string): Promise<void> {
  const status = await client.ok<{ state: string; error?: string }>('connectServer', { id });
  if (status.state === 'connected') return;
  for (let i = 0; i < 300; i++) {
    const servers = await client.ok<{ id: string; state: string; error?: string }[]>('listServers');
    const server = servers.find((s) => s.id === id)!;
    if (server.state === 'connected') return;
    if (server.state === 'error') throw new Error(`server ${id} failed to connect: ${server.error}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`server ${id} did not connect: ${JSON.stringify((await client.ok<{ id: string }[]>('listServers')).find((s) => s.id === id))}`);
}

/** The host answers and a healthy neighbour server still does its work. */
async function expectAlive(): Promise<void> {
  expect(app.process.exitCode).toBeNull();
  expect((await client.ok<{ name: string }>('appInfo')).name).toBe('Switchboard');
  const echo = await client.ok<{ result: { content: { text: string }[] } }>('callTool', { tool: 'echo', serverId: ids.neighbour, args: { text: 'still here' } });
  expect(echo.result.content[0]!.text).toBe('still here');
}

/** Follows the single chain of a cut value down to its marker: [depth of the marker, the marker]. */
function findMarker(value: unknown): { depth: number; marker: Record<string, unknown> } | undefined {
  let node = value;
  for (let depth = 0; node && typeof node === 'object'; depth++) {
    if (isTruncationMarker(node)) return { depth, marker: node as unknown as Record<string, unknown> };
    node = Array.isArray(node) ? node[0] : Object.values(node)[0];
  }
  return undefined;
}

async function events(query: Record<string, unknown>): Promise<TraceEvent[]> {
  return (await client.ok<{ events: TraceEvent[] }>('traceQuery', { limit: 5000, ...query })).events;
}

describe('the built browser-mode host, over its WebSocket', () => {
  beforeAll(async () => {
    app = await startBrowserMode();
    client = await Client.open(app);
    http = await startDeepHttp();
    const stdio = deepStdioCommand();
    ids.stdio = await addServer('deep-stdio', { type: 'stdio', ...stdio, env: {} });
    ids.http = await addServer('deep-http', { type: 'http', url: http.url, transport: 'streamable-http' });
    ids.neighbour = await addServer('neighbour', { type: 'stdio', ...stdio, env: {} });
    // A server with a secret: its redactor has something to remove from every message.
    ids.secret = await addServer('deep-secret', { type: 'stdio', ...stdio, env: { DEEP_FIXTURE_TOKEN: 'fixture-secret-value' } });
    await Promise.all(Object.values(ids).map(waitConnected));
  }, 60_000);

  afterAll(async () => {
    client?.ws.close();
    await app?.close();
    await http?.close();
  });

  describe('answers nested deeper than the carriers can carry', () => {
    for (const via of ['stdio', 'http'] as const) {
      it(`5,000-deep structuredContent over ${via}: the reply arrives cut with a marker, the trace keeps the raw body`, async () => {
        const reply = await client.ok<{ result: { structuredContent: unknown }; traceSeq?: number }>('callTool', { tool: 'deep_structured', serverId: ids[via], args: { depth: 5000 } });
        const found = findMarker(reply.result.structuredContent);
        expect(found, 'a truncation marker in the reply').toBeDefined();
        expect(found!.marker.levels as number).toBeGreaterThan(4000);
        expect(depthOf(reply.result.structuredContent)).toBeLessThanOrEqual(LIMITS.carriedDepth);
        await expectAlive();

        // The trace holds the body exactly as it arrived.
        const kind = via === 'stdio' ? 'jsonrpc-in' : 'http-end';
        const answers = (await events({ servers: [ids[via]], kinds: [kind], order: 'desc', limit: 20 })).filter((e) => e.rpc?.kind === 'result' && e.raw !== undefined);
        expect(answers.length).toBeGreaterThan(0);
        const { event } = await client.ok<{ event: TraceEvent }>('traceEvent', { seq: answers[0]!.seq });
        expect(event.raw).toBe(deepStructuredLine(event.rpc!.id!, 5000));
      });
    }

    it('5,000-deep content over stdio: the reply arrives cut with a marker', async () => {
      const reply = await client.ok<{ result: { content: { _meta: unknown }[] } }>('callTool', { tool: 'deep_content', serverId: ids.stdio, args: { depth: 5000 } });
      expect(findMarker(reply.result.content[0]!._meta)).toBeDefined();
      const [answer] = (await events({ servers: [ids.stdio], kinds: ['jsonrpc-in'], order: 'desc', limit: 5 })).filter((e) => e.raw !== undefined);
      expect(answer!.raw).toBe(deepContentLine(answer!.rpc!.id!, 5000));
      await expectAlive();
    });

    it('a throw inside a server\'s handling (a deep message meeting a redactor with secrets) leaves the host serving', async () => {
      // Before containment, redacting this answer recursed in the stdout callback and ended the process.
      const reply = await client.ok<{ result: { structuredContent: unknown } }>('callTool', { tool: 'deep_structured', serverId: ids.secret, args: { depth: 20_000 } });
      expect(findMarker(reply.result.structuredContent)).toBeDefined();
      const servers = await client.ok<{ id: string; state: string }[]>('listServers');
      expect(servers.find((s) => s.id === ids.secret)!.state).toBe('connected');
      await expectAlive();
    });
  });

  describe('what a client sends', () => {
    it('a WebSocket frame over 16 MiB closes that socket with 1009; the host lives and a new socket works', async () => {
      const other = await Client.open(app);
      other.ws.send('x'.repeat(17 * 1000 * 1000));
      const closed = await other.closed;
      expect(closed.code).toBe(1009);
      await expectAlive();
      const fresh = await Client.open(app);
      expect((await fresh.ok<{ name: string }>('appInfo')).name).toBe('Switchboard');
      fresh.ws.close();
      const logs = await client.ok<{ lines: { text: string }[] }>('recentLogs');
      expect(logs.lines.some((l) => /1009/.test(l.text) && /16,777,216 bytes/.test(l.text))).toBe(true);
    });

    it('arguments nested 5,000 levels are refused with a clear invalid-arguments error', async () => {
      const args = `{"v":${'{"d":'.repeat(4999)}0${'}'.repeat(4999)}}`;
      const reply = await client.callText('callTool', `{"tool":"echo","serverId":${JSON.stringify(ids.neighbour)},"args":${args}}`);
      expect(reply.ok).toBe(false);
      if (reply.ok) return;
      expect(reply.error.code).toBe('invalid-arguments');
      expect(reply.error.message).toMatch(/arguments are nested 5,000 levels deep; Switchboard sends at most 64/);
      await expectAlive();
    });
  });

  describe('a notification nested 100,000 levels (#18 item 1)', () => {
    it('is recorded, pushed out of the window, spilled, read back, searched and exported', async () => {
      await client.ok('callTool', { tool: 'deep_notify', serverId: ids.stdio, args: { depth: 100_000 } });
      const [deep] = await events({ servers: [ids.stdio], text: 'deep-notification-100000', order: 'desc', limit: 1 });
      expect(deep).toBeDefined();
      // 25,000 later events push it out of the 20,000-event window into the spill file.
      await client.ok('callTool', { tool: 'flood', serverId: ids.stdio, args: { count: 25_000 } });
      const total = (await client.ok<{ total: number }>('traceQuery', { limit: 1 })).total;
      expect(total - deep!.seq).toBeGreaterThan(20_000);

      const { event } = await client.ok<{ event: TraceEvent }>('traceEvent', { seq: deep!.seq });
      expect(event.raw).toBe(deepNotificationLine(100_000));
      const found = await events({ text: 'deep-notification-100000' });
      expect(found.map((e) => e.seq)).toContain(deep!.seq);

      const exported = await exportOverHttp(app, 'jsonl');
      const seqField = new RegExp(`"seq":${deep!.seq}[,}]`);
      const line = exported.split('\n').find((l) => seqField.test(l.slice(0, 1000)));
      expect(line).toBeDefined();
      expect(line!.endsWith(`"body":${deepNotificationLine(100_000)}}`)).toBe(true);
      const har = JSON.parse(await exportOverHttp(app, 'har')) as { log: { entries: unknown[] } };
      expect(Array.isArray(har.log.entries)).toBe(true);
      await expectAlive();
    }, 120_000);

    it('over HTTP too, and the CLI records it to a whole file', async () => {
      await client.ok('callTool', { tool: 'deep_notify', serverId: ids.http, args: { depth: 100_000 } });
      const [sse] = await events({ servers: [ids.http], kinds: ['sse-event'], text: 'deep-notification-100000', limit: 1 });
      expect(sse!.raw).toBe(deepNotificationLine(100_000));

      const dir = mkdtempSync(join(tmpdir(), 'sb-containment-'));
      try {
        const out = join(dir, 'deep.jsonl');
        const { command, args } = deepStdioCommand();
        const stdioFlag = [command, ...args].map((w) => JSON.stringify(w)).join(' ');
        const cli = spawn(
          process.execPath,
          [join(ROOT, 'out/main/cli.js'), 'record', '--out', out, '--stdio', stdioFlag, '--call', 'deep_notify', '--args', '{"depth":100000}', '--call', 'flood', '--args', '{"count":25000}', '--data-dir', dir],
          { stdio: ['ignore', 'pipe', 'pipe'] },
        );
        let stderr = '';
        cli.stderr.on('data', (d) => (stderr += d));
        const code = await new Promise<number | null>((done) => cli.once('exit', done));
        expect(code, stderr).toBe(0);
        const lines = readFileSync(out, 'utf8').split('\n').filter(Boolean);
        const header = JSON.parse(lines[0]!) as { eventCount: number };
        expect(lines.length - 1).toBe(header.eventCount);
        expect(lines.some((l) => l.endsWith(`"body":${deepNotificationLine(100_000)}}`))).toBe(true);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }, 120_000);
  });

  describe('answers over the 64 MiB limit (#18 item 7)', () => {
    // The servers' request timeout is 300 s: an answer that arrives at all proves it was not waited out.
    for (const [via, stream] of [['stdio', false], ['http', false], ['http', true]] as const) {
      it(`over ${via}${stream ? ' (an SSE event)' : ''}: the call fails at once with a clear error, what arrived is kept in the trace`, async () => {
        const reply = await client.call('callTool', { tool: 'huge', serverId: ids[via], args: { bytes: HUGE_BYTES, stream } });
        expect(reply.ok).toBe(false);
        if (reply.ok) return;
        expect(reply.error.message).toMatch(/limit of 67,108,864 bytes \(64 MiB\) for one message/);
        expect(reply.error.message).toContain(via === 'stdio' ? 'stdout line' : stream ? 'event on the stream' : 'response body');
        const flagged = (await events({ servers: [ids[via]], errorsOnly: true, order: 'desc', limit: 20 })).find((e) => e.meta?.overLimit);
        expect(flagged).toBeDefined();
        expect((flagged!.meta!.overLimit as { received: number }).received).toBeGreaterThan(64 * 1024 * 1024);
        expect(flagged!.truncated).toBe(true);
        await expectAlive();
      }, 90_000);
    }
  });
});

describe('inside the core', () => {
  it('a throw while handling a server\'s stream output becomes that server\'s error: a trace event and onerror, not an uncaught exception', async () => {
    const recorded: { kind: string; text?: string }[] = [];
    const errors: Error[] = [];
    const transport = new TrackedStdioTransport(
      { command: process.execPath, args: ['-e', 'process.stderr.write("one\\n"); setTimeout(() => {}, 200)'], env: { PATH: process.env.PATH ?? '' } },
      {
        server: 'thrower',
        record: (event) => recorded.push(event),
        redactor: new Redactor(),
        onStderrLine: () => {
          throw new Error('a handler broke');
        },
      },
    );
    transport.onerror = (error) => errors.push(error);
    const exited = new Promise<void>((done) => (transport.onclose = done));
    await transport.start();
    await exited;
    expect(recorded.some((e) => e.kind === 'error' && /handling a stderr line from the server failed: a handler broke/.test(e.text ?? ''))).toBe(true);
    expect(errors.map((e) => e.message)).toEqual([expect.stringMatching(/a handler broke/)]);
  });

  it('an event too deep for JSON.stringify that arrives without its text (an import) is spilled, read back, searched and exported cut', () => {
    const store = new TraceStore({ windowSize: 10 });
    try {
      const body = JSON.parse(`{"marker":"needle-42","deep":${'['.repeat(100_000)}${']'.repeat(100_000)}}`) as unknown;
      const { seq } = store.append({ server: 's', channel: 'stdio', kind: 'jsonrpc-in', dir: 'in', body });
      for (let i = 0; i < 3000; i++) store.append({ server: 's', channel: 'stdio', kind: 'stderr', dir: 'in', text: `line ${i}` });
      const back = store.get(seq)!;
      expect(back.seq).toBe(seq);
      expect(findMarker((back.body as { deep: unknown }).deep)).toBeDefined();
      expect(store.query({ text: 'needle-42' }).events.map((e) => e.seq)).toEqual([seq]);
      const lines = [...jsonlLines({ app: { name: 'Switchboard', version: 'test' }, startedAt: 0, servers: [], events: store.all(), eventCount: store.size })];
      expect(lines).toHaveLength(store.size + 1);
      expect(lines[1]).toContain('$switchboard:truncated');
    } finally {
      store.close();
    }
  });

  it('Electron IPC: a deep result and a deep event payload are cut before Electron clones them', async () => {
    const deep = JSON.parse(`{"structuredContent":${'{"d":'.repeat(20_000)}0${'}'.repeat(20_000)}}`) as unknown;
    const handlers = new Map<string, (event: unknown, ...args: unknown[]) => unknown>();
    registerIpc({ handle: (channel, listener) => handlers.set(channel, listener), removeHandler: () => undefined }, async () => ({ ok: true, result: deep }), () => true);
    const reply = (await handlers.get('switchboard:callTool')!({}, {})) as Envelope;
    expect(reply.ok).toBe(true);
    // Electron's IPC uses the structured-clone algorithm: it must get through whole.
    const cloned = structuredClone(reply) as { result: unknown };
    expect(depthOf(cloned.result)).toBeLessThanOrEqual(LIMITS.carriedDepth);
    expect(findMarker(cloned.result)).toBeDefined();

    const hub = new EventHub();
    const sent: unknown[] = [];
    forwardEvents(hub, (_channel, payload) => sent.push(structuredClone(payload)));
    hub.emit('traceBatch', { events: [{ seq: 1, ts: 0, server: 's', channel: 'stdio', kind: 'jsonrpc-in', dir: 'in', body: deep }], total: 1 });
    expect(sent).toHaveLength(1);
    expect(depthOf(sent[0])).toBeLessThanOrEqual(LIMITS.carriedDepth);
  });

  for (const mode of ['serve', 'one-shot'] as const) {
    it(`process guards (${mode}): what escapes everything is reported on stderr and in the log bus; ${mode === 'serve' ? 'the process keeps serving' : 'a one-shot command exits 1'}`, async () => {
      const child = spawn(process.execPath, tsxNodeArgs(join(ROOT, 'test/fixtures/deep/guarded.ts'), [mode]), { stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      const code = await new Promise<number | null>((done) => child.once('exit', done));
      expect(stderr).toMatch(/an uncaught exception \(the app keeps running\): Error: thrown from a timer/);
      if (mode === 'serve') {
        expect(code, stderr).toBe(0);
        expect(stderr).toMatch(/an unhandled promise rejection .*rejected with nobody listening/);
        expect(stdout).toMatch(/still serving/);
        expect(stdout).toMatch(/error: Internal error, contained \(an uncaught exception\): Error: thrown from a timer/);
        expect(stdout).toMatch(/error: Internal error, contained \(an unhandled promise rejection\): Error: rejected with nobody listening/);
      } else {
        expect(code).toBe(1);
        expect(stdout).not.toMatch(/still serving/);
      }
    });
  }

  it('a listener that throws is reported, and the other listeners still get the event', () => {
    const reported: string[] = [];
    const hub = new EventHub();
    hub.reportListenerErrors((event, error) => reported.push(`${event}: ${(error as Error).message}`));
    const got: string[] = [];
    hub.subscribe(() => {
      throw new Error('socket gone');
    });
    hub.subscribe((event) => got.push(event));
    hub.emit('authChanged', { serverId: 'x' });
    expect(got).toEqual(['authChanged']);
    expect(reported).toEqual(['authChanged: socket gone']);
  });
});
