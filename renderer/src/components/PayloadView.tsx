/**
 * The one way a payload shows: a JSON tree or its text ("Tree / Raw"), the text cut past a size
 * with "Show all / Save to file" (Truncated.tsx), a copy button when asked. Resources' content,
 * a tool's result and a traffic event's body all show through these, each in its own frame.
 *
 * - `ModeSwitch`: the small segmented switch between views (Tree/Raw, Rendered/Raw, Tree/JSON).
 * - `ClippedPre`: text in a `<pre>`, cut past `limit` characters (showing `preview` of them).
 * - `PayloadBody`: the tree or the clipped text, for a mode the caller keeps.
 * - `PayloadView`: the switch (when the value is structured), a toolbar, and the body.
 */
import { Button, Group, SegmentedControl } from '@mantine/core';
import { useState, type CSSProperties, type ReactNode } from 'react';
import { copyText } from './download';
import { JsonTree } from './JsonTree';
import { TextCutNotice } from './Truncated';

export type PayloadMode = 'tree' | 'raw';

export const TREE_RAW: readonly (readonly [PayloadMode, string])[] = [
  ['tree', 'Tree'],
  ['raw', 'Raw'],
];

export function ModeSwitch<T extends string>({ value, onChange, options, testId }: { value: T; onChange(next: NoInfer<T>): void; options: readonly (readonly [NoInfer<T>, string])[]; testId?: string }) {
  return <SegmentedControl size="xs" value={value} onChange={(v) => onChange(v as T)} data={options.map(([v, label]) => ({ value: v, label }))} data-testid={testId} />;
}

/** Test ids of the row under a cut text (each view has its own, and the e2e specs use them). */
export interface CutTestIds {
  notice?: string;
  showAll?: string;
  save?: string;
}

export function ClippedPre({
  text,
  limit,
  preview = limit,
  filename,
  className,
  style,
  testId,
  dir,
  render,
  cutTestIds,
}: {
  text: string;
  /** Text over this many characters is cut… */
  limit: number;
  /** …to this many, until Show all. */
  preview?: number;
  filename: string;
  className?: string;
  style?: CSSProperties;
  testId?: string;
  dir?: 'auto';
  /** How the shown text renders (say, with hidden characters made visible); plain text by default. */
  render?(shown: string): ReactNode;
  cutTestIds?: CutTestIds;
}) {
  const [all, setAll] = useState(false);
  const cut = text.length > limit;
  const shown = cut && !all ? text.slice(0, preview) : text;
  return (
    <>
      <pre className={className} style={style} data-testid={testId} dir={dir}>
        {render ? render(shown) : shown}
      </pre>
      {cut && (
        <TextCutNotice
          total={text.length}
          shown={shown.length}
          all={all}
          onShowAll={() => setAll(true)}
          text={text}
          filename={filename}
          testId={cutTestIds?.notice}
          showAllTestId={cutTestIds?.showAll}
          saveTestId={cutTestIds?.save}
        />
      )}
    </>
  );
}

export interface PayloadBodyProps {
  mode: PayloadMode;
  /** The value the tree shows; only a structured (object or array) value has a tree. */
  value: unknown;
  /** What Raw shows, and what Save to file writes. */
  text: string;
  expandDepth?: number;
  treeTestId?: string;
  /** A frame around the tree (a bordered, scrolling box). */
  treeClassName?: string;
  rawTestId?: string;
  rawClassName?: string;
  rawStyle?: CSSProperties;
  limit: number;
  preview?: number;
  filename: string;
  cutTestIds?: CutTestIds;
}

export const isStructured = (value: unknown): boolean => value !== null && typeof value === 'object';

export function PayloadBody({ mode, value, text, expandDepth = 3, treeTestId, treeClassName, rawTestId, rawClassName, rawStyle, limit, preview, filename, cutTestIds }: PayloadBodyProps) {
  if (mode === 'tree' && isStructured(value)) {
    const tree = <JsonTree value={value} expandDepth={expandDepth} testId={treeTestId} />;
    return treeClassName ? <div className={treeClassName}>{tree}</div> : tree;
  }
  return <ClippedPre text={text} limit={limit} preview={preview} filename={filename} className={rawClassName} style={rawStyle} testId={rawTestId} cutTestIds={cutTestIds} />;
}

/** The switch (for a structured value), `toolbar` beside it, a Copy button when `copy`, then the body. */
export function PayloadView({ toolbar, copy, copyTestId, switchTestId, ...body }: Omit<PayloadBodyProps, 'mode'> & { toolbar?: ReactNode; copy?: boolean; copyTestId?: string; switchTestId?: string }) {
  const [mode, setMode] = useState<PayloadMode>('tree');
  return (
    <>
      <Group gap="xs" mb={4}>
        {isStructured(body.value) && <ModeSwitch value={mode} onChange={setMode} options={TREE_RAW} testId={switchTestId} />}
        {toolbar}
        {copy && (
          <Button size="compact-xs" variant="subtle" onClick={() => void copyText(body.text)} data-testid={copyTestId}>
            Copy
          </Button>
        )}
      </Group>
      <PayloadBody mode={mode} {...body} />
    </>
  );
}
