import { describe, expect, it } from 'vitest';
import { pointAt, stack, valueAxis, xOf } from '../../renderer/src/features/charts/plot';

describe('canvas chart arithmetic', () => {
  it('a value axis of round steps whose top covers the peak', () => {
    expect(valueAxis(3078)).toEqual({ top: 3200, values: [0, 800, 1600, 2400, 3200] });
    expect(valueAxis(1)).toEqual({ top: 1, values: [0, 0.25, 0.5, 0.75, 1] });
    expect(valueAxis(0.3).top).toBeGreaterThanOrEqual(0.3);
    for (const max of [7, 13, 99, 101, 4_999, 12_345, 1e6 + 1]) {
      const axis = valueAxis(max);
      expect(axis.top).toBeGreaterThanOrEqual(max);
      // never more than about twice the peak: the plot uses most of its height
      expect(axis.top).toBeLessThan(max * 2);
    }
    // nothing plotted, or a broken value: still an axis to draw
    expect(valueAxis(0)).toEqual({ top: 1, values: [0, 0.25, 0.5, 0.75, 1] });
    expect(valueAxis(Number.NaN).top).toBe(1);
  });

  it('stacks series bottom first, a missing value counting as zero', () => {
    const points = [{ a: 1, b: 2 }, { a: 3 }, { b: 5, a: Number.NaN }] as Record<string, number>[];
    expect(stack(points, ['a', 'b'])).toEqual([
      [1, 3, 0],
      [3, 3, 5],
    ]);
    expect(stack(points, [])).toEqual([]);
  });

  it('finds the point under the pointer, and none outside the plot', () => {
    // 61 points over 600 px from x = 58
    expect(pointAt(58, 58, 600, 61)).toBe(0);
    expect(pointAt(658, 58, 600, 61)).toBe(60);
    expect(pointAt(58 + 300, 58, 600, 61)).toBe(30);
    expect(pointAt(58 + 304, 58, 600, 61)).toBe(30);
    expect(pointAt(58 + 306, 58, 600, 61)).toBe(31);
    expect(pointAt(10, 58, 600, 61)).toBeUndefined();
    expect(pointAt(700, 58, 600, 61)).toBeUndefined();
    expect(pointAt(300, 58, 600, 0)).toBeUndefined();
    expect(xOf(pointAt(400, 58, 600, 61)!, 58, 600, 61)).toBe(398);
  });
});
