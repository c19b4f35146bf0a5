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

/** How many of `count` rows lie wholly below a viewport at `top` of `height` px (a row cut by its bottom edge is on screen). */
export function rowsBelow(top: number, height: number, count: number, rowHeight: number): number {
  return Math.max(0, count - Math.ceil((top + height) / rowHeight));
}

/**
 * Rows are keyed by slot (index modulo a power of two at least as large as the rows rendered), not
 * by their own id: a row leaving the screen gives its elements to the row arriving, which React
 * fills with new text. While following a flood every batch replaces the whole screenful, and new
 * elements cost a style recalc and a layout each; reused ones only change their text.
 */
export function slotCount(rendered: number): number {
  let slots = 64;
  while (slots < rendered) slots *= 2;
  return slots;
}
