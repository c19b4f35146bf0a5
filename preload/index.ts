/**
 * The sandboxed preload (bundled to CommonJS: out/preload/index.cjs). It exposes exactly the
 * contract to the page as `window.switchboard`: one function per method, each bound to its
 * own channel, and `on(event, listener)` for the events. No generic invoke, no ipcRenderer,
 * no IpcRendererEvent ever reaches the page. It imports nothing from the contract but the
 * names, so no schema library is bundled into it.
 */
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import type { ErrorDetail } from '../contract/errors';
import { EVENT_NAMES, METHOD_NAMES, ipcChannel, type EventName, type MethodName } from '../contract/names';

/**
 * The reply envelope, as `contract/index.ts` defines `Envelope` (restated here so that this
 * file imports only `contract/names.ts` and the zod-free types of `contract/errors.ts`;
 * test/unit/preload.test.ts proves both stay equal).
 */
export type PreloadEnvelope =
  | { ok: true; result: unknown }
  | {
      ok: false;
      error: {
        code: 'invalid-arguments' | 'unknown-method' | 'not-found' | 'conflict' | 'failed';
        message: string;
        issues?: { path: string; message: string }[];
        detail?: ErrorDetail;
      };
    };

/** What `window.switchboard` is: raw envelopes; `contract/client.ts` builds the typed API on top. */
export type PreloadApi = {
  readonly [M in MethodName]: (args?: unknown) => Promise<PreloadEnvelope>;
} & {
  /** Subscribe to a contract event; returns the function that unsubscribes. */
  readonly on: (event: EventName, listener: (payload: unknown) => void) => () => void;
};

// Nothing but types is exported: the CJS bundle must not touch `exports`, which a sandboxed
// preload may not have.
const API_KEY = 'switchboard';

function buildApi(): PreloadApi {
  const api: Record<string, unknown> = {};
  for (const name of METHOD_NAMES) {
    const channel = ipcChannel(name);
    // A closure over one fixed channel, named after its method.
    api[name] = {
      [name]: (args?: unknown): Promise<PreloadEnvelope> => ipcRenderer.invoke(channel, args),
    }[name];
  }
  api.on = (event: EventName, listener: (payload: unknown) => void): (() => void) => {
    if (!(EVENT_NAMES as readonly string[]).includes(event)) throw new Error(`Unknown event: ${String(event)}`);
    if (typeof listener !== 'function') throw new TypeError('listener must be a function');
    const channel = ipcChannel(event);
    const relay = (_event: IpcRendererEvent, payload: unknown) => listener(payload);
    ipcRenderer.on(channel, relay);
    let subscribed = true;
    return () => {
      if (!subscribed) return;
      subscribed = false;
      ipcRenderer.removeListener(channel, relay);
    };
  };
  return Object.freeze(api) as PreloadApi;
}

contextBridge.exposeInMainWorld(API_KEY, buildApi());
