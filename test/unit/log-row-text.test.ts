/** What a Logs view row shows of a line's text (one line, bounded), and how many lines it says the text has. */
import { describe, expect, it } from 'vitest';
import { ROW_CHARS, lineCount, oneLine } from '../../renderer/src/features/logs/log-filter';

describe('a log row’s text', () => {
  it('is the text itself when it is one short line', () => {
    expect(oneLine('GET /v1/invoices → 200 in 38 ms\tok')).toEqual({ text: 'GET /v1/invoices → 200 in 38 ms\tok', cut: false });
  });

  it('shows every kind of line break as ⏎, so the row stays one line', () => {
    expect(oneLine('a\r\nb\nc\rd\u2028e\u2029f').text).toBe('a ⏎ b ⏎ c ⏎ d ⏎ e ⏎ f');
  });

  it('shows other control characters as their pictures (an ANSI colour, a NUL, DEL), keeps tabs', () => {
    expect(oneLine('\u001b[31mred\u001b[0m\u0000\u007f\tx').text).toBe('␛[31mred␛[0m␀␡\tx');
  });

  it('is cut at ROW_CHARS, never inside a surrogate pair, and says it was cut', () => {
    const long = 'x'.repeat(ROW_CHARS * 3);
    expect(oneLine(long)).toEqual({ text: 'x'.repeat(ROW_CHARS), cut: true });
    const pair = `${'x'.repeat(ROW_CHARS - 1)}😀 and more`;
    const shown = oneLine(pair);
    expect(shown.cut).toBe(true);
    expect(shown.text).toBe('x'.repeat(ROW_CHARS - 1));
    expect(oneLine('x'.repeat(ROW_CHARS))).toEqual({ text: 'x'.repeat(ROW_CHARS), cut: false });
  });

  it('counts lines by their breaks, a break at the very end starting none', () => {
    expect(lineCount('one')).toBe(1);
    expect(lineCount('one\n')).toBe(1);
    expect(lineCount('one\ntwo')).toBe(2);
    expect(lineCount('one\ntwo\n\n')).toBe(3);
    expect(lineCount(['TypeError', ...Array.from({ length: 41 }, (_, i) => `  at f${i}`)].join('\n'))).toBe(42);
  });
});
