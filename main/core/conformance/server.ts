/**
 * Server conformance (#16): the official suite's server scenarios (`@modelcontextprotocol/conformance`)
 * against a person's HTTP server, through Switchboard's own recording HTTP proxy, so every
 * exchange the suite's client makes is in a recording of the library (kind `proxy`) and a failing
 * check points at the exchange that decided it.
 *
 *   1. The runner and a Node ≥ 22 for it (runtime.ts); the scenarios the installed suite has (`list`).
 *   2. A recording proxy in front of the server (main/core/proxy/http.ts); `headers` the person
 *      gave are set on every forwarded request (the suite's client cannot send them).
 *   3. A probe through the proxy: initialize, then tools/resources/templates/prompts lists. A
 *      scenario whose needs (needs.ts) the server does not list is "not applicable" and NOT run.
 *   4. Each scenario that applies as its own runner process (`server --url PROXY --scenario S -o DIR`),
 *      one after the other, so each has its own time window in the trace; its checks.json parsed
 *      (checks-file.ts); failing and warning checks get the seq of their deciding exchange (exchange.ts).
 *      `dns-rebinding-protection` runs against the server itself: it sends a foreign Host header,
 *      which a proxy replaces with its own.
 *   5. Cancel (the signal): the runner is killed, the proxy closed; finished scenarios stay, the
 *      rest are `skipped` ("cancelled").
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { ServerConfig } from '../../../contract';
import type { CheckProgress, CheckVerdict, ConformanceReport, ConformanceScenario, VerdictCounts } from '../../../contract/checks';
import type { TraceEvent } from '../../../contract/trace';
import { startHttpProxy, type HttpProxy } from '../proxy/http';
import { createProxyRecorder } from '../proxy/recorder';
import { RecordingLibrary } from '../recordings/library';
import { Redactor } from '../trace/redact';
import { readChecks, scenarioVerdict } from './checks-file';
import { decidingSeq } from './exchange';
import { SCENARIO_NEEDS, notApplicableReason, type ServerInventory } from './needs';
import { conformanceRuntime, type ConformanceRuntime } from './runtime';
import { startStdioBridge, type StdioBridgeTarget } from './stdio-bridge';

/** One scenario's runner process is killed after this. */
export const SCENARIO_TIMEOUT_MS = 90_000;
/** The probe (initialize and the lists) gives up after this. */
export const PROBE_TIMEOUT_MS = 20_000;
/** Of the runner's output, the tail kept for a report. */
const OUTPUT_TAIL_CHARS = 4_000;
/** Events read back from the run's recording to point checks at exchanges. */
const MAX_EVENTS_READ = 200_000;
const LIST_PAGES = 20;

export interface ServerConformanceOptions {
  url: URL;
  /** Sent on every request the suite makes (through the proxy): `Authorization`, API keys. Redacted everywhere. */
  headers?: [string, string][];
  /** Only these (default: every server scenario the installed suite has). */
  scenarios?: string[];
  runId: string;
  serverId?: string;
  /** `<data dir>/recordings`; false: no recording (then no exchanges). */
  libraryDir: string | false;
  version: string;
  signal?: AbortSignal;
  onProgress?: (progress: CheckProgress) => void;
  /** Default conformanceRuntime(). */
  runtime?: ConformanceRuntime | { problem: string };
  log?: (line: string) => void;
  scenarioTimeoutMs?: number;
  /** The run's recording's name (default `conformance HOST:PORT`). */
  recordingName?: string;
  /** `url` is a stdio→HTTP bridge (stdio-bridge.ts) in front of this command line (redacted): the report shows it. */
  bridgedFrom?: string;
}

const ZERO: VerdictCounts = { passed: 0, failed: 0, warning: 0, notApplicable: 0, skipped: 0 };

export function countVerdicts(scenarios: { verdict: CheckVerdict }[]): VerdictCounts {
  const counts = { ...ZERO };
  for (const s of scenarios) {
    if (s.verdict === 'passed' || s.verdict === 'info') counts.passed++;
    else if (s.verdict === 'failed') counts.failed++;
    else if (s.verdict === 'warning') counts.warning++;
    else if (s.verdict === 'not-applicable') counts.notApplicable++;
    else counts.skipped++;
  }
  return counts;
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));
const tail = (text: string) => (text.length > OUTPUT_TAIL_CHARS ? `…${text.slice(-OUTPUT_TAIL_CHARS)}` : text);
const plain = (text: string) => text.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '');

interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  cancelled: boolean;
}

