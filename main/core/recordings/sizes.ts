/** Bytes a recording takes on disk. */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { RECORDING_FILES } from './format';

export function recordingBytes(dir: string): number {
  let bytes = 0;
  for (const file of RECORDING_FILES) {
    try {
      bytes += statSync(join(dir, file)).size;
    } catch {
      /* not there */
    }
  }
  return bytes;
}
