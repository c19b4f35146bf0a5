/**
 * doctorRun (#16): the connection doctor on a configured server — its target with its headers,
 * and its OAuth access token when signed in (sent, never shown: the doctor's redactor holds it).
 * With a runId, each step's start is a `checkProgress` event. A run is bounded by its steps'
 * timeouts (no cancel needed).
 */
import type { Handlers } from '../dispatcher';
import { runDoctor } from '../doctor';
import type { CoreContext } from './context';
import { findConnection } from './context';

export function doctorHandlers(ctx: CoreContext): Pick<Handlers, 'doctorRun'> {
  return {
    doctorRun: async ({ serverId, runId }) => {
      const connection = findConnection(ctx, serverId);
      const config = connection.config;
      let bearerToken: string | undefined;
      if (config.target.type === 'http') {
        const tokens = await connection
          .authProvider()
          ?.tokens()
          .catch(() => undefined);
        bearerToken = tokens?.access_token;
      }
      return runDoctor(config.target, {
        runId,
        serverId,
        bearerToken,
        onProgress: runId ? (p) => ctx.events.emit('checkProgress', { runId, kind: 'doctor', done: p.done, total: p.total, label: p.label }) : undefined,
      });
    },
  };
}
