/** Every file's bytes under a directory, as one latin1 string: for "this secret is on no file on disk". */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export function allBytes(root: string): string {
  let out = '';
  for (const name of readdirSync(root)) {
    const path = join(root, name);
    out += statSync(path).isDirectory() ? allBytes(path) : readFileSync(path).toString('latin1');
  }
  return out;
}
