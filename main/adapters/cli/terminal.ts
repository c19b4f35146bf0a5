/**
 * What the CLI prints for people: server strings (tool names, descriptions, results, errors)
 * with everything that could drive the terminal made visible instead — ESC and every other C0
 * control but newline and tab, DEL, C1 controls (0x9b is a one-byte CSI), and the invisible
 * formatting characters that reorder or hide text (bidi overrides and isolates such as U+202E,
 * zero-width characters, line/paragraph separators, BOM). `--json` output is exact and never
 * goes through here.
 */
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

/** `\x1b`, `\x00`, `\u202e`: the character's code, visible and inert. */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, (c) => {
    const code = c.charCodeAt(0);
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}
