import { createContext, useContext, useSyncExternalStore } from 'react';
import type { SwitchboardApi } from '../../../contract/client';
import type { Link, LinkState } from './carrier';

export const ApiContext = createContext<SwitchboardApi | null>(null);

export function useApi(): SwitchboardApi {
  const api = useContext(ApiContext);
  if (!api) throw new Error('useApi outside ApiContext');
  return api;
}

/** The carrier's link to main (browser mode can lose it; Electron's never goes). */
export const LinkContext = createContext<Link | null>(null);

export function useLink(): Link {
  const link = useContext(LinkContext);
  if (!link) throw new Error('useLink outside LinkContext');
  return link;
}

/** The link's state; the component re-renders when it changes. */
export function useLinkState(): LinkState {
  const link = useLink();
  return useSyncExternalStore(link.watch, link.get);
}
