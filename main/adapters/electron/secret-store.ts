/**
 * The `SecretStore` port in Electron: values encrypted with the OS keychain through
 * safeStorage's async API, kept in an owner-only file. Where the OS offers no keychain (Linux
 * without a secret service: the `basic_text` backend) safeStorage would only obfuscate, so the
 * store says so plainly instead of calling that encryption.
 */
import { safeStorage } from 'electron';
import { FileSecretStore, type SecretStore, type SecretStoreInfo } from '../../core/auth/secret-store';

/** Encrypts each value before it reaches the file underneath (base64 of the ciphertext). */
class EncryptedSecretStore implements SecretStore {
  constructor(
    private readonly file: FileSecretStore,
    readonly info: SecretStoreInfo,
  ) {}

  async get(key: string): Promise<string | undefined> {
    const stored = await this.file.get(key);
    if (stored === undefined) return undefined;
    try {
      const { result } = await safeStorage.decryptStringAsync(Buffer.from(stored, 'base64'));
      return result;
    } catch {
      // Encrypted under another user or keychain: as good as absent (a new sign-in replaces it).
      return undefined;
    }
  }

  async set(key: string, value: string): Promise<void> {
    const encrypted = await safeStorage.encryptStringAsync(value);
    await this.file.set(key, encrypted.toString('base64'));
  }

  delete(key: string): Promise<void> {
    return this.file.delete(key);
  }

  keys(): Promise<string[]> {
    return this.file.keys();
  }
}

/** Call after `app.whenReady()`: safeStorage needs the app to be ready. */
export async function createElectronSecretStore(path: string): Promise<SecretStore> {
  const available = await safeStorage.isAsyncEncryptionAvailable();
  const backend = process.platform === 'linux' ? safeStorage.getSelectedStorageBackend() : process.platform === 'darwin' ? 'Keychain' : 'DPAPI';
  if (!available || backend === 'basic_text' || backend === 'unknown') {
    return new FileSecretStore(
      path,
      `The operating system offers no keychain to Switchboard (safeStorage backend: ${backend}), so nothing stronger than file permissions protects them.`,
    );
  }
  return new EncryptedSecretStore(new FileSecretStore(path), {
    encrypted: true,
    backend: `OS keychain (${backend}), ciphertext in ${path}`,
    notice: `Tokens are encrypted with a key kept by your operating system's keychain (${backend}); the file ${path} holds only ciphertext.`,
  });
}
