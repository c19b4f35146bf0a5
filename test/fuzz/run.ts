/**
 * The fuzzer: one browser-mode host, one fuzz server, one healthy server (the everything
 * fixture over HTTP) for a whole run; each case adds a fuzzed server, drives it, checks the
 * invariants, and removes it.
 *
 * Invariants after every case (each one counted as a check):
 *   alive     the host process is running and answers appInfo
 *   reply     every contract call got a reply before its deadline (else "hang")
 *   healthy   the healthy server still answers a tool call, correctly
 *   seq       the trace's new events are numbered without gaps
 *   raw       the trace holds what the fuzz server sent (every stdio line, every HTTP response
 *             with its status, SSE events and body), as parsed JSON where it was JSON
 *             — and, where JSON.parse would change a number (1e400, -0, 2^53+1), the raw text
 *   export    the whole trace exports to JSONL (every line parses, seqs 1…N) and HAR (parses)
 *   leak      no question (elicitation, sampling) of a removed server is still pending
 *
 * A person at the app declines the server's questions while a case runs (a legacy-era call's
 * timeout stands still while one waits for an answer, by design).
 */
import { createParser } from 'eventsource-parser';
import fc from 'fast-check';
import { isTruncationMarker } from '../../contract/bounded-json';
import type { TraceEvent } from '../../contract/trace';
import { lossyNumber } from '../../main/core/trace/rpc';
import { startFixture, type RunningFixture } from '../fixtures/everything/harness';
import { describeCase, type FuzzCase } from '../fixtures/fuzz/case';
import { startFuzzServer, type FuzzServer, type SentRecord } from '../fixtures/fuzz/harness';
import { CI_SCALE, fuzzCase, type Scale } from './arbitraries';
import { HangError, startHost, type Host } from './host';
import { knownOpen } from './regressions';

/** Generous against the fuzzed server's own timeouts (connect 3 s, request 2 s): a reply later than this is a hang. */
const DEADLINE_MS = 20_000;

export interface CaseResult {
  checks: number;
  failures: string[];
  /** Observations that are not failures (lossy but documented behaviour). */
  notes: string[];
  state?: string;
  ms?: number;
}

interface ServerStatusLike {
  id: string;
  state: string;
  error?: string;
}

