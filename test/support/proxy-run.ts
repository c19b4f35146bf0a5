/**
 * Runs the built `switchboard proxy` (bin/switchboard.mjs → out/main/cli.js; `npx electron-vite build`
 * first) the way a person does, and reads back what it recorded into the library.
 *
 *   stdio: stdioProxyCommand({name, dataDir, command, args}) → {command, args} a client spawns as its server
 *   http:  await startHttpProxy({name, dataDir, upstream}) → {url, close()} once it printed `LISTENING <url>`
 *   then:  await proxyRecordings(dataDir) / await readRecording(dataDir, id)
 *
 * Also the published server-everything in its three modes as separate processes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RecordingSummary, ServerConfig } from '../../contract';
import type { TraceEvent } from '../../contract/trace';
import { RecordingLibrary } from '../../main/core/recordings/library';
import { spawnListening, type ListeningProcess } from '../fixtures/spawn-listening';
import { freePort } from './core-calls';

const require = createRequire(import.meta.url);
const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** The `switchboard` command as installed (runs the built CLI). */
export const SWITCHBOARD_BIN = join(REPO, 'bin', 'switchboard.mjs');
/** The published reference server's entry point. */
export const EVERYTHING_BIN = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');

/** Fails early, in words, when the CLI was not built. */
export function assertBuilt(): void {
  if (!existsSync(join(REPO, 'out', 'main', 'cli.js'))) throw new Error('out/main/cli.js is missing: run `npx electron-vite build` first');
}

export interface ProxyArgs {
  name: string;
  /** A fresh temporary directory: the proxy records into `<dataDir>/recordings`. */
  dataDir: string;
  /** More proxy flags (`--fault …`, `--record FILE`, …). */
  extra?: string[];
}

/** The proxy's own flags, before the server's command line or `--upstream`. */
function proxyFlags(o: ProxyArgs): string[] {
  return ['proxy', '--name', o.name, '--data-dir', o.dataDir, ...(o.extra ?? [])];
}

/** What a client launches instead of the server: `node bin/switchboard.mjs proxy --name N --data-dir D -- CMD ARGS…`. */
export function stdioProxyCommand(o: ProxyArgs & { command: string; args: string[] }): { command: string; args: string[] } {
  return { command: process.execPath, args: [SWITCHBOARD_BIN, ...proxyFlags(o), '--', o.command, ...o.args] };
}

/** `switchboard proxy --upstream URL --port 0` until it prints `LISTENING <client URL>`. */
export function startHttpProxy(o: ProxyArgs & { upstream: string; transport?: 'sse' }): Promise<ListeningProcess> {
  const cli = [...proxyFlags(o), '--upstream', o.upstream, '--port', '0', ...(o.transport ? ['--transport', o.transport] : [])];
  return spawnListening(`switchboard proxy "${o.name}"`, SWITCHBOARD_BIN, cli, 30_000, [SWITCHBOARD_BIN, ...cli]);
}

// ---------------------------------------------------------------------------------------
// The library, read back

/** The library of a data directory, read-only use (nothing repaired, no retention). */
function library(dataDir: string): RecordingLibrary {
  return new RecordingLibrary({ dir: join(dataDir, 'recordings'), retentionIntervalMs: 0 });
}

/** Every recording in the data directory's library, newest first. */
export function listRecordings(dataDir: string): RecordingSummary[] {
  return library(dataDir).list();
}

export interface ReadRecording {
  summary: RecordingSummary;
  configs: ServerConfig[];
  events: TraceEvent[];
}

/** One recording's summary, header configs and every event (full payloads). */
export async function readRecording(dataDir: string, id: string): Promise<ReadRecording> {
  const opened = await library(dataDir).open(id);
  try {
    const events: TraceEvent[] = [];
    for (const event of opened.hub.store.all()) {
      events.push(event.truncated ? { ...event, body: opened.hub.store.payload(event.seq), truncated: false } : event);
    }
    return { summary: opened.summary, configs: opened.configs, events };
  } finally {
    opened.hub.close();
  }
}

