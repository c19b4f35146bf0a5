/**
 * `switchboard diff A B [--json] [--exit-code]` (#13): two snapshots of a server's interface
 * compared. Each side is one of
 *
 *   rec:ID[:SERVER]     a recording in the library of --data-dir (SERVER when it has several)
 *   file:PATH[:SERVER]  a JSONL trace (exported, or written by `switchboard record`)
 *   baseline:SERVER     a pinned baseline of --data-dir, by server name or id
 *   live:SERVER         a server connected now (--config FILE, or --url / --stdio for one)
 *
 * Exit codes: 0 compared (with --exit-code: the same), 1 they differ (--exit-code), 2 usage,
 * 4 a live server could not be reached.
 */
import { createReadStream, existsSync } from 'node:fs';
import { join } from 'node:path';
import envPaths from 'env-paths';
import type { InterfaceChange, InterfaceSnapshot } from '../../../contract';
import { INTERFACE_AREA_LABELS } from '../../../contract/recordings';
import type { Core } from '../../core/app';
import { BASELINES_FILE, readBaselines } from '../../core/drift/baselines';
import { diffInterfaces } from '../../core/drift/diff';
import { LIST_AREAS, findTraceServer, liveSnapshot, traceSnapshot } from '../../core/drift/interface';
import { RecordingLibrary } from '../../core/recordings/library';
import { TraceHub } from '../../core/trace/hub';
import { importJsonl } from '../../core/trace/import-jsonl';
import { EXIT, SERVER_OPTIONS, UsageError } from './args';

export const DIFF_HELP = `switchboard diff A B [--json] [--exit-code] [--data-dir DIR] [server flags]

A and B are each one of:
  rec:ID[:SERVER]      a recording in the library (SERVER when it recorded several)
  file:PATH[:SERVER]   a JSONL trace file
  baseline:SERVER      a pinned baseline (by server name or id)
  live:SERVER          a server connected now: --config FILE, or --url/--stdio for one
                       (then just "live")
--exit-code: exit 1 when they differ, 0 when the same.`;

interface Io {
  out(text: string): void;
  err(text: string): void;
  json(text: string): void;
}

type Side =
  | { kind: 'rec'; id: string; server?: string; text: string }
  | { kind: 'file'; path: string; server?: string; text: string }
  | { kind: 'baseline'; server: string; text: string }
  | { kind: 'live'; server?: string; text: string };

/** What run.ts lends: its argument parser and its connect-every-server. */
export interface DiffDeps {
  parse(args: string[], options: typeof DIFF_OPTIONS): { values: Record<string, unknown>; positionals: string[] };
  connectAll(flags: Record<string, unknown>): Promise<{ core: Core }>;
}

class UnreachableError extends Error {}

export const DIFF_OPTIONS = { ...SERVER_OPTIONS, 'exit-code': { type: 'boolean', default: false } } as const;

/** Exit code when they differ and --exit-code was given. */
const DIFFER = 1;

export async function diffCommand(args: string[], io: Io, deps: DiffDeps): Promise<number> {
  const { values, positionals } = deps.parse(args, DIFF_OPTIONS);
  if (values.help) {
    io.out(DIFF_HELP + '\n');
    return EXIT.ok;
  }
  if (positionals.length !== 2) throw new UsageError(`diff compares two interfaces: switchboard diff A B (each rec:ID[:SERVER], file:PATH[:SERVER], baseline:SERVER or live:SERVER).`);
  const sides = positionals.map(parseSide);
  const dataDir = (values['data-dir'] as string | undefined) ?? envPaths('switchboard', { suffix: '' }).config;
  const lives = sides.filter((s): s is Extract<Side, { kind: 'live' }> => s.kind === 'live');
  let core: Core | undefined;
  try {
    if (lives.length) {
      const direct = values.url !== undefined || values.stdio !== undefined;
      if (!direct && !values.config) throw new UsageError('live:SERVER needs --config FILE (or --url / --stdio for one server).');
      const names = [...new Set(lives.map((s) => s.server).filter((n): n is string => n !== undefined))];
      if (!direct && lives.some((s) => s.server === undefined)) throw new UsageError('live:SERVER with --config needs the server name (live:NAME).');
      ({ core } = await deps.connectAll({ ...values, ...(direct ? {} : { server: names }) }));
    }
    const snapshots: InterfaceSnapshot[] = [];
    for (const side of sides) snapshots.push(await snapshotOf(side, dataDir, core, io));
    const diff = diffInterfaces(snapshots[0]!, snapshots[1]!);
    if (values.json) io.json(JSON.stringify({ a: snapshots[0], b: snapshots[1], diff }, null, 2) + '\n');
    else io.out(describe(sides, snapshots, diff.changes));
    return values['exit-code'] && !diff.same ? DIFFER : EXIT.ok;
  } catch (error) {
    if (!(error instanceof UnreachableError)) throw error;
    io.err(`switchboard: ${error.message}\n`);
    return EXIT.unreachable;
  } finally {
    await core?.shutdown();
  }
}

