/**
 * Where a machine's CPU went while a workload ran, by role (Linux: read from /proc). The browser
 * workloads run main, a fixture server, Chromium and this bench (Playwright's driver runs in this
 * process) on the same cores: a frame the page drew late with no long task of its own waited for
 * one of them, and this says which were busy.
 *
 *   const before = cpuSnapshot();  …  const used = cpuUsedByRole(before, cpuSnapshot(), roleOf);
 *
 * One process's time alone: `cpuMsOf(pid)` (bench/proxy.ts, the proxy's CPU per request).
 *
 * Times are user + system CPU from each process's `stat` in clock ticks of 1/100 s (USER_HZ, 100
 * on Linux everywhere but exotic kernels). A process that exited between the two snapshots is not
 * counted; one that started between them counts from its start.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';

export interface ProcessCpu {
  /** User + system CPU time so far, ms. */
  cpuMs: number;
  /** The command line, arguments joined by spaces ('' for a kernel thread). */
  cmdline: string;
}

const TICK_MS = 10;

/**
 * User + system CPU ms from the text of /proc/<pid>/stat. The command name (field 2) is in
 * parentheses and may itself hold spaces and parentheses, so fields are counted after the last ')'.
 */
export function parseStatCpuMs(stat: string): number | undefined {
  const end = stat.lastIndexOf(')');
  if (end < 0) return undefined;
  // after ") ": state (field 3) is index 0, utime (field 14) index 11, stime (field 15) index 12
  const fields = stat.slice(end + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return Number.isFinite(utime) && Number.isFinite(stime) ? (utime + stime) * TICK_MS : undefined;
}

/** User + system CPU time of one process so far (ms), from /proc; undefined elsewhere or once it is gone. */
export function cpuMsOf(pid: number | null | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    return parseStatCpuMs(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return undefined;
  }
}

/** Every process's CPU so far, by pid; undefined where there is no /proc. */
export function cpuSnapshot(): Map<number, ProcessCpu> | undefined {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return undefined;
  }
  const snapshot = new Map<number, ProcessCpu>();
  for (const pid of pids) {
    const cpuMs = cpuMsOf(Number(pid));
    if (cpuMs === undefined) continue;
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
      snapshot.set(Number(pid), { cpuMs, cmdline });
    } catch {
      // the process exited while we read
    }
  }
  return snapshot;
}

/**
 * CPU ms each role used between two snapshots. `roleOf` names a process's role, or undefined to
 * leave it out (kernel threads are left out before it is asked).
 */
export function cpuUsedByRole(before: Map<number, ProcessCpu>, after: Map<number, ProcessCpu>, roleOf: (pid: number, cmdline: string) => string | undefined): Map<string, number> {
  const used = new Map<string, number>();
  for (const [pid, now] of after) {
    if (!now.cmdline) continue;
    const earlier = before.get(pid);
    // a pid reused by another process is a new process
    const from = earlier && earlier.cmdline === now.cmdline && earlier.cpuMs <= now.cpuMs ? earlier.cpuMs : 0;
    const delta = now.cpuMs - from;
    if (delta <= 0) continue;
    const role = roleOf(pid, now.cmdline);
    if (role !== undefined) used.set(role, (used.get(role) ?? 0) + delta);
  }
  return used;
}

/** "main 8.1 s, page 4.9 s, …; 23.9 of 24.0 CPU-s (2 cores × 12.0 s)": the roles in the order given, then the total against what the cores had. */
export function describeCpuUse(used: Map<string, number>, order: string[], wallMs: number): string {
  const roles = [...order.filter((r) => used.has(r)), ...[...used.keys()].filter((r) => !order.includes(r))];
  const total = [...used.values()].reduce((a, b) => a + b, 0);
  const cores = cpus().length;
  const parts = roles.map((role) => `${role} ${((used.get(role) ?? 0) / 1000).toFixed(1)} s`);
  return `${parts.join(', ')}; ${(total / 1000).toFixed(1)} of ${((cores * wallMs) / 1000).toFixed(1)} CPU-s (${cores} cores × ${(wallMs / 1000).toFixed(1)} s)`;
}
