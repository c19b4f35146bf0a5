/**
 * The doctor's step runner: each step runs under its own timeout, is timed, and ends in a verdict
 * with plain words; a throw is the step's failure, never the run's. Every string a step returns
 * passes the redactor and is cut to the contract's bounds before it reaches the report.
 */
import type { DoctorStep, DoctorVerdict } from '../../../contract/checks';
import type { Redactor } from '../trace/redact';

export interface StepOutcome {
  verdict: DoctorVerdict;
  detail: string;
  hint?: string;
  facts?: { label: string; value: string }[];
}

export interface StepProgress {
  done: number;
  total: number;
  label: string;
}

export class StepTimeoutError extends Error {}

/** Bounds of the contract (contract/checks.ts DoctorStep), kept a little under. */
const MAX_DETAIL = 3_900;
const MAX_HINT = 1_900;
const MAX_FACT_VALUE = 1_900;
const MAX_FACTS = 50;

export function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

export class StepRunner {
  readonly steps: DoctorStep[] = [];

  constructor(
    private readonly redactor: Redactor,
    private readonly total: number,
    private readonly onProgress?: (progress: StepProgress) => void,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Runs one step; `run` gets a signal that aborts at the step's timeout. */
  async run(id: string, title: string, timeoutMs: number, run: (signal: AbortSignal) => Promise<StepOutcome>): Promise<DoctorStep> {
    this.onProgress?.({ done: this.steps.length, total: this.total, label: title });
    const started = this.now();
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort(new StepTimeoutError(`no answer within ${Math.round(timeoutMs / 100) / 10} s`));
        reject(new StepTimeoutError(`no answer within ${Math.round(timeoutMs / 100) / 10} s`));
      }, timeoutMs);
    });
    let outcome: StepOutcome;
    try {
      outcome = await Promise.race([run(controller.signal), timeout]);
    } catch (error) {
      outcome =
        error instanceof StepTimeoutError
          ? { verdict: 'failed', detail: `Timed out: ${error.message}.`, hint: 'The server (or something between) accepted the request but did not answer in time.' }
          : { verdict: 'failed', detail: `This step could not run: ${error instanceof Error ? error.message : String(error)}` };
    } finally {
      clearTimeout(timer);
      controller.abort();
    }
    return this.push(id, title, outcome, this.now() - started);
  }

  /** A step that cannot run because an earlier one failed (or does not apply). */
  skip(id: string, title: string, why: string): DoctorStep {
    return this.push(id, title, { verdict: 'skipped', detail: why }, 0);
  }

  private push(id: string, title: string, outcome: StepOutcome, durationMs: number): DoctorStep {
    const clean = (text: string, max: number) => cut(this.redactor.text(text), max);
    const step: DoctorStep = {
      id,
      title,
      verdict: outcome.verdict,
      durationMs: Math.max(0, Math.round(durationMs * 10) / 10),
      detail: clean(outcome.detail, MAX_DETAIL),
      ...(outcome.hint ? { hint: clean(outcome.hint, MAX_HINT) } : {}),
      facts: (outcome.facts ?? []).slice(0, MAX_FACTS).map((f) => ({ label: cut(f.label, 190), value: clean(f.value, MAX_FACT_VALUE) })),
    };
    this.steps.push(step);
    return step;
  }

  failed(id: string): boolean {
    return this.steps.some((s) => s.id === id && s.verdict === 'failed');
  }
}

/** The first failure and one sentence about it (or "Fine: …"). */
export function summarize(steps: readonly DoctorStep[]): { firstFailure?: string; summary: string } {
  const first = steps.find((s) => s.verdict === 'failed');
  if (!first) {
    const warnings = steps.filter((s) => s.verdict === 'warning');
    if (warnings.length > 0) return { summary: `Fine, with ${warnings.length} warning${warnings.length === 1 ? '' : 's'}: ${warnings.map((w) => w.title).join(', ')}.` };
    return { summary: 'Fine: every step passed.' };
  }
  return { firstFailure: first.id, summary: cut(`It breaks at "${first.title}": ${first.detail}${first.hint ? ` Try: ${first.hint}` : ''}`, 3_990) };
}

export function errorMessageOf(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code && !error.message.includes(code) ? `${error.message} (${code})` : error.message;
  }
  return String(error);
}
