/**
 * Server text is hostile input. Shown as text only; invisible characters (bidi overrides,
 * zero-width characters, control characters, ANSI escapes) become small visible tokens; the text
 * is isolated for bidi (`unicode-bidi: plaintext`); long text is clipped with a toggle.
 */
import { UnstyledButton } from '@mantine/core';
import { useState, type ReactNode } from 'react';
import classes from './requests.module.css';

// eslint-disable-next-line no-control-regex
const INVISIBLE = /\u001b\[[0-9;?]*[ -/]*[@-~]|[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\u061c\ufeff]/g;

const NAMES: Record<string, string> = {
  '\u200b': 'ZWSP',
  '\u200c': 'ZWNJ',
  '\u200d': 'ZWJ',
  '\u200e': 'LRM',
  '\u200f': 'RLM',
  '\u202a': 'LRE',
  '\u202b': 'RLE',
  '\u202c': 'PDF',
  '\u202d': 'LRO',
  '\u202e': 'RLO',
  '\u2066': 'LRI',
  '\u2067': 'RLI',
  '\u2068': 'FSI',
  '\u2069': 'PDI',
  '\u061c': 'ALM',
  '\ufeff': 'BOM',
  '\u001b': 'ESC',
  '\u0000': 'NUL',
};

function token(match: string): string {
  if (match.startsWith('\u001b[')) return 'ESC[…';
  return NAMES[match] ?? `U+${match.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** For places that take only a string (option labels, placeholders): invisible characters as ⟨NAME⟩. */
export function visible(text: string, max = 300): string {
  const clipped = text.length > max ? `${text.slice(0, max)}…` : text;
  return clipped.replace(INVISIBLE, (m) => `⟨${token(m)}⟩`);
}

function reveal(text: string): ReactNode[] {
  const out: ReactNode[] = [];
  let last = 0;
  let key = 0;
  for (const match of text.matchAll(INVISIBLE)) {
    if (match.index > last) out.push(text.slice(last, match.index));
    out.push(
      <span key={key++} className={classes.invisible} title={`hidden character ${token(match[0])}`}>
        {token(match[0])}
      </span>,
    );
    last = match.index + match[0].length;
    if (key > 2_000) break;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

/** Block (or inline) server text, clipped after `clip` characters with "show more". */
export function ServerText({ text, clip = 4_000, inline = false, testId, className }: { text: string; clip?: number; inline?: boolean; testId?: string; className?: string }) {
  const [full, setFull] = useState(false);
  const clipped = !full && text.length > clip;
  const shown = clipped ? text.slice(0, clip) : text;
  return (
    <span className={`${inline ? classes.inlineText : classes.blockText} ${className ?? ''}`} dir="auto" data-testid={testId}>
      {reveal(shown)}
      {clipped && (
        <UnstyledButton className={classes.more} onClick={() => setFull(true)}>
          … show {(text.length - clip).toLocaleString()} more characters
        </UnstyledButton>
      )}
    </span>
  );
}

/** Any value as a short string (server params are unknown until checked). */
export function str(value: unknown): string {
  return typeof value === 'string' ? value : value === undefined || value === null ? '' : JSON.stringify(value);
}