/** One runner process, bounded in time and output; killed on cancel. */
function runRunner(rt: ConformanceRuntime, args: string[], timeoutMs: number, signal?: AbortSignal): Promise<RunResult> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve({ code: null, signal: null, stdout: '', stderr: '', timedOut: false, cancelled: true });
    const child = spawn(rt.node, [rt.cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    let cancelled = false;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout = (stdout + chunk).slice(-64_000)));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-64_000)));
    const kill = () => {
      child.kill('SIGTERM');
      setTimeout(() => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL'), 2_000).unref();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, timeoutMs);
    const onAbort = () => {
      cancelled = true;
      kill();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    child.once('error', (error) => {
      stderr += `\n${message(error)}`;
    });
    child.once('close', (code, sig) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve({ code, signal: sig, stdout, stderr, timedOut, cancelled });
    });
  });
}

/** The server scenarios the installed runner has, from `conformance list`. */
export async function listServerScenarios(rt: ConformanceRuntime, signal?: AbortSignal): Promise<string[]> {
  const result = await runRunner(rt, ['list'], 30_000, signal);
  const names: string[] = [];
  let inServer = false;
  for (const line of plain(result.stdout).split('\n')) {
    if (/^Server scenarios/i.test(line)) inServer = true;
    else if (/^\S/.test(line)) inServer = false;
    else if (inServer) {
      const name = /^\s+-\s+([a-z0-9][a-z0-9/_-]{0,199})/i.exec(line)?.[1];
      if (name) names.push(name);
    }
  }
  if (!names.length) throw new Error(`the runner listed no server scenarios${result.stderr ? ` (${tail(plain(result.stderr)).trim()})` : ''}`);
  return names;
}

/** What the server lists, asked through the proxy (so the probe is in the trace too). */
export async function probeServer(url: string, signal?: AbortSignal, version = '0'): Promise<ServerInventory> {
  const client = new Client({ name: 'Switchboard conformance probe', version });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const timeout = AbortSignal.timeout(PROBE_TIMEOUT_MS);
  const options = { signal: signal ? AbortSignal.any([signal, timeout]) : timeout, timeout: PROBE_TIMEOUT_MS };
  const inventory: ServerInventory = { tools: new Set(), resources: new Set(), resourceTemplates: new Set(), prompts: new Set(), capabilities: {} };
  try {
    await client.connect(transport, options);
    const capabilities = (client.getServerCapabilities() ?? {}) as Record<string, unknown>;
    inventory.capabilities = capabilities;
    const pages = async <T>(list: (cursor?: string) => Promise<{ nextCursor?: string; items: T[] }>, add: (item: T) => void) => {
      let cursor: string | undefined;
      for (let page = 0; page < LIST_PAGES; page++) {
        const result = await list(cursor);
        result.items.forEach(add);
        cursor = result.nextCursor;
        if (!cursor) break;
      }
    };
    if (capabilities.tools) {
      await pages(async (cursor) => {
        const r = await client.listTools(cursor ? { cursor } : {}, options);
        return { nextCursor: r.nextCursor, items: r.tools };
      }, (t) => inventory.tools.add(t.name));
    }
    if (capabilities.resources) {
      await pages(async (cursor) => {
        const r = await client.listResources(cursor ? { cursor } : {}, options);
        return { nextCursor: r.nextCursor, items: r.resources };
      }, (r) => inventory.resources.add(r.uri));
      await pages(async (cursor) => {
        const r = await client.listResourceTemplates(cursor ? { cursor } : {}, options);
        return { nextCursor: r.nextCursor, items: r.resourceTemplates };
      }, (r) => inventory.resourceTemplates.add(r.uriTemplate)).catch(() => undefined);
    }
    if (capabilities.prompts) {
      await pages(async (cursor) => {
        const r = await client.listPrompts(cursor ? { cursor } : {}, options);
        return { nextCursor: r.nextCursor, items: r.prompts };
      }, (p) => inventory.prompts.add(p.name));
    }
  } finally {
    await client.close().catch(() => undefined);
  }
  return inventory;
}

function isLocalhost(url: URL): boolean {
  const host = url.hostname.toLowerCase();
  return host === 'localhost' || host === '127.0.0.1' || host === '[::1]' || host === '::1';
}

/** Events of the run's recording (read back once the proxy is closed). */
async function recordedEvents(libraryDir: string, recordingId: string): Promise<TraceEvent[]> {
  const library = new RecordingLibrary({ dir: libraryDir, retentionIntervalMs: 0 });
  const opened = await library.open(recordingId);
  try {
    const events: TraceEvent[] = [];
    for (const event of opened.hub.store.all()) {
      events.push(event);
      if (events.length >= MAX_EVENTS_READ) break;
    }
    return events;
  } finally {
    opened.hub.close();
  }
}