/** Waits until the library holds a recording matching `match` whose writer is done (`ended` is not `recording`). */
export async function waitForRecordings(dataDir: string, match: (r: RecordingSummary) => boolean, count = 1, timeoutMs = 15_000): Promise<RecordingSummary[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = listRecordings(dataDir).filter(match);
    if (found.length >= count && found.every((r) => r.ended !== 'recording')) return found;
    if (Date.now() > deadline) {
      throw new Error(`the library in ${dataDir} did not get ${count} finished recording(s) within ${timeoutMs} ms; it holds: ${JSON.stringify(listRecordings(dataDir).map((r) => ({ id: r.id, name: r.name, kind: r.kind, ended: r.ended })))}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface RpcExchange {
  method: string;
  id: string | number;
  /** The answer came back (a result or an error). */
  answered: 'result' | 'error' | undefined;
}

/**
 * The JSON-RPC requests the client sent in a trace, each with whether its answer was recorded
 * (matched by id within its exchange or session). Batches count one by one.
 */
export function rpcExchanges(events: TraceEvent[]): RpcExchange[] {
  const out: RpcExchange[] = [];
  // Ids repeat across sessions (the Inspector CLI's processes each start at 0, and run at once),
  // so each id keeps every request still waiting; an answer takes the one on its own exchange,
  // else the one in its session, else the oldest.
  const pending = new Map<string, { exchange?: string; session?: string; entry: RpcExchange }[]>();
  for (const event of events) {
    for (const rpc of event.batch ?? (event.rpc ? [event.rpc] : [])) {
      if (rpc.id === undefined) continue;
      const key = `${typeof rpc.id}:${rpc.id}`;
      if (event.dir === 'out' && rpc.kind === 'request' && rpc.method) {
        const entry: RpcExchange = { method: rpc.method, id: rpc.id, answered: undefined };
        out.push(entry);
        pending.set(key, [...(pending.get(key) ?? []), { exchange: event.exchange, session: event.session, entry }]);
      } else if (event.dir === 'in' && (rpc.kind === 'result' || rpc.kind === 'error')) {
        const waiting = pending.get(key) ?? [];
        const sameExchange = waiting.findIndex((w) => w.exchange !== undefined && w.exchange === event.exchange);
        const sameSession = waiting.findIndex((w) => w.session !== undefined && w.session === event.session);
        const at = sameExchange >= 0 ? sameExchange : sameSession >= 0 ? sameSession : waiting.length > 0 ? 0 : -1;
        if (at < 0) continue;
        waiting[at]!.entry.answered = rpc.kind;
        waiting.splice(at, 1);
      }
    }
  }
  return out;
}

/** The methods answered in a trace (each once), in the order first sent. */
export function answeredMethods(events: TraceEvent[]): string[] {
  return [...new Set(rpcExchanges(events).filter((e) => e.answered).map((e) => e.method))];
}

// ---------------------------------------------------------------------------------------
// server-everything (published) as a separate process

export interface EverythingServer {
  /** Its MCP endpoint: `/mcp` (streamableHttp) or `/sse` (sse). */
  url: string;
  close(): Promise<void>;
}

/** server-everything's `streamableHttp` or `sse` mode on a free port (it says which on stderr). */
export async function startEverything(mode: 'streamableHttp' | 'sse'): Promise<EverythingServer> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [EVERYTHING_BIN, mode], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  let err = '';
  child.stderr!.setEncoding('utf8');
  await new Promise<void>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`server-everything (${mode}) did not start:\n${err}`)), 20_000);
    child.stderr!.on('data', (chunk: string) => {
      err += chunk;
      if (err.includes(`port ${port}`)) {
        clearTimeout(timer);
        done();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`server-everything (${mode}) exited (${code}):\n${err}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}/${mode === 'sse' ? 'sse' : 'mcp'}`,
    close: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(timer);
    },
  };
}
