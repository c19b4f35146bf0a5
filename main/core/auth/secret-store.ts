/**
 * The `SecretStore` port: where OAuth tokens, client credentials and discovery state rest.
 * Electron encrypts with the OS keychain (safeStorage, in its adapter); browser mode and the
 * CLI keep an owner-only (0600) file in the user's config directory. Every store says plainly
 * how well it protects what it holds, and the UI repeats it.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { writeFileAtomic } from '../store/atomic-file';

export interface SecretStoreInfo {
  /** Encrypted at rest by something other than file permissions. */
  encrypted: boolean;
  /** Where and how, in one phrase: "OS keychain (gnome_libsecret)", "owner-only file ~/.config/…". */
  backend: string;
  /** What that means for the user, in plain words. */
  notice: string;
}

export interface SecretStore {
  readonly info: SecretStoreInfo;
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string): Promise<void>;
  delete(key: string): Promise<void>;
  keys(): Promise<string[]>;
}

/** Tests and one-shot CLI runs with `--no-store`: nothing touches the disk. */
export class MemorySecretStore implements SecretStore {
  readonly info: SecretStoreInfo = { encrypted: false, backend: 'memory', notice: 'Kept in memory only: signing in again is needed after a restart.' };
  private readonly values = new Map<string, string>();
  async get(key: string) {
    return this.values.get(key);
  }
  async set(key: string, value: string) {
    this.values.set(key, value);
  }
  async delete(key: string) {
    this.values.delete(key);
  }
  async keys() {
    return [...this.values.keys()];
  }
}

/**
 * A JSON map in a file only its owner can read or write (0600, directory 0700). Writes go to a
 * temporary file that is renamed over the old one, so a crash never leaves half a file; writes
 * are serialized so two flows finishing at once cannot lose each other's tokens.
 */
export class FileSecretStore implements SecretStore {
  readonly info: SecretStoreInfo;
  private cache: Map<string, string> | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly path: string,
    /** Extra words for the notice, e.g. why the OS keychain is not used. */
    reason = 'This mode has no access to an OS keychain.',
  ) {
    this.info = {
      encrypted: false,
      backend: `owner-only file ${path}`,
      notice: `Tokens are stored unencrypted in ${path}, readable only by your user account (mode 0600). ${reason} Anyone who can act as your user can read them; use "Sign out" to delete them.`,
    };
  }

  async get(key: string) {
    return (await this.load()).get(key);
  }

  async set(key: string, value: string) {
    await this.mutate((map) => map.set(key, value));
  }

  async delete(key: string) {
    await this.mutate((map) => map.delete(key));
  }

  async keys() {
    return [...(await this.load()).keys()];
  }

  private async load(): Promise<Map<string, string>> {
    if (this.cache) return this.cache;
    let parsed: unknown;
    try {
      parsed = JSON.parse(await readFile(this.path, 'utf8'));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new Error(`The secret store ${this.path} cannot be read: ${(error as Error).message}`, { cause: error });
    }
    const entries = (parsed as { entries?: Record<string, unknown> } | undefined)?.entries ?? {};
    this.cache = new Map(Object.entries(entries).filter((e): e is [string, string] => typeof e[1] === 'string'));
    return this.cache;
  }

  private mutate(change: (map: Map<string, string>) => void): Promise<void> {
    const run = this.queue.then(async () => {
      const map = await this.load();
      change(map);
      await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
      await writeFileAtomic(this.path, JSON.stringify({ version: 1, entries: Object.fromEntries(map) }));
    });
    this.queue = run.catch(() => undefined);
    return run;
  }
}