const sleepUntil = async (cond: () => Promise<boolean>, ms: number): Promise<boolean> => {
  const end = Date.now() + ms;
  for (;;) {
    if (await cond()) return true;
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
};

export class Fuzzer {
  private lastSeq = 0;
  private n = 0;
  private healthyId = '';

  /** Hosts started in this run (a dead host is replaced, so one crash does not end the run). */
  hostsStarted = 1;

  private constructor(
    public host: Host,
    readonly fuzz: FuzzServer,
    private readonly healthy: RunningFixture,
  ) {}

  static async start(): Promise<Fuzzer> {
    const [host, fuzz, healthy] = await Promise.all([startHost(), startFuzzServer(), startFixture({ transport: 'http', era: 'both' })]);
    const fuzzer = new Fuzzer(host, fuzz, healthy);
    await fuzzer.addHealthy();
    return fuzzer;
  }

  private async addHealthy(): Promise<void> {
    const added = await this.host.ok<ServerStatusLike>('addServer', { name: 'healthy', target: { type: 'http', url: this.healthy.url, transport: 'streamable-http' }, era: 'legacy', pingIntervalSec: 0 });
    this.healthyId = added.id;
    const connected = await this.host.ok<ServerStatusLike>('connectServer', { id: added.id });
    if (connected.state !== 'connected') throw new Error(`the healthy server did not connect: ${connected.error}`);
  }

  /** After a crash (already reported by the case that caused it): a new host, so the run goes on. */
  private async replaceDeadHost(): Promise<void> {
    if (this.host.alive()) return;
    await this.host.close();
    this.host = await startHost();
    this.hostsStarted++;
    this.lastSeq = 0;
    await this.addHealthy();
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.host.close(), this.fuzz.close(), this.healthy.close()]);
  }

  private config(c: FuzzCase, name: string): Record<string, unknown> {
    const common = { name, retries: 0, connectTimeoutSec: 3, requestTimeoutSec: 2, pingIntervalSec: 0 };
    switch (c.carrier) {
      case 'stdio': {
        const { command, args } = this.fuzz.stdioCommand();
        return { ...common, target: { type: 'stdio', command, args }, era: 'auto' };
      }
      case 'http-legacy':
        return { ...common, target: { type: 'http', url: this.fuzz.url('http-legacy'), transport: 'streamable-http' }, era: 'legacy' };
      case 'http-modern':
        return { ...common, target: { type: 'http', url: this.fuzz.url('http-modern'), transport: 'streamable-http' }, era: 'modern' };
      case 'sse':
        return { ...common, target: { type: 'http', url: this.fuzz.url('sse'), transport: 'sse' }, era: 'legacy' };
    }
  }

  /** Runs one case against the live host and checks every invariant. */
  async runCase(c: FuzzCase): Promise<CaseResult> {
    await this.replaceDeadHost();
    const result: CaseResult = { checks: 0, failures: [], notes: [] };
    const fail = (why: string) => result.failures.push(why);
    const check = (ok: boolean, why: () => string) => {
      result.checks++;
      if (!ok) fail(why());
    };
    /** A contract call whose reply must arrive; an error envelope is a fine answer. */
    const call = async <T>(method: string, args: unknown): Promise<{ ok: true; result: T } | { ok: false; message: string } | undefined> => {
      result.checks++;
      try {
        const reply = await this.host.call<T>(method, args, DEADLINE_MS);
        return reply.ok ? { ok: true, result: reply.result as T } : { ok: false, message: reply.error.message };
      } catch (error) {
        fail(error instanceof HangError ? error.message : `${method}: ${(error as Error).message}`);
        return undefined;
      }
    };

    await this.fuzz.setCase(c);
    const name = `fuzz-${++this.n}`;
    const added = await call<ServerStatusLike>('addServer', this.config(c, name));
    if (!added?.ok) {
      fail(`addServer: ${added && !added.ok ? added.message : 'no reply'}`);
      return result;
    }
    const id = added.result.id;
    // A person at the app: questions the server asks (elicitation, sampling) are declined, as a
    // user would answer them; a legacy-era call's timeout stands still until they are answered.
    let asking = true;
    const person = (async () => {
      while (asking) {
        const pending = await this.host.call<{ id: string; serverId: string; kind: string }[]>('listPendingRequests', {}, DEADLINE_MS).catch(() => undefined);
        for (const p of pending?.ok ? (pending.result ?? []) : []) {
          if (p.serverId !== id) continue;
          const answer = p.kind === 'sampling' ? { kind: 'sampling', action: 'reject' } : { kind: 'elicitation', action: 'decline' };
          await this.host.call('answerRequest', { id: p.id, answer }, DEADLINE_MS).catch(() => undefined);
          result.notes.push(`answered a ${p.kind} request`);
        }
        await new Promise((r) => setTimeout(r, 200));
      }
    })();
    try {
      const connected = await call<ServerStatusLike>('connectServer', { id });
      result.state = connected?.ok ? connected.result.state : 'error';
      if (connected?.ok && connected.result.state === 'connected') {
        await call('listTools', { serverId: id });
        await call('listPrompts', { serverId: id });
        await call('listResources', { serverId: id });
        await call('callTool', { tool: 'echo', serverId: id, args: { text: 'fuzz' } });
        await call('getPrompt', { name: 'greet', serverId: id, args: { name: 'Ada' } });
        await call('readResource', { serverId: id, uri: 'fixture://readme' });
        await call('complete', { serverId: id, ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'name', value: 'A' } });
        await call('listServers', {});
      }

      // what the app keeps about the server answers too
      await call('snapshots', { server: id });
      await call('recentLogs', {});
      await call('listHistory', { limit: 20 });
      await call('listAudit', { limit: 20 });
      await call('listPendingRequests', {});

      // healthy: the other server keeps answering
      const echo = await call<{ result: { content?: { text?: string }[] } }>('callTool', { tool: 'echo', serverId: this.healthyId, args: { text: `still here ${this.n}` } });
      check(!!echo?.ok && JSON.stringify(echo.result.result.content ?? []).includes(`still here ${this.n}`), () => `healthy: the healthy server's echo failed: ${echo && !echo.ok ? echo.message : JSON.stringify(echo).slice(0, 300)}`);

      asking = false;
      await person;
      await this.checkRaw(c, id, result);
    } finally {
      asking = false;
      const removed = await call('removeServer', { id });
      if (removed && !removed.ok) fail(`removeServer: ${removed.message}`);
    }
    // nothing the server asked for outlives it
    const pendingAfter = await call<{ serverId?: string }[]>('listPendingRequests', {});
    check(!pendingAfter?.ok || !pendingAfter.result.some((p) => p.serverId === id), () => `leak: requests of the removed server are still pending: ${JSON.stringify(pendingAfter).slice(0, 300)}`);
    await this.checkSeq(result);
    await this.checkExport(result);
    const info = await call('appInfo', {});
    check(this.host.alive() && !!info?.ok, () => `alive: the host died (exit ${this.host.process.exitCode ?? this.host.process.signalCode})\n${this.host.output().slice(-2000)}`);
    return result;
  }

  private async events(q: Record<string, unknown>, result: CaseResult): Promise<TraceEvent[] | undefined> {
    const all: TraceEvent[] = [];
    let cursor: number | undefined = (q.cursor as number | undefined) ?? 0;
    while (cursor !== undefined) {
      result.checks++;
      let reply;
      try {
        reply = await this.host.call<{ events: TraceEvent[]; nextCursor?: number }>('traceQuery', { ...q, cursor, limit: 500 }, DEADLINE_MS);
      } catch (error) {
        result.failures.push(`traceQuery: ${(error as Error).message}`);
        return undefined;
      }
      if (!reply.ok) {
        result.failures.push(`traceQuery failed: ${reply.error.message}`);
        return undefined;
      }
      all.push(...reply.result!.events);
      cursor = reply.result!.nextCursor;
    }
    return all;
  }

  private async payload(event: TraceEvent, result: CaseResult): Promise<unknown> {
    if (!event.truncated) return event.body;
    try {
      const reply = await this.host.call<{ payload: unknown }>('traceEvent', { seq: event.seq }, DEADLINE_MS);
      if (!reply.ok) {
        result.failures.push(`traceEvent #${event.seq} failed: ${reply.error.message}`);
        return undefined;
      }
      return reply.result!.payload;
    } catch (error) {
      result.failures.push(`traceEvent #${event.seq}: ${(error as Error).message}`);
      return undefined;
    }
  }

  /** seq: every event since the last case, numbered lastSeq+1, lastSeq+2, … */
  private async checkSeq(result: CaseResult): Promise<void> {
    const events = await this.events({ cursor: this.lastSeq }, result);
    if (!events) return;
    let expected = this.lastSeq + 1;
    result.checks++;
    for (const event of events) {
      if (event.seq !== expected) {
        result.failures.push(`seq: trace gap, expected #${expected}, got #${event.seq}`);
        break;
      }
      expected++;
    }
    this.lastSeq = expected - 1;
  }

  private async checkExport(result: CaseResult): Promise<void> {
    for (const format of ['jsonl', 'har'] as const) {
      result.checks++;
      let text: string;
      try {
        text = await this.host.exportText(format, DEADLINE_MS * 3);
      } catch (error) {
        result.failures.push(`export ${format}: ${(error as Error).message}`);
        continue;
      }
      try {
        if (format === 'har') {
          const har = JSON.parse(text) as { log?: { entries?: unknown[] } };
          if (!Array.isArray(har.log?.entries)) result.failures.push('export har: no log.entries array');
        } else {
          const lines = text.split('\n').filter((l) => l !== '');
          const header = JSON.parse(lines[0]!) as { eventCount: number };
          let seq = 0;
          for (const line of lines.slice(1)) {
            const event = JSON.parse(line) as TraceEvent;
            if (event.seq !== ++seq) throw new Error(`line ${seq + 1} has seq ${event.seq}`);
          }
          if (seq !== header.eventCount || seq < this.lastSeq) throw new Error(`${seq} events exported, header says ${header.eventCount}, trace has ≥ ${this.lastSeq}`);
        }
      } catch (error) {
        result.failures.push(`export ${format}: ${(error as Error).message}`);
      }
    }
  }

  /** raw: what the fuzz server sent is in the trace. Waits (bounded) for the last bytes to be read. */
  private async checkRaw(c: FuzzCase, id: string, result: CaseResult): Promise<void> {
    let problems: string[] = [];
    const settled = await sleepUntil(async () => {
      const scratch: CaseResult = { checks: 0, failures: [], notes: [] };
      const { sent } = await this.fuzz.sent();
      const events = await this.events({ servers: [id] }, scratch);
      if (!events) {
        problems = scratch.failures;
        return false;
      }
      problems = c.carrier === 'stdio' ? await this.compareStdio(sent, events, scratch) : await this.compareHttp(sent, events, scratch);
      problems.push(...scratch.failures);
      return problems.length === 0;
    }, 3_000);
    result.checks++;
    if (!settled) result.failures.push(...problems.map((p) => `raw: ${p}`));
  }

  private async compareStdio(sent: SentRecord[], events: TraceEvent[], scratch: CaseResult): Promise<string[]> {
    const bytes = Buffer.concat(sent.filter((r) => r.kind === 'line').map((r) => Buffer.from(r.b64, 'base64')));
    const lines = bytes
      .toString('utf8')
      .split('\n')
      .map((l) => l.replace(/\r$/, ''))
      .filter((l) => l.trim() !== '');
    const seen = events.filter((e) => e.kind === 'jsonrpc-in' || e.kind === 'stdout-garbage');
    const problems: string[] = [];
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!;
      const event = seen[i];
      if (!event) {
        problems.push(`stdio line ${i + 1} of ${lines.length} is not in the trace (${seen.length} stdout events): ${line.slice(0, 200)}`);
        break;
      }
      if (event.kind === 'stdout-garbage') {
        const want = line.length > 4096 ? `${line.slice(0, 4096)}…` : line;
        if (event.text !== want && !(event.meta?.reason === 'line too long')) problems.push(`stdio line ${i + 1}: trace #${event.seq} garbage text differs: sent ${JSON.stringify(line.slice(0, 120))}, trace ${JSON.stringify(event.text?.slice(0, 120))}`);
      } else {
        const why = sameValue(line, await this.payload(event, scratch)) ?? unfaithful(line, event);
        if (why) problems.push(`stdio line ${i + 1}: trace #${event.seq} differs from what was sent: ${why}`);
      }
    }
    return problems;
  }

  private async compareHttp(sent: SentRecord[], events: TraceEvent[], scratch: CaseResult): Promise<string[]> {
    const problems: string[] = [];
    const byExchange = new Map<string, TraceEvent[]>();
    for (const e of events) if (e.exchange) byExchange.set(e.exchange, [...(byExchange.get(e.exchange) ?? []), e]);
    for (const record of sent) {
      const response = events.find((e) => e.kind === 'http-response' && e.http?.headers?.['x-fuzz-seq'] === String(record.seq));
      if (!response) {
        // Answers of a previous case's server (still closing) or to a request the client had already given up on.
        if (record.tampered) problems.push(`response #${record.seq} (${record.method} ${record.path}, ${record.status}) is not in the trace`);
        continue;
      }
      if (response.http?.status !== record.status) problems.push(`response #${record.seq}: status ${record.status} sent, ${response.http?.status} in the trace`);
      const exchange = byExchange.get(response.exchange!) ?? [];
      const end = exchange.find((e) => e.kind === 'http-end');
      const body = Buffer.from(record.b64, 'base64');
      const isSse = (response.http?.contentType ?? '').toLowerCase().startsWith('text/event-stream');
      if (isSse) {
        const sentEvents: string[] = [];
        const parser = createParser({ onEvent: (m) => void (m.data ? sentEvents.push(m.data) : undefined) });
        parser.feed(body.toString('utf8'));
        const traced = exchange.filter((e) => e.kind === 'sse-event' && e.body !== undefined);
        const complete = end && end.http?.end !== 'client-aborted' && end.http?.end !== 'error';
        if (complete && record.done && traced.length < sentEvents.length) problems.push(`response #${record.seq}: ${sentEvents.length} SSE events sent, ${traced.length} in the trace`);
        for (let i = 0; i < Math.min(traced.length, sentEvents.length); i++) {
          const why = sameValue(sentEvents[i]!, await this.payload(traced[i]!, scratch)) ?? unfaithful(sentEvents[i]!, traced[i]!);
          if (why) problems.push(`response #${record.seq} SSE event ${i + 1}: ${why}`);
        }
      } else if (end && end.http?.end === 'complete' && body.length > 0) {
        const why = sameValue(body.toString('utf8'), await this.payload(end, scratch)) ?? unfaithful(body.toString('utf8'), end);
        if (why) problems.push(`response #${record.seq} body: ${why}`);
      } else if (!end && record.done && record.tampered && body.length > 0) {
        problems.push(`response #${record.seq} (${record.status}, ${record.headers?.['content-type']}): its ${body.length}-byte body never reached the trace (no http-end)`);
      }
    }
    return problems;
  }
}

