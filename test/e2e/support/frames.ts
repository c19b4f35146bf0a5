/** Frame-probe arithmetic, free of Playwright (unit-tested in test/unit/frames.test.ts). */

/**
 * Frames over 50 ms during which no long task of the page ran (no overlap of the frame's interval
 * with any [start, start + duration]). No task of the page's held such a frame: it waited for a
 * CPU, another process (the compositor, the GPU process, the browser), or a garbage collection
 * outside any task (the Long Tasks API does not report those; a CPU profile shows them).
 */
export function longFramesWithoutTask(frames: number[], ends: number[], tasks: [number, number][]): number {
  let count = 0;
  for (let i = 0; i < frames.length; i++) {
    const delta = frames[i]!;
    const end = ends[i];
    if (delta <= 50 || end === undefined) continue;
    const start = end - delta;
    if (!tasks.some(([at, duration]) => at < end && at + duration > start)) count++;
  }
  return count;
}
