/**
 * Owner-only files written whole or not at all: the text goes to a temporary file beside the
 * target, which is then renamed over it, so a crash never leaves half a file. Used by the call
 * memory and the secret store.
 */
import { chmodSync, renameSync, writeFileSync } from 'node:fs';
import { chmod, rename, writeFile } from 'node:fs/promises';

const temporaryOf = (path: string): string => `${path}.${process.pid}.tmp`;

export async function writeFileAtomic(path: string, text: string): Promise<void> {
  const temporary = temporaryOf(path);
  await writeFile(temporary, text, { mode: 0o600 });
  await chmod(temporary, 0o600); // `mode` applies only when the file is created
  await rename(temporary, path);
}

/** `writeFileAtomic`, synchronously (a one-time migration at start). */
export function writeFileAtomicSync(path: string, text: string): void {
  const temporary = temporaryOf(path);
  writeFileSync(temporary, text, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, path);
}
