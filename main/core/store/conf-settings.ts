/** The settings port on `conf`, for browser mode, the CLI and tests (plain Node). */
import Conf from 'conf';
import { SettingsSchema, type Settings, type SettingsStore } from './settings';

export interface ConfSettingsOptions {
  /** A directory of its own (tests, portable installs); default: the user's config dir. */
  cwd?: string;
}

export class ConfSettingsStore implements SettingsStore {
  private readonly conf: Conf<Settings>;

  constructor(options: ConfSettingsOptions = {}) {
    this.conf = new Conf<Settings>({
      projectName: 'switchboard',
      projectSuffix: '',
      configName: 'settings',
      cwd: options.cwd,
      configFileMode: 0o600,
    });
  }

  get location(): string {
    return this.conf.path;
  }

  read(): Settings {
    return SettingsSchema.parse(this.conf.store);
  }

  write(settings: Settings): void {
    this.conf.store = SettingsSchema.parse(settings);
  }
}
