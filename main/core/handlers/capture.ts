/**
 * Handlers for capturing a client's config (#12). The proxy a captured client launches records
 * into this app's own library (its data directory, beside the settings), so the app sees it.
 * A capture is refused when the file changed since this app last scanned it.
 */
import { dirname, join } from 'node:path';
import type { Handlers } from '../dispatcher';
import { CoreError } from '../errors';
import { CaptureRefused, applyCapture, configHash, restoreCapture, scanCaptureConfigs, type CaptureOptions } from '../capture/capture';
import { proxyLauncher } from '../capture/launcher';
import { knownConfigLocations, type ConfigLocation } from '../config/discover';
import type { CoreContext } from './context';

type CaptureHandlers = Pick<Handlers, 'captureScan' | 'captureApply' | 'captureRestore'>;

const REFUSED_CODE = { conflict: 'conflict', 'not-found': 'not-found', unparseable: 'failed', nothing: 'invalid-arguments' } as const;

export function captureHandlers(ctx: CoreContext, locations: () => ConfigLocation[] = () => knownConfigLocations()): CaptureHandlers {
  /** What each config held when this app last showed it (a capture of a file changed since is refused). */
  const seen = new Map<string, string | undefined>();

  const dataDir = (): string => {
    if (ctx.settings.location.startsWith('(')) throw new CoreError('failed', 'This run keeps no data directory (in-memory settings), so a captured client would record where this app cannot see it.');
    return dirname(ctx.settings.location);
  };
  const options = (): CaptureOptions => {
    const launcher = proxyLauncher();
    if ('problem' in launcher) throw new CoreError('failed', launcher.problem);
    const dir = dataDir();
    return { proxyCommand: launcher, dataDir: dir, backupDir: join(dir, 'capture-backups') };
  };
  const known = (path: string): void => {
    if (!locations().some((l) => l.path === path)) throw new CoreError('invalid-arguments', `Not a known MCP client configuration file: ${path}`);
  };
  /** One capture or restore at a time per file (a second click waits for the first). */
  const queues = new Map<string, Promise<unknown>>();
  const serial = <T>(path: string, run: () => Promise<T>): Promise<T> => {
    const next = (queues.get(path) ?? Promise.resolve()).then(run, run);
    const settled = next.catch(() => undefined);
    queues.set(path, settled);
    void settled.then(() => {
      if (queues.get(path) === settled) queues.delete(path);
    });
    return next;
  };
  const refused = (error: unknown): never => {
    if (error instanceof CaptureRefused) throw new CoreError(REFUSED_CODE[error.reason], error.message);
    throw error;
  };

  return {
    captureScan: async () => {
      const configs = scanCaptureConfigs(locations(), { backupDir: join(dataDir(), 'capture-backups') });
      for (const config of configs) seen.set(config.path, config.exists ? configHash(config.path) : undefined);
      return configs;
    },
    captureApply: async ({ path, names }) => {
      known(path);
      return serial(path, async () => {
        try {
          const result = await applyCapture(path, names, { ...options(), expectedHash: seen.get(path) ?? configHash(path) });
          seen.set(path, configHash(path));
          return result;
        } catch (error) {
          return refused(error);
        }
      });
    },
    captureRestore: async ({ path }) => {
      known(path);
      return serial(path, async () => {
        try {
          const result = restoreCapture(path, options());
          seen.set(path, configHash(path));
          return result;
        } catch (error) {
          return refused(error);
        }
      });
    },
  };
}
