/**
 * A live list of fixed-height rows that follows its newest row, and a person's scrolling that
 * stops following (up) or resumes it (back to the bottom). Shared by the Traffic table and the
 * Logs list.
 *
 * Where the list is "from" is where it last stood: a scroll event's position, or the position we
 * set ourselves. Our own scrolls must count too: during a flood the list grows by hundreds of rows
 * between two scroll events, so a wheel turned up from the newest row still ends far below the
 * position of the last scroll event, and measured from there it looked like a scroll down:
 * following went on, and pulled the reader back to the bottom.
 */
import { useLayoutEffect, useRef, type RefObject } from 'react';

export interface FollowScrollOptions {
  count: number;
  rowHeight: number;
  /** The viewport's height as last measured (useFixedRows): a resize moves a following list to its newest row again. */
  viewHeight: number;
  following: boolean;
  /** Whether scrolling may turn following on or off (Traffic: only a live trace). */
  canFollow: boolean;
  setFollow(on: boolean): void;
  /** Anything else that should move a following list to its newest row when it changes (a new row model). */
  revision?: unknown;
}

export interface FollowScroll {
  /** Scrolls to `top` (clamped to the list), as our own scroll: its event is not taken for the person's. */
  setScroll(top: number): void;
  onScroll(): void;
}

export function useFollowScroll(scrollRef: RefObject<HTMLElement | null>, options: FollowScrollOptions): FollowScroll {
  const { count, rowHeight, viewHeight, following, canFollow, setFollow, revision } = options;
  /** The position of our own last scroll, until its event comes (−1: none pending). */
  const programmatic = useRef(-1);
  /** Where the list last stood. */
  const lastTop = useRef(0);

  const setScroll = (top: number) => {
    const el = scrollRef.current;
    if (!el) return;
    const clamped = Math.max(0, Math.min(top, count * rowHeight - el.clientHeight));
    // The list stands there now, moved or not. (Not moved: the browser may have put it there
    // itself, clamping a list that got shorter, and that scroll event comes a frame later; if
    // the list grows first, measured from the old position it would look like a scroll up.)
    lastTop.current = clamped;
    if (Math.abs(el.scrollTop - clamped) < 1) return;
    programmatic.current = clamped;
    el.scrollTop = clamped;
  };

  // Following: stay on the newest row; turned on (the switch, or scrolling back down), move there from anywhere.
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (!following || !el) return;
    // The person moved up and its scroll event has not come yet (a flood renders in between):
    // following stops there, not pulled back down. (A list trimmed at the front clamps scrollTop
    // too, but to the bottom.)
    const top = el.scrollTop;
    if (canFollow && top < lastTop.current - 2 && !nearBottom(el, top, rowHeight)) {
      lastTop.current = top;
      setFollow(false);
      return;
    }
    setScroll(count * rowHeight); // (clamped to the last screenful)
  }, [count, following, viewHeight, revision]);

  const onScroll = () => {
    const el = scrollRef.current;
    if (!el) return;
    const top = el.scrollTop;
    if (programmatic.current >= 0 && Math.abs(top - programmatic.current) < 2) programmatic.current = -1;
    else if (canFollow) {
      const atBottom = nearBottom(el, top, rowHeight);
      if (atBottom && top > lastTop.current && !following) setFollow(true);
      else if (!atBottom && top < lastTop.current - 2 && following) setFollow(false);
    }
    lastTop.current = top;
  };

  return { setScroll, onScroll };
}

/** Within a row and a half of the end: where following starts again. */
function nearBottom(el: HTMLElement, top: number, rowHeight: number): boolean {
  return el.scrollHeight - top - el.clientHeight < rowHeight * 1.5;
}
