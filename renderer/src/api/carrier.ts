/**
 * Picks the carrier of the contract at start-up: the preload's bridge inside Electron,
 * else the browser mode's WebSocket (authenticated by the HttpOnly cookie the host set).
 */
import { createApi, type Carrier, type SwitchboardApi } from '../../../contract/client';
import { WS_PATH, type ServerFrame } from '../../../contract/ws';
import type { Envelope, EventName, MethodName } from '../../../contract';

type PreloadBridge = { [M in MethodName]: (args: unknown) => Promise<Envelope> } & {
  on(event: EventName, listener: (payload: unknown) => void): () => void;
};

declare global {
  interface Window {
    switchboard?: PreloadBridge;
  }
}

export type CarrierKind = 'electron' | 'browser';

export async function connectApi(): Promise<{ api: SwitchboardApi; kind: CarrierKind; onDisconnect(cb: () => void): void }> {
  const bridge = window.switchboard;
  if (bridge) {
    const carrier: Carrier = {
      invoke: (method, args) => bridge[method](args),
      subscribe: (event, listener) => bridge.on(event, listener),
    };
    return { api: createApi(carrier), kind: 'electron', onDisconnect: () => undefined };
  }
  const ws = await openSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}${WS_PATH}`);
  return { api: createApi(webSocketCarrier(ws)), kind: 'browser', onDisconnect: (cb) => ws.addEventListener('close', cb) };
}

function openSocket(url: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.addEventListener('open', () => resolve(ws), { once: true });
    ws.addEventListener('error', () => reject(new Error('Could not reach Switchboard. Is "npm run web" still running?')), { once: true });
  });
}

function webSocketCarrier(ws: WebSocket): Carrier {
  let nextId = 1;
  const pending = new Map<number, (reply: Envelope) => void>();
  const listeners = new Map<EventName, Set<(payload: unknown) => void>>();

  ws.addEventListener('message', (message) => {
    const frame = JSON.parse(String(message.data)) as ServerFrame;
    if (frame.type === 'reply') {
      const resolve = typeof frame.id === 'number' ? pending.get(frame.id) : undefined;
      if (resolve && typeof frame.id === 'number') {
        pending.delete(frame.id);
        resolve(frame.reply);
      }
    } else {
      for (const listener of listeners.get(frame.event) ?? []) listener(frame.payload);
    }
  });
  ws.addEventListener('close', () => {
    for (const resolve of pending.values()) resolve({ ok: false, error: { code: 'failed', message: 'Connection to Switchboard lost' } });
    pending.clear();
  });

  return {
    invoke: (method, args) =>
      new Promise((resolve) => {
        const id = nextId++;
        pending.set(id, resolve);
        ws.send(JSON.stringify({ id, method, args }));
      }),
    subscribe: (event, listener) => {
      const set = listeners.get(event) ?? new Set();
      listeners.set(event, set);
      set.add(listener);
      return () => set.delete(listener);
    },
  };
}

/** Which carrier this page speaks through, decided as `connectApi` decides it. */
export function carrierKind(): CarrierKind {
  return window.switchboard ? 'electron' : 'browser';
}
