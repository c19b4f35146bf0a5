/** Helpers the trace integration tests share: grouping events by exchange, polling for a condition. */
import type { TraceEvent } from '../../../contract/trace';
import { sleep } from '../../fixtures/everything/server';

export function byExchange(events: TraceEvent[]): Map<string, TraceEvent[]> {
  const map = new Map<string, TraceEvent[]>();
  for (const e of events) if (e.exchange) (map.get(e.exchange) ?? map.set(e.exchange, []).get(e.exchange)!).push(e);
  return map;
}

export async function waitFor<T>(what: string, probe: () => T | undefined | false, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}
