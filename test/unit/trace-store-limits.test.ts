/**
 * #18 item 7: the spill file has a cap, past which recording to disk pauses with a clear message
 * (never silently), and the temp folders of sessions killed with SIGKILL are cleaned up.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RecordingWriter } from '../../main/core/recordings/writer';
import { OWNER_FILE, TraceStore, removeOrphanedTraceDirs } from '../../main/core/trace/store';

const line = (i: number) => ({ server: 'a', channel: 'stdio' as const, kind: 'stderr' as const, dir: 'in' as const, text: `line ${i} ${'x'.repeat(200)}` });

describe('trace store limits', () => {
  it('pauses recording to disk at the spill cap: says so once, keeps the index, and names the cause on every lost event', async () => {
    const messages: string[] = [];
    const store = new TraceStore({ windowSize: 100, maxSpillBytes: 2 * 1024 * 1024, onLimit: (m) => messages.push(m) });
    try {
      for (let i = 0; i < 30_000; i++) store.append(line(i));
      await new Promise((done) => setImmediate(done));
      // The oldest event reads back from the spill file.
      expect(store.get(1)?.text).toMatch(/^line 0 /);
      const spill = readdirSync((store as unknown as { dir: string }).dir).filter((f) => f.startsWith('trace-'));
      const size = statSync(join((store as unknown as { dir: string }).dir, spill[0]!)).size;
      expect(size).toBeLessThanOrEqual(2 * 1024 * 1024);
      expect(messages).toHaveLength(1);
      expect(messages[0]).toMatch(/^recording paused at 2\.0 MiB/);
      // Every event still has its place: seq, server, kind; an event past the cap says why it is gone.
      expect(store.size).toBe(30_000);
      const lost = store.get(25_000)!;
      expect(lost.seq).toBe(25_000);
      expect(lost.kind).toBe('stderr');
      expect(lost.text).toContain('recording paused at 2.0 MiB');
      // Past the cap, the newest window is kept whole in memory.
      expect(store.get(30_000)?.text).toMatch(/^line 29999 /);
    } finally {
      store.close();
    }
  });

  it('at the cap, the newest events of the buffer that did not fit go back into the window whole; the older ones say why they are gone', () => {
    const messages: string[] = [];
    // 2,000 lines of ~230 bytes: less than the 1 MiB buffer, more than the 64 KiB cap.
    const store = new TraceStore({ windowSize: 100, maxSpillBytes: 64 * 1024, onLimit: (m) => messages.push(m) });
    try {
      for (let i = 0; i < 2_000; i++) store.append(line(i));
      // Writing the buffer out is what meets the cap.
      store.drain();
      expect(messages).toHaveLength(1);
      for (const seq of [1_901, 1_950, 2_000]) expect(store.get(seq)?.text).toBe(line(seq - 1).text);
      for (const seq of [1, 1_900]) expect(store.get(seq)?.text).toMatch(/^\(event not available: recording paused at 0\.1 MiB/);
      // Events after the pause are kept in the window as they come, and push the oldest out.
      for (let i = 2_000; i < 2_050; i++) store.append(line(i));
      store.drain();
      expect(store.get(2_050)?.text).toBe(line(2_049).text);
      expect(store.get(1_951)?.text).toBe(line(1_950).text);
      expect(store.get(1_950)?.text).toMatch(/^\(event not available: recording paused/);
      expect(store.size).toBe(2_050);
    } finally {
      store.close();
    }
  });

  it('durable mode: once the recording cannot be written, the newest events are kept whole in memory', () => {
    const dir = mkdtempSync(join(tmpdir(), 'switchboard-failing-recording-'));
    const errors: string[] = [];
    const writer = new RecordingWriter(join(dir, 'r'), { app: { name: 'Switchboard', version: 't' }, startedAt: Date.now(), servers: [], timers: false, onError: (m) => errors.push(m) });
    const store = new TraceStore({ sink: writer, windowSize: 100 });
    try {
      for (let i = 0; i < 50; i++) store.append(line(i));
      store.drain();
      writer.flush();
      expect(store.get(10)?.text).toBe(line(9).text);
      // The disk goes away under the recording: its next write fails (EBADF here, ENOSPC in life).
      closeSync((writer as unknown as { eventsFd: number }).eventsFd);
      for (let i = 50; i < 60; i++) store.append(line(i));
      store.drain();
      writer.flush();
      expect(errors.join(' ')).toMatch(/could not be written/);
      // Events from the failure on are kept in memory (the closed descriptor fails reads too, so what is on disk is not checked here).
      for (let i = 60; i < 300; i++) store.append(line(i));
      store.drain();
      for (const seq of [201, 250, 300]) expect(store.get(seq)?.text).toBe(line(seq - 1).text);
      expect(store.size).toBe(300);
    } finally {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('removes the temp folder of a store whose process was killed, and leaves a live one alone', async () => {
    const root = mkdtempSync(join(tmpdir(), 'switchboard-orphans-'));
    try {
      // A real process opens a store in `root` (TMPDIR), appends more than its spill buffer holds (1 MiB, so the spill file is written), and is killed.
      const script = `
        process.env.TMPDIR = ${JSON.stringify(root)};
        const { TraceStore } = await import(${JSON.stringify(new URL('../../main/core/trace/store.ts', import.meta.url).href)});
        const store = new TraceStore({ windowSize: 10 });
        for (let i = 0; i < 10000; i++) store.append({ server: 'a', channel: 'stdio', kind: 'stderr', dir: 'in', text: 'x'.repeat(200) });
        await new Promise((done) => setImmediate(done));
        console.log('READY');
        setInterval(() => {}, 1000);`;
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { env: { ...process.env, TMPDIR: root }, stdio: ['ignore', 'pipe', 'inherit'] });
      await new Promise<void>((done, fail) => {
        child.stdout!.on('data', (d) => String(d).includes('READY') && done());
        child.once('exit', (code) => fail(new Error(`the store process exited early (${code})`)));
      });
      const [folder] = readdirSync(root).filter((n) => n.startsWith('switchboard-trace-'));
      expect(folder).toBeDefined();
      expect(existsSync(join(root, folder!, OWNER_FILE))).toBe(true);
      // While it lives, its folder is not an orphan.
      expect(removeOrphanedTraceDirs(root).folders).toBe(0);
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGKILL');
      await exited;
      const freed = removeOrphanedTraceDirs(root);
      expect(freed.folders).toBe(1);
      expect(freed.bytes).toBeGreaterThan(100_000);
      expect(existsSync(join(root, folder!))).toBe(false);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
