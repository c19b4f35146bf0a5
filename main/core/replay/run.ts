/**
 * Replay, part 4: recorded requests sent again through the app's own connection to a server,
 * one at a time in recorded order, and each answer compared with the recorded one.
 *
 * Both sides are compared as they crossed the wire: the old answer from the recording, the new
 * one from the live trace (the replayed request is an ordinary request of the connection, so it
 * is in Traffic, and its seqs are learnt as it is recorded). The client library's own view of
 * the answer is not used: it may refuse or reshape a result that the server did send.
 *
 * A tools/call is sent only if its tool is in `confirmTools` (a person named it): the rest are
 * skipped and say why. Nothing is sent when the target is not connected.
 */
import { z } from 'zod';
import type { ReplayDifference, ReplayItem, ReplayOutcome, ReplayReport } from '../../../contract';
import type { ServerConnection } from '../connection/server-connection';
import { CoreError } from '../errors';
import type { AuditLog } from '../audit/audit-log';
import type { TraceHub } from '../trace/hub';
import { REDACTED } from '../trace/redact';
import { trackRequest, type RequestSeqs } from '../trace/request-seqs';
import type { RecordedRequest } from './candidates';
import { diffValues, latencyDifference } from './diff';
import { checkStructuredContent } from './output-schema';

/** One run sends at most this many requests (the contract's `seqs` allows as many). */
export const MAX_SENT = 1_000;
/** A value larger than this (serialized) is not carried in the report: the diff still saw it whole. */
export const MAX_CARRIED_CHARS = 256 * 1024;

const AnyResult = z.unknown();

export interface ReplayDeps {
  /** The live trace the replayed requests are recorded in. */
  trace: TraceHub;
  audit?: AuditLog;
}

export interface ReplayPlan {
  source: string;
  requests: RecordedRequest[];
  target: ServerConnection;
  confirmTools: string[];
  timeoutMs?: number;
}

/** `_meta` keys that belong to how a message travelled (progress, the 2026 per-request envelope): Switchboard's client sets its own. */
function paramsToSend(params: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!params || !params._meta || typeof params._meta !== 'object' || Array.isArray(params._meta)) return params;
  const meta = Object.fromEntries(Object.entries(params._meta as Record<string, unknown>).filter(([key]) => key !== 'progressToken' && !key.startsWith('io.modelcontextprotocol/') && !key.startsWith('modelcontextprotocol.io/')));
  const { _meta: _dropped, ...rest } = params;
  return Object.keys(meta).length ? { ...rest, _meta: meta } : rest;
}

function containsRedacted(value: unknown): boolean {
  const stack = [value];
  while (stack.length) {
    const node = stack.pop();
    if (node === REDACTED) return true;
    if (node && typeof node === 'object') stack.push(...Object.values(node as Record<string, unknown>));
  }
  return false;
}

/** A recorded or live JSON-RPC answer as an outcome. */
function outcomeOf(message: Record<string, unknown> | undefined, latencyMs: number | undefined, seq: number | undefined): ReplayOutcome {
  const outcome: ReplayOutcome = { seq, ...(latencyMs !== undefined ? { latencyMs } : {}) };
  if (!message) return outcome;
  if (message.error && typeof message.error === 'object') {
    const error = message.error as { code?: unknown; message?: unknown };
    outcome.error = { ...(typeof error.code === 'number' ? { code: error.code } : {}), message: typeof error.message === 'string' ? error.message : JSON.stringify(error.message ?? '') };
  } else outcome.result = message.result;
  return outcome;
}

function carried(value: unknown): unknown {
  if (value === undefined) return undefined;
  let length: number;
  try {
    length = JSON.stringify(value)?.length ?? 0;
  } catch {
    return { '$switchboard:omitted': true, reason: 'not serializable' };
  }
  return length > MAX_CARRIED_CHARS ? { '$switchboard:omitted': true, chars: length, reason: 'larger than the report carries; the whole answer is in the trace' } : value;
}

/** How two outcomes differ: result, error, schema; latency shown but never counted. */
export function compareOutcomes(old: ReplayOutcome, next: ReplayOutcome): { differences: ReplayDifference[]; same: boolean } {
  const differences: ReplayDifference[] = [];
  if (old.error && next.error) {
    if (old.error.code !== next.error.code) differences.push({ kind: 'error', path: '/code', message: `error code ${old.error.code ?? '(none)'} → ${next.error.code ?? '(none)'}`, old: old.error.code, new: next.error.code });
    if (old.error.message !== next.error.message) differences.push({ kind: 'error', path: '/message', message: 'error message changed', old: old.error.message, new: next.error.message });
  } else if (old.error || next.error) {
    differences.push({
      kind: 'error',
      path: '',
      message: old.error ? `was an error (${old.error.code ?? ''} ${old.error.message}), now a result`.replace('( ', '(') : `was a result, now an error: ${next.error!.code ?? ''} ${next.error!.message}`.replace(':  ', ': '),
      old: old.error ?? carried(old.result),
      new: next.error ?? carried(next.result),
    });
  } else if (old.result !== undefined || next.result !== undefined) {
    differences.push(...diffValues(old.result, next.result));
  }
  if (next.schema && !next.schema.valid && (old.schema?.valid !== false || old.schema.errors.join('\n') !== next.schema.errors.join('\n'))) {
    differences.push({ kind: 'schema', path: '/structuredContent', message: `structuredContent does not match the tool's output schema: ${next.schema.errors.slice(0, 3).join('; ')}`, old: old.schema, new: next.schema });
  }
  const same = differences.length === 0;
  const latency = latencyDifference(old.latencyMs, next.latencyMs);
  if (latency) differences.push(latency);
  return { differences, same };
}

