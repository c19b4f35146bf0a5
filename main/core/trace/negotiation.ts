/**
 * Marks the events of protocol-version negotiation as they are appended. The SDK's 2026-07-28
 * negotiation sends `server/discover` (id `server-discover-probe-N`) before anything else; a
 * legacy server is expected to refuse it ("Method not found", an HTTP 4xx), and the SDK then
 * initializes in the 2025 era. Such an answer is negotiation, not an error: the event gets
 * `negotiation: 'answer'` and nothing else changes (body, raw and every other field stay as they
 * arrived, so exports are unchanged but for the mark). A probe answered with a real failure —
 * 401/403, a 5xx, a transport error — is marked `failed` and stays an error.
 */
import type { NegotiationMark, TraceEvent } from '../../../contract/trace';

export const PROBE_METHOD = 'server/discover';
/** A server that never answers its probes must not grow the sets without end. */
const MAX_OPEN = 64;

interface Open {
  ids: Set<string | number>;
  exchanges: Set<string>;
}

export class NegotiationMarker {
  private readonly servers = new Map<string, Open>();

  /** Sets `event.negotiation` when the event belongs to a probe (in place: the store numbers the same object). */
  mark(event: TraceEvent): void {
    const open = this.open(event.server);
    if (event.kind === 'state' && (event.meta?.state === 'disconnected' || event.meta?.state === 'error')) {
      open.ids.clear();
      open.exchanges.clear();
      return;
    }
    const mark = this.classify(event, open);
    if (mark && !event.negotiation) event.negotiation = mark;
  }

  private classify(event: TraceEvent, open: Open): NegotiationMark | undefined {
    // Nothing open and no probe sent: nothing to mark (every event of a session past its start).
    if (open.ids.size === 0 && open.exchanges.size === 0 && event.rpc?.method !== PROBE_METHOD && !event.batch) return undefined;
    const rpcs = event.batch ?? (event.rpc ? [event.rpc] : []);
    if (rpcs.some((r) => r.kind === 'request' && r.method === PROBE_METHOD && event.kind !== 'http-end')) {
      for (const r of rpcs) if (r.kind === 'request' && r.method === PROBE_METHOD && r.id !== undefined) remember(open.ids, r.id);
      if (event.exchange) remember(open.exchanges, event.exchange);
      return 'probe';
    }
    let mark: NegotiationMark | undefined;
    for (const r of rpcs) {
      if ((r.kind === 'result' || r.kind === 'error') && r.id !== undefined && open.ids.delete(r.id)) mark = 'answer';
    }
    if (event.exchange && open.exchanges.has(event.exchange)) {
      if (event.kind === 'http-end') open.exchanges.delete(event.exchange);
      mark = 'answer';
    }
    if (mark && isRealFailure(event)) return 'failed';
    return mark;
  }

  private open(server: string): Open {
    let open = this.servers.get(server);
    if (!open) {
      open = { ids: new Set(), exchanges: new Set() };
      this.servers.set(server, open);
    }
    return open;
  }
}

/** What the SDK itself does not take as "a legacy server": it fails the connect, and so it is an error here too. */
function isRealFailure(event: TraceEvent): boolean {
  const status = event.http?.status;
  return status === 401 || status === 403 || (status !== undefined && status >= 500) || event.http?.end === 'error' || event.kind === 'error' || event.kind === 'stdout-garbage';
}

function remember<T>(set: Set<T>, value: T): void {
  if (set.size >= MAX_OPEN) set.clear();
  set.add(value);
}
