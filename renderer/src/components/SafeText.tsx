/**
 * Server text, shown as text: control characters, bidi overrides, zero-width characters and ANSI
 * escapes are made visible as small marked tokens (they are how a server hides or disguises
 * what it says), the text is isolated from its surroundings for bidi, long words wrap, and
 * long text is clipped with a toggle.
 */
import { Tooltip, UnstyledButton } from '@mantine/core';
import { useState, type CSSProperties, type ReactNode } from 'react';
import classes from './SafeText.module.css';

// Bidi controls, zero-width characters, C0/C1 controls (but tab and newline), and the BOM.
const INVISIBLE = /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\u061c\ufeff]/g;

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
  '\u2060': 'WJ',
  '\u2066': 'LRI',
  '\u2067': 'RLI',
  '\u2068': 'FSI',
  '\u2069': 'PDI',
  '\u061c': 'ALM',
  '\ufeff': 'BOM',
  '\u001b': 'ESC',
  '\u0000': 'NUL',
  '\u0007': 'BEL',
  '\u0008': 'BS',
  '\u000d': 'CR',
};

function tokenLabel(match: string): string {
  if (match.startsWith('\u001b[') || match.startsWith('\u001b]')) return `ESC${match.slice(1, 24).replace(/[\u0000-\u001f]/g, '')}${match.length > 24 ? '…' : ''}`;
  return NAMES[match] ?? `U+${match.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** For places that take only a string (option labels, placeholders): invisible characters as ⟨NAME⟩. */
export function visibleText(text: string, max = 300): string {
  const clipped = text.length > max ? `${text.slice(0, max)}…` : text;
  return clipped.replace(INVISIBLE, (m) => `⟨${tokenLabel(m)}⟩`);
}

export function hasInvisible(text: string): boolean {
  INVISIBLE.lastIndex = 0;
  const found = INVISIBLE.test(text);
  INVISIBLE.lastIndex = 0;
  return found;
}

/** Text with its invisible characters turned into visible tokens. */
export function reveal(text: string): ReactNode[] {
  const out: ReactNode[] = [];
  let last = 0;
  let key = 0;
  INVISIBLE.lastIndex = 0;
  for (let match = INVISIBLE.exec(text); match; match = INVISIBLE.exec(text)) {
    if (match.index > last) out.push(text.slice(last, match.index));
    out.push(
      <span key={key++} className={classes.invisible} title={`hidden character: ${tokenLabel(match[0])}`}>
        {tokenLabel(match[0])}
      </span>,
    );
    last = match.index + match[0].length;
    if (key > 5_000) break;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

/**
 * Shows server text safely. `clip` is how many characters show before "show more"; `inline`
 * keeps it on one line with an ellipsis (names in lists).
 */
export function SafeText({
  text,
  clip = 2_000,
  inline = false,
  className,
  style,
  testId,
}: {
  text: string;
  clip?: number;
  inline?: boolean;
  className?: string;
  style?: CSSProperties;
  testId?: string;
}) {
  const [full, setFull] = useState(false);
  const clipped = !full && text.length > clip;
  const shown = clipped ? text.slice(0, clip) : text;
  return (
    <span className={`${inline ? classes.inlineText : classes.blockText} ${className ?? ''}`} style={style} dir="auto" data-testid={testId}>
      {reveal(shown)}
      {clipped && !inline && (
        <UnstyledButton className={classes.more} onClick={() => setFull(true)}>
          … show {(text.length - clip).toLocaleString()} more characters
        </UnstyledButton>
      )}
    </span>
  );
}

/** A one-line name or title with the whole (revealed, clipped) text in a tooltip. */
export function SafeLabel({ text, max = 200, className }: { text: string; max?: number; className?: string }) {
  const short = text.length > max ? `${text.slice(0, max)}…` : text;
  return (
    <Tooltip label={<span className={classes.tooltipText}>{reveal(text.slice(0, 1_000))}</span>} openDelay={500} multiline maw={480} withinPortal>
      <span className={`${classes.inlineText} ${className ?? ''}`} dir="auto">
        {reveal(short)}
      </span>
    </Tooltip>
  );
}