function parseSide(text: string): Side {
  if (text === 'live') return { kind: 'live', text };
  const colon = text.indexOf(':');
  const kind = colon < 0 ? '' : text.slice(0, colon);
  const rest = colon < 0 ? '' : text.slice(colon + 1);
  switch (kind) {
    case 'rec': {
      const [id, ...server] = rest.split(':');
      if (!id) throw new UsageError(`"${text}": rec:ID[:SERVER] needs a recording id (switchboard recordings list).`);
      return { kind: 'rec', id, server: server.length ? server.join(':') : undefined, text };
    }
    case 'file': {
      if (!rest) throw new UsageError(`"${text}": file:PATH[:SERVER] needs a path.`);
      // The whole rest is the path when such a file exists (paths may hold colons), else PATH:SERVER.
      if (existsSync(rest)) return { kind: 'file', path: rest, text };
      const last = rest.lastIndexOf(':');
      if (last > 0 && existsSync(rest.slice(0, last))) return { kind: 'file', path: rest.slice(0, last), server: rest.slice(last + 1) || undefined, text };
      throw new UsageError(`"${text}": no such file.`);
    }
    case 'baseline':
      if (!rest) throw new UsageError(`"${text}": baseline:SERVER needs the server's name or id.`);
      return { kind: 'baseline', server: rest, text };
    case 'live':
      return { kind: 'live', server: rest || undefined, text };
    default:
      throw new UsageError(`"${text}" is not something diff compares: use rec:ID[:SERVER], file:PATH[:SERVER], baseline:SERVER or live:SERVER.`);
  }
}

async function snapshotOf(side: Side, dataDir: string, core: Core | undefined, io: Io): Promise<InterfaceSnapshot> {
  switch (side.kind) {
    case 'baseline': {
      const { baselines, problems } = readBaselines(join(dataDir, BASELINES_FILE));
      for (const problem of problems) io.err(`warning: ${problem}\n`);
      const found = findTraceServer(
        baselines.map((b) => ({ id: b.serverId, name: b.serverName })),
        side.server,
      );
      if (!found) throw new UsageError(`No baseline for "${side.server}" in ${join(dataDir, BASELINES_FILE)} (pinned: ${baselines.map((b) => b.serverName).join(', ') || 'none'}).`);
      return baselines.find((b) => b.serverId === found.id)!.snapshot;
    }
    case 'live': {
      const connections = core!.connections.all();
      const connection = side.server === undefined || connections.length === 1 ? connections[0] : connections.find((c) => c.config.name === side.server);
      if (!connection) throw new UsageError(`No server "${side.server}" to connect to.`);
      if (connection.status().state !== 'connected') throw new UnreachableError(`${connection.config.name}: ${connection.status().error ?? 'not connected'}`);
      await settled(core!, connection.id);
      return liveSnapshot(connection, core!.trace.store);
    }
    case 'file': {
      const hub = new TraceHub(undefined, { store: { windowSize: 2_000 } });
      try {
        const summary = await importJsonl(createReadStream(side.path), { name: side.path, onEvent: (event) => hub.store.append({ ...event }) });
        for (const problem of summary.problems.slice(0, 5)) io.err(`warning: ${side.path}:${problem.line}: ${problem.message}\n`);
        return snapshotFromServers(hub, seenServers(hub, summary.header.servers), side.server, side.text);
      } catch (error) {
        if (error instanceof UsageError) throw error;
        throw new UsageError(`${side.path}: ${(error as Error).message}`);
      } finally {
        hub.close();
      }
    }
    case 'rec': {
      const library = new RecordingLibrary({ dir: join(dataDir, 'recordings') });
      let opened;
      try {
        opened = await library.open(side.id);
      } catch (error) {
        throw new UsageError(`Recording "${side.id}" could not be opened from ${library.dir}: ${(error as Error).message}`);
      }
      try {
        return snapshotFromServers(opened.hub, opened.summary.servers, side.server, side.text);
      } finally {
        opened.hub.close();
      }
    }
  }
}

