/** Time-axis ticks and labels that read well from hours down to microseconds. */

const STEPS_MS: number[] = [];
for (let exp = -3; exp <= 2; exp++) for (const m of [1, 2, 5]) STEPS_MS.push(m * 10 ** exp);
// From one second up, steps that fit the clock.
STEPS_MS.push(...[1, 2, 5, 10, 15, 30].map((s) => s * 1000), ...[1, 2, 5, 10, 15, 30].map((m) => m * 60_000), ...[1, 2, 3, 6, 12, 24].map((h) => h * 3_600_000));

/** The smallest nice step whose ticks are at least `minPx` apart. */
export function tickStep(spanMs: number, widthPx: number, minPx = 90): number {
  const raw = (spanMs * minPx) / Math.max(1, widthPx);
  for (const step of STEPS_MS) if (step >= raw) return step;
  return STEPS_MS[STEPS_MS.length - 1]!;
}

export function ticks(start: number, end: number, step: number): number[] {
  const out: number[] = [];
  // Work in step units to avoid accumulating float error at sub-millisecond steps.
  const first = Math.ceil(start / step);
  const last = Math.floor(end / step);
  for (let i = first; i <= last && out.length < 500; i++) out.push(i * step);
  return out;
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

export function clockLabel(ts: number, withMs = false): string {
  const d = new Date(ts);
  const base = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  return withMs ? `${base}.${pad(d.getMilliseconds(), 3)}` : base;
}

/** Decimals needed to tell ticks `step` ms apart. */
function decimals(step: number): number {
  if (step >= 1) return 0;
  return Math.min(3, Math.ceil(-Math.log10(step) - 1e-9));
}

/**
 * A tick's label: the clock for steps of a second or more (HH:MM from a minute up), and within
 * a second the offset into it ("+250 ms", "+250.5 ms"), with the clock on whole seconds.
 */
export function tickLabel(ts: number, step: number): string {
  if (step >= 60_000) {
    const d = new Date(ts);
    return `${pad(d.getHours())}:${pad(d.getMinutes())}`;
  }
  if (step >= 1000) return clockLabel(ts);
  const intoSecond = ((ts % 1000) + 1000) % 1000;
  if (intoSecond < step / 2 || 1000 - intoSecond < step / 2) return clockLabel(Math.round(ts / 1000) * 1000);
  return `+${intoSecond.toFixed(decimals(step))} ms`;
}

/** A duration for people: 0.35 ms, 12.4 ms, 1.25 s, 3 min 20 s. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return '—';
  if (ms < 1) return `${ms.toFixed(3)} ms`;
  if (ms < 10) return `${ms.toFixed(2)} ms`;
  if (ms < 1000) return `${ms.toFixed(1)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 3 : 2)} s`;
  if (ms < 3_600_000) return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
  return `${Math.floor(ms / 3_600_000)} h ${Math.round((ms % 3_600_000) / 60_000)} min`;
}
