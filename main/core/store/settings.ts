/**
 * The settings port. Electron persists through electron-store, everything else through
 * conf (electron-store's own foundation); core sees only this interface.
 */
import { z } from 'zod';
import { ServerConfig } from '../../../contract';

export const SETTINGS_VERSION = 1;

export const SettingsSchema = z.object({
  version: z.number().int().default(SETTINGS_VERSION),
  servers: z.array(ServerConfig).default([]),
});

export type Settings = z.output<typeof SettingsSchema>;

export interface SettingsStore {
  /** The whole settings document, validated. */
  read(): Settings;
  write(settings: Settings): void;
  /** Where the settings live, for messages and the About panel. */
  readonly location: string;
}

/** A settings store in memory, for tests and for `--ephemeral` runs. */
export class MemorySettingsStore implements SettingsStore {
  readonly location = '(memory)';
  private settings: Settings = SettingsSchema.parse({});

  read(): Settings {
    return structuredClone(this.settings);
  }

  write(settings: Settings): void {
    this.settings = structuredClone(SettingsSchema.parse(settings));
  }
}
