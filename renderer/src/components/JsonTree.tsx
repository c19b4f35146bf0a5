/**
 * A collapsible JSON tree. Server data is hostile input: everything is rendered as text (no
 * HTML), long strings are clipped with a toggle (huge ones with "Show all / Save to file"), wide
 * objects and arrays show their first entries with "show more", nesting beyond `expandDepth`
 * starts collapsed. A subtree main cut at the carried depth (a truncation marker) is a visible
 * row "… 4,937 more levels", and the tree itself never renders deeper than MAX_TREE_DEPTH, so a
 * value of any depth (say, a body parsed here from the trace's text) cannot exhaust the stack.
 */
import { UnstyledButton } from '@mantine/core';
import { useState, type ReactNode } from 'react';
import { LIMITS, depthOf, isTruncationMarker } from '../../../contract/bounded-json';
import classes from './JsonTree.module.css';
import { DepthCutRow, TEXT_LIMIT, TextCutNotice } from './Truncated';

const CHILDREN_PAGE = 100;
const STRING_CLIP = 2_000;
/** Levels the tree renders; a container deeper than this is a marker row (see the Raw view). */
export const MAX_TREE_DEPTH = LIMITS.carriedDepth;
/** Levels that indent; deeper ones line up under the last indent and show their level instead. */
const INDENTED_LEVELS = 6;
/** Counting the levels below the cut stops here (the count is only for the label). */
const MAX_COUNTED = 1_000_000;

export function JsonTree({ value, expandDepth = 2, testId }: { value: unknown; expandDepth?: number; testId?: string }) {
  return (
    <div className={classes.tree} data-testid={testId}>
      <Node value={value} depth={0} expandDepth={expandDepth} />
    </div>
  );
}

function Node({ name, value, depth, expandDepth }: { name?: ReactNode; value: unknown; depth: number; expandDepth: number }) {
  const level = depth > INDENTED_LEVELS ? <span className={classes.level} title={`nesting level ${depth}`}>{depth}</span> : null;
  const label = name !== undefined ? <span className={classes.key}>{level}{name}: </span> : level;
  if (value === null || typeof value !== 'object') {
    return (
      <div className={classes.row}>
        {label}
        <Scalar value={value} />
      </div>
    );
  }
  if (isTruncationMarker(value)) return <DepthCutRow info={value} label={label} />;
  const container = value as Record<string, unknown> | unknown[];
  if (depth >= MAX_TREE_DEPTH) {
    const entries = Array.isArray(container) ? container.length : Object.keys(container).length;
    return (
      <DepthCutRow
        info={{ levels: depthOf(container, MAX_COUNTED), entries, array: Array.isArray(container) }}
        label={label}
        reason={`The tree shows ${MAX_TREE_DEPTH} levels; the rest is in the Raw view.`}
      />
    );
  }
  return <Branch label={label} value={container} depth={depth} expandDepth={expandDepth} />;
}

function Branch({ label, value, depth, expandDepth }: { label: ReactNode; value: Record<string, unknown> | unknown[]; depth: number; expandDepth: number }) {
  const [open, setOpen] = useState(depth < expandDepth);
  const [shown, setShown] = useState(CHILDREN_PAGE);
  const isArray = Array.isArray(value);
  // Only the entries on screen are materialized (an array may hold millions).
  const keys = isArray ? undefined : Object.keys(value);
  const count = isArray ? value.length : keys!.length;
  const summary = isArray ? `Array(${count})` : `{${count} ${count === 1 ? 'key' : 'keys'}}`;
  const visible: [string, unknown][] = [];
  if (open) {
    const end = Math.min(shown, count);
    for (let i = 0; i < end; i++) visible.push(isArray ? [String(i), value[i]] : [keys![i]!, (value as Record<string, unknown>)[keys![i]!]]);
  }
  return (
    <div>
      <UnstyledButton className={classes.toggle} onClick={() => setOpen(!open)} aria-expanded={open}>
        <span className={classes.caret}>{open ? '▾' : '▸'}</span>
        {label}
        <span className={classes.summary}>{summary}</span>
      </UnstyledButton>
      {open && (
        <div className={depth < INDENTED_LEVELS ? classes.children : classes.flatChildren}>
          {visible.map(([key, child]) => (
            <Node key={key} name={key} value={child} depth={depth + 1} expandDepth={expandDepth} />
          ))}
          {count > shown && (
            <UnstyledButton className={classes.more} onClick={() => setShown(shown + CHILDREN_PAGE * 10)}>
              show {Math.min(CHILDREN_PAGE * 10, count - shown)} more of {count - shown}…
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
    const huge = value.length > TEXT_LIMIT;
    return (
      <span className={classes.string}>
        "{clipped ? value.slice(0, STRING_CLIP) : value}"
        {clipped && !huge && (
          <UnstyledButton className={classes.more} onClick={() => setFull(true)}>
            … {value.length - STRING_CLIP} more characters
          </UnstyledButton>
        )}
        {huge && <TextCutNotice total={value.length} shown={full ? value.length : STRING_CLIP} all={full} onShowAll={() => setFull(true)} text={value} filename="value.txt" />}
      </span>
    );
  }
  if (typeof value === 'number') return <span className={classes.number}>{String(value)}</span>;
  if (typeof value === 'boolean') return <span className={classes.boolean}>{String(value)}</span>;
  if (value === null) return <span className={classes.null}>null</span>;
  return <span className={classes.null}>{String(value)}</span>;
}
