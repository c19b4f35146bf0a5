/**
 * What a view remembers while another view shows: the selected item, the search, the list's
 * scroll position, the last outcomes. The views unmount when their tab is left (and remount
 * when main comes back), so this lives outside React: a map of slots by key, each read once at
 * mount and written on every change (even after the view unmounted: a read that finishes later
 * still lands). It lasts for the page's life (a reload starts fresh).
 */
import { useCallback, useState } from 'react';

const slots = new Map<string, unknown>();

export const viewMemory = {
  get<T>(key: string): T | undefined {
    return slots.get(key) as T | undefined;
  },
  set<T>(key: string, value: T): void {
    slots.set(key, value);
  },
  /** Forgets everything (tests). */
  clear(): void {
    slots.clear();
  },
};

/**
 * `useState` whose value outlives the component: a remount with the same key starts from the
 * last value set. Function updates see the latest value, mounted or not.
 */
export function useViewState<T>(key: string, initial: T | (() => T)): [T, (next: T | ((old: T) => T)) => void] {
  const [value, setValue] = useState<T>(() => {
    if (slots.has(key)) return slots.get(key) as T;
    const first = typeof initial === 'function' ? (initial as () => T)() : initial;
    slots.set(key, first);
    return first;
  });
  const set = useCallback(
    (next: T | ((old: T) => T)) => {
      // The slot is the source of truth: a read that finishes after the view unmounted still lands.
      const value = typeof next === 'function' ? (next as (old: T) => T)(slots.get(key) as T) : next;
      slots.set(key, value);
      setValue(value);
    },
    [key],
  );
  return [value, set];
}
