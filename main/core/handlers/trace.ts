/** Handlers for the trace: queries, single events with their whole payload, snapshots. */
import { CoreError, type Handlers } from '../dispatcher';
import type { CoreContext } from './context';

export function traceHandlers(ctx: CoreContext): Pick<Handlers, 'traceQuery' | 'traceEvent' | 'snapshots'> {
  const { trace } = ctx;
  return {
    traceQuery: async (query) => trace.store.query(query),
    traceEvent: async ({ seq }) => {
      const event = trace.store.get(seq);
      if (!event) throw new CoreError('not-found', `No trace event #${seq}.`);
      return { event, payload: event.truncated ? trace.store.payload(seq) : event.body };
    },
    snapshots: async ({ server }) =>
      (server ? [server] : trace.snapshots.serverIds()).flatMap((id) => {
        const snapshot = trace.snapshots.snapshot(id);
        return snapshot ? [snapshot] : [];
      }),
  };
}
