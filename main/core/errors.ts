/**
 * The errors handlers throw, below the dispatcher: any layer may throw a CoreError without
 * importing the dispatcher (which turns it into the envelope's `error`, detail included).
 */
import type { z } from 'zod';
import type { ContractErrorShape, ErrorDetail } from '../../contract';

/** Thrown by handlers for errors the user should read as they are, with the facts behind them. */
export class CoreError extends Error {
  constructor(
    readonly code: ContractErrorShape['code'],
    message: string,
    readonly detail?: ErrorDetail,
  ) {
    super(message);
    this.name = 'CoreError';
  }
}

/** A zod error as field-level issues: path → message. */
export function formatIssues(error: z.ZodError): { path: string; message: string }[] {
  return error.issues.map((issue) => ({
    path: issue.path.map(String).join('.') || '(arguments)',
    message: issue.message,
  }));
}
