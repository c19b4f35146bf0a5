/** Reading a store (`state/store.ts`) in a component: each hook is one useSyncExternalStore. */
import { useSyncExternalStore } from 'react';
import type { Signal, Store } from './store';

/** The store's value; the component re-renders when it is set. */
export function useStore<T>(store: Store<T>): T {
  return useSyncExternalStore(store.subscribe, store.get);
}

const never = () => () => undefined;
const zero = () => 0;

/** The signal's version (0 without one); the component re-renders on every notification. */
export function useVersion(signal: Pick<Signal, 'subscribe' | 'getVersion'> | undefined): number {
  return useSyncExternalStore(signal?.subscribe ?? never, signal?.getVersion ?? zero);
}

/** What `read` returns from a signal's data; the component re-renders when that changes. */
export function useSelect<T>(signal: Signal, read: () => T): T {
  return useSyncExternalStore(signal.subscribe, read);
}
