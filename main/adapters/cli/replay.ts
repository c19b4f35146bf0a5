/**
 * `switchboard replay REC`: a recording's requests sent again and compared (main/core/replay/).
 *
 * REC is a recording id of the library (`--data-dir`) or a JSONL trace file. The target is named
 * by the usual server flags; without them, the recording's own server configurations (its
 * header) are connected. A tools/call is sent only with `--yes`, or when a person at a terminal
 * says yes to a question naming the tools; without a terminal and without `--yes`, nothing is
 * sent and the exit code is 2. Exit 1 when any response differs, 0 when all are the same.
 */
import { createReadStream, existsSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { createInterface } from 'node:readline/promises';
import type { ReplayItem, ReplayReport, ServerConfig, ServerConfigInput } from '../../../contract';
import { RecordingId } from '../../../contract/recordings';
import type { TraceEvent } from '../../../contract/trace';
import { RecordingLibrary } from '../../core/recordings/library';
import { toolsOf } from '../../core/replay/candidates';
import { plannedRequests, replay, type ReplaySource } from '../../core/replay/replay';
import { TraceHub } from '../../core/trace/hub';
import { importJsonl } from '../../core/trace/import-jsonl';
import { REDACTED } from '../../core/trace/redact';
import { EXIT, SERVER_OPTIONS, UsageError } from './args';
import { cliDataDir, libraryDir } from './recordings';
import { connectAll, parse, statusJson, type Screen } from './run';

export const REPLAY_USAGE = '  switchboard replay <recording id | FILE.jsonl> [server flags] [--only METHOD]... [--yes] [--timeout MS] [--json]';

/** Exit code of a replay whose responses differ (0: all the same). */
export const EXIT_DIFFER = 1;

const OPTIONS = { ...SERVER_OPTIONS, only: { type: 'string', multiple: true }, yes: { type: 'boolean', default: false }, timeout: { type: 'string' } } as const;

interface OpenedSource extends ReplaySource {
  configs: ServerConfig[];
  close(): void;
}

/** The recording to replay from: a file (read through the trace import, its own temp store) or a library recording opened read-only. */
async function openSource(rec: string, dataDir: string): Promise<OpenedSource> {
  if (existsSync(rec) && statSync(rec).isFile()) {
    const hub = new TraceHub(undefined, { store: { windowSize: 2_000 } });
    try {
      const summary = await importJsonl(createReadStream(rec), { name: basename(rec), onEvent: (event: TraceEvent) => hub.store.append({ ...event }) });
      const names = new Map(summary.header.servers.map((s) => [s.id, s.name]));
      return { source: rec, hub, serverName: (id) => names.get(id) ?? id, configs: summary.header.servers, close: () => hub.close() };
    } catch (error) {
      hub.close();
      throw new UsageError(`${rec}: ${(error as Error).message}`);
    }
  }
  if (!RecordingId.safeParse(rec).success) throw new UsageError(`"${rec}" is neither a file nor a recording id.`);
  const library = new RecordingLibrary({ dir: libraryDir(dataDir) });
  let opened;
  try {
    opened = await library.open(rec);
  } catch (error) {
    throw new UsageError(`No recording "${rec}" in ${library.dir}: ${(error as Error).message}`);
  }
  const names = new Map(opened.summary.servers.map((s) => [s.id, s.name]));
  return { source: `rec-${rec}`, hub: opened.hub, serverName: (id) => names.get(id) ?? id, configs: opened.configs, close: () => opened.hub.close() };
}

/** A recorded configuration as a server to add (its id and last check are this run's business). */
function asInput(config: ServerConfig): ServerConfigInput {
  const { id: _id, lastCheck: _check, ...input } = config;
  return input;
}

async function askToConfirm(tools: string[], server: string, io: Screen): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(`This replay calls ${tools.length === 1 ? 'the tool' : `${tools.length} tools`} ${tools.map((t) => `"${t}"`).join(', ')} on ${server} again. A tool call may change things. Send them? [y/N] `);
    return /^y(es)?$/i.test(answer.trim());
  } catch {
    io.err('\n');
    return false;
  } finally {
    rl.close();
  }
}

