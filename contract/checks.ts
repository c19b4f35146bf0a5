/**
 * Judging a server (#16): the official conformance suite's server scenarios run against a
 * person's server, the connection doctor, and OTLP export of a trace. Shared by the app (these
 * are the contract's results) and the CLI (`conformance --json`, `doctor --json`).
 *
 * Every string that came from a server or the suite is bounded here: a report is shown and saved,
 * so it must not carry an unbounded body.
 */
import { z } from 'zod';

const text = (max: number) => z.string().max(max);

/** A check's or a scenario's outcome, in the words the UI and JUnit use. */
export const CheckVerdict = z.enum(['passed', 'failed', 'warning', 'not-applicable', 'skipped', 'info']);
export type CheckVerdict = z.output<typeof CheckVerdict>;

/** A requirement of the specification (or a SEP) a check stands for. */
export const SpecRef = z.object({ id: text(200), url: text(2048).optional() });
export type SpecRef = z.output<typeof SpecRef>;

/** Where the exchange behind a check is: a trace source (`rec-ID` of the run's recording, or `live`) and a seq in it. */
export const ExchangeRef = z.object({ source: text(100), seq: z.number().int().min(1), serverId: text(100).optional() });
export type ExchangeRef = z.output<typeof ExchangeRef>;

export const ConformanceCheck = z.object({
  /** The suite's check id, e.g. `server-initialize`, `tools-call-image`. */
  id: text(200),
  name: text(300),
  description: text(2000).optional(),
  verdict: CheckVerdict,
  /** The suite's error message, or why it does not apply. */
  message: text(4000).optional(),
  specRefs: z.array(SpecRef).max(20).default([]),
  /** The request/response that decided it, one click away in Traffic. */
  exchange: ExchangeRef.optional(),
  /** The suite's details object, as bounded JSON text. */
  details: text(20_000).optional(),
});
export type ConformanceCheck = z.output<typeof ConformanceCheck>;

export const ConformanceScenario = z.object({
  name: text(200),
  description: text(2000).optional(),
  /** failed if any check failed; not-applicable when the server lacks what the scenario needs. */
  verdict: CheckVerdict,
  /** Why it does not apply ("needs the tool test_image_content, which this server does not list"). */
  reason: text(2000).optional(),
  checks: z.array(ConformanceCheck).max(500),
  durationMs: z.number().min(0),
});
export type ConformanceScenario = z.output<typeof ConformanceScenario>;

export const VerdictCounts = z.object({
  passed: z.number().int().min(0),
  failed: z.number().int().min(0),
  warning: z.number().int().min(0),
  notApplicable: z.number().int().min(0),
  skipped: z.number().int().min(0),
});
export type VerdictCounts = z.output<typeof VerdictCounts>;

export const ConformanceReport = z.object({
  runId: text(100),
  serverId: text(100).optional(),
  /** The server's URL as the suite was pointed at it (secrets in it redacted). */
  url: text(4096),
  suiteVersion: text(50),
  startedAt: z.number(),
  durationMs: z.number().min(0),
  scenarios: z.array(ConformanceScenario).max(500),
  /** Per scenario. */
  counts: VerdictCounts,
  /** The trace of the run (the suite's own client, recorded through the proxy): a trace source to open in Traffic. */
  traceSource: text(100).optional(),
  /** Set when the run could not happen at all (no Node 22, the server is stdio, …); then `scenarios` is empty. */
  problem: text(4000).optional(),
  /** What kind of problem: no runner or Node for it, the server unreachable or not initializing, a stdio server, a scenario the suite lacks, the run broke off. */
  problemKind: z.enum(['runtime', 'unreachable', 'stdio', 'unknown-scenario', 'run']).optional(),
});
export type ConformanceReport = z.output<typeof ConformanceReport>;

// ------------------------------------------------------------------ doctor

export const DoctorVerdict = z.enum(['ok', 'failed', 'warning', 'skipped', 'info']);
export type DoctorVerdict = z.output<typeof DoctorVerdict>;

export const DoctorStep = z.object({
  /** Stable ids, e.g. `config`, `dns`, `tcp`, `tls`, `http`, `content-type`, `cors`, `prm`, `asm`, `registration`, `discover`, `initialize-2025`, `list`, `listen`, `stdio-command`, `stdio-executable`, `stdio-start`, `stdio-stdout`, `stdio-exit`, `stderr`. */
  id: text(100),
  title: text(300),
  verdict: DoctorVerdict,
  durationMs: z.number().min(0),
  /** What was seen, in plain words. */
  detail: text(4000),
  /** What to try, when it failed or warned ("the server must log to stderr"). */
  hint: text(2000).optional(),
  /** Facts for the curious (addresses, certificate subject and expiry, status codes), bounded. */
  facts: z.array(z.object({ label: text(200), value: text(2000) })).max(50).default([]),
});
export type DoctorStep = z.output<typeof DoctorStep>;

export const DoctorReport = z.object({
  runId: text(100),
  serverId: text(100).optional(),
  /** The URL or the command line diagnosed (secrets redacted). */
  target: text(4096),
  transport: z.enum(['http', 'stdio']),
  startedAt: z.number(),
  durationMs: z.number().min(0),
  steps: z.array(DoctorStep).max(100),
  /** The first step that failed, if one did. */
  firstFailure: text(100).optional(),
  /** One sentence: "Fine: …" or where it breaks and what to try. */
  summary: text(4000),
});
export type DoctorReport = z.output<typeof DoctorReport>;

// ------------------------------------------------------------------ progress of a long check

export const CheckProgress = z.object({
  runId: text(100),
  kind: z.enum(['conformance', 'doctor']),
  done: z.number().int().min(0),
  total: z.number().int().min(0).optional(),
  /** What runs now ("tools-call-image", "TLS handshake"). */
  label: text(300),
});
export type CheckProgress = z.output<typeof CheckProgress>;

// ------------------------------------------------------------------ OTLP

export const OtlpHeader = z.object({ name: z.string().min(1).max(200), value: z.string().max(8192) });

export const OtlpSendResult = z.object({
  spans: z.number().int().min(0),
  /** HTTP requests made to the endpoint (batches). */
  requests: z.number().int().min(0),
  endpoint: text(4096),
});
export type OtlpSendResult = z.output<typeof OtlpSendResult>;
