/**
 * #18 item 8: browser mode (the built out/main/web.js, a real process) creates its data
 * directory owner-only (0700), like the secrets and settings in it.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const WEB = join(ROOT, 'out/main/web.js');
const parent = mkdtempSync(join(tmpdir(), 'sb-datadir-'));

afterAll(() => rmSync(parent, { recursive: true, force: true }));

describe.skipIf(process.platform === 'win32')('browser mode data directory', () => {
  it('is created 0700, and so are the parents it had to create', async () => {
    const dataDir = join(parent, 'nested', 'data');
    const child = spawn(process.execPath, [WEB, '--data-dir', dataDir, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d) => {
        out += d;
        if (out.includes('Press Ctrl+C to stop.')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`browser mode exited (${code}) before it was ready: ${err || out}`)));
    });
    try {
      expect(out).toContain(join(dataDir, 'settings.json'));
      expect(statSync(dataDir).mode & 0o777).toBe(0o700);
      expect(statSync(join(parent, 'nested')).mode & 0o777).toBe(0o700);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  }, 30_000);
});