export async function replayCommand(args: string[], io: Screen): Promise<number> {
  const { values, positionals } = parse(args, OPTIONS, true);
  if (values.help) {
    io.out(`${REPLAY_USAGE.trim()}\n\nSends a recording's requests again (tools/list, tools/call, resources/read, prompts/get, …;\nnever initialize or notifications) and compares old and new answers. tools/call only with --yes\n(or a yes at the terminal). Exit codes: 0 all the same, 1 some differ, 2 usage, refused or nothing to replay.\n`);
    return EXIT.ok;
  }
  const rec = positionals[0];
  if (!rec || positionals.length > 1) throw new UsageError('replay needs one recording: switchboard replay <recording id | FILE.jsonl>.');
  const timeoutMs = values.timeout === undefined ? undefined : Number(values.timeout);
  if (timeoutMs !== undefined && (!Number.isInteger(timeoutMs) || timeoutMs < 100)) throw new UsageError('--timeout is in milliseconds, at least 100.');
  const only = values.only as string[] | undefined;
  const dataDir = cliDataDir(values['data-dir'] as string | undefined);
  const from = await openSource(rec, dataDir);
  try {
    const requests = plannedRequests(from, { only });
    if (requests.length === 0) {
      io.err(`switchboard: ${rec} has no requests to replay${only ? ` (--only ${only.join(', ')})` : ''}.\n`);
      return EXIT.usage;
    }
    const named = Boolean(values.config || values.url || values.stdio);
    const servers = named ? undefined : recordedServers(from, requests, io);
    const tools = toolsOf(requests);
    let confirmTools: string[] = values.yes ? tools : [];
    const targetName = named ? 'the server' : (servers?.map((s) => s.name).join(', ') ?? 'the server');
    if (tools.length && !values.yes) {
      if (!process.stdin.isTTY) {
        io.err(`switchboard: this replay would call ${tools.map((t) => `"${t}"`).join(', ')} on ${targetName}; nothing was sent. Pass --yes to send them, or --only METHOD to leave tools/call out.\n`);
        return EXIT.usage;
      }
      if (!(await askToConfirm(tools, targetName, io))) {
        io.err('switchboard: no tool will be called; the other requests are replayed.\n');
        confirmTools = [];
      } else confirmTools = tools;
    }
    const { core, statuses } = await connectAll(values, io, { servers });
    try {
      const connected = statuses.filter((s) => s.state === 'connected');
      if (connected.length === 0) return EXIT.unreachable;
      // One named server (or the recorded one of that name) is the target.
      const serverId = named && connected.length === 1 ? connected[0]!.id : undefined;
      let report: ReplayReport;
      try {
        report = await replay({ trace: core.trace, audit: core.audit, connections: core.connections }, from, { only, serverId, confirmTools, timeoutMs }, requests);
      } catch (error) {
        throw new UsageError((error as Error).message);
      }
      if (values.json) io.json(JSON.stringify({ ...report, servers: statuses.map(statusJson) }, null, 2) + '\n');
      else io.out(renderReport(report));
      return report.differ > 0 ? EXIT_DIFFER : EXIT.ok;
    } finally {
      await core.shutdown();
    }
  } finally {
    from.close();
  }
}

/** The recording's own servers (those its requests went to), from its header. */
function recordedServers(from: OpenedSource, requests: { candidate: { serverId: string } }[], io: Screen): ServerConfigInput[] {
  const ids = new Set(requests.map((r) => r.candidate.serverId));
  const configs = from.configs.filter((c) => ids.has(c.id));
  if (configs.length === 0) throw new UsageError('The recording does not say how to reach its servers: name one with --config, --url or --stdio.');
  for (const c of configs) if (JSON.stringify(c).includes(REDACTED)) io.err(`warning: ${c.name}: its recorded configuration had secrets removed (${REDACTED}); name it with --config to connect with yours.\n`);
  return configs.map(asInput);
}

const COLUMN = 44;

function clip(text: string, width: number): string {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > width ? `${flat.slice(0, width - 1)}…` : flat;
}

function shown(value: unknown): string {
  if (value === undefined) return '(none)';
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function ms(value: number | undefined): string {
  return value === undefined ? '—' : `${Math.round(value)} ms`;
}

function itemLines(item: ReplayItem): string[] {
  const c = item.candidate;
  const head = `#${c.seq} ${c.summary === c.method ? c.method : `${c.method} ${clip(c.summary, 60)}`}`;
  if (item.skipped) return [`-  skipped  ${head}`, `             ${item.skipped}`];
  const mark = item.same ? '=  same   ' : '≠  differs';
  const lines = [`${mark}  ${head}   ${ms(item.old.latencyMs)} → ${ms(item.new.latencyMs)}`];
  for (const d of item.differences) {
    if (d.kind === 'latency') lines.push(`             latency: ${d.message}`);
    else if (d.kind === 'schema') lines.push(`             schema:  ${d.message}`);
    else {
      // A named item of a list (a tool, a prompt) that is gone or new reads by its name.
      const named = /^(.*) is (gone|new)$/.exec(d.message);
      const left = named?.[2] === 'gone' ? `${named[1]} (gone)` : shown(d.old);
      const right = named?.[2] === 'new' ? `${named[1]} (new)` : d.kind === 'error' && d.path === '' ? d.message : shown(d.new);
      lines.push(`             ${(d.path || '(whole answer)').padEnd(24)} ${clip(left, COLUMN).padEnd(COLUMN)} │ ${clip(right, COLUMN)}`);
    }
  }
  return lines;
}

/** The side-by-side summary: one line an item, then each difference as path │ old │ new. */
export function renderReport(report: ReplayReport): string {
  const same = report.items.filter((i) => !i.skipped && i.same).length;
  const lines = [`Replay of ${report.source} against ${report.target.serverName}`, `             ${'path'.padEnd(24)} ${'old'.padEnd(COLUMN)} │ new`, ...report.items.flatMap(itemLines), ''];
  lines.push(`${report.items.length} request${report.items.length === 1 ? '' : 's'}: ${same} same, ${report.differ} differ, ${report.skipped} skipped (${report.sent} sent).`);
  return lines.join('\n') + '\n';
}
