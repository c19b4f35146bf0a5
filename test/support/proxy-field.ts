/**
 * The proxy's field matrix: servers nobody here wrote (the published server-everything in its
 * three transports) and our everything fixture in both eras, each run by a client directly and
 * then through the real `switchboard proxy` (stdio or HTTP), with what the client got compared
 * and the proxy's recording read back from the library. Used by test/integration/proxy-field*.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import type { RecordingSummary } from '../../contract';
import { startFixture, stdioFixtureCommand, type RunningFixture } from '../fixtures/everything/harness';
import { CLIENT_NAMES, MODERN_PROTOCOL, runSession, type FieldClient, type SessionResult, type Step, type StepResult, type Target } from './proxy-clients';
import { answeredMethods, assertBuilt, EVERYTHING_BIN, listRecordings, readRecording, startEverything, startHttpProxy, stdioProxyCommand, waitForRecordings, type EverythingServer, type ReadRecording } from './proxy-run';

export type Era = '2025-11-25' | typeof MODERN_PROTOCOL;

export interface FieldServer {
  label: string;
  transport: Target['type'];
  era: Era;
  plan: Step[];
  /** Where a client connects directly (stdio: a fresh process per session). */
  target(): Target;
}

const ECHO_TEXT = 'hello from the field';

/** server-everything's surface: its echo, a static document, its argument-free prompt. */
const EVERYTHING_PLAN: Step[] = [
  { method: 'tools/list' },
  { method: 'tools/call', name: 'echo', arguments: { message: ECHO_TEXT } },
  { method: 'resources/read', uri: 'demo://resource/static/document/features.md' },
  { method: 'prompts/get', name: 'simple-prompt' },
];

/** Our fixture's: echo, the readme, the greeting prompt with an argument. */
const FIXTURE_PLAN: Step[] = [
  { method: 'tools/list' },
  { method: 'tools/call', name: 'echo', arguments: { text: ECHO_TEXT } },
  { method: 'resources/read', uri: 'fixture://readme' },
  { method: 'prompts/get', name: 'greet', arguments: { name: 'Ada' } },
];

/** The shared HTTP server processes (one each, every client opens its own session on it). */
export interface FieldServers {
  servers: Record<'everythingStdio' | 'everythingHttp' | 'everythingSse' | 'fixtureStdio' | 'fixtureStdioModern' | 'fixtureHttp' | 'fixtureHttpModern', FieldServer>;
  close(): Promise<void>;
}

export async function startFieldServers(): Promise<FieldServers> {
  const running: { close(): Promise<void> }[] = [];
  try {
    const everythingHttp: EverythingServer = await startEverything('streamableHttp');
    running.push(everythingHttp);
    const everythingSse: EverythingServer = await startEverything('sse');
    running.push(everythingSse);
    const fixtureHttp: RunningFixture = await startFixture({ transport: 'http', era: 'both' });
    running.push(fixtureHttp);
    const fixtureStdio = stdioFixtureCommand();
    const stdio = (command: string, args: string[]) => (): Target => ({ type: 'stdio', command, args });
    const legacy: Era = '2025-11-25';
    return {
      servers: {
        everythingStdio: { label: 'server-everything (stdio)', transport: 'stdio', era: legacy, plan: EVERYTHING_PLAN, target: stdio(process.execPath, [EVERYTHING_BIN, 'stdio']) },
        everythingHttp: { label: 'server-everything (Streamable HTTP)', transport: 'http', era: legacy, plan: EVERYTHING_PLAN, target: () => ({ type: 'http', url: everythingHttp.url }) },
        everythingSse: { label: 'server-everything (legacy SSE)', transport: 'sse', era: legacy, plan: EVERYTHING_PLAN, target: () => ({ type: 'sse', url: everythingSse.url }) },
        fixtureStdio: { label: 'everything fixture (stdio, 2025-11-25)', transport: 'stdio', era: legacy, plan: FIXTURE_PLAN, target: stdio(fixtureStdio.command, fixtureStdio.args) },
        fixtureStdioModern: { label: 'everything fixture (stdio, 2026-07-28)', transport: 'stdio', era: MODERN_PROTOCOL, plan: FIXTURE_PLAN, target: stdio(fixtureStdio.command, fixtureStdio.args) },
        fixtureHttp: { label: 'everything fixture (Streamable HTTP, 2025-11-25)', transport: 'http', era: legacy, plan: FIXTURE_PLAN, target: () => ({ type: 'http', url: fixtureHttp.url }) },
        fixtureHttpModern: { label: 'everything fixture (Streamable HTTP, 2026-07-28)', transport: 'http', era: MODERN_PROTOCOL, plan: FIXTURE_PLAN, target: () => ({ type: 'http', url: fixtureHttp.url }) },
      },
      close: async () => {
        await Promise.allSettled(running.map((r) => r.close()));
      },
    };
  } catch (error) {
    await Promise.allSettled(running.map((r) => r.close()));
    throw error;
  }
}

/**
 * For a test file: the built CLI checked, the shared servers started and a temporary root made
 * before its tests, all stopped and removed after. Read the fields inside tests.
 */
export function useField(): { field: FieldServers; root: string } {
  const state = {} as { field: FieldServers; root: string };
  beforeAll(async () => {
    assertBuilt();
    state.root = fieldRoot();
    state.field = await startFieldServers();
  }, 90_000);
  afterAll(async () => {
    await state.field?.close();
    if (state.root) rmSync(state.root, { recursive: true, force: true });
  });
  return state;
}

