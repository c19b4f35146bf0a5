/**
 * "↓ 1,234 newer lines": while a live list does not follow (the person scrolled up, or picked a
 * row), how many rows lie below the screen, and one click back to the newest row. Shared by the
 * Logs list and the Traffic table. The count is the rows below the viewport (`useFixedRows`'
 * `below`), not "new since following stopped": that stays true whatever else changes the list (a
 * filter, a cleared view, a group expanded, older rows loaded above).
 */
import { Button } from '@mantine/core';

/** The mark itself, at the bottom of a list that is `position: relative`; nothing when no row is below. */
export function NewBelow({ count, noun, onFollow, testId }: { count: number; noun: [one: string, many: string]; onFollow(): void; testId: string }) {
  if (count <= 0) return null;
  return (
    <Button
      size="compact-xs"
      radius="xl"
      variant="filled"
      pos="absolute"
      bottom={10}
      left="50%"
      style={{ transform: 'translateX(-50%)', zIndex: 2, boxShadow: 'var(--mantine-shadow-sm)' }}
      onClick={onFollow}
      title="Scroll to the newest and follow again"
      data-testid={testId}
      data-count={count}
    >
      ↓ {count.toLocaleString('en-US')} newer {count === 1 ? noun[0] : noun[1]}
    </Button>
  );
}
