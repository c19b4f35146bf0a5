/**
 * The arithmetic of a canvas chart (pure: Node tests import it): a value axis of round ticks,
 * stacked series, and which point a pointer is over.
 */

/** Steps a value axis may take, times a power of ten. */
const NICE = [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10];

/** A value axis from 0: `ticks` intervals of a round step, the top at or above `max` (0 → 0..1). */
export function valueAxis(max: number, ticks = 4): { top: number; values: number[] } {
  const safe = Number.isFinite(max) && max > 0 ? max : 1;
  const raw = safe / ticks;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = (NICE.find((n) => n * power >= raw - 1e-9) ?? 10) * power;
  const values = Array.from({ length: ticks + 1 }, (_, i) => round(i * step));
  return { top: values[ticks]!, values };
}

/** Per point, the running sums of `keys` in order: tops[k][i] = Σ values of keys 0..k at point i. */
export function stack(points: readonly Record<string, number>[], keys: readonly string[]): number[][] {
  const tops: number[][] = [];
  let below = points.map(() => 0);
  for (const key of keys) {
    const top = points.map((p, i) => below[i]! + (Number.isFinite(p[key]) ? p[key]! : 0));
    tops.push(top);
    below = top;
  }
  return tops;
}

/** A value axis of whole numbers 0..max (one tick each) for small counts (≤ 5), else `valueAxis`. */
export function countAxis(max: number): { top: number; values: number[] } {
  if (!(max <= 5)) return valueAxis(max);
  const top = Math.max(1, Math.ceil(max));
  return { top, values: Array.from({ length: top + 1 }, (_, i) => i) };
}

/** The point under x on a plot of `count` bands (a bar chart: each point owns width / count); undefined outside it. */
export function bandAt(x: number, left: number, width: number, count: number): number | undefined {
  if (count <= 0 || x < left || x > left + width) return undefined;
  return Math.min(count - 1, Math.floor(((x - left) / width) * count));
}

/** The point nearest to x on a plot whose first point is at `left` and last at `left + width`; undefined outside it. */
export function pointAt(x: number, left: number, width: number, count: number): number | undefined {
  if (count <= 0 || x < left - 4 || x > left + width + 4) return undefined;
  if (count === 1) return 0;
  return Math.min(count - 1, Math.max(0, Math.round(((x - left) / width) * (count - 1))));
}

/** Where point i of `count` stands on a plot `width` wide starting at `left`. */
export function xOf(i: number, left: number, width: number, count: number): number {
  return count <= 1 ? left + width / 2 : left + (i / (count - 1)) * width;
}

function round(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}