export interface CellOutcome {
  plan: Step[];
  direct: SessionResult;
  proxied: SessionResult;
  recordings: RecordingSummary[];
  read: ReadRecording[];
  dataDir: string;
}

/** A fresh data directory under `root` (the test removes `root`). */
export function freshDataDir(root: string, label: string): string {
  return mkdtempSync(join(root, `${label.replace(/[^a-z0-9]+/gi, '-').slice(0, 40)}-`));
}

export function fieldRoot(): string {
  return mkdtempSync(join(tmpdir(), 'switchboard-proxy-field-'));
}

/** The methods a cell's recording must hold answered: the plan's, and `initialize` in the 2025 era. */
function wantedMethods(server: FieldServer, plan: Step[]): string[] {
  return [...new Set([...(server.era === MODERN_PROTOCOL ? [] : ['initialize']), ...plan.map((s) => s.method)])];
}

/** Waits (bounded; it never fails) until the data directory's proxy recordings hold every wanted method answered. */
async function recordedAnswers(dataDir: string, wanted: string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const answered = new Set<string>();
    for (const summary of listRecordings(dataDir).filter((r) => r.kind === 'proxy')) {
      for (const method of answeredMethods((await readRecording(dataDir, summary.id)).events)) answered.add(method);
    }
    if (wanted.every((m) => answered.has(m))) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * How many stdio proxies (so recordings) one session of the client starts. The Inspector CLI is
 * one process per method. The 2.x SDK's StdioClientTransport, pinned to the 2026 era, sends its
 * `server/discover` probe to a short-lived sibling process spawned from the same command line
 * (so a server that exits on an unknown first request is simply legacy), then starts the real
 * one: through a proxy, that is two proxied sessions, the first holding only the probe.
 */
export function stdioProxiesPerSession(client: FieldClient, plan: Step[]): number {
  if (client === 'inspector-cli') return plan.length;
  return client === 'sdk-v2-modern' ? 2 : 1;
}

/**
 * One cell: the client against the server directly, then through the proxy (a fresh data
 * directory), and the proxy's recordings once every one of them has ended.
 */
export async function runCell(client: FieldClient, server: FieldServer, root: string, plan: Step[] = server.plan): Promise<CellOutcome> {
  const direct = await runSession(client, server.target(), plan);
  const name = `field ${client} ${server.label}`;
  const dataDir = freshDataDir(root, `${client}-${server.label}`);
  const target = server.target();
  let proxied: SessionResult;
  if (target.type === 'stdio') {
    proxied = await runSession(client, { ...target, ...stdioProxyCommand({ name, dataDir, command: target.command, args: target.args }) }, plan);
  } else {
    const proxy = await startHttpProxy({ name, dataDir, upstream: target.url, ...(target.type === 'sse' ? { transport: 'sse' as const } : {}) });
    try {
      proxied = await runSession(client, { type: target.type, url: proxy.url }, plan);
      // Stopped once its live recording holds every answer, or after 5 s: once (of three
      // runs) an answer the client had got was missing from a recording stopped right away.
      await recordedAnswers(dataDir, wantedMethods(server, plan), 5_000);
    } finally {
      await proxy.close();
    }
  }
  const expected = target.type === 'stdio' ? stdioProxiesPerSession(client, plan) : 1;
  const recordings = await waitForRecordings(dataDir, (r) => r.kind === 'proxy', expected);
  const read = await Promise.all(recordings.map((r) => readRecording(dataDir, r.id)));
  return { plan, direct, proxied, recordings, read, dataDir };
}

/** What a step result is compared by: everything the client got, as JSON. */
const failures = (steps: StepResult[]): StepResult[] => steps.filter((s) => s.error !== undefined);

/** The cell's assertions: same results with and without the proxy, a `proxy` recording naming the client, the exchange in its events. */
export function expectCell(client: FieldClient, server: FieldServer, outcome: CellOutcome): void {
  const { direct, proxied, recordings, read } = outcome;
  const context = `${client} × ${server.label}\n--- proxied stderr ---\n${proxied.stderr.slice(-4000)}`;
  expect(failures(direct.steps), `direct: ${client} × ${server.label}`).toEqual([]);
  expect(failures(proxied.steps), context).toEqual([]);
  expect(proxied.steps, context).toEqual(direct.steps);

  for (const recording of recordings) {
    expect(recording.kind).toBe('proxy');
    expect(recording.ended, `${recording.name}: ended`).toBe('clean');
    expect(recording.proxy?.name).toBe(`field ${client} ${server.label}`);
    expect(recording.proxy?.transport).toBe(server.transport === 'stdio' ? 'stdio' : 'http');
    expect(recording.proxy?.client?.name, `${recording.name}: the client's name from clientInfo`).toBe(CLIENT_NAMES[client]);
    expect(recording.proxy?.protocolVersion, `${recording.name}: the protocol version`).toBe(server.era);
  }
  const answered = new Set(read.flatMap((r) => answeredMethods(r.events)));
  const wanted = wantedMethods(server, outcome.plan);
  expect([...answered].filter((m) => wanted.includes(m)).sort(), `methods answered in the proxy's recording(s): ${[...answered].join(', ')}`).toEqual(wanted.sort());
  // The events carry the recording's own server (the config in its header).
  for (const r of read) {
    const ids = new Set(r.configs.map((c) => c.id));
    expect(r.events.length).toBeGreaterThan(0);
    expect(r.events.filter((e) => !ids.has(e.server)).map((e) => e.server)).toEqual([]);
  }
}
