import { describe, expect, it } from 'vitest';
import { longFramesWithoutTask } from '../e2e/support/frames';

describe('longFramesWithoutTask', () => {
  // Frames as the probe records them: the delta, and the rAF time that ended it.
  const frames = [16.7, 83.3, 16.7, 66.7, 100];
  const ends = [1000, 1083.3, 1100, 1166.7, 1266.7];

  it('counts the long frames no long task overlaps', () => {
    // A task inside the second frame (1000–1083.3); none in the fourth (1100–1166.7) or fifth (1166.7–1266.7).
    expect(longFramesWithoutTask(frames, ends, [[1010, 60]])).toBe(2);
  });

  it('a task that only touches a frame at its edge does not hold it back; one that overlaps it does', () => {
    expect(longFramesWithoutTask(frames, ends, [[1083.3, 10]])).toBe(3);
    expect(longFramesWithoutTask(frames, ends, [[1160, 60]])).toBe(1);
  });

  it('short frames never count, with or without tasks', () => {
    expect(longFramesWithoutTask([16.7, 50, 33.3], [10, 60, 93.3], [])).toBe(0);
    expect(longFramesWithoutTask(frames, ends, [])).toBe(3);
  });
});
