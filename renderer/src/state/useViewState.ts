/** A view's state that outlives the view (state/view-memory): `useState` by key. */
import { useCallback, useState } from 'react';
import { viewMemory } from './view-memory';

/**
 * `useState` whose value outlives the component: a remount with the same key starts from the
 * last value set. Function updates see the latest value, mounted or not.
 */
export function useViewState<T>(key: string, initial: T | (() => T)): [T, (next: T | ((old: T) => T)) => void] {
  const [value, setValue] = useState<T>(() => {
    if (viewMemory.has(key)) return viewMemory.get<T>(key) as T;
    const first = typeof initial === 'function' ? (initial as () => T)() : initial;
    viewMemory.set(key, first);
    return first;
  });
  const set = useCallback(
    (next: T | ((old: T) => T)) => {
      // The slot is the source of truth: a read that finishes after the view unmounted still lands.
      setValue(viewMemory.update(key, next));
    },
    [key],
  );
  return [value, set];
}
