/** Which rows of a fixed-row-height list are on screen: pure, so Node tests import it (fixed-rows.ts is the hook). */
export interface RowRange {
  /** First row rendered (overscan included). */
  first: number;
  /** Last row rendered (overscan included); first − 1 when there is none. */
  last: number;
  /** The height of all rows, px. */
  total: number;
}

/** The rows a viewport at `top` of `height` px shows of `count` rows of `rowHeight`, with `overscan` more on each side. */
export function rowRange(top: number, height: number, count: number, rowHeight: number, overscan: number): RowRange {
  const total = count * rowHeight;
  if (count <= 0) return { first: 0, last: -1, total: 0 };
  const first = Math.min(count - 1, Math.max(0, Math.floor(top / rowHeight) - overscan));
  const last = Math.min(count - 1, Math.max(first, Math.ceil((top + height) / rowHeight) - 1 + overscan));
  return { first, last, total };
}
