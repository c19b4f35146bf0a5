/**
 * The stdio proxy as clients run it: the built `switchboard proxy` between a scripted client
 * (fixed lines written, every stdout byte captured) and real servers — the published
 * server-everything, our everything fixture in both eras, the flaky lab's garbage-stdout, a tiny
 * script writing invalid UTF-8 and CRLF. What the client receives through the proxy is identical,
 * byte for byte, to what it receives without it; the recording equals what a tracked stdio
 * connection records for the same exchange; exit codes, stderr, spawn failures, the client
 * closing stdin, a killed proxy, `--no-library --record FILE`, and faults from flags and from the
 * app's control file.
 *
 * Needs the build (`npx electron-vite build`): it runs bin/switchboard.mjs.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TraceEvent, TraceEventInput } from '../../contract/trace';
import { RecordingLibrary } from '../../main/core/recordings/library';
import { readFaultsState, writeFaultsRequest } from '../../main/core/proxy/control';
import { readJsonlTrace } from '../../main/core/trace/import-jsonl';
import { Redactor } from '../../main/core/trace/redact';
import { TrackedStdioTransport } from '../../main/core/transport/tracked-stdio';
import { stdioFixtureCommand } from '../fixtures/everything/harness';
import { flakyStdioCommand } from '../fixtures/flaky-server/harness';
import { legacySteps, modernSteps, notification, request, runScript, stdoutMessages, type ScriptStep } from './proxy-stdio-support';

const ROOT = join(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/switchboard.mjs');
const EVERYTHING = join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

let dir: string;
let n = 0;
const dataDir = () => join(dir, `data-${++n}`);

beforeAll(() => {
  if (!existsSync(join(ROOT, 'out/main/cli.js'))) throw new Error('build first: npx electron-vite build');
  dir = mkdtempSync(join(tmpdir(), 'sb-proxy-stdio-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const proxyArgs = (name: string, data: string | false, command: string, args: string[], extra: string[] = []) => [
  BIN,
  'proxy',
  '--name',
  name,
  ...(data === false ? ['--no-library'] : ['--data-dir', data]),
  '--quiet',
  ...extra,
  '--',
  command,
  ...args,
];

function viaProxy(name: string, data: string | false, command: string, args: string[], steps: ScriptStep[], extra: string[] = [], env?: NodeJS.ProcessEnv) {
  return runScript(process.execPath, proxyArgs(name, data, command, args, extra), steps, { env, cwd: ROOT });
}

/** The one recording in a data dir's library, its events in order. */
async function recordingOf(data: string): Promise<{ id: string; events: TraceEvent[]; summary: ReturnType<RecordingLibrary['list']>[number] }> {
  const library = new RecordingLibrary({ dir: join(data, 'recordings'), retentionIntervalMs: 0 });
  library.recover();
  const [summary] = library.list();
  if (!summary) throw new Error(`no recording in ${data}`);
  const opened = await library.open(summary.id);
  const events = [...opened.hub.store.all()];
  opened.hub.close();
  return { id: summary.id, events, summary };
}

/** Tiny server: echoes each request as a result holding invalid UTF-8, with CRLF endings, a garbage line between, and the hex of each line it read on stderr. */
const RAW_SCRIPT = [
  "let buf = Buffer.alloc(0);",
  "process.stdout.write(Buffer.from([0xef, 0xbb, 0xbf, 0x62, 0x61, 0x6e, 0x6e, 0x65, 0x72, 0xff, 0x0d, 0x0a]));",
  "process.stdin.on('data', (c) => { buf = Buffer.concat([buf, c]); let i; while ((i = buf.indexOf(10)) >= 0) { const line = buf.subarray(0, i); buf = buf.subarray(i + 1);",
  "  process.stderr.write('got ' + line.toString('hex') + '\\n');",
  "  let id = null; try { id = JSON.parse(line.toString('utf8')).id ?? null; } catch {}",
  "  if (id === null) continue;",
  "  process.stdout.write(Buffer.concat([Buffer.from('{\"jsonrpc\":\"2.0\",\"id\":' + JSON.stringify(id) + ',\"result\":{\"t\":\"'), Buffer.from([0xc3, 0x28, 0xe2, 0x82]), Buffer.from('\"}}\\r\\n')]));",
  "  process.stdout.write(Buffer.from([0x6e, 0x6f, 0x74, 0x20, 0xfe, 0x0a]));",
  "} });",
  "process.stdin.on('end', () => process.exit(0));",
].join('\n');

