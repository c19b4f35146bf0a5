/** The benchmarks' statistics (bench/run.ts, bench/proxy.ts). */

/** The q-quantile of ascending `sorted` (linear between neighbours). */
export function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

export const median = (values: number[]): number => quantile([...values].sort((a, b) => a - b), 0.5);
export const sum = (values: number[]): number => values.reduce((a, b) => a + b, 0);

/** A whole number from the environment (a bench knob), at least `min`; a bad value stops the bench. */
export function envInt(name: string, fallback: number, min = 0): number {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isFinite(value) || value < min) throw new Error(`bad ${name}=${raw}`);
  return Math.floor(value);
}
