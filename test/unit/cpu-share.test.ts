import { cpus } from 'node:os';
import { describe, expect, it } from 'vitest';
import { cpuSnapshot, cpuUsedByRole, describeCpuUse, parseStatCpuMs, type ProcessCpu } from '../../bench/support/cpu-share';

describe('bench CPU share by role', () => {
  it('reads user + system time after the last parenthesis, whatever the command name holds', () => {
    // fields: pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime …
    const stat = '4242 (we) ird (name)) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 31 0 0 20 0 4 0 1000 0 0';
    expect(parseStatCpuMs(stat)).toBe((250 + 31) * 10);
    expect(parseStatCpuMs('no parenthesis here')).toBeUndefined();
    expect(parseStatCpuMs('1 (short) S 1')).toBeUndefined();
  });

  it.runIf(process.platform === 'linux')('sees this process spend the CPU a busy loop spends, as Node counts it', () => {
    const before = cpuSnapshot()!;
    const start = process.cpuUsage();
    expect(before.get(process.pid)?.cmdline).toContain('node');
    // spin until Node says 200 ms of CPU went by (not wall time: a loaded machine stretches that)
    let spin = 0;
    const spent = () => {
      const { user, system } = process.cpuUsage(start);
      return (user + system) / 1000;
    };
    while (spent() < 200) spin++;
    const after = cpuSnapshot()!;
    const reference = spent();
    expect(spin).toBeGreaterThan(0);
    const used = cpuUsedByRole(before, after, (pid) => (pid === process.pid ? 'me' : undefined));
    // /proc counts in 10 ms ticks, and reading it costs a little CPU of its own
    expect(Math.abs(used.get('me')! - reference)).toBeLessThanOrEqual(60);
  });

  it('counts a new process from its start, a reused pid as new, and leaves out kernel threads and unnamed roles', () => {
    const p = (cpuMs: number, cmdline: string): ProcessCpu => ({ cpuMs, cmdline });
    const before = new Map([
      [1, p(1000, 'node main.js')],
      [2, p(5000, 'old process')],
      [3, p(10, '')],
      [4, p(100, 'chromium --type=renderer')],
    ]);
    const after = new Map([
      [1, p(1800, 'node main.js')], // +800
      [2, p(300, 'chromium --type=gpu-process')], // the pid was reused: 300 from its start
      [3, p(900, '')], // a kernel thread
      [4, p(100, 'chromium --type=renderer')], // idle
      [5, p(250, 'chromium --type=renderer')], // started between the snapshots
      [6, p(70, 'sleep 10')],
    ]);
    const used = cpuUsedByRole(before, after, (_pid, cmdline) => (cmdline.startsWith('node') ? 'main' : cmdline.includes('renderer') ? 'page' : cmdline.includes('chromium') ? 'browser' : undefined));
    expect(Object.fromEntries(used)).toEqual({ main: 800, browser: 300, page: 250 });
    const line = describeCpuUse(used, ['page', 'main', 'absent'], 2000);
    expect(line).toBe(`page 0.3 s, main 0.8 s, browser 0.3 s; 1.4 of ${(cpus().length * 2).toFixed(1)} CPU-s (${cpus().length} cores × 2.0 s)`);
  });
});
