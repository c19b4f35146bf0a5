/**
 * What a view remembers while another view shows: the selected item, the search, the list's
 * scroll position, the last outcomes. The views unmount when their tab is left (and remount
 * when main comes back), so this lives outside React: a map of slots by key, each read once at
 * mount and written on every change (even after the view unmounted: a read that finishes later
 * still lands). It lasts for the page's life (a reload starts fresh). Read it in a component
 * with useViewState (state/useViewState.ts); this module has no React in it, for Node tests.
 */
const slots = new Map<string, unknown>();

export const viewMemory = {
  get<T>(key: string): T | undefined {
    return slots.get(key) as T | undefined;
  },
  set<T>(key: string, value: T): void {
    slots.set(key, value);
  },
  /**
   * Sets a slot from a value or a function of the slot's current value (not of a component's
   * copy of it), and returns what was stored: how useViewState's setter writes.
   */
  update<T>(key: string, next: T | ((old: T) => T)): T {
    const value = typeof next === 'function' ? (next as (old: T) => T)(slots.get(key) as T) : next;
    slots.set(key, value);
    return value;
  },
  /** Whether a slot was ever set. */
  has(key: string): boolean {
    return slots.has(key);
  },
  /** Forgets everything (tests). */
  clear(): void {
    slots.clear();
  },
};

/** How many read results / prompt outcomes a view keeps (the newest; each can be megabytes). */
export const KEPT_OUTCOMES = 30;

/** A copy of `map` with `key` set last, holding at most `max` entries (the oldest go first). */
export function withNewest<K, V>(map: Map<K, V>, key: K, value: V, max = KEPT_OUTCOMES): Map<K, V> {
  const next = new Map(map);
  next.delete(key);
  next.set(key, value);
  for (const old of next.keys()) {
    if (next.size <= max) break;
    next.delete(old);
  }
  return next;
}
