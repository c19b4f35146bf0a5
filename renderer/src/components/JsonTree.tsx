/**
 * A collapsible JSON tree. Server data is hostile input: everything is rendered as text (no
 * HTML), long strings are clipped with a toggle, wide objects and arrays show their first
 * entries with "show more", and nesting beyond `expandDepth` starts collapsed.
 */
import { UnstyledButton } from '@mantine/core';
import { useState, type ReactNode } from 'react';
import classes from './JsonTree.module.css';

const CHILDREN_PAGE = 100;
const STRING_CLIP = 2_000;

export function JsonTree({ value, expandDepth = 2, testId }: { value: unknown; expandDepth?: number; testId?: string }) {
  return (
    <div className={classes.tree} data-testid={testId}>
      <Node value={value} depth={0} expandDepth={expandDepth} />
    </div>
  );
}

function Node({ name, value, depth, expandDepth }: { name?: ReactNode; value: unknown; depth: number; expandDepth: number }) {
  const label = name !== undefined ? <span className={classes.key}>{name}: </span> : null;
  if (value === null || typeof value !== 'object') {
    return (
      <div className={classes.row}>
        {label}
        <Scalar value={value} />
      </div>
    );
  }
  return <Branch label={label} value={value as Record<string, unknown> | unknown[]} depth={depth} expandDepth={expandDepth} />;
}

function Branch({ label, value, depth, expandDepth }: { label: ReactNode; value: Record<string, unknown> | unknown[]; depth: number; expandDepth: number }) {
  const [open, setOpen] = useState(depth < expandDepth);
  const [shown, setShown] = useState(CHILDREN_PAGE);
  const isArray = Array.isArray(value);
  const entries: [string, unknown][] = isArray ? value.map((v, i) => [String(i), v]) : Object.entries(value);
  const summary = isArray ? `Array(${entries.length})` : `{${entries.length} ${entries.length === 1 ? 'key' : 'keys'}}`;
  return (
    <div>
      <UnstyledButton className={classes.toggle} onClick={() => setOpen(!open)} aria-expanded={open}>
        <span className={classes.caret}>{open ? '▾' : '▸'}</span>
        {label}
        <span className={classes.summary}>{summary}</span>
      </UnstyledButton>
      {open && (
        <div className={classes.children}>
          {entries.slice(0, shown).map(([key, child]) => (
            <Node key={key} name={key} value={child} depth={depth + 1} expandDepth={expandDepth} />
          ))}
          {entries.length > shown && (
            <UnstyledButton className={classes.more} onClick={() => setShown(shown + CHILDREN_PAGE * 10)}>
              show {Math.min(CHILDREN_PAGE * 10, entries.length - shown)} more of {entries.length - shown}…
            </UnstyledButton>
          )}
        </div>
      )}
    </div>
  );
}

function Scalar({ value }: { value: unknown }) {
  const [full, setFull] = useState(false);
  if (typeof value === 'string') {
    const clipped = !full && value.length > STRING_CLIP;
    return (
      <span className={classes.string}>
        "{clipped ? value.slice(0, STRING_CLIP) : value}"
        {clipped && (
          <UnstyledButton className={classes.more} onClick={() => setFull(true)}>
            … {value.length - STRING_CLIP} more characters
          </UnstyledButton>
        )}
      </span>
    );
  }
  if (typeof value === 'number') return <span className={classes.number}>{String(value)}</span>;
  if (typeof value === 'boolean') return <span className={classes.boolean}>{String(value)}</span>;
  if (value === null) return <span className={classes.null}>null</span>;
  return <span className={classes.null}>{String(value)}</span>;
}