/** The live trace's answer to a replayed request, by the seqs learnt as it was recorded. */
function liveAnswer(trace: TraceHub, seqs: RequestSeqs): { message?: Record<string, unknown>; latencyMs?: number } {
  if (seqs.requestSeq === undefined || seqs.responseSeq === undefined) return {};
  const request = trace.store.get(seqs.requestSeq);
  const response = trace.store.get(seqs.responseSeq);
  if (!request || !response) return {};
  const requestId = (Array.isArray(request.body) ? undefined : (request.body as { id?: unknown } | undefined)?.id) ?? request.rpc?.id;
  let body = response.truncated ? trace.store.payload(response.seq) : response.body;
  if (Array.isArray(body)) body = body.find((m) => (m as { id?: unknown } | undefined)?.id === requestId) ?? body[0];
  return { message: body && typeof body === 'object' ? (body as Record<string, unknown>) : undefined, latencyMs: response.ts - request.ts };
}

export async function runReplay(deps: ReplayDeps, plan: ReplayPlan): Promise<ReplayReport> {
  const { target } = plan;
  if (target.status().state !== 'connected' && !target.isIdle()) await target.connect();
  const state = target.status();
  if (state.state !== 'connected' && !target.isIdle()) throw new CoreError('conflict', `${target.config.name} is ${state.state}${state.error ? `: ${state.error}` : ''}; nothing was sent.`);
  const confirmed = new Set(plan.confirmTools);
  const startedAt = Date.now();
  const items: ReplayItem[] = [];
  let sent = 0;
  for (const request of plan.requests) {
    const { candidate } = request;
    const old = outcomeOf(request.response?.message, request.response ? request.response.ts - request.requestTs : undefined, candidate.seq);
    const skip = (why: string) => items.push({ candidate, old: { ...old, result: carried(old.result) }, new: {}, differences: [], same: false, skipped: why });
    if (request.refused) {
      skip(request.refused);
      continue;
    }
    if (candidate.method === 'tools/call' && (candidate.tool === undefined || !confirmed.has(candidate.tool))) {
      skip(`not sent: tools/call of "${candidate.tool ?? '?'}" was not confirmed (a tool call may change things; confirm the tool by name to send it).`);
      continue;
    }
    if (containsRedacted(request.params)) {
      skip(`not sent: its recorded params hold ${REDACTED} values (secrets removed before recording); sent again, they would not be the same request.`);
      continue;
    }
    if (sent >= MAX_SENT) {
      skip(`not sent: one replay sends at most ${MAX_SENT} requests.`);
      continue;
    }
    sent++;
    const next = await sendOne(deps, target, candidate.method, paramsToSend(request.params), plan.timeoutMs);
    if (candidate.method === 'tools/call') {
      const schema = target.listTools().find((t) => t.name === candidate.tool)?.outputSchema as Record<string, unknown> | undefined;
      const oldCheck = checkStructuredContent(schema, old.result);
      const newCheck = checkStructuredContent(schema, next.result);
      if (oldCheck) old.schema = oldCheck;
      if (newCheck) next.schema = newCheck;
      deps.audit?.append({
        ts: Date.now(),
        serverId: target.id,
        serverName: target.config.name,
        tool: candidate.tool!,
        argumentKeys: Object.keys((request.params?.arguments as Record<string, unknown> | undefined) ?? {}),
        durationMs: next.latencyMs ?? 0,
        outcome: next.error ? (next.error.code === undefined ? 'transport-error' : 'rpc-error') : (next.result as { isError?: unknown } | undefined)?.isError === true ? 'tool-error' : 'ok',
        ...(next.error ? { error: next.error.message } : {}),
      });
    }
    const { differences, same } = compareOutcomes(old, next);
    items.push({ candidate, old: { ...old, result: carried(old.result) }, new: { ...next, result: carried(next.result) }, differences, same });
  }
  return {
    source: plan.source,
    target: { serverId: target.id, serverName: target.config.name },
    startedAt,
    items,
    sent,
    differ: items.filter((i) => !i.skipped && !i.same).length,
    skipped: items.filter((i) => i.skipped).length,
  };
}

/** Sends one request through the connection (tools/call through its own path: the legacy era's pausable timeout, questions tied to it). */
async function sendOne(deps: ReplayDeps, target: ServerConnection, method: string, params: Record<string, unknown> | undefined, timeoutMs: number | undefined): Promise<ReplayOutcome> {
  const started = performance.now();
  let seqs: RequestSeqs = {};
  let thrown: unknown;
  try {
    await trackRequest(deps.trace, target.id, method, (tracked) => {
      seqs = tracked;
      if (method === 'tools/call') return target.callTool(String(params?.name ?? ''), (params?.arguments as Record<string, unknown> | undefined) ?? {}, { timeoutMs });
      return target.withClient(method, true, (client, timeout) => client.request({ method, ...(params ? { params } : {}) } as never, AnyResult, { timeout: timeoutMs ?? timeout }));
    });
  } catch (error) {
    thrown = error;
  }
  const answer = liveAnswer(deps.trace, seqs);
  const outcome = outcomeOf(answer.message, answer.latencyMs ?? performance.now() - started, seqs.requestSeq);
  if (!answer.message && thrown !== undefined) {
    // Never answered on the wire: a timeout, a lost connection, or refused before sending (a method the connection's era does not have).
    const message = target.redactor.text(thrown instanceof Error ? thrown.message : String(thrown));
    outcome.error = { message: seqs.requestSeq === undefined ? `not sent: ${message}` : message };
  }
  return outcome;
}
