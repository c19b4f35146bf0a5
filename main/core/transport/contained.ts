/**
 * A failure while handling one server's message (a throw in a stream callback, a message over
 * the size limit nobody is waiting for) is that server's error: the transport hands it to the
 * SDK's `onerror`, the connection reports it (Logs, trace), and nothing reaches the process.
 */
import { MessageTooLargeError } from './limits';

export class ServerHandlingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ServerHandlingError';
  }
}

/** An error the connection reports as this server's (and not routine transport noise). */
export function isHandlingFailure(error: unknown): error is Error {
  if (error instanceof ServerHandlingError || error instanceof MessageTooLargeError) return true;
  // The SDK's words for a throw inside a notification handler (it catches it and calls onerror).
  return error instanceof Error && /^Uncaught error in notification handler/.test(error.message);
}

/** The transport already put this one in the trace (as an `error` or flagged event). */
export function recordedByTransport(error: Error): boolean {
  return error instanceof ServerHandlingError || error instanceof MessageTooLargeError;
}
