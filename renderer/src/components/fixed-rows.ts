/**
 * A virtual list of rows of one fixed height: which rows are on screen comes from the scroll
 * position alone, in constant time, whatever the count. (A measuring virtualizer keeps one entry a
 * row and rebuilds that list whenever the count changes: during a live flood that is every tick,
 * over hundreds of thousands of rows.)
 */
import { useLayoutEffect, useState, type RefObject } from 'react';
import { rowRange, rowsBelow, type RowRange } from './row-range';

/**
 * The rendered range of a scroll element's fixed-height rows; re-renders on scroll and resize only.
 * `pinBottom` (a live list following its newest row): the range is the last screenful at once,
 * in the render that grew the count, not one render later when the scroll to the end arrives.
 * `height` is the viewport's, as last measured (no layout read); `below`, the rows wholly below it.
 */
export function useFixedRows(scrollRef: RefObject<HTMLElement | null>, count: number, rowHeight: number, overscan: number, pinBottom = false): RowRange & { height: number; below: number } {
  const [view, setView] = useState({ top: 0, height: 0 });
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (!el) return;
    const update = () => setView((v) => (v.top === el.scrollTop && v.height === el.clientHeight ? v : { top: el.scrollTop, height: el.clientHeight }));
    update();
    el.addEventListener('scroll', update, { passive: true });
    const resize = new ResizeObserver(update);
    resize.observe(el);
    return () => {
      el.removeEventListener('scroll', update);
      resize.disconnect();
    };
  }, [scrollRef]);
  const top = pinBottom ? Math.max(0, count * rowHeight - view.height) : view.top;
  return { ...rowRange(top, view.height, count, rowHeight, overscan), height: view.height, below: rowsBelow(top, view.height, count, rowHeight) };
}
