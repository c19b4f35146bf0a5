/**
 * One store per API (per window): created on first use and kept for as long as the API lives.
 * `perApi(create)` returns the getter every feature store uses.
 */
import type { SwitchboardApi } from '../../../contract/client';

export function perApi<T>(create: (api: SwitchboardApi) => T): (api: SwitchboardApi) => T {
  const made = new WeakMap<SwitchboardApi, T>();
  return (api) => {
    let value = made.get(api);
    if (value === undefined) {
      value = create(api);
      made.set(api, value);
    }
    return value;
  };
}
