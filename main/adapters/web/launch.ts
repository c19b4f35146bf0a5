/**
 * `npm run web`: the same core in a plain Node process, served to a browser on loopback.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createCore } from '../../core/app';
import { CALLBACK_PATH } from '../../core/auth/login';
import { PopupLogin } from '../../core/auth/popup-login';
import { FileSecretStore } from '../../core/auth/secret-store';
import { installProcessGuards } from '../../core/logs/process-guards';
import { ConfSettingsStore } from '../../core/store/conf-settings';
import { startWebHost } from './host';
import { startSandboxHost } from './sandbox-host';

const USAGE = `Usage: npm run web -- [--port N] [--host 127.0.0.1] [--open] [--data-dir DIR]
  --port N        port to listen on (default: a free port)
  --sandbox-port N
                  port of the MCP Apps sandbox origin, always on 127.0.0.1 (default: a free port)
  --host ADDR     loopback address to bind (default 127.0.0.1)
  --open          open the URL in the default browser
  --data-dir DIR  keep settings in DIR instead of the user's config directory
  --UNSAFE-expose-to-network
                  allow binding a non-loopback address. Anyone who can reach the port
                  and learns the token can run commands on this machine.`;

export async function launchBrowserMode(argv: string[], here: string): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        port: { type: 'string' },
        'sandbox-port': { type: 'string' },
        host: { type: 'string' },
        open: { type: 'boolean', default: false },
        'data-dir': { type: 'string' },
        'renderer-dir': { type: 'string' },
        'UNSAFE-expose-to-network': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
    }));
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const port = portOption('--port', values.port);
  const sandboxPort = portOption('--sandbox-port', values['sandbox-port']);
  const rendererDir = resolve(values['renderer-dir'] ?? findRendererDir(here));
  if (!existsSync(join(rendererDir, 'index.html'))) {
    console.error(`The renderer is not built (no ${join(rendererDir, 'index.html')}). Run "npm run build" first.`);
    process.exit(2);
  }

  // MCP Apps run on a second loopback origin (sandbox-host.ts), which the core registers pages with.
  let sandbox;
  const late: { logs?: { app(level: 'error', text: string): void } } = {};
  try {
    // Its server errors go to stderr and, once the core exists, to the Logs view.
    sandbox = await startSandboxHost({ port: sandboxPort, report: (text) => (console.error(`switchboard: ${text}`), late.logs?.app('error', text)) });
  } catch (error) {
    console.error(`Switchboard could not start the MCP Apps sandbox origin: ${(error as Error).message}`);
    process.exit(2);
  }
  const settings = new ConfSettingsStore({ cwd: values['data-dir'] });
  // The popup comes back to this host's own callback route; its port is known once it listens.
  let callbackUrl = '';
  const login = new PopupLogin(() => callbackUrl);
  const secrets = new FileSecretStore(join(dirname(settings.location), 'secrets.json'), 'Browser mode has no access to an OS keychain.');
  const core = createCore({ settings, carrier: 'browser', version: packageVersion(here), login, secrets, appSandbox: sandbox });
  // Whatever escapes is reported (stderr and the Logs view) and the host keeps serving every other server.
  installProcessGuards({ logs: () => core.logs });
  late.logs = core.logs;
  let host;
  try {
    host = await startWebHost({
      core,
      rendererDir,
      port,
      host: values.host,
      unsafeExposeToNetwork: values['UNSAFE-expose-to-network'],
      oauthCallback: (search) => login.deliver(search),
      // For tests only (never set it otherwise): a fixed token, so a test can restart browser
      // mode on the same port and URL. Unset, every launch draws a new random token.
      token: process.env.SWITCHBOARD_WEB_TOKEN || undefined,
      sandboxOrigin: sandbox.origin,
    });
    sandbox.setHostOrigins(host.origins);
    callbackUrl = `http://127.0.0.1:${host.port}${CALLBACK_PATH}`;
  } catch (error) {
    console.error(`Switchboard could not start browser mode: ${(error as Error).message}`);
    await core.shutdown();
    await sandbox.close();
    process.exit(2);
  }

  console.log(`Switchboard (browser mode) is running.\nOpen: ${host.url}\nSettings: ${settings.location}\nPress Ctrl+C to stop.`);
  if (values.open) openInBrowser(host.url);

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await host.close();
    await sandbox.close();
    await core.shutdown();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

function portOption(name: string, value: string | undefined): number {
  const port = value === undefined ? 0 : Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`${name} must be a number from 0 to 65535, not "${value}".`);
    process.exit(2);
  }
  return port;
}

/** out/main/web.js → out/renderer; running from source → out/renderer too. */
function findRendererDir(here: string): string {
  for (const candidate of [join(here, '../renderer'), join(here, '../../../out/renderer')]) {
    if (existsSync(join(candidate, 'index.html'))) return candidate;
  }
  return join(here, '../renderer');
}

function packageVersion(here: string): string {
  for (let dir = here, i = 0; i < 5; i++, dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'switchboard' && pkg.version) return pkg.version;
    }
  }
  return '0.0.0';
}

function openInBrowser(url: string): void {
  const command = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  const child = spawn(command, [url], { stdio: 'ignore', detached: true });
  child.on('error', () => console.error(`Could not open a browser (${command}); open the URL above by hand.`));
  child.unref();
}
