/** Entry point of browser mode (built to out/main/web.js). */
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchBrowserMode } from './adapters/web/launch';

await launchBrowserMode(process.argv.slice(2), dirname(fileURLToPath(import.meta.url)));
