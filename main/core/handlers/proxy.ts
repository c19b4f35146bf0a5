/** Handlers for proxied sessions (#12). GROUNDWORK STUB: the live-in-app part fills them in. */
import type { Handlers } from '../dispatcher';
import { CoreError } from '../errors';
import type { CoreContext } from './context';

type ProxyHandlers = Pick<Handlers, 'proxySessions' | 'proxySetFaults'>;

export function proxyHandlers(ctx: CoreContext): ProxyHandlers {
  return {
    proxySessions: async () => ctx.proxies?.sessions() ?? [],
    proxySetFaults: async ({ id, faults }) => {
      if (!ctx.proxies) throw new CoreError('failed', 'This run watches no proxies (it has no recordings library).');
      return ctx.proxies.setFaults(id, faults);
    },
  };
}
