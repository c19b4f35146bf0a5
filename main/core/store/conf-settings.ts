/** The settings port on `conf`, for browser mode, the CLI and tests (plain Node). */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Conf from 'conf';
import envPaths from 'env-paths';
import { ValidatedSettingsStore, type Settings } from './settings';

export interface ConfSettingsOptions {
  /** A directory of its own (tests, portable installs); default: the user's config dir. */
  cwd?: string;
}

export class ConfSettingsStore extends ValidatedSettingsStore {
  constructor(options: ConfSettingsOptions = {}) {
    const cwd = options.cwd ?? envPaths('switchboard', { suffix: '' }).config;
    // Owner-only, like the files in it (settings, tokens, the call audit); an existing directory is left as it is.
    mkdirSync(cwd, { recursive: true, mode: 0o700 });
    let conf: Conf<Settings> | undefined;
    super({
      path: join(cwd, 'settings.json'),
      open: () => {
        conf = new Conf<Settings>({ configName: 'settings', cwd, configFileMode: 0o600, clearInvalidConfig: false });
      },
      read: () => conf!.store,
      write: (settings) => {
        conf!.store = settings;
      },
    });
  }
}
