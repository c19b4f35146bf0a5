/**
 * The one store primitive of the renderer. Plain TypeScript (no React), so Node tests import it;
 * the hooks that read a store in a component are in `useStore.ts`.
 *
 * - `Listeners<T>`: a set of callbacks, each called with a payload (an event like "a sign-in
 *   ended"), in the order they were added. A listener that throws stops the ones after it and
 *   the throw reaches the caller of `emit`, as every hand-written loop here did.
 * - `Signal`: listeners plus a version that grows by one on every notification, for stores that
 *   change in place (the trace window, log lines) and are read with `useVersion`. With
 *   `throttleMs`, the notifications asked for within that time are one notification (and one
 *   version step), sent when it has passed.
 * - `Store<T>`: a signal holding an immutable value; `set` replaces it and notifies. Read with
 *   `useStore`. `patch` replaces some fields of an object value.
 */

export type Unsubscribe = () => void;

export class Listeners<T = void> {
  readonly #listeners = new Set<(value: T) => void>();

  /** Adds a listener; the function returned removes it. */
  add = (listener: (value: T) => void): Unsubscribe => {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  };

  emit(value: T): void {
    for (const listener of this.#listeners) listener(value);
  }

  get size(): number {
    return this.#listeners.size;
  }

  clear(): void {
    this.#listeners.clear();
  }
}

export interface SignalOptions {
  /** Notifications asked for within this many ms are sent as one, once it has passed. */
  throttleMs?: number;
}

export class Signal {
  readonly #listeners = new Listeners();
  #changes = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #ended = false;
  readonly #throttleMs: number | undefined;

  constructor(options: SignalOptions = {}) {
    this.#throttleMs = options.throttleMs;
  }

  /** For useSyncExternalStore: bound, so it can be passed as it is. */
  subscribe = (listener: () => void): Unsubscribe => this.#listeners.add(listener);

  /** Grows by one on every notification sent. Bound, for useSyncExternalStore. */
  getVersion = (): number => this.#changes;

  get version(): number {
    return this.#changes;
  }

  get disposed(): boolean {
    return this.#ended;
  }

  /** Tells the listeners that something changed (throttled when the signal is). */
  notify(): void {
    if (this.#ended) return;
    if (this.#throttleMs === undefined) return this.#send();
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#send();
    }, this.#throttleMs);
  }

  /** Tells the listeners now, with any throttled notification still waiting folded in. */
  notifyNow(): void {
    if (this.#ended) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#send();
  }

  /** Drops every listener and any notification still waiting; later notifications do nothing. */
  dispose(): void {
    this.#ended = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#listeners.clear();
  }

  #send(): void {
    this.#changes++;
    this.#listeners.emit();
  }
}

export class Store<T> extends Signal {
  #value: T;

  constructor(value: T, options?: SignalOptions) {
    super(options);
    this.#value = value;
  }

  /** The current value. Bound, for useSyncExternalStore. */
  get = (): T => this.#value;

  /** Replaces the value and notifies (every time, as the stores did by hand). */
  set(next: T): void {
    this.#value = next;
    this.notify();
  }

  /** Sets the value to a copy with these fields replaced (for object values). */
  patch(changes: Partial<T>): void {
    this.set({ ...this.#value, ...changes });
  }
}
