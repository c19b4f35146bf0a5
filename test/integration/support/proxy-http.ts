/**
 * Shared by the HTTP proxy's tests: a recorder that keeps events in memory (the recorder itself is
 * the stdio part's; these tests prove the forwarding), and small trace helpers.
 */
import type { TraceEvent, TraceEventInput } from '../../../contract/trace';
import { createFaultEngine } from '../../../main/core/faults';
import type { ProxyRecorder } from '../../../main/core/proxy/types';
import { Redactor } from '../../../main/core/trace/redact';

export interface MemoryRecorder extends ProxyRecorder {
  readonly events: TraceEvent[];
  readonly clientMessages: unknown[];
}

export function memoryRecorder(serverId = 'proxied'): MemoryRecorder {
  const events: TraceEvent[] = [];
  const clientMessages: unknown[] = [];
  const now = () => performance.timeOrigin + performance.now();
  return {
    serverId,
    redactor: new Redactor(),
    events,
    clientMessages,
    now,
    record(event: Omit<TraceEventInput, 'server'>) {
      events.push({ ...event, server: serverId, seq: events.length + 1, ts: event.ts ?? now() });
    },
    observeClientMessage(message) {
      clientMessages.push(message);
    },
    faults: createFaultEngine(),
    close: async () => undefined,
  };
}

/** `channel/kind` pairs of a trace, for comparing what two connections recorded. */
export function shapes(events: readonly TraceEvent[]): Set<string> {
  return new Set(events.map((e) => `${e.channel}/${e.kind}`));
}

export async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