const rawSteps: ScriptStep[] = [
  { write: request(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } }), answer: 1 },
  // A CRLF line and a line with invalid UTF-8 inside a string, from the client: the server must read the same bytes.
  { write: Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":"'), Buffer.from([0xff, 0xc0]), Buffer.from('"}}\r\n')]), answer: 2 },
  { write: 'not json from the client\n' },
  { write: request(3, 'ping'), answer: 3 },
];

describe('byte identity: what the client receives is the same with and without the proxy', () => {
  const cases: { name: string; command: string; args: string[]; steps: ScriptStep[] }[] = [
    { name: 'server-everything (stdio)', command: process.execPath, args: [EVERYTHING, 'stdio'], steps: legacySteps() },
    { name: 'everything fixture, 2025 era', ...stdioFixtureCommand(['--era', 'legacy']), steps: legacySteps() },
    { name: 'everything fixture, 2026-07-28 era', ...stdioFixtureCommand(['--era', 'modern']), steps: modernSteps() },
    { name: 'flaky lab, garbage-stdout', ...flakyStdioCommand('garbage-stdout'), steps: legacySteps() },
    { name: 'invalid UTF-8 and CRLF', command: process.execPath, args: ['-e', RAW_SCRIPT], steps: rawSteps },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const direct = await runScript(c.command, c.args, c.steps, { cwd: ROOT });
      const data = dataDir();
      const proxied = await viaProxy(c.name, data, c.command, c.args, c.steps);
      expect(direct.code).toBe(0);
      expect(proxied.code, proxied.stderr).toBe(0);
      expect(proxied.stdout.length).toBeGreaterThan(0);
      expect(proxied.stdout.equals(direct.stdout), `stdout differs:\n${direct.stdout.toString('latin1').slice(0, 400)}\n---\n${proxied.stdout.toString('latin1').slice(0, 400)}`).toBe(true);
      // stderr passes through (the server's lines, in order).
      expect(proxied.stderr).toBe(direct.stderr);
      const { events } = await recordingOf(data);
      expect(events.filter((e) => e.kind === 'jsonrpc-out').length).toBeGreaterThanOrEqual(c.steps.filter((s) => String(s.write).startsWith('{')).length - 1);
      if (c.name === 'invalid UTF-8 and CRLF') {
        // The server read the client's bytes unchanged (it writes their hex on stderr).
        expect(proxied.stderr).toContain(`got ${Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":"'), Buffer.from([0xff, 0xc0]), Buffer.from('"}}\r')]).toString('hex')}`);
        expect(events.filter((e) => e.kind === 'stdout-garbage').length).toBe(4); // the banner and one after each answer
        expect(events.some((e) => e.kind === 'error' && e.dir === 'out' && (e.meta as { reason?: string })?.reason === 'not JSON')).toBe(true);
      }
      if (c.name === 'flaky lab, garbage-stdout') expect(events.some((e) => e.kind === 'stdout-garbage')).toBe(true);
    }, 120_000);
  }
});

/** What is compared: everything but time, sequence, pid and the environment. */
function comparable(event: TraceEventInput | TraceEvent) {
  const meta = event.meta as Record<string, unknown> | undefined;
  return {
    channel: event.channel,
    kind: event.kind,
    dir: event.dir,
    rpc: event.rpc,
    batch: event.batch,
    body: event.body,
    text: event.kind === 'spawn' ? undefined : event.text,
    bytes: event.bytes,
    meta: event.kind === 'spawn' ? { command: meta?.command, args: meta?.args } : meta,
  };
}

