/**
 * The preload against a fake `electron` (the real package would try to download a binary):
 * what it exposes, and that nothing but fixed channels and bare payloads cross the bridge.
 */
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { EVENT_NAMES, METHOD_NAMES, ipcChannel, type Envelope } from '../../contract';
import type { PreloadApi, PreloadEnvelope } from '../../preload/index';

type IpcListener = (event: unknown, ...args: unknown[]) => void;

const fake = vi.hoisted(() => {
  const listeners = new Map<string, Set<(event: unknown, ...args: unknown[]) => void>>();
  const exposed = new Map<string, unknown>();
  return {
    listeners,
    exposed,
    contextBridge: {
      exposeInMainWorld: vi.fn((key: string, api: unknown) => {
        exposed.set(key, api);
      }),
    },
    ipcRenderer: {
      invoke: vi.fn(async (channel: string, args?: unknown) => ({ ok: true, result: { channel, args } })),
      on: vi.fn((channel: string, listener: (event: unknown, ...args: unknown[]) => void) => {
        if (!listeners.has(channel)) listeners.set(channel, new Set());
        listeners.get(channel)!.add(listener);
      }),
      removeListener: vi.fn((channel: string, listener: (event: unknown, ...args: unknown[]) => void) => {
        listeners.get(channel)?.delete(listener);
      }),
      // Present on the real ipcRenderer; the preload must not hand any of these out.
      send: vi.fn(),
      sendSync: vi.fn(),
      postMessage: vi.fn(),
    },
  };
});

vi.mock('electron', () => ({
  contextBridge: fake.contextBridge,
  ipcRenderer: fake.ipcRenderer,
  default: { contextBridge: fake.contextBridge, ipcRenderer: fake.ipcRenderer },
}));

/** What main would do: emit on a channel with an IpcRendererEvent-like first argument. */
function emit(channel: string, payload: unknown): void {
  const event = { sender: fake.ipcRenderer, senderId: 0, ports: [] };
  for (const listener of fake.listeners.get(channel) ?? []) (listener as IpcListener)(event, payload);
}

let api: PreloadApi;

beforeAll(async () => {
  await import('../../preload/index');
  expect(fake.contextBridge.exposeInMainWorld).toHaveBeenCalledTimes(1);
  api = fake.exposed.get('switchboard') as PreloadApi;
});

beforeEach(() => {
  fake.ipcRenderer.invoke.mockClear();
  fake.ipcRenderer.on.mockClear();
  fake.ipcRenderer.removeListener.mockClear();
});

describe('preload', () => {
  it('exposes the API once, as window.switchboard', () => {
    expect([...fake.exposed.keys()]).toEqual(['switchboard']);
    expect(fake.contextBridge.exposeInMainWorld.mock.calls[0]?.[0]).toBe('switchboard');
  });

  it('exposes exactly the method names plus on, all functions, no invoke', () => {
    expect(Object.keys(api).sort()).toEqual([...METHOD_NAMES, 'on'].sort());
    expect(Object.keys(api)).not.toContain('invoke');
    expect('invoke' in api).toBe(false);
    for (const key of ['send', 'sendSync', 'ipcRenderer', 'postMessage']) expect(key in api).toBe(false);
    for (const key of Object.keys(api)) expect(typeof (api as Record<string, unknown>)[key]).toBe('function');
    expect(Object.isFrozen(api)).toBe(true);
  });

  it('each method function invokes its own fixed channel with the args, and returns the raw envelope', async () => {
    for (const method of METHOD_NAMES) {
      fake.ipcRenderer.invoke.mockClear();
      const args = { probe: method };
      const reply = await api[method](args);
      expect(fake.ipcRenderer.invoke).toHaveBeenCalledTimes(1);
      expect(fake.ipcRenderer.invoke).toHaveBeenCalledWith(ipcChannel(method), args);
      expect(reply).toEqual({ ok: true, result: { channel: `switchboard:${method}`, args } });
      expect(api[method].name).toBe(method);
    }
  });

  it('a method cannot be pointed at another channel by its arguments', async () => {
    await api.appInfo({ channel: 'switchboard:callTool' } as unknown);
    expect(fake.ipcRenderer.invoke).toHaveBeenCalledWith('switchboard:appInfo', { channel: 'switchboard:callTool' });
  });

  it('an error envelope comes back as a value, not a throw', async () => {
    const failure: Envelope = { ok: false, error: { code: 'failed', message: 'Untrusted sender' } };
    fake.ipcRenderer.invoke.mockResolvedValueOnce(failure as never);
    await expect(api.listServers()).resolves.toEqual(failure);
  });

  it('on() subscribes on the event channel, passes only the payload, and unsubscribes', () => {
    for (const event of EVENT_NAMES) {
      const listener = vi.fn();
      const unsubscribe = api.on(event, listener);
      expect(fake.ipcRenderer.on).toHaveBeenCalledWith(ipcChannel(event), expect.any(Function));

      const payload = { probe: event };
      emit(ipcChannel(event), payload);
      expect(listener).toHaveBeenCalledTimes(1);
      expect(listener.mock.calls[0]).toEqual([payload]); // no IpcRendererEvent

      unsubscribe();
      expect(fake.ipcRenderer.removeListener).toHaveBeenCalledWith(ipcChannel(event), fake.ipcRenderer.on.mock.calls.at(-1)?.[1]);
      emit(ipcChannel(event), payload);
      expect(listener).toHaveBeenCalledTimes(1);

      unsubscribe(); // idempotent
      expect(fake.listeners.get(ipcChannel(event))?.size ?? 0).toBe(0);
    }
  });

  it('two subscriptions are independent', () => {
    const a = vi.fn();
    const b = vi.fn();
    const offA = api.on('serverState', a);
    const offB = api.on('serverState', b);
    offA();
    emit(ipcChannel('serverState'), { id: 'x' });
    expect(a).not.toHaveBeenCalled();
    expect(b).toHaveBeenCalledWith({ id: 'x' });
    offB();
  });

  it('on() refuses unknown events and non-function listeners', () => {
    expect(() => api.on('bogus' as never, () => undefined)).toThrow(/Unknown event/);
    expect(() => api.on('switchboard:logBatch' as never, () => undefined)).toThrow(/Unknown event/);
    expect(() => api.on('logBatch', 'nope' as never)).toThrow(TypeError);
    expect(fake.ipcRenderer.on).not.toHaveBeenCalled();
  });
});

// Compile-time: the preload's restated envelope is exactly the contract's Envelope.
type Exact<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const _envelopeMatches: Exact<PreloadEnvelope, Envelope> = true;
void _envelopeMatches;
