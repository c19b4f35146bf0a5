/**
 * Server text is hostile input. Shown as text only; invisible characters (bidi overrides,
 * zero-width characters, control characters, ANSI escapes) become small visible tokens; the text
 * is isolated for bidi (`unicode-bidi: plaintext`); long text is clipped with a toggle.
 */
import { safeStringify } from '../../../../contract/bounded-json';
import { UnstyledButton } from '@mantine/core';
import { useState } from 'react';
import { reveal, visibleText } from '../../components/SafeText';
import classes from './requests.module.css';

/** For places that take only a string: invisible characters as ⟨NAME⟩ (shared with the Tools view). */
export const visible = visibleText;

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
  return typeof value === 'string' ? value : value === undefined || value === null ? '' : safeStringify(value);
}
