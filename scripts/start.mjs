#!/usr/bin/env node
// `npm start`: the desktop app where the Electron runtime exists, browser mode where it does not.
// Never require('electron') here: without its binary that call tries to download it.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const electronDir = join(root, 'node_modules', 'electron');

function electronBinary() {
  if (process.env.ELECTRON_OVERRIDE_DIST_PATH) return join(process.env.ELECTRON_OVERRIDE_DIST_PATH, 'electron');
  const pathFile = join(electronDir, 'path.txt');
  if (!existsSync(pathFile)) return undefined;
  const binary = join(electronDir, 'dist', readFileSync(pathFile, 'utf8').trim());
  return existsSync(binary) ? binary : undefined;
}

function run(command, args) {
  const child = spawn(command, args, { stdio: 'inherit', cwd: root });
  const forward = (signal) => child.kill(signal);
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

const passthrough = process.argv.slice(2);
const binary = process.env.SWITCHBOARD_FORCE_BROWSER ? undefined : electronBinary();
if (binary) {
  run(binary, [join(root, 'out', 'main', 'index.js'), ...passthrough]);
} else {
  console.log(
    [
      'The Electron runtime is not installed on this machine, so Switchboard starts in browser mode instead.',
      'Electron downloads its binary the first time it runs, and this machine cannot reach the download',
      'server (or the download has not happened yet). Everything works the same in browser mode: the same',
      'core runs in this Node process and serves the UI on 127.0.0.1 behind a per-launch token. To get the',
      'desktop app, run "npx install-electron" on a machine with network access, then "npm start" again.',
      '',
    ].join('\n'),
  );
  run(process.execPath, [join(root, 'out', 'main', 'web.js'), ...passthrough]);
}
