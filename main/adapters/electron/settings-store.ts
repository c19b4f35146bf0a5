/** The settings port on electron-store (in the app's userData dir), through the same validated store as conf. */
import { join } from 'node:path';
import Store from 'electron-store';
import { ValidatedSettingsStore, type Settings } from '../../core/store/settings';

export class ElectronSettingsStore extends ValidatedSettingsStore {
  /** `userDataDir`: Electron's `app.getPath('userData')`, or a directory of its own. */
  constructor(userDataDir: string) {
    let store: Store<Settings> | undefined;
    super({
      path: join(userDataDir, 'settings.json'),
      open: () => {
        store = new Store<Settings>({ name: 'settings', cwd: userDataDir, configFileMode: 0o600, clearInvalidConfig: false });
      },
      read: () => store!.store,
      write: (settings) => {
        store!.store = settings;
      },
    });
  }
}
