/**
 * The renderer's one set of formatters (renderer/src/components/format.ts): every view writes
 * durations, sizes and counts through these, so their edges are pinned here.
 */
import { describe, expect, it } from 'vitest';
import { formatBytes, formatChars, formatCount, formatMs, formatTime, plural } from '../../renderer/src/components/format';

describe('formatMs', () => {
  it('writes nothing for an unknown duration and a dash for a non-number', () => {
    expect(formatMs(undefined)).toBe('');
    expect(formatMs(Number.NaN)).toBe('—');
    expect(formatMs(Number.POSITIVE_INFINITY)).toBe('—');
  });

  it('writes zero and sub-millisecond durations in ms', () => {
    expect(formatMs(0)).toBe('0 ms');
    expect(formatMs(0.004)).toBe('0.00 ms');
    expect(formatMs(0.42)).toBe('0.42 ms');
    expect(formatMs(0.994)).toBe('0.99 ms');
  });

  it('moves to the next precision where rounding would show the next unit', () => {
    expect(formatMs(0.996)).toBe('1.0 ms');
    expect(formatMs(4.24)).toBe('4.2 ms');
    expect(formatMs(9.94)).toBe('9.9 ms');
    expect(formatMs(9.96)).toBe('10 ms');
    expect(formatMs(850)).toBe('850 ms');
    expect(formatMs(999.4)).toBe('999 ms');
    expect(formatMs(999.5)).toBe('1.0 s');
    expect(formatMs(1_000)).toBe('1.0 s');
    expect(formatMs(1_234)).toBe('1.2 s');
    expect(formatMs(12_500)).toBe('12.5 s');
    expect(formatMs(59_949)).toBe('59.9 s');
    expect(formatMs(59_950)).toBe('1 min 0 s');
  });

  it('writes minutes with seconds, and hours with minutes, never "60 s" or "60 min"', () => {
    expect(formatMs(125_000)).toBe('2 min 5 s');
    expect(formatMs(119_600)).toBe('2 min 0 s');
    expect(formatMs(3_599_400)).toBe('59 min 59 s');
    expect(formatMs(3_599_600)).toBe('1 h 0 min');
    expect(formatMs(3 * 3_600_000 + 12 * 60_000)).toBe('3 h 12 min');
    expect(formatMs(1e12)).toBe('277777 h 47 min');
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
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(1024)).toBe('1.0 KB');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(256 * 1024)).toBe('256.0 KB');
    expect(formatBytes(52.4 * 1024 * 1024)).toBe('52.4 MB');
    expect(formatBytes(1.25 * 1024 ** 3)).toBe('1.3 GB');
    expect(formatBytes(5 * 1024 ** 4)).toBe('5.0 TB');
    expect(formatBytes(2 * 1024 ** 5)).toBe('2048.0 TB');
  });

  it('never writes 1024.0 of a unit: that is one of the next', () => {
    expect(formatBytes(1024 * 1024 - 1)).toBe('1.0 MB');
    expect(formatBytes(1024 * 1023.9)).toBe('1023.9 KB');
    expect(formatBytes(1024 ** 3 - 1)).toBe('1.0 GB');
  });
});

describe('formatChars', () => {
  it('writes text lengths in decimal steps, as a cut text states them', () => {
    expect(formatChars(0)).toBe('0 B');
    expect(formatChars(999)).toBe('999 B');
    expect(formatChars(1_000)).toBe('1 KB');
    expect(formatChars(20_000)).toBe('20 KB');
    expect(formatChars(200_000)).toBe('200 KB');
    expect(formatChars(999_949)).toBe('1000 KB');
    expect(formatChars(999_950)).toBe('1.0 MB');
    expect(formatChars(52_400_000)).toBe('52.4 MB');
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
