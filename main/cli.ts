/** Entry point of the headless CLI (built to out/main/cli.js; `switchboard` in package.json's bin). */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli } from './adapters/cli/run';
import { installProcessGuards } from './core/logs/process-guards';

const here = dirname(fileURLToPath(import.meta.url));
const version = (() => {
  try {
    return (JSON.parse(readFileSync(join(here, '../../package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return '0.0.0';
  }
})();

// A one-shot command that meets an internal error says so and ends non-zero (1) at once; a
// recording keeps recording (the error is on stderr), so the trace file is still written whole.
const command = process.argv[2];
installProcessGuards({
  onFault: command === 'record' ? undefined : () => process.exit(1),
});

const code = await runCli(process.argv.slice(2), {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  stdout: process.stdout,
  version,
});
process.exitCode = code;
