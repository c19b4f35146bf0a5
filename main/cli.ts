/** Entry point of the headless CLI (built to out/main/cli.js; `switchboard` in package.json's bin). */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli } from './adapters/cli/run';

const here = dirname(fileURLToPath(import.meta.url));
const version = (() => {
  try {
    return (JSON.parse(readFileSync(join(here, '../../package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return '0.0.0';
  }
})();

const code = await runCli(process.argv.slice(2), {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  version,
});
process.exitCode = code;
