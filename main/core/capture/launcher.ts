/**
 * How a captured client launches the proxy: an absolute Node and this checkout's (or install's)
 * `bin/switchboard.mjs`, found by walking up from the running module (source: main/core/capture;
 * built: out/main or out/main/chunks).
 */
import { accessSync, constants, existsSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface ProxyLauncher {
  command: string;
  args: string[];
}

/** `bin/switchboard.mjs` above `from` (a module URL or a directory), at most 6 levels up. */
export function findSwitchboardBin(from: string = import.meta.url): string | undefined {
  let dir = from.startsWith('file:') ? dirname(fileURLToPath(from)) : from;
  for (let level = 0; level < 6; level++) {
    const candidate = join(dir, 'bin', 'switchboard.mjs');
    if (existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return undefined;
}

/**
 * Node for the proxy: this process's own when it is Node; under Electron (whose binary is not a
 * plain Node), the first `node` on PATH.
 */
export function nodeExecutable(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (!process.versions.electron) return process.execPath;
  const names = process.platform === 'win32' ? ['node.exe'] : ['node'];
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    for (const name of names) {
      const candidate = join(dir, name);
      try {
        accessSync(candidate, constants.X_OK);
        return candidate;
      } catch {
        // not here
      }
    }
  }
  return undefined;
}

/** The launcher, or a sentence saying what is missing. */
export function proxyLauncher(from?: string): ProxyLauncher | { problem: string } {
  const bin = findSwitchboardBin(from);
  if (!bin) return { problem: 'bin/switchboard.mjs was not found beside this build, so a client could not launch the proxy.' };
  const node = nodeExecutable();
  if (!node) return { problem: 'No "node" on PATH: a captured client launches the proxy with Node (22 or later). Install Node and try again.' };
  return { command: node, args: [bin] };
}
