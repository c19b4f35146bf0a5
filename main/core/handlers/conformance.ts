/**
 * conformanceRun and checkCancel (#16): the official suite's server scenarios against one of the
 * person's servers (a stdio one through a stdio→HTTP bridge), through a recording proxy whose recording lands in the library (the
 * report's `traceSource`). One run per server at a time; progress as `checkProgress` events;
 * `checkCancel` aborts a run by its id (the runner is killed, the report says what finished).
 */
import { randomUUID } from 'node:crypto';
import type { ServerConfig } from '../../../contract';
import { AuthService } from '../auth/auth-service';
import type { Handlers } from '../dispatcher';
import { CoreError } from '../errors';
import { getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import type { CheckProgress } from '../../../contract/checks';
import { runServerConformance, runStdioConformance } from '../conformance/server';
import type { CoreContext } from './context';
import { findConnection } from './context';

/**
 * The headers the suite's requests carry: the server's configured ones, and for a server signed in
 * with OAuth its current access token (refreshed first when it is about to expire), since the
 * suite's own client does no OAuth. The token is the server's own (minted for its URL), and the
 * proxy forwards to that URL, so its audience holds.
 */
async function runHeaders(config: ServerConfig, auth: AuthService | undefined): Promise<[string, string][]> {
  if (config.target.type !== 'http') return [];
  const headers = Object.entries(config.target.headers ?? {});
  if (auth && AuthService.applies(config)) {
    const tokens = await auth.provider(config.id)?.tokens().catch(() => undefined);
    if (tokens?.access_token) headers.push(['Authorization', `Bearer ${tokens.access_token}`]);
  }
  return headers;
}

export function conformanceHandlers(ctx: CoreContext, auth?: AuthService): Pick<Handlers, 'conformanceRun' | 'checkCancel'> {
  const runs = new Map<string, AbortController>();
  const busy = new Set<string>();
  return {
    conformanceRun: async ({ serverId, runId, scenarios }) => {
      const config = findConnection(ctx, serverId).config;
      const id = runId ?? randomUUID();
      if (busy.has(serverId)) throw new CoreError('conflict', `A conformance run is already going for "${config.name}"; wait for it or cancel it.`);
      if (runs.has(id)) throw new CoreError('conflict', `A run with id "${id}" is already going.`);
      const controller = new AbortController();
      runs.set(id, controller);
      busy.add(serverId);
      try {
        const common = {
          ...(scenarios?.length ? { scenarios } : {}),
          runId: id,
          serverId,
          recordingName: `conformance: ${config.name}`,
          libraryDir: ctx.recordings?.dir ?? (false as const),
          version: ctx.version,
          signal: controller.signal,
          onProgress: (progress: CheckProgress) => ctx.events.emit('checkProgress', progress),
          log: (line: string) => ctx.logs.app('warning', `conformance: ${line}`),
        };
        const { target } = config;
        if (target.type === 'stdio') {
          // The suite's client needs a URL: a bridge gives the command one (a fresh process per session).
          return await runStdioConformance({ command: target.command, args: target.args, env: { ...getDefaultEnvironment(), ...target.env }, ...(target.cwd ? { cwd: target.cwd } : {}) }, common);
        }
        return await runServerConformance({ ...common, url: new URL(target.url), headers: await runHeaders(config, auth) });
      } finally {
        runs.delete(id);
        busy.delete(serverId);
        ctx.recordings?.changed('conformance');
      }
    },
    // Conformance runs (minutes long) are cancelled; a doctor run is bounded by its steps' timeouts.
    checkCancel: async ({ runId }) => {
      const controller = runs.get(runId);
      if (!controller) return { cancelled: false };
      controller.abort();
      return { cancelled: true };
    },
  };
}
