/**
 * Must show (#13): a real recording process is killed with SIGKILL during a 20,000-notification
 * flood; the next start repairs its recording, which then opens with every event the process had
 * written, seqs gapless from 1, marked "ended unexpectedly". How many events were lost is printed
 * and checked against the documented window (docs/recordings.md: on kill -9, only what was not
 * yet written: the batch being gathered, at most MAX_UNSERIALIZED events waiting in the store
 * plus WRITE_BATCH_BYTES of lines).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { RecordingLibrary } from '../../main/core/recordings/library';
import { WRITE_BATCH_BYTES } from '../../main/core/recordings/writer';
import { tsxNodeArgs } from '../fixtures/spawn-listening';

const CHILD = join(dirname(fileURLToPath(import.meta.url)), 'support/recording-child.ts');
const FLOOD = 20_000;
/** The store serializes at most this many events on the append path's behalf (store.ts MAX_UNSERIALIZED). */
const MAX_UNSERIALIZED = 2_000;
/** The smallest event line a flood notification makes (its JSON-RPC text alone is longer). */
const MIN_LINE_BYTES = 100;

const dataDir = mkdtempSync(join(tmpdir(), 'sb-rec-crash-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

interface Progress {
  appended: number;
  events: number;
  written: number;
  synced: number;
}

describe('a recording process killed with SIGKILL mid-flood', () => {
  it('reopens with every written event, gapless, marked ended unexpectedly', async () => {
    const child = spawn(process.execPath, tsxNodeArgs(CHILD, [dataDir, String(FLOOD)]), { stdio: ['ignore', 'pipe', 'pipe'] });
    let id: string | undefined;
    let last: Progress | undefined;
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const killedAt = await new Promise<Progress>((resolve, reject) => {
      let buffer = '';
      child.stdout.on('data', (d: Buffer) => {
        buffer += d.toString();
        let nl: number;
        while ((nl = buffer.indexOf('\n')) >= 0) {
          const line = JSON.parse(buffer.slice(0, nl)) as Partial<Progress> & { id?: string; error?: string; flooded?: boolean };
          buffer = buffer.slice(nl + 1);
          if (line.id) id = line.id;
          if (line.error) reject(new Error(`child failed: ${line.error}\n${stderr}`));
          if (line.flooded !== undefined) reject(new Error('the flood ended before the child was killed'));
          if (line.written !== undefined) {
            last = line as Progress;
            // Mid-flood: well into it, far from its end.
            if (last.appended >= FLOOD / 4 && child.exitCode === null && !child.killed) {
              child.kill('SIGKILL');
              resolve(last);
            }
          }
        }
      });
      child.on('exit', (code, signal) => {
        if (signal !== 'SIGKILL') reject(new Error(`child exited (${code}, ${signal}) before it was killed\n${stderr}`));
      });
    });
    await new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));
    expect(child.signalCode).toBe('SIGKILL');
    expect(id).toBeDefined();

    const library = new RecordingLibrary({ dir: join(dataDir, 'recordings') });
    expect(library.get(id!)!.ended).toBe('recording');
    const { repaired } = library.recover();
    expect(repaired).toEqual([id]);
    const summary = library.get(id!)!;
    expect(summary.ended).toBe('unexpected');
    expect(summary.notes.join(' ')).toMatch(/ended unexpectedly/);

    const opened = await library.open(id!);
    try {
      const store = opened.hub.store;
      const recovered = store.size;
      const lost = killedAt.appended - recovered;
      console.log(
        `SIGKILL mid-flood: child had appended ${killedAt.appended} events, written ${killedAt.written}, fsynced ${killedAt.synced} at its last report; ` +
          `recovered ${recovered}; lost ${Math.max(0, lost)} of the reported (${lost < 0 ? `${-lost} more were written after the last report` : 'not yet written'}); repair notes: ${summary.notes.join(' | ')}`,
      );
      // Every event the process had written is there (kill -9 leaves the page cache to the kernel).
      expect(recovered).toBeGreaterThanOrEqual(killedAt.written);
      expect(recovered).toBeGreaterThanOrEqual(killedAt.synced);
      // What is lost is at most what was not yet written: the documented window.
      expect(lost).toBeLessThanOrEqual(MAX_UNSERIALIZED + Math.ceil(WRITE_BATCH_BYTES / MIN_LINE_BYTES));
      expect(summary.events).toBe(recovered);
      // Gapless from 1, every event whole, the flood's notifications in order.
      let seq = 0;
      let floodSeen = 0;
      for (const event of store.all()) {
        expect(event.seq).toBe(++seq);
        expect(event.text ?? '').not.toMatch(/event not available/);
        const data = (event.body as { params?: { data?: unknown } } | undefined)?.params?.data;
        if (typeof data === 'string' && data.startsWith('flood ')) expect(data).toBe(`flood ${++floodSeen}/${FLOOD}`);
      }
      expect(seq).toBe(recovered);
      expect(floodSeen).toBeGreaterThan(0);
      expect(floodSeen).toBeLessThan(FLOOD);
    } finally {
      opened.hub.close();
    }
  }, 120_000);
});
