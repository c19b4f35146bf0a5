/**
 * The Electron carrier: one `ipcMain.handle` per contract method, a sender check in front of
 * every one of them, and core events forwarded to the window. It is written against small
 * structural interfaces (Electron's real objects satisfy them) so it runs in plain Node tests.
 */
import type { Envelope } from '../../../contract';
import { boundDepth } from '../../../contract/bounded-json';
import { METHOD_NAMES, ipcChannel, type MethodName } from '../../../contract/names';
import type { Dispatch } from '../../core/dispatcher';
import type { EventHub } from '../../core/events';

/** The part of Electron's `ipcMain` this carrier uses. */
export interface IpcMainLike<E> {
  handle(channel: string, listener: (event: E, ...args: unknown[]) => unknown): void;
  removeHandler(channel: string): void;
}

/** The part of a frame (Electron's `WebFrameMain`) the sender check reads. */
export interface SenderFrameLike {
  readonly url: string;
  readonly detached?: boolean;
  isDestroyed?(): boolean;
}

/** The part of an `IpcMainInvokeEvent` the sender check reads. */
export interface SenderEventLike {
  readonly sender: { readonly id: number };
  readonly senderFrame: SenderFrameLike | null | undefined;
}

export interface TrustedWindowLike {
  readonly webContents: { readonly id: number; readonly mainFrame: unknown };
}

export const UNTRUSTED_SENDER: Envelope = Object.freeze({
  ok: false,
  error: Object.freeze({ code: 'failed', message: 'Untrusted sender' }),
}) as Envelope;

/**
 * Registers one handler per contract method. A handler answers an untrusted sender with the
 * 'Untrusted sender' envelope without touching the core; otherwise it hands the raw
 * arguments to the dispatcher (which validates them). Returns the disposer.
 */
export function registerIpc<E>(ipcMain: IpcMainLike<E>, dispatch: Dispatch, isTrusted: (event: E) => boolean): () => void {
  const channels: string[] = [];
  for (const method of METHOD_NAMES) {
    const channel = ipcChannel(method);
    ipcMain.handle(channel, (event, args) => handleCall(method, event, args));
    channels.push(channel);
  }

  async function handleCall(method: MethodName, event: E, args: unknown): Promise<Envelope> {
    let trusted: boolean;
    try {
      trusted = isTrusted(event) === true;
    } catch {
      trusted = false;
    }
    if (!trusted) return UNTRUSTED_SENDER;
    try {
      // Electron clones the reply with the structured-clone algorithm, which overflows on deep
      // values: what a server sent is cut to LIMITS.carriedDepth (a marker in place) first.
      return boundEnvelope(await dispatch(method, args));
    } catch (error) {
      // The dispatcher turns errors into envelopes; this only guards against a broken one.
      return { ok: false, error: { code: 'failed', message: error instanceof Error ? error.message : String(error) } };
    }
  }

  let disposed = false;
  return () => {
    if (disposed) return;
    disposed = true;
    for (const channel of channels) ipcMain.removeHandler(channel);
  };
}

/** An envelope whose result is within LIMITS.carriedDepth (the same object when it already was). */
export function boundEnvelope(reply: Envelope): Envelope {
  if (!reply.ok) return reply;
  const result = boundDepth(reply.result);
  return result === reply.result ? reply : { ok: true, result };
}

/**
 * `scheme://host[:port]` of a URL, or undefined when it has none. Node's `URL.origin` is
 * "null" for non-special schemes such as `app:`, so the origin is built from its parts;
 * for http(s) this equals `URL.origin`.
 */
export function originOf(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (!parsed.host) return undefined;
  return `${parsed.protocol}//${parsed.host}`.toLowerCase();
}

/**
 * The sender check: only our window's own webContents, only its top frame (no iframes), only
 * while that frame shows our app origin. A missing, destroyed or detached frame is untrusted.
 */
export function trustedSenderCheck(
  getWindow: () => TrustedWindowLike | null | undefined,
  appOrigin: string,
): (event: SenderEventLike) => boolean {
  const expectedOrigin = originOf(appOrigin);
  return (event) => {
    try {
      if (!expectedOrigin) return false;
      const window = getWindow();
      if (!window) return false;
      const contents = window.webContents;
      if (!event?.sender || event.sender.id !== contents.id) return false;
      const frame = event.senderFrame;
      if (!frame) return false;
      if (frame.isDestroyed?.() || frame.detached) return false;
      if (frame !== contents.mainFrame) return false;
      return originOf(frame.url) === expectedOrigin;
    } catch {
      // A destroyed window or frame throws on access.
      return false;
    }
  };
}

/** Forwards every core event on its IPC channel; returns the unsubscribe function. */
export function forwardEvents(events: EventHub, send: (channel: string, payload: unknown) => void): () => void {
  // Payloads are cloned like replies: cut to LIMITS.carriedDepth before they leave.
  const unsubscribe = events.subscribe((event, payload) => send(ipcChannel(event), boundDepth(payload)));
  return () => {
    unsubscribe();
  };
}
