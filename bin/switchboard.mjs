#!/usr/bin/env node
// The `switchboard` command: runs the built CLI (out/main/cli.js).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const cli = new URL('../out/main/cli.js', import.meta.url);
if (!existsSync(fileURLToPath(cli))) {
  console.error(`switchboard: the CLI is not built yet. Run "npm run build" in ${fileURLToPath(new URL('..', import.meta.url))}`);
  process.exit(2);
}
await import(cli.href);
