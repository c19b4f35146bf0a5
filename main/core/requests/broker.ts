/**
 * The request broker: every server-initiated request (elicitation, sampling) becomes a
 * pending item pushed to the renderer; the answer comes back through the contract. Deadlines
 * and server-side cancellation resolve it cleanly; several can be pending at once. Requests
 * and answers are also in the trace (the JSON-RPC traffic itself, plus a lifecycle note).
 */
import { randomUUID } from 'node:crypto';
import { SdkErrorCode } from '@modelcontextprotocol/client';
import type { PendingRequest, RequestAnswer } from '../../../contract';
import type { TraceEventInput } from '../../../contract/trace';
import type { EventHub } from '../events';

export type Outcome = 'answered' | 'policy' | 'timeout' | 'cancelled-by-server' | 'connection-closed';

export class RequestTimeout extends Error {}
export class RequestAbandoned extends Error {}

interface Waiting {
  request: PendingRequest;
  resolve: (answer: RequestAnswer) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

export const DEFAULT_DEADLINE_MS = 10 * 60_000;

export class RequestBroker {
  private readonly waiting = new Map<string, Waiting>();

  constructor(
    private readonly events: EventHub,
    private readonly record: (event: TraceEventInput) => void,
  ) {}

  list(): PendingRequest[] {
    return [...this.waiting.values()].map((w) => w.request);
  }

  /** Waits for a person's answer. Rejects on the deadline or when the server cancels (signal). */
  ask(request: Omit<PendingRequest, 'id' | 'receivedAt' | 'deadline'>, options: { signal?: AbortSignal; deadlineMs?: number } = {}): Promise<RequestAnswer> {
    const receivedAt = Date.now();
    const deadlineMs = options.deadlineMs ?? DEFAULT_DEADLINE_MS;
    const pending: PendingRequest = { ...request, id: randomUUID(), receivedAt, deadline: receivedAt + deadlineMs };
    return new Promise<RequestAnswer>((resolve, reject) => {
      const finish = (outcome: Outcome, action?: string) => {
        const waiting = this.waiting.get(pending.id);
        if (!waiting) return false;
        clearTimeout(waiting.timer);
        this.waiting.delete(pending.id);
        this.events.emit('requestResolved', { id: pending.id, outcome, action });
        this.note(pending, `${pending.kind} ${outcome}${action ? `: ${action}` : ''}`);
        return true;
      };
      const timer = setTimeout(() => {
        if (finish('timeout')) reject(new RequestTimeout(`Nobody answered the ${pending.kind} request within ${deadlineMs >= 1000 ? `${Math.round(deadlineMs / 1000)} s` : `${deadlineMs} ms`}.`));
      }, deadlineMs);
      this.waiting.set(pending.id, {
        request: pending,
        timer,
        resolve: (answer) => {
          if (finish('answered', answer.action)) resolve(answer);
        },
        reject: (error) => {
          if (finish(error instanceof RequestAbandoned ? 'connection-closed' : 'cancelled-by-server')) reject(error);
        },
      });
      // The SDK aborts with its ConnectionClosed error when the connection goes (a killed server): that is not the server cancelling.
      const closed = () => (options.signal?.reason as { code?: unknown } | undefined)?.code === SdkErrorCode.ConnectionClosed;
      options.signal?.addEventListener('abort', () => this.waiting.get(pending.id)?.reject(closed() ? new RequestAbandoned('The connection closed.') : new Error('The server cancelled the request.')), { once: true });
      this.note(pending, `${pending.kind} waiting for an answer`);
      this.events.emit('requestPending', pending);
    });
  }

  /** An answer from the renderer. False when the request is no longer pending. */
  answer(id: string, answer: RequestAnswer): boolean {
    const waiting = this.waiting.get(id);
    if (!waiting) return false;
    waiting.resolve(answer);
    return true;
  }

  /** Records a request answered by policy, without asking anyone. */
  answeredByPolicy(request: Omit<PendingRequest, 'id' | 'receivedAt' | 'deadline'>, action: string): void {
    const id = randomUUID();
    this.events.emit('requestResolved', { id, outcome: 'policy', action });
    this.record({ server: request.serverId, channel: 'lifecycle', kind: 'state', dir: 'none', text: `${request.kind} answered by policy: ${action}`, meta: { request: request.kind, policy: action } });
  }

  /** A server went away: its questions can no longer be answered. */
  abandon(serverId: string): void {
    for (const waiting of [...this.waiting.values()]) {
      if (waiting.request.serverId === serverId) waiting.reject(new RequestAbandoned('The connection closed.'));
    }
  }

  private note(request: PendingRequest, text: string): void {
    this.record({ server: request.serverId, channel: 'lifecycle', kind: 'state', dir: 'none', text, meta: { request: request.kind, requestId: request.id } });
  }
}