async function trackedEvents(command: string, args: string[], steps: ScriptStep[]): Promise<TraceEventInput[]> {
  const events: TraceEventInput[] = [];
  const answers = new Map<unknown, () => void>();
  const transport = new TrackedStdioTransport({ command, args, env: process.env as Record<string, string>, cwd: ROOT }, { server: 't', record: (e) => events.push(e), redactor: new Redactor() });
  transport.onmessage = (message) => answers.get((message as { id?: unknown }).id)?.();
  await transport.start();
  for (const step of steps) {
    const message = JSON.parse(String(step.write)) as Parameters<typeof transport.send>[0];
    const answered = step.answer === undefined ? undefined : new Promise<void>((resolve) => answers.set(step.answer, resolve));
    await transport.send(message);
    await answered;
  }
  await transport.close();
  return events;
}

describe('trace equality: the recording equals what a tracked stdio connection records', () => {
  for (const era of ['legacy', 'modern'] as const) {
    it(`everything fixture, ${era} era`, async () => {
      const { command, args } = stdioFixtureCommand(['--era', era]);
      const steps = era === 'legacy' ? legacySteps() : modernSteps();
      const tracked = await trackedEvents(command, args, steps);
      const data = dataDir();
      const proxied = await viaProxy(`equal ${era}`, data, command, args, steps);
      expect(proxied.code, proxied.stderr).toBe(0);
      const { events, summary } = await recordingOf(data);
      // Per stream in order (stdout and stderr are separate pipes: their interleaving is the scheduler's).
      const streams = (list: (TraceEventInput | TraceEvent)[]) => ({
        out: list.filter((e) => e.dir === 'out').map(comparable),
        in: list.filter((e) => e.dir === 'in' && e.kind !== 'stderr').map(comparable),
        stderr: list.filter((e) => e.kind === 'stderr').map(comparable),
        none: list.filter((e) => e.dir === 'none').map(comparable),
      });
      const a = streams(tracked);
      const b = streams(events);
      expect(b.out.length).toBe(steps.length);
      expect(b.in.length).toBeGreaterThanOrEqual(steps.filter((s) => s.answer !== undefined).length);
      expect(b).toEqual(a);
      expect(events.every((e) => e.server === summary.servers[0]!.id)).toBe(true);
      // The meta names the client from its initialize (2025) or the request's _meta (2026).
      expect(summary.proxy?.client?.name).toBe(era === 'legacy' ? 'scripted' : 'scripted-modern');
      expect(summary.proxy?.protocolVersion).toBe(era === 'legacy' ? '2025-06-18' : '2026-07-28');
      expect(summary.kind).toBe('proxy');
    }, 120_000);
  }
});

