/**
 * The benchmark's tracked code as it ships: bench/client.ts (a client process of the transport
 * workloads) and bench/tracking-cost.ts (the in-process cost), each with the tracking code it
 * imports bundled by esbuild into one ES module (packages stay external), without `keepNames`.
 *
 * Run through tsx, every TypeScript function in the tracked path is wrapped in a `__name(fn,
 * "name")` call each time it is created (tsx always sets esbuild's keepNames), and the tracking
 * fetch creates closures per request: a cost of the test runner's transform that the built app
 * (electron-vite, no keepNames) does not pay, and that only the tracked side's code bears. The
 * bundle has a source map, so CPU profiles still name `main/core/...` files and lines.
 */
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..', '..');
/** Under node_modules: ignored by git, and packages resolve from there as from the repository. */
export const CLIENT_BUNDLE_DIR = join(ROOT, 'node_modules', '.cache', 'switchboard-bench');

let built: Promise<{ client: string; cost: string }> | undefined;

/** Builds the bundles (once a run); their paths. */
export function buildClientBundle(): Promise<{ client: string; cost: string }> {
  built ??= bundle();
  return built;
}

async function bundle(): Promise<{ client: string; cost: string }> {
  mkdirSync(CLIENT_BUNDLE_DIR, { recursive: true });
  await build({
    entryPoints: { client: join(HERE, '..', 'client.ts'), 'tracking-cost': join(HERE, '..', 'tracking-cost.ts') },
    outdir: CLIENT_BUNDLE_DIR,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: `node${process.versions.node.split('.')[0]}`,
    packages: 'external',
    sourcemap: 'linked',
    keepNames: false,
    logLevel: 'silent',
  });
  return { client: join(CLIENT_BUNDLE_DIR, 'client.mjs'), cost: join(CLIENT_BUNDLE_DIR, 'tracking-cost.mjs') };
}
