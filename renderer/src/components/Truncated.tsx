/**
 * How every payload view says it shows only part of something: a text cut at a size ("Truncated
 * at 20 KB of 52.4 MB — Show all / Save to file"), or a subtree cut at a depth (a marker row
 * "… 4,937 more levels"). Server data of any size and depth arrives here; these keep the page
 * responsive by showing a bounded part and saying so.
 */
import { Button, Group, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { describeTruncation, type TruncationInfo } from '../../../contract/bounded-json';
import { downloadText } from './download';
import { formatChars } from './format';
import classes from './JsonTree.module.css';

/** Text over this many characters is shown in part. */
export const TEXT_LIMIT = 100_000;
/** How much of it shows until "Show all". */
export const TEXT_PREVIEW = 20_000;

/**
 * The row under a cut text. `shown` characters of `total` are on screen; Show all puts the rest
 * there, Save to file writes the whole text (as it came) without rendering it.
 */
export function TextCutNotice({
  total,
  shown,
  all,
  onShowAll,
  text,
  filename,
  testId = 'text-truncated',
  showAllTestId = 'text-show-all',
  saveTestId = 'text-save',
}: {
  total: number;
  shown: number;
  all: boolean;
  onShowAll(): void;
  text: string;
  filename: string;
  testId?: string;
  showAllTestId?: string;
  saveTestId?: string;
}) {
  return (
    <Group gap="xs" px="xs" pb={6} data-testid={testId} data-total={total}>
      <Text size="xs" c="dimmed">
        {all
          ? `All ${total.toLocaleString('en-US')} characters shown.`
          : `Truncated at ${formatChars(shown)} (of ${formatChars(total)}). Showing the first ${shown.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} characters.`}
      </Text>
      {!all && (
        <Button size="compact-xs" variant="light" onClick={onShowAll} data-testid={showAllTestId}>
          Show all
        </Button>
      )}
      <Button size="compact-xs" variant="subtle" onClick={() => downloadText(filename, text)} data-testid={saveTestId}>
        Save to file
      </Button>
    </Group>
  );
}

/** A subtree cut at a depth: "… 4,937 more levels", and what the cut container was. */
export function DepthCutRow({ info, label, reason }: { info: TruncationInfo; label?: ReactNode; reason?: string }) {
  const what = info.entries !== undefined ? ` (${info.array ? 'an array' : 'an object'} of ${info.entries.toLocaleString('en-US')} ${info.entries === 1 ? 'entry' : 'entries'})` : '';
  return (
    <div className={classes.row} data-testid="json-truncated" data-levels={info.levels ?? ''}>
      {label}
      <span className={classes.truncated} title={reason ?? 'Nested deeper than Switchboard carries or shows; the raw payload is in the Traffic view.'}>
        {describeTruncation(info)}
      </span>
      <span className={classes.summary}>{what}</span>
    </div>
  );
}
