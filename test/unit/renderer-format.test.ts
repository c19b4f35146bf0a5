/**
 * The renderer's one set of formatters (renderer/src/components/format.ts): every view writes
 * durations, sizes and counts through these, so their edges are pinned here.
 */
import { describe, expect, it } from 'vitest';
import { formatBytes, formatChars, formatCount, formatMs, formatTime, plural } from '../../renderer/src/components/format';

/** Each input written as its expected text (the input names a failure). */
function check(format: (n: number) => string, cases: [number, string][]): void {
  for (const [input, text] of cases) expect(format(input), String(input)).toBe(text);
}

describe('formatMs', () => {
  it('writes nothing for an unknown duration and a dash for a non-number', () => {
    expect(formatMs(undefined)).toBe('');
    expect(formatMs(Number.NaN)).toBe('—');
    expect(formatMs(Number.POSITIVE_INFINITY)).toBe('—');
  });

  it('writes zero and sub-millisecond durations in ms', () => {
    check(formatMs, [
      [0, '0 ms'],
      [0.004, '0.00 ms'],
      [0.42, '0.42 ms'],
      [0.994, '0.99 ms'],
    ]);
  });

  it('moves to the next precision where rounding would show the next unit', () => {
    check(formatMs, [
      [0.996, '1.0 ms'],
      [4.24, '4.2 ms'],
      [9.94, '9.9 ms'],
      [9.96, '10 ms'],
      [850, '850 ms'],
      [999.4, '999 ms'],
      [999.5, '1.0 s'],
      [1_000, '1.0 s'],
      [1_234, '1.2 s'],
      [12_500, '12.5 s'],
      [59_949, '59.9 s'],
      [59_950, '1 min 0 s'],
    ]);
  });

  it('writes minutes with seconds, and hours with minutes, never "60 s" or "60 min"', () => {
    check(formatMs, [
      [125_000, '2 min 5 s'],
      [119_600, '2 min 0 s'],
      [3_599_400, '59 min 59 s'],
      [3_599_600, '1 h 0 min'],
      [3 * 3_600_000 + 12 * 60_000, '3 h 12 min'],
      [1e12, '277777 h 47 min'],
    ]);
  });

  it('keeps the sign of a negative duration (clock skew)', () => {
    expect(formatMs(-850)).toBe('-850 ms');
    expect(formatMs(-1_500)).toBe('-1.5 s');
  });
});

describe('formatBytes', () => {
  it('writes nothing for an unknown size and a dash for nonsense', () => {
    expect(formatBytes(undefined)).toBe('');
    expect(formatBytes(Number.NaN)).toBe('—');
    expect(formatBytes(-1)).toBe('—');
  });

  it('counts bytes up to 1,023, then binary KB, MB, GB, TB with one decimal', () => {
    check(formatBytes, [
      [0, '0 B'],
      [512, '512 B'],
      [1023, '1023 B'],
      [1024, '1.0 KB'],
      [1536, '1.5 KB'],
      [256 * 1024, '256.0 KB'],
      [52.4 * 1024 * 1024, '52.4 MB'],
      [1.25 * 1024 ** 3, '1.3 GB'],
      [5 * 1024 ** 4, '5.0 TB'],
      [2 * 1024 ** 5, '2048.0 TB'],
    ]);
  });

  it('never writes 1024.0 of a unit: that is one of the next', () => {
    expect(formatBytes(1024 * 1024 - 1)).toBe('1.0 MB');
    expect(formatBytes(1024 * 1023.9)).toBe('1023.9 KB');
    expect(formatBytes(1024 ** 3 - 1)).toBe('1.0 GB');
  });
});

describe('formatChars', () => {
  it('writes text lengths in decimal steps, as a cut text states them', () => {
    check(formatChars, [
      [0, '0 B'],
      [999, '999 B'],
      [1_000, '1 KB'],
      [20_000, '20 KB'],
      [200_000, '200 KB'],
      [999_949, '1000 KB'],
      [999_950, '1.0 MB'],
      [52_400_000, '52.4 MB'],
    ]);
  });
});

describe('counts', () => {
  it('formatCount separates thousands and writes nothing for undefined', () => {
    expect(formatCount(undefined)).toBe('');
    expect(formatCount(0)).toBe('0');
    expect(formatCount(12_345_678)).toBe('12,345,678');
  });

  it('plural takes the singular only for one, and an irregular plural when given', () => {
    expect(plural(0, 'prompt')).toBe('0 prompts');
    expect(plural(1, 'prompt')).toBe('1 prompt');
    expect(plural(2_000, 'arg')).toBe('2,000 args');
    expect(plural(1, 'property', 'properties')).toBe('1 property');
    expect(plural(3, 'property', 'properties')).toBe('3 properties');
  });
});

describe('formatTime', () => {
  it('writes local HH:MM:SS.mmm, or HH:MM:SS without milliseconds', () => {
    const ts = new Date(2025, 0, 31, 9, 5, 7, 42).getTime();
    expect(formatTime(ts)).toBe('09:05:07.042');
    expect(formatTime(ts, false)).toBe('09:05:07');
  });
});