describe('the process', () => {
  it('passes the exit code through: 0, 3, and a signal as 128 + n', async () => {
    const zero = await viaProxy('exit 0', false, process.execPath, ['-e', 'process.exit(0)'], []);
    const three = await viaProxy('exit 3', false, process.execPath, ['-e', 'process.stderr.write("bye\\n"); process.exit(3)'], []);
    const killed = await viaProxy('signal', false, process.execPath, ['-e', 'process.kill(process.pid, "SIGTERM")'], []);
    expect(zero.code).toBe(0);
    expect(three.code).toBe(3);
    expect(three.stderr).toBe('bye\n');
    expect(killed.code).toBe(128 + 15);
  }, 60_000);

  it('a command that does not exist: a clear line on stderr, exit 127, recorded', async () => {
    const data = dataDir();
    const run = await viaProxy('missing', data, 'switchboard-no-such-command-xyz', ['--flag'], []);
    expect(run.code).toBe(127);
    expect(run.stderr).toMatch(/^switchboard proxy: cannot start "switchboard-no-such-command-xyz": no such command/m);
    expect(run.stdout.length).toBe(0);
    const { events } = await recordingOf(data);
    expect(events.some((e) => e.kind === 'error' && (e.meta as { code?: string }).code === 'ENOENT')).toBe(true);
  }, 60_000);

  it('the client closing stdin ends the server’s stdin; the exit is recorded as expected', async () => {
    const data = dataDir();
    const run = await viaProxy('eof', data, process.execPath, ['-e', 'process.stdin.resume(); process.stdin.on("end", () => { process.stderr.write("eof seen\\n"); process.exit(0); })'], [{ write: request(1, 'ping') }]);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('eof seen\n');
    const { events } = await recordingOf(data);
    const exit = events.find((e) => e.kind === 'exit');
    expect(exit?.meta).toMatchObject({ code: 0, expected: true });
  }, 60_000);

  it('SIGTERM to the proxy is passed to the server', async () => {
    const child = spawn(process.execPath, proxyArgs('term', false, process.execPath, ['-e', 'process.on("SIGTERM", () => { process.stderr.write("server got SIGTERM\\n"); process.exit(7); }); process.stderr.write("ready\\n"); setInterval(() => {}, 1000);']), { stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    await new Promise<void>((resolve) => child.stderr.on('data', (c: Buffer) => ((stderr += c.toString()), stderr.includes('ready') && resolve())));
    child.kill('SIGTERM');
    const code = await new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
    expect(stderr).toContain('server got SIGTERM');
    expect(code).toBe(7);
  }, 60_000);

  it('SIGKILL of the proxy: the library recovers its recording (unexpected, its events kept)', async () => {
    const data = dataDir();
    const { command, args } = stdioFixtureCommand(['--era', 'legacy']);
    const child = spawn(process.execPath, proxyArgs('killed', data, command, args), { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stdin.write(request(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'doomed', version: '1' } }));
    await new Promise<void>((resolve) => child.stdout.on('data', () => out.includes('"id":1') && resolve()));
    // The writer flushes every 200 ms: wait until the events are on disk (the recording's meta counts them).
    const recordings = join(data, 'recordings');
    await waitFor(() => {
      const [id] = readdirSync(recordings);
      return !!id && (JSON.parse(readFileSync(join(recordings, id, 'recording.json'), 'utf8')) as { events: number }).events >= 3;
    });
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('close', resolve));
    const list = await cli(['recordings', 'list', '--json', '--data-dir', data]);
    const listed = (JSON.parse(list.stdout) as { recordings: { name: string; ended: string; events: number; kind: string }[] }).recordings;
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ name: 'killed', kind: 'proxy', ended: 'unexpected' });
    expect(listed[0]!.events).toBeGreaterThanOrEqual(3);
  }, 60_000);

  it('--no-library --record FILE: a JSONL trace that imports whole, and no library written', async () => {
    const file = join(dir, 'headless.jsonl');
    const data = dataDir();
    const { command, args } = stdioFixtureCommand(['--era', 'legacy']);
    const run = await runScript(process.execPath, [BIN, 'proxy', '--name', 'headless', '--no-library', '--record', file, '--', command, ...args], legacySteps(), { cwd: ROOT, env: { ...process.env, XDG_CONFIG_HOME: data, HOME: data } });
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(join(data, 'switchboard'))).toBe(false);
    const imported = await readJsonlTrace(file);
    expect(imported.problems).toEqual([]);
    const kinds = imported.events.map((e) => e.kind);
    expect(kinds[0]).toBe('spawn');
    expect(kinds.at(-1)).toBe('exit');
    expect(kinds.filter((k) => k === 'jsonrpc-out')).toHaveLength(5);
    expect(imported.header.eventCount).toBe(imported.events.length);
  }, 60_000);

  it('startup: prints how long `proxy … -- node -e ""` takes against node alone', async () => {
    const time = async (argv: string[]) => {
      const start = performance.now();
      await runScript(process.execPath, argv, []);
      return performance.now() - start;
    };
    const bare: number[] = [];
    const proxied: number[] = [];
    const own: number[] = [];
    const fullCli: number[] = [];
    for (let i = 0; i < 3; i++) {
      bare.push(await time(['-e', '']));
      proxied.push(await time(proxyArgs('startup', false, process.execPath, ['-e', ''])));
      own.push(await time([BIN, 'proxy', '--help']));
      fullCli.push(await time([BIN, '--version']));
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[1]!;
    console.log(
      `proxy startup (median of 3): proxy + node -e '' ${median(proxied).toFixed(0)} ms vs node -e '' alone ${median(bare).toFixed(0)} ms (added ${(median(proxied) - median(bare)).toFixed(0)} ms, of which a second node process is one); ` +
        `the proxy's own start (proxy --help) ${median(own).toFixed(0)} ms vs the whole CLI's (--version) ${median(fullCli).toFixed(0)} ms`,
    );
    expect(proxied.length).toBe(3);
  }, 60_000);
});

