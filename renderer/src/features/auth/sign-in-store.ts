/**
 * Sign-ins on the renderer side, for the window's life: the prompts waiting for a click
 * (browser mode: `pendingSignIns`, then `signInPrompt` / `signInEnded`), the popup each one
 * opened, and which servers have a `signIn` call of ours in flight (it resolves only once the
 * person finished, minutes later maybe, so the UI shows a busy state instead of waiting).
 * Low-rate data: every change makes a new snapshot.
 */
import type { EventPayload, ServerStatus, SignInPrompt } from '../../../../contract';
import type { SwitchboardApi } from '../../../../contract/client';
import { signInUrlVerdict } from '../../../../contract/sign-in-url';
import { perApi } from '../../state/per-api';
import { Listeners, Store } from '../../state/store';
import { useStore } from '../../state/useStore';

export type SignInEnded = EventPayload<'signInEnded'>;

export interface SignInSnapshot {
  prompts: SignInPrompt[];
  /** Servers with a `signIn` call from this window in flight. */
  busy: ReadonlySet<string>;
  /** Flows whose popup was opened from here. */
  opened: ReadonlySet<string>;
}

/** Only http(s) authorization URLs are ever opened (the core refuses others already). */
export function checkSignInUrl(raw: string): { ok: true; href: string } | { ok: false; reason: string } {
  const verdict = signInUrlVerdict(raw);
  return verdict.ok ? { ok: true, href: verdict.url.href } : verdict;
}

export type SignInOutcome = { kind: 'connected'; status: ServerStatus } | { kind: 'error'; message: string } | { kind: 'reported' };

export class SignInStore extends Store<SignInSnapshot> {
  private readonly ended = new Listeners<SignInEnded>();
  /** The popups opened from here, by flow (closed when their flow ends). */
  private readonly windows = new Map<string, Window>();
  /** When a flow of each server last ended (to avoid saying the same thing twice). */
  private readonly endedAt = new Map<string, number>();

  constructor(private readonly api: SwitchboardApi) {
    super({ prompts: [], busy: new Set(), opened: new Set() });
    api.on('signInPrompt', (prompt) => this.add([prompt]));
    api.on('signInEnded', (ended) => this.end(ended));
    void this.reload();
  }

  async reload(): Promise<void> {
    try {
      const prompts = await this.api.pendingSignIns();
      const known = new Set(prompts.map((p) => p.flowId));
      this.patch({ prompts: this.get().prompts.filter((p) => known.has(p.flowId)) });
      this.add(prompts);
    } catch {
      // main unreachable: the App says so
    }
  }

  onEnded(listener: (ended: SignInEnded) => void): () => void {
    return this.ended.add(listener);
  }

  /**
   * Opens a prompt's authorization URL in a popup. Must run inside the click handler (a user
   * gesture, so no popup blocker). Returns why it did not open, if it did not.
   */
  open(prompt: SignInPrompt): string | undefined {
    const verdict = checkSignInUrl(prompt.url);
    if (!verdict.ok) return verdict.reason;
    const handle = window.open(verdict.href, `switchboard-signin-${prompt.flowId}`, 'popup,width=520,height=700');
    if (!handle) return 'The browser blocked the sign-in window. Allow popups for this page, then try again.';
    // The sign-in page gets no reference back to this one; we keep ours, to close it at the end.
    try {
      handle.opener = null;
    } catch {
      // cross-origin already: nothing to sever
    }
    this.windows.set(prompt.flowId, handle);
    this.patch({ opened: new Set(this.get().opened).add(prompt.flowId) });
    return undefined;
  }

  async cancel(flowId: string): Promise<void> {
    try {
      const { cancelled } = await this.api.cancelSignIn({ flowId });
      // Already gone in main: the event will not come, drop it here.
      if (!cancelled) this.drop(flowId);
    } catch (error) {
      this.drop(flowId);
      throw error;
    }
  }

  /**
   * `signIn` for a server, tracked as busy until it settles. `reported` means a prompt's end
   * already told the person how it went (browser mode), so nothing more needs saying.
   */
  async signIn(serverId: string): Promise<SignInOutcome> {
    const startedAt = Date.now();
    this.setBusy(serverId, true);
    const reported = () => (this.endedAt.get(serverId) ?? 0) >= startedAt;
    try {
      const status = await this.api.signIn({ id: serverId });
      if (status.state === 'connected') return reported() ? { kind: 'reported' } : { kind: 'connected', status };
      return reported() ? { kind: 'reported' } : { kind: 'error', message: status.error ?? `The server is ${status.state}.` };
    } catch (error) {
      return reported() ? { kind: 'reported' } : { kind: 'error', message: error instanceof Error ? error.message : String(error) };
    } finally {
      this.setBusy(serverId, false);
    }
  }

  private setBusy(serverId: string, busy: boolean): void {
    const next = new Set(this.get().busy);
    if (busy) next.add(serverId);
    else next.delete(serverId);
    this.patch({ busy: next });
  }

  private add(prompts: SignInPrompt[]): void {
    const known = new Set(this.get().prompts.map((p) => p.flowId));
    const fresh = prompts.filter((p) => !known.has(p.flowId));
    if (fresh.length) this.patch({ prompts: [...this.get().prompts, ...fresh] });
  }

  private end(ended: SignInEnded): void {
    this.endedAt.set(ended.serverId, Date.now());
    this.drop(ended.flowId);
    this.ended.emit(ended);
  }

  private drop(flowId: string): void {
    const handle = this.windows.get(flowId);
    this.windows.delete(flowId);
    try {
      if (handle && !handle.closed) handle.close();
    } catch {
      // the popup is another origin's now; closing may be refused
    }
    const opened = new Set(this.get().opened);
    opened.delete(flowId);
    this.patch({ prompts: this.get().prompts.filter((p) => p.flowId !== flowId), opened });
  }
}

/** One store per window (per api). */
export const getSignInStore = perApi((api) => new SignInStore(api));

export function useSignIns(api: SwitchboardApi): SignInSnapshot {
  return useStore(getSignInStore(api));
}
