/**
 * The last net: an exception or rejection nobody caught is written to stderr and to the log bus
 * as an app error, and the process goes on serving. Whatever a server sends is contained long
 * before this (encoders, the trace, transports); reaching here is a bug, reported where a person
 * sees it, never a crash of every other server's session.
 */
import type { LogBus } from './log-bus';

export interface ProcessGuardOptions {
  /** The log bus of the running core, once there is one. */
  logs?: () => LogBus | undefined;
  /** Where the line goes besides the log bus (default: stderr). */
  stderr?: (text: string) => void;
  /**
   * Called after reporting (a one-shot CLI command ends itself non-zero); absent: keep serving.
   * Receives what happened, already reported.
   */
  onFault?: (kind: 'uncaughtException' | 'unhandledRejection', error: unknown) => void;
}

export function describeFault(error: unknown): string {
  if (error instanceof Error) return error.stack ?? `${error.name}: ${error.message}`;
  return String(error);
}

/** Installs the handlers; returns a function that removes them. */
export function installProcessGuards(options: ProcessGuardOptions = {}): () => void {
  const stderr = options.stderr ?? ((text: string) => process.stderr.write(text));
  const handle = (kind: 'uncaughtException' | 'unhandledRejection') => (error: unknown) => {
    const what = kind === 'uncaughtException' ? 'an uncaught exception' : 'an unhandled promise rejection';
    const detail = describeFault(error);
    try {
      stderr(`switchboard: ${what} (the app keeps running): ${detail}\n`);
    } catch {
      // nowhere else to write it
    }
    try {
      const first = detail.split('\n')[0] ?? detail;
      options.logs?.()?.app('error', `Internal error, contained (${what}): ${first}`);
    } catch {
      // stderr has it
    }
    options.onFault?.(kind, error);
  };
  const onException = handle('uncaughtException');
  const onRejection = handle('unhandledRejection');
  process.on('uncaughtException', onException);
  process.on('unhandledRejection', onRejection);
  return () => {
    process.off('uncaughtException', onException);
    process.off('unhandledRejection', onRejection);
  };
}
