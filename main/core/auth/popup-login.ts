/**
 * Browser mode's login: the page opens the authorization URL in a popup (after a click, so no
 * popup blocker interferes) and the authorization server sends the popup back to the host's
 * own callback route, which hands the query here. A flow is found by its `state` alone; the
 * route answers nothing useful to a request that does not carry a pending one.
 */
import { randomUUID } from 'node:crypto';
import { callbackParams, type AuthorizationRequest, type CallbackParams, type LoginWindow } from './login';

export interface LoginPrompt {
  flowId: string;
  serverId: string;
  serverName: string;
  url: string;
  /** The authorization server's origin, shown before anything is opened. */
  origin: string;
  scope?: string;
}

export interface PopupLoginEvents {
  prompt(prompt: LoginPrompt): void;
  ended(ended: { flowId: string; serverId: string; outcome: 'completed' | 'failed' | 'cancelled'; message?: string }): void;
}

interface Pending {
  flowId: string;
  serverId: string;
  prompt: LoginPrompt;
  resolve(params: CallbackParams): void;
  reject(error: Error): void;
}

export class PopupLogin implements LoginWindow {
  readonly kind = 'browser popup';
  private readonly pending = new Map<string, Pending>();
  private events: PopupLoginEvents | undefined;

  /** `callbackUrl` is the host's `/oauth/callback`, known once it listens. */
  constructor(private readonly callbackUrl: () => string) {}

  attach(events: PopupLoginEvents): void {
    this.events = events;
  }

  redirectUrl(): string {
    return this.callbackUrl();
  }

  authorize(request: AuthorizationRequest): Promise<CallbackParams> {
    return new Promise<CallbackParams>((resolve, reject) => {
      const flowId = randomUUID();
      const prompt: LoginPrompt = {
        flowId,
        serverId: request.serverId,
        serverName: request.serverName,
        url: request.url.href,
        origin: request.url.origin,
        scope: request.url.searchParams.get('scope') ?? undefined,
      };
      const end = (outcome: 'completed' | 'failed' | 'cancelled', message?: string) => {
        this.pending.delete(request.state);
        request.signal.removeEventListener('abort', onAbort);
        this.events?.ended({ flowId, serverId: request.serverId, outcome, message });
      };
      const onAbort = () => {
        end('cancelled', 'The sign-in was cancelled.');
        reject(request.signal.reason instanceof Error ? request.signal.reason : new Error('The sign-in was cancelled.'));
      };
      if (request.signal.aborted) return onAbort();
      request.signal.addEventListener('abort', onAbort, { once: true });
      this.pending.set(request.state, {
        flowId,
        serverId: request.serverId,
        prompt,
        resolve: (params) => {
          end(params.error ? 'failed' : 'completed', params.error);
          resolve(params);
        },
        reject: (error) => {
          end('cancelled', error.message);
          reject(error);
        },
      });
      this.events?.prompt(prompt);
    });
  }

  /** The host's callback route: true when the query belonged to a pending sign-in. */
  deliver(search: URLSearchParams): { ok: boolean; message: string } {
    const params = callbackParams(search);
    const pending = params.state ? this.pending.get(params.state) : undefined;
    if (!pending) return { ok: false, message: 'This is not a sign-in Switchboard is waiting for (it may have finished or been cancelled).' };
    pending.resolve(params);
    return params.error
      ? { ok: false, message: `The authorization server answered: ${params.error}${params.errorDescription ? ` — ${params.errorDescription}` : ''}` }
      : { ok: true, message: 'Switchboard received the authorization; this window closes itself.' };
  }

  /** The person closed the dialog or the popup without finishing. */
  cancel(flowId: string): boolean {
    for (const pending of this.pending.values()) {
      if (pending.flowId !== flowId) continue;
      pending.reject(new Error('The sign-in was cancelled in the app.'));
      return true;
    }
    return false;
  }

  /** Prompts still waiting (a page opened late shows them too). */
  prompts(): LoginPrompt[] {
    return [...this.pending.values()].map((p) => p.prompt);
  }
}
