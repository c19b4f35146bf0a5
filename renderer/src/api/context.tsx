import { createContext, useContext } from 'react';
import type { SwitchboardApi } from '../../../contract/client';

export const ApiContext = createContext<SwitchboardApi | null>(null);

export function useApi(): SwitchboardApi {
  const api = useContext(ApiContext);
  if (!api) throw new Error('useApi outside ApiContext');
  return api;
}