/** fidelity: what JSON.parse would change (a lossy number) must be in the trace as the raw text. */
function unfaithful(text: string, event: TraceEvent): string | undefined {
  // Only JSON that was parsed (a text body is kept as text); a previewed event's whole text is in
  // the store's blob file, paged by traceEvent.
  if (typeof event.body === 'string' || event.body === undefined || event.truncated) return undefined;
  const lossy = lossyNumber(text);
  if (lossy === undefined || event.raw === text) return undefined;
  return `fidelity: the number ${lossy.slice(0, 40)} was sent; the trace keeps only its parsed value (${event.raw === undefined ? 'no raw text' : 'raw text differs'})`;
}

/**
 * Whether a traced payload is what was sent as `text`: the same string (text bodies), or the same
 * JSON value as it survives JSON (1e400 → null, -0 → 0) with cut subtrees allowed as markers.
 * Returns why not, or undefined.
 */
export function sameValue(text: string, traced: unknown): string | undefined {
  if (typeof traced === 'string') {
    if (traced === text) return undefined;
    // A JSON string literal is kept parsed, like any JSON (the format cannot tell it from text).
    try {
      if (JSON.parse(text) === traced) return undefined;
    } catch {
      // not JSON: the text must be the same
    }
    // A string payload that is the JSON text itself (a previewed body) is the same bytes.
    return `text differs (sent ${text.length} chars ${JSON.stringify(text.slice(0, 80))}, traced ${traced.length} chars ${JSON.stringify(traced.slice(0, 80))})`;
  }
  let sent: unknown;
  try {
    sent = JSON.parse(text);
  } catch {
    return `sent text is not JSON but the trace has a parsed value (${JSON.stringify(traced)?.slice(0, 80)})`;
  }
  // compare iteratively: values can be 100,000 levels deep
  const stack: [unknown, unknown, string][] = [[sent, traced, '$']];
  while (stack.length) {
    const [a, b, at] = stack.pop()!;
    if (isTruncationMarker(b) && typeof a === 'object' && a !== null) continue;
    if (typeof a === 'number') {
      const wire = Number.isFinite(a) ? (Object.is(a, -0) ? 0 : a) : null;
      if (b !== wire) return `${at}: sent ${text.length > 0 ? a : ''}, traced ${JSON.stringify(b)}`;
      continue;
    }
    if (a === null || typeof a !== 'object') {
      if (a !== b) return `${at}: sent ${JSON.stringify(a)?.slice(0, 80)}, traced ${JSON.stringify(b)?.slice(0, 80)}`;
      continue;
    }
    if (typeof b !== 'object' || b === null || Array.isArray(a) !== Array.isArray(b)) return `${at}: sent a ${Array.isArray(a) ? 'array' : 'object'}, traced ${JSON.stringify(b)?.slice(0, 80)}`;
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    if (ka.length !== kb.length) {
      const missing = ka.filter((k) => !Object.prototype.hasOwnProperty.call(b, k)).map((k) => k.slice(0, 40));
      return `${at}: ${ka.length} entries sent, ${kb.length} traced${missing.length ? `; key(s) ${JSON.stringify(missing.slice(0, 5))} missing in the trace` : ''}`;
    }
    for (const k of ka) {
      if (!Object.prototype.hasOwnProperty.call(b, k)) return `${at}: key ${JSON.stringify(k).slice(0, 60)} missing in the trace`;
      stack.push([(a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${at}.${k.slice(0, 30)}`]);
    }
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------
// Runs

export interface RunOptions {
  seed: number;
  runs: number;
  scale?: Scale;
  /** Replay from this fast-check path (a case index, or a shrunk path). */
  path?: string;
  log?: (line: string) => void;
  verbose?: boolean;
  /** Stop at the first new failure and let fast-check shrink it (prints its counterexample and path). */
  shrink?: boolean;
}

export interface Failure {
  seed: number;
  path: string;
  case: FuzzCase;
  failures: string[];
}

export interface RunStats {
  cases: number;
  checks: number;
  passed: number;
  failed: number;
  failures: Failure[];
  states: Record<string, number>;
  /** Cases whose only failures are open bugs pinned in regressions.ts, by bug. */
  known: Record<string, number>;
}

export function emptyStats(): RunStats {
  return { cases: 0, checks: 0, passed: 0, failed: 0, failures: [], states: {}, known: {} };
}

/** Runs `runs` cases of one seed on a started fuzzer; never stops at a failure (each is recorded with its path). */
export async function runSeed(fuzzer: Fuzzer, options: RunOptions, stats: RunStats = emptyStats()): Promise<RunStats> {
  let index = options.path ? Number(options.path.split(':')[0]) : 0;
  await fc.assert(
    fc.asyncProperty(fuzzCase(options.scale ?? CI_SCALE), async (c) => {
      const path = String(index++);
      const t0 = Date.now();
      const outcome = await fuzzer.runCase(c);
      outcome.ms = Date.now() - t0;
      if (options.verbose) options.log?.(`case ${path}: ${c.carrier} ${c.target} ${outcome.state} ${outcome.ms} ms ${outcome.failures.length ? 'FAIL' : 'ok'}`);
      stats.cases++;
      stats.checks += outcome.checks;
      stats.states[outcome.state ?? 'none'] = (stats.states[outcome.state ?? 'none'] ?? 0) + 1;
      const fresh = outcome.failures.filter((f) => !knownOpen(f));
      if (outcome.failures.length === 0) stats.passed++;
      else if (fresh.length === 0) {
        // Only open bugs already pinned in regressions.ts: counted, not new.
        for (const f of outcome.failures) stats.known[knownOpen(f)!.name] = (stats.known[knownOpen(f)!.name] ?? 0) + 1;
        options.log?.(`KNOWN seed ${options.seed} path ${path}: ${outcome.failures.join(' | ').slice(0, 400)}`);
      } else {
        stats.failed++;
        stats.failures.push({ seed: options.seed, path, case: c, failures: outcome.failures });
        options.log?.(`FAIL seed ${options.seed} path ${path}: ${outcome.failures.join(' | ').slice(0, 1500)}\n  case: ${describeCase(c)}`);
        // Shrinking: fast-check replays smaller cases until none fails, then reports the smallest.
        if (options.shrink) throw new Error(fresh.join('\n'));
      }
      return true;
    }),
    { seed: options.seed, numRuns: options.runs, ...(options.path ? { path: options.path } : {}), endOnFailure: !options.shrink },
  );
  return stats;
}

export function summaryLine(stats: RunStats): string {
  const known = Object.values(stats.known).reduce((a, b) => a + b, 0);
  return `fuzz: ${stats.cases} cases, ${stats.checks} invariant checks — ${stats.passed} passed, ${stats.failed} failed${known ? `, ${known} known open (regressions.ts)` : ''}`;
}
