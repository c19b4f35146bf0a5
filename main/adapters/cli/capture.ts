/**
 * `switchboard capture` (#12): lists the MCP client configs on this machine and their servers,
 * rewrites chosen entries to go through `switchboard proxy` (a backup first), and `--restore`
 * puts them back. Exit codes: 0 done, 2 usage, 5 refused (a config changed meanwhile, or cannot be parsed).
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { CaptureConfig, CaptureResult } from '../../../contract/proxy';
import { CaptureRefused, applyCapture, restoreCapture, scanCaptureConfigs, type CaptureOptions } from '../../core/capture/capture';
import { proxyLauncher } from '../../core/capture/launcher';
import { knownConfigLocations } from '../../core/config/discover';
import { EXIT, UsageError } from './args';
import { cliDataDir } from './recordings';
import type { Screen } from './run';

export const CAPTURE_HELP = `switchboard capture — put Switchboard's proxy between an MCP client and its servers

  switchboard capture [--list]                       the client configs found and their servers
  switchboard capture --client NAME [--server S]...  capture those servers (default: every one)
  switchboard capture --server S...                  capture S in every config that has it
  switchboard capture --restore [--client NAME]      put the configs back (default: every captured one)

  --client NAME    a part of the client's label: "Claude Desktop", "Cursor", "VS Code", "Claude Code", "Windsurf"
  --server NAME    an entry's name in the config (repeatable)
  --data-dir DIR   where the proxy records (DIR/recordings) and backups are kept (DIR/capture-backups)
  --home DIR, --cwd DIR   look for configs under these instead of your home and the current directory
  --json           machine-readable output

Exit codes: 0 done, 2 usage, 5 refused (a config changed while being written, or cannot be parsed).`;

export async function captureCommand(args: string[], io: Screen): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      options: {
        list: { type: 'boolean', default: false },
        client: { type: 'string' },
        server: { type: 'string', multiple: true, default: [] },
        restore: { type: 'boolean', default: false },
        'data-dir': { type: 'string' },
        home: { type: 'string' },
        cwd: { type: 'string' },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) {
    io.out(`${CAPTURE_HELP}\n`);
    return EXIT.ok;
  }
  if (values.list && (values.restore || values.server.length > 0)) throw new UsageError('--list lists only; drop --server/--restore, or drop --list.');
  if (values.restore && values.server.length > 0) throw new UsageError('--restore puts whole configs back: use --client, not --server.');

  const dataDir = cliDataDir(values['data-dir']);
  const backupDir = join(dataDir, 'capture-backups');
  const env = values.home ? { ...process.env, XDG_CONFIG_HOME: undefined, APPDATA: undefined } : process.env;
  const locations = knownConfigLocations(process.platform, values.home ?? undefined, env, values.cwd ?? undefined);
  const configs = scanCaptureConfigs(locations, { backupDir });
  const clientFilter = values.client?.toLowerCase();
  const chosen = clientFilter ? configs.filter((c) => c.client.toLowerCase().includes(clientFilter)) : configs;
  if (clientFilter && chosen.length === 0) throw new UsageError(`No client matches "${values.client}". Clients: ${configs.map((c) => c.client).join(', ')}.`);

  const capturing = !values.list && !values.restore && (values.client !== undefined || values.server.length > 0);
  if (!capturing && !values.restore) return list(chosen, values.json, io);

  const launcher = proxyLauncher();
  if ('problem' in launcher) {
    io.err(`switchboard capture: ${launcher.problem}\n`);
    return EXIT.usage;
  }
  const options: CaptureOptions = { proxyCommand: launcher, dataDir, backupDir };
  const results: CaptureResult[] = [];
  const refusals: { path: string; message: string }[] = [];
  const attempt = async (config: CaptureConfig, run: () => Promise<CaptureResult> | CaptureResult) => {
    try {
      results.push(await run());
    } catch (error) {
      if (!(error instanceof CaptureRefused)) throw error;
      refusals.push({ path: config.path, message: error.message });
    }
  };

  if (values.restore) {
    const targets = chosen.filter((c) => c.backup !== undefined || c.entries.some((e) => e.captured));
    for (const config of targets) await attempt(config, () => restoreCapture(config.path, options));
    if (targets.length === 0) results.push({ path: '', changed: [], commands: [], message: 'Nothing to restore: no config goes through the proxy.' });
  } else {
    const wanted = new Set(values.server);
    const present = chosen.filter((c) => c.exists);
    for (const name of wanted) {
      if (!present.some((c) => c.entries.some((e) => e.name === name))) throw new UsageError(`No server named "${name}" in ${clientFilter ? `the configs of "${values.client}"` : 'any config'}. Run "switchboard capture --list".`);
    }
    for (const config of present) {
      if (config.error) {
        if (clientFilter) refusals.push({ path: config.path, message: config.error });
        continue;
      }
      const names = config.entries.filter((e) => (wanted.size === 0 ? !e.captured && !e.problem : wanted.has(e.name))).map((e) => e.name);
      if (names.length > 0) await attempt(config, () => applyCapture(config.path, names, options));
    }
    if (results.length === 0 && refusals.length === 0) results.push({ path: '', changed: [], commands: [], message: 'Nothing to capture: every chosen server already goes through the proxy.' });
  }

  if (values.json) io.json(`${JSON.stringify({ results, refused: refusals }, null, 2)}\n`);
  else {
    for (const result of results) {
      io.out(`${result.message}\n`);
      for (const command of result.commands) io.out(`  run for ${command.name}:\n    ${command.command}\n`);
    }
    for (const refusal of refusals) io.err(`switchboard capture: refused: ${refusal.message}\n`);
  }
  return refusals.length > 0 ? EXIT.toolError : EXIT.ok;
}

function list(configs: CaptureConfig[], json: boolean, io: Screen): number {
  if (json) {
    io.json(`${JSON.stringify(configs, null, 2)}\n`);
    return EXIT.ok;
  }
  for (const config of configs) {
    const state = !config.exists ? '  (not present)' : config.error ? '  (cannot be read)' : config.backup ? '  (captured: a backup exists)' : '';
    io.out(`${config.client}  ${config.path}${state}\n`);
    if (config.error) io.out(`  ${config.error}\n`);
    for (const entry of config.entries) {
      io.out(`  ${entry.captured ? '[captured]' : '[        ]'} ${entry.name}  ${entry.transport}  ${entry.problem ? `cannot be captured: ${entry.problem}` : entry.target}\n`);
    }
  }
  return EXIT.ok;
}
