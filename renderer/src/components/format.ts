/**
 * How the renderer writes durations, sizes, counts and clock times: one rule each, used by every
 * view (no React, so Node tests import it). An unknown value (`undefined`) is an empty string, so
 * a table cell or a key/value row stays blank rather than saying "NaN".
 */

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/**
 * A duration: `0.42 ms`, `4.2 ms`, `850 ms`, `1.2 s`, `12.5 s`, `2 min 5 s`, `3 h 12 min`. A value
 * that would round up to the next unit is written in that unit (999.7 ms is `1.0 s`, 59.96 s is
 * `1 min 0 s`). Negative durations (clock skew) keep their sign.
 */
export function formatMs(ms: number | undefined): string {
  if (ms === undefined) return '';
  if (!Number.isFinite(ms)) return '—';
  if (ms < 0) return `-${formatMs(-ms)}`;
  if (ms === 0) return '0 ms';
  if (ms < 0.995) return `${ms.toFixed(2)} ms`;
  if (ms < 9.95) return `${ms.toFixed(1)} ms`;
  if (ms < 999.5) return `${Math.round(ms)} ms`;
  if (ms < 59_950) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  const minutes = Math.round(ms / 60_000);
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

const BYTE_UNITS = ['KB', 'MB', 'GB', 'TB'] as const;

/**
 * A size in bytes, in binary steps (1 KB = 1,024 B): `512 B`, `1.5 KB`, `256.0 KB`, `52.4 MB`,
 * `1.2 GB`. A value that would round to 1024.0 of a unit is written in the next one.
 */
export function formatBytes(bytes: number | undefined): string {
  if (bytes === undefined) return '';
  if (!Number.isFinite(bytes) || bytes < 0) return '—';
  if (bytes < 1024) return `${Math.round(bytes)} B`;
  let value = bytes / 1024;
  let unit = 0;
  while (unit < BYTE_UNITS.length - 1 && value >= 1023.95) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${BYTE_UNITS[unit]}`;
}

/**
 * A length of text as people read it, in decimal steps (characters ≈ bytes): `512 B`, `20 KB`,
 * `52.4 MB`. This is how a cut text says how much of it shows ("Truncated at 20 KB of 52.4 MB").
 */
export function formatChars(n: number): string {
  if (n >= 999_950) return `${(n / 1_000_000).toFixed(1)} MB`;
  if (n >= 999.5) return `${Math.round(n / 1_000)} KB`;
  return `${n} B`;
}

/** A count with thousands separators: `12,345`. */
export function formatCount(n: number | undefined): string {
  if (n === undefined) return '';
  return n.toLocaleString('en-US');
}

/** `1 prompt`, `3 prompts`, `1 property` / `2 properties` (with `many`). */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}

/** HH:MM:SS (or HH:MM:SS.mmm), local time. */
export function formatTime(ts: number, withMs = true): string {
  const d = new Date(ts);
  const clock = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  return withMs ? `${clock}.${pad(d.getMilliseconds(), 3)}` : clock;
}