function problemReport(base: Omit<ConformanceReport, 'scenarios' | 'counts' | 'durationMs'>, problem: string, problemKind: NonNullable<ConformanceReport['problemKind']>): ConformanceReport {
  return { ...base, durationMs: Date.now() - base.startedAt, scenarios: [], counts: { ...ZERO }, problem: problem.slice(0, 4000), problemKind };
}

/** Runs the suite's server scenarios against `url`; never throws for a server's or the runner's failings (they are in the report). */
export async function runServerConformance(options: ServerConformanceOptions): Promise<ConformanceReport> {
  const startedAt = Date.now();
  const redactor = new Redactor();
  for (const [, value] of options.headers ?? []) {
    const token = /^\s*\S+\s+(\S+)\s*$/.exec(value)?.[1];
    redactor.addSecret(value);
    if (token) redactor.addSecret(token);
  }
  const shownUrl = redactor.url(options.url.href).slice(0, 4096);
  const rt = options.runtime ?? conformanceRuntime();
  const base = { runId: options.runId, ...(options.serverId ? { serverId: options.serverId } : {}), url: options.bridgedFrom ? `stdio: ${options.bridgedFrom}`.slice(0, 4096) : shownUrl, suiteVersion: 'suiteVersion' in rt ? rt.suiteVersion : 'unknown', startedAt };
  if ('problem' in rt) return problemReport(base, rt.problem, 'runtime');
  const progress = (done: number, total: number | undefined, label: string) => {
    try {
      options.onProgress?.({ runId: options.runId, kind: 'conformance', done, ...(total !== undefined ? { total } : {}), label: label.slice(0, 300) });
    } catch {
      // a listener's failure is not the run's
    }
  };
  const scrub = (text: string) => redactor.text(text);

  progress(0, undefined, 'listing the suite’s scenarios');
  let available: string[];
  try {
    available = await listServerScenarios(rt, options.signal);
  } catch (error) {
    return problemReport(base, `The conformance runner could not list its scenarios: ${message(error)}.`, 'runtime');
  }
  const wanted = options.scenarios?.length ? options.scenarios : available;
  const unknown = wanted.filter((s) => !available.includes(s));
  if (unknown.length) return problemReport(base, `The suite ${rt.suiteVersion} has no server scenario ${unknown.map((s) => JSON.stringify(s)).join(', ')} (it has: ${available.join(', ')}).`, 'unknown-scenario');

  // The recording proxy in front of the server.
  const name = (options.recordingName ?? (options.bridgedFrom ? `conformance stdio ${options.bridgedFrom.split(/\s+/)[0]?.split('/').pop() ?? ''}` : `conformance ${options.url.host}`)).slice(0, 120);
  const config = ServerConfig.parse({ id: 'conformance', name, target: { type: 'http', url: options.url.href, transport: 'streamable-http' } });
  let proxy: HttpProxy;
  try {
    proxy = await startHttpProxy({
      upstream: options.url,
      port: 0,
      transport: 'streamable-http',
      upstreamHeaders: options.headers ?? [],
      recorder: (listen) =>
        createProxyRecorder({ name, transport: 'http', target: shownUrl, listen, config, libraryDir: options.libraryDir, version: options.version, redactor, faults: [], log: (line) => options.log?.(line) }),
    });
  } catch (error) {
    return problemReport(base, `The recording proxy could not start: ${message(error)}.`, 'run');
  }
  const recordingId = proxy.recorder.recordingId;
  const windows = new Map<string, { from: number; to: number }>();
  const scenarios: ConformanceScenario[] = [];
  const outDir = mkdtempSync(join(tmpdir(), 'switchboard-conformance-'));
  let problem: string | undefined;
  try {
    progress(0, wanted.length, 'asking the server what it lists');
    let inventory: ServerInventory;
    try {
      inventory = await probeServer(proxy.url, options.signal, options.version);
    } catch (error) {
      if (options.signal?.aborted) throw error;
      problem = `The server could not be reached or did not initialize (${scrub(message(error))}): no scenario was run. Try "switchboard doctor ${options.bridgedFrom ? `--stdio ${JSON.stringify(options.bridgedFrom)}` : shownUrl}".`;
      return { ...problemReport(base, problem, 'unreachable'), ...(recordingId ? { traceSource: `rec-${recordingId}` } : {}) };
    }
    const target = { localhost: isLocalhost(options.url), credentials: (options.headers ?? []).length > 0, bridged: options.bridgedFrom !== undefined };
    for (const [index, scenario] of wanted.entries()) {
      if (options.signal?.aborted) {
        scenarios.push({ name: scenario, verdict: 'skipped', reason: 'cancelled before it ran', checks: [], durationMs: 0 });
        continue;
      }
      progress(index, wanted.length, scenario);
      const reason = notApplicableReason(scenario, inventory, target);
      if (reason) {
        scenarios.push({ name: scenario, verdict: 'not-applicable', reason, checks: [], durationMs: 0 });
        continue;
      }
      const direct = scenario === 'dns-rebinding-protection';
      const dir = join(outDir, String(index));
      const from = proxy.recorder.now();
      const started = performance.now();
      const result = await runRunner(rt, ['server', '--url', direct ? options.url.href : proxy.url, '--scenario', scenario, '-o', dir], options.scenarioTimeoutMs ?? SCENARIO_TIMEOUT_MS, options.signal);
      const durationMs = performance.now() - started;
      windows.set(scenario, { from, to: proxy.recorder.now() });
      if (result.cancelled) {
        scenarios.push({ name: scenario, verdict: 'skipped', reason: 'cancelled while it ran', checks: [], durationMs });
        continue;
      }
      try {
        const checks = readChecks(dir, scrub);
        scenarios.push({ name: scenario, verdict: scenarioVerdict(checks), checks, durationMs, ...(direct ? { reason: 'run against the server itself, not through the recording proxy (it sends a foreign Host header, which a proxy replaces)' } : {}) });
      } catch (error) {
        const why = result.timedOut ? `the runner did not finish within ${Math.round((options.scenarioTimeoutMs ?? SCENARIO_TIMEOUT_MS) / 1000)} s` : `${message(error)} (exit ${result.code ?? result.signal})`;
        const output = scrub(tail(plain(`${result.stderr}\n${result.stdout}`).trim()));
        scenarios.push({ name: scenario, verdict: 'failed', checks: [{ id: 'runner', name: 'Runner', verdict: 'failed', message: `${why}${output ? `: ${output}` : ''}`.slice(0, 4000), specRefs: [] }], durationMs });
      }
    }
  } catch (error) {
    if (!options.signal?.aborted) problem = `The run stopped: ${message(error)}.`;
  } finally {
    await proxy.close().catch(() => undefined);
    await proxy.recorder.close().catch(() => undefined);
    rmSync(outDir, { recursive: true, force: true });
  }
  for (const scenario of wanted.slice(scenarios.length)) scenarios.push({ name: scenario, verdict: 'skipped', reason: 'cancelled before it ran', checks: [], durationMs: 0 });

  // Point each failing or warning check at the exchange that decided it.
  if (recordingId && options.libraryDir !== false) {
    try {
      const events = await recordedEvents(options.libraryDir, recordingId);
      for (const scenario of scenarios) {
        const window = windows.get(scenario.name);
        if (!window || scenario.name === 'dns-rebinding-protection') continue;
        const inWindow = events.filter((e) => e.ts >= window.from && e.ts <= window.to);
        const seq = decidingSeq(inWindow, SCENARIO_NEEDS[scenario.name]?.decides);
        if (seq === undefined) continue;
        for (const check of scenario.checks) {
          if (check.verdict === 'failed' || check.verdict === 'warning') check.exchange = { source: `rec-${recordingId}`, seq, ...(options.serverId ? { serverId: options.serverId } : {}) };
        }
      }
    } catch (error) {
      options.log?.(`the run's recording could not be read back to point at exchanges: ${message(error)}`);
    }
  }
  progress(wanted.length, wanted.length, 'done');
  return {
    ...base,
    durationMs: Date.now() - startedAt,
    scenarios,
    counts: countVerdicts(scenarios),
    ...(recordingId ? { traceSource: `rec-${recordingId}` } : {}),
    ...(problem ? { problem: problem.slice(0, 4000), problemKind: 'run' as const } : {}),
  };
}

/** A stdio server through a stdio→HTTP bridge (a fresh process per session of the suite's client), then the run as for HTTP. */
export async function runStdioConformance(target: StdioBridgeTarget, options: Omit<ServerConformanceOptions, 'url' | 'bridgedFrom' | 'headers'>): Promise<ConformanceReport> {
  const shown = new Redactor().args([target.command, ...target.args]).join(' ');
  const bridge = await startStdioBridge(target, options.log);
  try {
    return await runServerConformance({ ...options, url: new URL(bridge.url), bridgedFrom: shown });
  } finally {
    await bridge.close();
  }
}