/** A trace's servers: its header's, else those its events name. */
function seenServers(hub: TraceHub, header: readonly { id: string; name: string }[]): { id: string; name: string }[] {
  if (header.length) return header.map((s) => ({ id: s.id, name: s.name }));
  return hub.snapshots.serverIds().map((id) => ({ id, name: id }));
}

function snapshotFromServers(hub: TraceHub, servers: readonly { id: string; name: string }[], wanted: string | undefined, text: string): InterfaceSnapshot {
  if (wanted === undefined && servers.length !== 1) throw new UsageError(`"${text}" holds ${servers.length} servers: name one (${text}:SERVER; it has ${servers.map((s) => s.name).join(', ') || 'none'}).`);
  const server = wanted === undefined ? servers[0]! : findTraceServer(servers, wanted);
  if (!server) throw new UsageError(`"${text}" has no server "${wanted}" (it has ${servers.map((s) => s.name).join(', ') || 'none'}).`);
  return traceSnapshot(hub.store, server.id, server.name);
}

/** Waits until a just-connected server's lists stay put (some add tools right after initialize): 400 ms without a change, at most 5 s. `check` uses it too. */
export async function settled(core: Core, serverId: string): Promise<void> {
  let last = Date.now();
  const off = core.events.subscribe((event, payload) => {
    if (event === 'serverState' && (payload as { id?: string }).id === serverId) last = Date.now();
  });
  const started = Date.now();
  try {
    while (Date.now() - last < 400 && Date.now() - started < 5_000) await new Promise((r) => setTimeout(r, 100));
  } finally {
    off();
  }
}

const SEVERITY_WORD: Record<InterfaceChange['severity'], string> = { breaking: 'BREAKING', warning: 'WARNING ', info: 'info    ' };
function describe(sides: Side[], snapshots: InterfaceSnapshot[], changes: InterfaceChange[]): string {
  const lines: string[] = [];
  for (const [i, side] of sides.entries()) {
    const s = snapshots[i]!;
    lines.push(`${i === 0 ? 'A' : 'B'}: ${side.text} — "${s.serverName}", ${new Date(s.takenAt).toISOString()}, ${s.tools.length} tools, ${s.resources.length} resources, ${s.resourceTemplates.length} templates, ${s.prompts.length} prompts`);
    for (const note of s.notes ?? []) lines.push(`   note: ${note}`);
  }
  const missing = LIST_AREAS.filter(({ area }) => snapshots.some((s) => s.missing.includes(area)));
  if (missing.length) lines.push(`Not compared (one side never saw them answered): ${missing.map((m) => INTERFACE_AREA_LABELS[m.area].toLowerCase()).join(', ')}`);
  lines.push('');
  if (changes.length === 0) {
    lines.push('No differences.');
    return lines.join('\n') + '\n';
  }
  const count = (severity: InterfaceChange['severity']) => changes.filter((c) => c.severity === severity).length;
  lines.push(`${changes.length} change${changes.length === 1 ? '' : 's'}: ${count('breaking')} breaking, ${count('warning')} warning, ${count('info')} info`);
  let area: string | undefined;
  for (const change of changes) {
    if (change.area !== area) {
      area = change.area;
      lines.push('', INTERFACE_AREA_LABELS[change.area]);
    }
    lines.push(`  ${SEVERITY_WORD[change.severity]}  ${change.message}`);
  }
  return lines.join('\n') + '\n';
}
