/**
 * The connection doctor (#16): walks one server's connection step by step — each step timed, with
 * its own timeout and a verdict in plain words — and names the first step that fails and what to
 * try. HTTP: doctor/http.ts (and oauth.ts); stdio: doctor/stdio.ts; both end with the protocol
 * steps through the app's own client (protocol.ts). Every string in the report went through a
 * redactor that knows the target's secrets and the token, if one was given.
 */
import { randomUUID } from 'node:crypto';
import type { ServerTarget } from '../../../contract';
import type { DoctorReport } from '../../../contract/checks';
import { configSecrets, redactArgs, redactUrl, Redactor } from '../trace/redact';
import { HTTP_STEP_COUNT, httpSteps } from './http';
import { STDIO_STEP_COUNT, stdioSteps } from './stdio';
import { cut, StepRunner, summarize, type StepProgress } from './steps';

export interface DoctorOptions {
  runId?: string;
  serverId?: string;
  /** A bearer token to send (the signed-in server's): sent as Authorization, never shown. */
  bearerToken?: string;
  /** Each lower-layer step's timeout (default 5 s). */
  stepTimeoutMs?: number;
  /** Each era's connect and each list call (default 10 s). */
  protocolTimeoutMs?: number;
  onProgress?: (progress: StepProgress) => void;
}

export { type StepProgress } from './steps';

export function doctorTargetText(target: ServerTarget): string {
  return target.type === 'http' ? redactUrl(target.url) : [target.command, ...redactArgs(target.args)].join(' ');
}

export async function runDoctor(input: ServerTarget, options: DoctorOptions = {}): Promise<DoctorReport> {
  const startedAt = Date.now();
  const started = performance.now();
  const redactor = new Redactor();
  for (const secret of configSecrets(input)) redactor.addSecret(secret);
  let target = input;
  if (options.bearerToken && target.type === 'http') {
    redactor.addSecret(options.bearerToken);
    const hasAuth = Object.keys(target.headers).some((k) => k.toLowerCase() === 'authorization');
    if (!hasAuth) target = { ...target, headers: { ...target.headers, Authorization: `Bearer ${options.bearerToken}` } };
  }
  const total = target.type === 'http' ? HTTP_STEP_COUNT : STDIO_STEP_COUNT;
  const runner = new StepRunner(redactor, total, options.onProgress);
  const timeouts = { stepTimeoutMs: options.stepTimeoutMs ?? 5_000, protocolTimeoutMs: options.protocolTimeoutMs ?? 10_000 };
  if (target.type === 'http') await httpSteps(runner, target, redactor, timeouts);
  else await stdioSteps(runner, target, redactor, timeouts);
  options.onProgress?.({ done: runner.steps.length, total: runner.steps.length, label: 'done' });
  const { firstFailure, summary } = summarize(runner.steps);
  return {
    runId: options.runId ?? randomUUID(),
    ...(options.serverId ? { serverId: options.serverId } : {}),
    target: cut(redactor.text(doctorTargetText(target)), 4000),
    transport: target.type,
    startedAt,
    durationMs: Math.round(performance.now() - started),
    steps: runner.steps,
    ...(firstFailure ? { firstFailure } : {}),
    summary: redactor.text(summary),
  };
}
