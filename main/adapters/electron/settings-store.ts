/** The settings port on electron-store (in the app's userData dir), validated like the conf one. */
import Store from 'electron-store';
import { SettingsSchema, type Settings, type SettingsStore } from '../../core/store/settings';

export interface ElectronSettingsOptions {
  /** A directory of its own; default: Electron's `userData` dir. */
  cwd?: string;
}

export class ElectronSettingsStore implements SettingsStore {
  private readonly store: Store<Settings>;

  constructor(options: ElectronSettingsOptions = {}) {
    this.store = new Store<Settings>({
      name: 'settings',
      cwd: options.cwd,
      configFileMode: 0o600,
    });
  }

  get location(): string {
    return this.store.path;
  }

  read(): Settings {
    return SettingsSchema.parse(this.store.store);
  }

  write(settings: Settings): void {
    this.store.store = SettingsSchema.parse(settings);
  }
}