describe('faults', () => {
  it('from --fault: a JSON-RPC error answered by the proxy, a dropped notification, latency — all in the trace', async () => {
    const data = dataDir();
    const { command, args } = stdioFixtureCommand(['--era', 'legacy']);
    const steps: ScriptStep[] = [
      ...legacySteps().slice(0, 2),
      { write: request(10, 'tools/call', { name: 'fail', arguments: {} }), answer: 10 },
      { write: request(11, 'tools/call', { name: 'log', arguments: { level: 'error', message: 'dropped?' } }), answer: 11 },
      { write: request(12, 'tools/list'), answer: 12 },
    ];
    const run = await viaProxy('faulty', data, command, args, steps, [
      '--fault',
      'jsonrpc-error:method=tools/call,code=-32099,message=injected,times=1',
      '--fault',
      'drop-notifications:notification=notifications/message',
      '--fault',
      'latency:ms=50,method=tools/list',
    ]);
    expect(run.code, run.stderr).toBe(0);
    const messages = stdoutMessages(run.stdout);
    expect(messages.find((m) => m.id === 10)).toEqual({ jsonrpc: '2.0', id: 10, error: { code: -32099, message: 'injected' } });
    expect(messages.find((m) => m.id === 11)).toMatchObject({ result: { content: [{ type: 'text', text: 'ok' }] } });
    expect(messages.some((m) => m.method === 'notifications/message')).toBe(false);
    expect(messages.find((m) => m.id === 12)).toHaveProperty('result.tools');
    const { events, id } = await recordingOf(data);
    const faults = events.filter((e) => e.kind === 'fault');
    expect(faults[0]!.meta).toMatchObject({ faults: [{ type: 'jsonrpc-error' }, { type: 'drop-notifications' }, { type: 'latency' }] });
    const applied = faults.map((e) => (e.meta as { fault?: string }).fault).filter(Boolean);
    expect(applied).toEqual(expect.arrayContaining(['jsonrpc-error', 'drop-notifications', 'latency']));
    // The server never saw request 10; the notification it sent is in the trace though the client never got it.
    expect(events.some((e) => e.kind === 'jsonrpc-in' && e.rpc?.id === 10 && !(e.meta as { injected?: boolean } | undefined)?.injected)).toBe(false);
    expect(events.some((e) => e.kind === 'jsonrpc-in' && e.rpc?.id === 10 && (e.meta as { injected?: boolean }).injected)).toBe(true);
    expect(events.some((e) => e.kind === 'jsonrpc-in' && e.rpc?.method === 'notifications/message')).toBe(true);
    const state = readFaultsState(join(data, 'recordings', id));
    expect(state?.armed.map((a) => [a.fault.type, a.hits])).toEqual([
      ['jsonrpc-error', 1],
      ['drop-notifications', 1],
      ['latency', 1],
    ]);
  }, 120_000);

  it('from the app (faults-request.json): applied while running, refused when the transport cannot act on it, counted in faults-state.json', async () => {
    const data = dataDir();
    const { command, args } = stdioFixtureCommand(['--era', 'legacy']);
    const child = spawn(process.execPath, proxyArgs('controlled', data, command, args), { stdio: ['pipe', 'pipe', 'pipe'], cwd: ROOT });
    const out: Buffer[] = [];
    const answered = (id: number) => waitFor(() => stdoutMessages(Buffer.concat(out)).some((m) => m.id === id));
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stdin.write(legacySteps()[0]!.write);
    await answered(1);
    child.stdin.write(notification('notifications/initialized'));
    const recordings = join(data, 'recordings');
    const recDir = join(recordings, readdirSync(recordings)[0]!);
    // A fault the stdio proxy cannot act on: refused, nothing changes.
    writeFaultsRequest(recDir, [{ type: 'http-error', status: 503 }]);
    await waitFor(() => readFaultsState(recDir)?.seq === 1);
    expect(readFaultsState(recDir)).toMatchObject({ seq: 1, armed: [] });
    expect(readFaultsState(recDir)?.refused).toMatch(/http-error/);
    writeFaultsRequest(recDir, [{ type: 'jsonrpc-error', method: 'tools/list', code: -32001, message: 'from the app' }]);
    await waitFor(() => readFaultsState(recDir)?.seq === 2);
    child.stdin.write(request(5, 'tools/list'));
    await answered(5);
    expect(stdoutMessages(Buffer.concat(out)).find((m) => m.id === 5)).toEqual({ jsonrpc: '2.0', id: 5, error: { code: -32001, message: 'from the app' } });
    await waitFor(() => readFaultsState(recDir)?.armed[0]?.hits === 1);
    // Switched off again: the next request reaches the server.
    writeFaultsRequest(recDir, []);
    await waitFor(() => readFaultsState(recDir)?.seq === 3);
    child.stdin.write(request(6, 'tools/list'));
    await answered(6);
    expect(stdoutMessages(Buffer.concat(out)).find((m) => m.id === 6)).toHaveProperty('result.tools');
    child.stdin.end();
    expect(await new Promise((resolve) => child.once('close', resolve))).toBe(0);
    const { events } = await recordingOf(data);
    const changes = events.filter((e) => e.kind === 'fault' && (e.meta as { faults?: unknown[] }).faults);
    expect(changes.map((e) => (e.meta as { faults: { type: string }[] }).faults.map((f) => f.type))).toEqual([[], ['jsonrpc-error'], []]);
    expect(changes[0]!.text).toMatch(/refused/);
  }, 120_000);
});

