/**
 * Picks the carrier of the contract at start-up: the preload's bridge inside Electron,
 * else the browser mode's WebSocket (authenticated by the HttpOnly cookie the host set).
 *
 * Browser mode can lose main (the process died, the machine slept): then every request in
 * flight fails at once with MAIN_GONE, new requests fail without being sent, and the carrier
 * reconnects with backoff. Before each attempt it probes `/` with `fetch`, because a failed
 * WebSocket upgrade does not tell the page its status: a 401 there means the host came back
 * with a new token, which only the URL it printed can carry. When the socket is open again the
 * link's `epoch` grows and `onReconnected` listeners fetch everything again; event listeners
 * stay subscribed across sockets, so live updates resume by themselves.
 */
import { createApi, type Carrier, type SwitchboardApi } from '../../../contract/client';
import { WS_PATH, unpackTraceBatch, type ServerFrame } from '../../../contract/ws';
import type { Envelope, EventName, MethodName } from '../../../contract';
import { Store } from '../state/store';
import { reconnectDelay } from './backoff';

type PreloadBridge = { [M in MethodName]: (args: unknown) => Promise<Envelope> } & {
  on(event: EventName, listener: (payload: unknown) => void): () => void;
};

declare global {
  interface Window {
    switchboard?: PreloadBridge;
  }
}

export type CarrierKind = 'electron' | 'browser';

/** The message of every request that failed, or was not sent, because main is gone. */
export const MAIN_GONE = "Switchboard's main process is not reachable";

export interface LinkState {
  /** `lost`: reconnecting; `new-token`: main is back but refuses our token (it restarted). */
  status: 'connected' | 'lost' | 'new-token';
  /** Reconnection attempts since the link was lost. */
  attempts: number;
  /** When the next attempt starts (Date.now() time), while lost. */
  nextAttemptAt?: number;
  /** Grows by one on every reconnection: what was fetched before it is stale. */
  epoch: number;
}

export interface Link {
  get(): LinkState;
  watch(listener: () => void): () => void;
  /** Skips the wait before the next attempt. */
  reconnectNow(): void;
  /** Called after each reconnection, once the socket is open. */
  onReconnected(listener: () => void): () => void;
  /**
   * Called when main held pushes back because this page read too slowly (`resync` event): the
   * socket stayed open, but the live stores must query what they show again.
   */
  onResync(listener: () => void): () => void;
}

