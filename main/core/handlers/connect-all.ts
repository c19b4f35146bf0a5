/** "Connect all" and "Disconnect all" (the server sidebar and the command palette). */
import type { Handlers } from '../dispatcher';
import type { CoreContext } from './context';

export function connectAllHandlers(ctx: CoreContext): Pick<Handlers, 'connectAll' | 'disconnectAll'> {
  return {
    connectAll: async () => {
      const { connections, skippedDisabled } = await ctx.connections.connectAll();
      return { servers: connections.map((c) => c.status()), skippedDisabled };
    },
    disconnectAll: async () => {
      const { connections, skippedDisabled } = await ctx.connections.disconnectAll();
      return { servers: connections.map((c) => c.status()), skippedDisabled };
    },
  };
}