async function waitFor(check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (check()) return;
    } catch {
      // not there yet
    }
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runScript(process.execPath, [BIN, ...args], []).then((run) => ({ code: run.code, stdout: run.stdout.toString('utf8'), stderr: run.stderr }));
}

describe('secrets', () => {
  it('a secret-named env value and a --token argument reach the server and the client untouched, never the recording', async () => {
    const data = dataDir();
    const secret = 'sk-live-proxy-secret-4242';
    const argSecret = 'arg-secret-value-9999';
    const script = 'process.stdin.on("data", (c) => { const id = JSON.parse(c.toString()).id; process.stderr.write("key " + process.env.MY_API_KEY + " " + process.argv[2] + "\\n"); process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id, result: { echoed: process.env.MY_API_KEY, arg: process.argv[2] } }) + "\\n"); }); process.stdin.on("end", () => process.exit(0));';
    const file = join(dir, 'secret.jsonl');
    const run = await viaProxy('secrets', data, process.execPath, ['-e', script, '--', '--token', argSecret], [{ write: request(1, 'ping'), answer: 1 }], ['--record', file], { ...process.env, MY_API_KEY: secret });
    expect(run.code, run.stderr).toBe(0);
    expect(stdoutMessages(run.stdout)[0]).toMatchObject({ result: { echoed: secret, arg: argSecret } });
    expect(run.stderr).toContain(secret);
    const recordings = join(data, 'recordings');
    const recDir = join(recordings, readdirSync(recordings)[0]!);
    for (const name of readdirSync(recDir)) {
      const text = readFileSync(join(recDir, name), 'latin1');
      expect(text, name).not.toContain(secret);
      expect(text, name).not.toContain(argSecret);
    }
    const exported = readFileSync(file, 'utf8');
    expect(exported).not.toContain(secret);
    expect(exported).not.toContain(argSecret);
    expect(exported).toContain('[redacted]');
  }, 60_000);
});