export async function connectApi(): Promise<{ api: SwitchboardApi; kind: CarrierKind; link: Link }> {
  const bridge = window.switchboard;
  if (bridge) {
    const carrier: Carrier = {
      invoke: (method, args) => bridge[method](args),
      subscribe: (event, listener) => bridge.on(event, listener),
    };
    return { api: createApi(carrier), kind: 'electron', link: steadyLink() };
  }
  const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}${WS_PATH}`;
  const socket = new SocketCarrier(url, await openSocket(url));
  return { api: createApi(socket), kind: 'browser', link: socket };
}

/** Electron's IPC lives as long as the window: always connected. */
function steadyLink(): Link {
  const state: LinkState = { status: 'connected', attempts: 0, epoch: 0 };
  return { get: () => state, watch: () => () => undefined, reconnectNow: () => undefined, onReconnected: () => () => undefined, onResync: () => () => undefined };
}

function openSocket(url: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.addEventListener('open', () => resolve(ws), { once: true });
    ws.addEventListener('error', () => reject(new Error('Could not reach Switchboard. Is "npm run web" still running?')), { once: true });
  });
}

const gone = (): Envelope => ({ ok: false, error: { code: 'failed', message: `${MAIN_GONE}.` } });

class SocketCarrier implements Carrier, Link {
  private ws: WebSocket | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, (reply: Envelope) => void>();
  private readonly eventListeners = new Map<EventName, Set<(payload: unknown) => void>>();
  private readonly reconnectListeners = new Set<() => void>();
  private readonly resyncListeners = new Set<() => void>();
  private readonly link = new Store<LinkState>({ status: 'connected', attempts: 0, epoch: 0 });
  private timer: ReturnType<typeof setTimeout> | undefined;
  private attempting = false;

  constructor(
    private readonly url: string,
    ws: WebSocket,
  ) {
    this.attach(ws);
  }

  // --- Carrier ------------------------------------------------------------------------------

  invoke(method: MethodName, args: unknown): Promise<Envelope> {
    const ws = this.ws;
    if (!ws || ws.readyState !== WebSocket.OPEN) return Promise.resolve(gone());
    let text: string;
    try {
      text = JSON.stringify({ id: this.nextId, method, args });
    } catch (error) {
      // Views check depth before sending; this is the last line (a cycle, a BigInt).
      return Promise.resolve({ ok: false, error: { code: 'invalid-arguments', message: `The arguments cannot be sent: ${(error as Error).message}` } });
    }
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      try {
        ws.send(text);
      } catch {
        this.pending.delete(id);
        resolve(gone());
      }
    });
  }

  subscribe(event: EventName, listener: (payload: unknown) => void): () => void {
    const set = this.eventListeners.get(event) ?? new Set();
    this.eventListeners.set(event, set);
    set.add(listener);
    return () => set.delete(listener);
  }

  // --- Link ---------------------------------------------------------------------------------

  get = this.link.get;

  watch = this.link.subscribe;

  private get state(): LinkState {
    return this.link.get();
  }

  reconnectNow(): void {
    if (this.state.status === 'connected') return;
    clearTimeout(this.timer);
    void this.attempt();
  }

  onReconnected(listener: () => void): () => void {
    this.reconnectListeners.add(listener);
    return () => this.reconnectListeners.delete(listener);
  }

  onResync(listener: () => void): () => void {
    this.resyncListeners.add(listener);
    return () => this.resyncListeners.delete(listener);
  }

  // --- the socket ---------------------------------------------------------------------------

  private attach(ws: WebSocket): void {
    this.ws = ws;
    ws.addEventListener('message', (message) => this.receive(message.data));
    const lost = () => this.lost(ws);
    ws.addEventListener('close', lost);
    ws.addEventListener('error', lost);
  }

  private receive(data: unknown): void {
    let frame: ServerFrame;
    try {
      frame = JSON.parse(String(data)) as ServerFrame;
    } catch (error) {
      console.error('Switchboard: a frame from main is not JSON', error);
      return;
    }
    if (frame.type === 'reply') {
      const resolve = typeof frame.id === 'number' ? this.pending.get(frame.id) : undefined;
      if (resolve && typeof frame.id === 'number') {
        this.pending.delete(frame.id);
        resolve(frame.reply);
      }
      return;
    }
    if (frame.event === 'resync') {
      console.warn(`Switchboard: main held ${(frame.payload as { held?: number }).held ?? 'some'} updates back while this page read slowly; fetching again`);
      notify(this.resyncListeners, 'refreshing after a resync failed');
    }
    const payload = frame.event === 'traceBatch' ? unpackTraceBatch(frame.payload) : frame.payload;
    for (const listener of this.eventListeners.get(frame.event) ?? []) {
      try {
        listener(payload);
      } catch (error) {
        // One broken view must not stop the others from hearing the event.
        console.error(`Switchboard: a listener of "${frame.event}" failed`, error);
      }
    }
  }

  /** The socket closed or failed: fail what is in flight, then reconnect. */
  private lost(ws: WebSocket): void {
    if (this.ws !== ws) return;
    this.ws = null;
    try {
      ws.close();
    } catch {
      /* already closing */
    }
    const waiting = [...this.pending.values()];
    this.pending.clear();
    for (const resolve of waiting) resolve(gone());
    this.setState({ status: 'lost', attempts: 0, epoch: this.state.epoch });
    this.schedule();
  }

  private schedule(): void {
    clearTimeout(this.timer);
    const delay = reconnectDelay(this.state.attempts);
    this.setState({ ...this.state, nextAttemptAt: Date.now() + delay });
    this.timer = setTimeout(() => void this.attempt(), delay);
  }

  private async attempt(): Promise<void> {
    if (this.attempting || this.ws) return;
    this.attempting = true;
    this.setState({ ...this.state, attempts: this.state.attempts + 1, nextAttemptAt: undefined });
    try {
      const probe = await probeHost();
      if (probe === 'new-token') {
        this.setState({ ...this.state, status: 'new-token' });
        return this.schedule();
      }
      if (probe === 'down') return this.schedule();
      let ws: WebSocket;
      try {
        ws = await openSocket(this.url);
      } catch {
        return this.schedule();
      }
      this.attach(ws);
      this.setState({ status: 'connected', attempts: 0, epoch: this.state.epoch + 1 });
      notify(this.reconnectListeners, 'refreshing after the reconnection failed');
    } finally {
      this.attempting = false;
    }
  }

  private setState(next: LinkState): void {
    this.link.set(next);
  }
}

/** Is the host that served this page listening, and does it still take our cookie? */
async function probeHost(): Promise<'up' | 'down' | 'new-token'> {
  try {
    const response = await fetch('/', { cache: 'no-store', credentials: 'same-origin', redirect: 'manual' });
    if (response.status === 401) return 'new-token';
    return response.ok ? 'up' : 'down';
  } catch {
    return 'down';
  }
}

function notify(listeners: Set<() => void>, failure: string): void {
  for (const listener of listeners) {
    try {
      listener();
    } catch (error) {
      console.error(`Switchboard: ${failure}`, error);
    }
  }
}

/** Which carrier this page speaks through, decided as `connectApi` decides it. */
export function carrierKind(): CarrierKind {
  return window.switchboard ? 'electron' : 'browser';
}
