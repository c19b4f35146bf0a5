/** Entry point of the headless CLI (built to out/main/cli.js; `switchboard` in package.json's bin). */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
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
  onFault: command === 'record' || command === 'proxy' ? undefined : () => process.exit(1),
});

const io = {
  out: (text: string) => process.stdout.write(text),
  err: (text: string) => process.stderr.write(text),
  stdout: process.stdout,
  streams: { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr },
  version,
};
// `proxy` loads only what it needs: a client waits on its start for every server it launches.
const code = command === 'proxy' ? await (await import('./adapters/cli/proxy')).runProxyCli(process.argv.slice(3), io) : await (await import('./adapters/cli/run')).runCli(process.argv.slice(2), io);
process.exitCode = code;
