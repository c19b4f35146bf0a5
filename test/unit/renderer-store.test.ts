/**
 * The renderer's one store primitive (renderer/src/state/store.ts): listeners with payloads, a
 * versioned signal (throttled or not) and a value store; and stores built on it keep their
 * batching (the trace buffer's tick) and their module-level state (the server info panel).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { SwitchboardApi } from '../../contract/client';
import type { TraceEvent } from '../../contract/trace';
import { serverInfoPanel } from '../../renderer/src/features/server-info/model';
import { Listeners, Signal, Store } from '../../renderer/src/state/store';
import { TraceBuffer } from '../../renderer/src/state/trace-buffer';

describe('Listeners', () => {
  it('calls every listener with the payload, in the order added, until it is removed', () => {
    const listeners = new Listeners<string>();
    const heard: string[] = [];
    const offA = listeners.add((v) => heard.push(`a:${v}`));
    listeners.add((v) => heard.push(`b:${v}`));
    listeners.emit('1');
    offA();
    listeners.emit('2');
    expect(heard).toEqual(['a:1', 'b:1', 'b:2']);
    expect(listeners.size).toBe(1);
  });

  it('lets a throw reach the caller and stops the listeners after it, as the hand-written loops did', () => {
    const listeners = new Listeners();
    const heard: string[] = [];
    listeners.add(() => heard.push('first'));
    listeners.add(() => {
      throw new Error('broken view');
    });
    listeners.add(() => heard.push('third'));
    expect(() => listeners.emit()).toThrow('broken view');
    expect(heard).toEqual(['first']);
  });
});

describe('Signal', () => {
  it('bumps the version and calls its listeners on every notification; unsubscribing stops them', () => {
    const signal = new Signal();
    const calls: number[] = [];
    const off = signal.subscribe(() => calls.push(signal.getVersion()));
    expect(signal.getVersion()).toBe(0);
    signal.notify();
    signal.notify();
    expect(calls).toEqual([1, 2]);
    expect(signal.version).toBe(2);
    off();
    signal.notify();
    expect(calls).toEqual([1, 2]);
    expect(signal.getVersion()).toBe(3);
  });

  it('hands out bound functions, so useSyncExternalStore can take them as they are', () => {
    const signal = new Signal();
    const { subscribe, getVersion } = signal;
    let heard = 0;
    subscribe(() => heard++);
    signal.notify();
    expect(getVersion()).toBe(1);
    expect(heard).toBe(1);
  });

  it('after dispose has no listeners and ignores notifications', () => {
    const signal = new Signal();
    let heard = 0;
    signal.subscribe(() => heard++);
    signal.dispose();
    signal.notify();
    expect(heard).toBe(0);
    expect(signal.getVersion()).toBe(0);
    expect(signal.disposed).toBe(true);
  });

  describe('throttled', () => {
    beforeEach(() => {
      vi.useFakeTimers();
    });
    afterEach(() => {
      vi.useRealTimers();
    });

    it('sends the notifications asked for within throttleMs as one, once it has passed', () => {
      const signal = new Signal({ throttleMs: 200 });
      let heard = 0;
      signal.subscribe(() => heard++);
      for (let i = 0; i < 50; i++) signal.notify();
      vi.advanceTimersByTime(199);
      expect(heard).toBe(0);
      expect(signal.getVersion()).toBe(0);
      vi.advanceTimersByTime(1);
      expect(heard).toBe(1);
      expect(signal.getVersion()).toBe(1);
      // The next change starts a new tick.
      signal.notify();
      vi.advanceTimersByTime(200);
      expect(heard).toBe(2);
      expect(signal.getVersion()).toBe(2);
    });

    it('notifyNow sends at once, folding in the one still waiting (nothing more a tick later)', () => {
      const signal = new Signal({ throttleMs: 200 });
      let heard = 0;
      signal.subscribe(() => heard++);
      signal.notify();
      signal.notifyNow();
      expect(heard).toBe(1);
      vi.advanceTimersByTime(200);
      expect(heard).toBe(1);
      expect(signal.getVersion()).toBe(1);
    });

    it('drops a notification still waiting when disposed', () => {
      const signal = new Signal({ throttleMs: 100 });
      let heard = 0;
      signal.subscribe(() => heard++);
      signal.notify();
      signal.dispose();
      vi.runAllTimers();
      expect(heard).toBe(0);
      expect(vi.getTimerCount()).toBe(0);
    });
  });
});

describe('Store', () => {
  it('holds a value; set replaces it and notifies, every time', () => {
    const store = new Store({ n: 1 });
    const seen: number[] = [];
    store.subscribe(() => seen.push(store.get().n));
    const same = store.get();
    store.set({ n: 2 });
    store.set(store.get());
    expect(seen).toEqual([2, 2]);
    expect(store.get()).not.toBe(same);
    expect(store.getVersion()).toBe(2);
  });

  it('patch replaces some fields in a new value and keeps the others', () => {
    const store = new Store({ view: 'tools', serverId: 'a' as string | undefined });
    const before = store.get();
    let heard = 0;
    store.subscribe(() => heard++);
    store.patch({ view: 'logs' });
    expect(store.get()).toEqual({ view: 'logs', serverId: 'a' });
    expect(before).toEqual({ view: 'tools', serverId: 'a' });
    store.patch({ serverId: undefined });
    expect(store.get()).toEqual({ view: 'logs', serverId: undefined });
    expect(heard).toBe(2);
  });
});

describe('stores built on the primitive', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const event = (seq: number): TraceEvent => ({ seq, ts: seq, server: 's', channel: 'stdio', kind: 'stdout', dir: 'in' }) as unknown as TraceEvent;

  it('the trace buffer still notifies once per 200 ms tick however many batches arrive', () => {
    // receive() never calls the API; the buffer is exercised as it is.
    const buffer = new TraceBuffer({} as SwitchboardApi);
    let heard = 0;
    buffer.subscribe(() => heard++);
    for (let seq = 1; seq <= 30; seq++) buffer.receive([event(seq)], seq);
    expect(buffer.events).toHaveLength(30);
    expect(heard).toBe(0);
    vi.advanceTimersByTime(200);
    expect(heard).toBe(1);
    expect(buffer.version).toBe(1);
    buffer.setPaused(true);
    buffer.receive([event(31)], 31);
    vi.advanceTimersByTime(200);
    expect(buffer.pendingCount).toBe(1);
    expect(buffer.version).toBe(2);
  });

  it('the server info panel (module level, one per window) tells its subscribers which server is open', () => {
    const seen: (string | undefined)[] = [];
    const off = serverInfoPanel.subscribe(() => seen.push(serverInfoPanel.get()));
    serverInfoPanel.open('alpha');
    serverInfoPanel.open('beta');
    serverInfoPanel.close();
    off();
    serverInfoPanel.open('gamma');
    expect(seen).toEqual(['alpha', 'beta', undefined]);
    expect(serverInfoPanel.get()).toBe('gamma');
  });
});
