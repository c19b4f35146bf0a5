/**
 * #18 item 7: the spill file has a cap, past which recording to disk pauses with a clear message
 * (never silently), and the temp folders of sessions killed with SIGKILL are cleaned up.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
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
