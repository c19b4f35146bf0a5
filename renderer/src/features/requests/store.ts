/**
 * The questions servers are asking, on the renderer side, for the window's life: what is pending
 * (from `listPendingRequests`, then `requestPending` / `requestResolved`), what was answered
 * recently, and which URL-mode elicitations the server said are complete
 * (`elicitationComplete`). Low-rate data: every change makes a new snapshot.
 */
import type { EventPayload, PendingRequest } from '../../../../contract';
import type { SwitchboardApi } from '../../../../contract/client';
import { perApi } from '../../state/per-api';
import { Listeners, Store } from '../../state/store';
import { useStore } from '../../state/useStore';

export type Outcome = EventPayload<'requestResolved'>['outcome'];

export interface ResolvedRequest {
  request: PendingRequest;
  outcome: Outcome;
  action?: string;
  at: number;
}

export interface RequestsSnapshot {
  pending: PendingRequest[];
  /** Newest first, bounded. */
  recent: ResolvedRequest[];
  /** `serverId \n elicitationId` → when the server said the URL flow is complete. */
  completed: ReadonlyMap<string, number>;
}

const RECENT_KEEP = 30;

export const completionKey = (serverId: string, elicitationId: string) => `${serverId}\n${elicitationId}`;

export class RequestStore extends Store<RequestsSnapshot> {
  private readonly completions = new Listeners<EventPayload<'elicitationComplete'>>();

  constructor(private readonly api: SwitchboardApi) {
    super({ pending: [], recent: [], completed: new Map() });
    api.on('requestPending', (request) => this.add([request]));
    api.on('requestResolved', ({ id, outcome, action }) => this.resolve(id, outcome, action));
    api.on('elicitationComplete', (payload) => {
      const completed = new Map(this.get().completed);
      completed.set(completionKey(payload.serverId, payload.elicitationId), payload.ts);
      this.patch({ completed });
      this.completions.emit(payload);
    });
    void this.reload();
  }

  /** Asks main again (after a reconnect of the page, or to be sure). */
  async reload(): Promise<void> {
    try {
      const pending = await this.api.listPendingRequests();
      const known = new Set(pending.map((r) => r.id));
      // Keep what arrived by event meanwhile, drop what main no longer holds.
      const kept = this.get().pending.filter((r) => known.has(r.id));
      this.patch({ pending: kept });
      this.add(pending);
    } catch {
      // main is unreachable: the App shows that; events resume when it is back
    }
  }

  onCompletion(listener: (payload: EventPayload<'elicitationComplete'>) => void): () => void {
    return this.completions.add(listener);
  }

  /** Called after the renderer answered: the event normally follows, this just makes it immediate. */
  answeredLocally(id: string, action: string): void {
    this.resolve(id, 'answered', action);
  }

  private add(requests: PendingRequest[]): void {
    const ids = new Set(this.get().pending.map((r) => r.id));
    const resolved = new Set(this.get().recent.map((r) => r.request.id));
    const fresh = requests.filter((r) => !ids.has(r.id) && !resolved.has(r.id));
    if (fresh.length === 0) return;
    const pending = [...this.get().pending, ...fresh].sort((a, b) => a.receivedAt - b.receivedAt);
    this.patch({ pending });
  }

  private resolve(id: string, outcome: Outcome, action?: string): void {
    const request = this.get().pending.find((r) => r.id === id);
    if (!request) return; // answered by policy, or already handled
    const recent = [{ request, outcome, action, at: Date.now() }, ...this.get().recent].slice(0, RECENT_KEEP);
    this.patch({ pending: this.get().pending.filter((r) => r.id !== id), recent });
  }
}

/** One store per API (per window), created on first use and kept. */
export const getRequestStore = perApi((api) => new RequestStore(api));

export function useRequests(store: RequestStore): RequestsSnapshot {
  return useStore(store);
}

export const KIND_LABEL: Record<PendingRequest['kind'], string> = {
  'elicitation-form': 'Form',
  'elicitation-url': 'Open a link',
  sampling: 'Sampling',
};

export const OUTCOME_LABEL: Record<Outcome, string> = {
  answered: 'answered',
  policy: 'answered by policy',
  timeout: 'timed out',
  'cancelled-by-server': 'cancelled by the server',
  'connection-closed': 'the connection closed (the server went away)',
};

/** What became of a request, said once: the answer ("decline"), or the outcome, or both when they differ ("decline · answered by policy"). */
export function outcomeText(item: Pick<ResolvedRequest, 'outcome' | 'action'>): string {
  if (item.outcome === 'answered') return item.action ?? OUTCOME_LABEL.answered;
  return item.action ? `${item.action} · ${OUTCOME_LABEL[item.outcome]}` : OUTCOME_LABEL[item.outcome];
}
