/**
 * The Tools explorer's width: dragged or moved with the keyboard on its splitter, bounded, and
 * remembered across reloads (localStorage; a missing, corrupt or out-of-range value falls back).
 */

export const EXPLORER_WIDTH = { min: 240, max: 720, initial: 330, step: 16, bigStep: 64 } as const;
/** The tool's detail keeps at least this much room beside the explorer. */
export const DETAIL_MIN_WIDTH = 380;
export const STORAGE_KEY = 'switchboard.tools.explorerWidth';

interface Store {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

/** The widest the explorer may be in a view this wide (never below the minimum). */
export function maxWidthFor(viewWidth: number | undefined): number {
  if (viewWidth === undefined || !Number.isFinite(viewWidth) || viewWidth <= 0) return EXPLORER_WIDTH.max;
  return Math.max(EXPLORER_WIDTH.min, Math.min(EXPLORER_WIDTH.max, Math.floor(viewWidth - DETAIL_MIN_WIDTH)));
}

export function clampWidth(width: number, viewWidth?: number): number {
  if (!Number.isFinite(width)) return EXPLORER_WIDTH.initial;
  return Math.round(Math.min(maxWidthFor(viewWidth), Math.max(EXPLORER_WIDTH.min, width)));
}

export function loadWidth(store: Store | undefined = globalStore()): number {
  try {
    const raw = store?.getItem(STORAGE_KEY);
    if (raw == null || !/^\d{1,5}$/.test(raw.trim())) return EXPLORER_WIDTH.initial;
    return clampWidth(Number(raw));
  } catch {
    return EXPLORER_WIDTH.initial;
  }
}

export function saveWidth(width: number, store: Store | undefined = globalStore()): void {
  try {
    store?.setItem(STORAGE_KEY, String(clampWidth(width)));
  } catch {
    /* storage full or refused (private mode): the width lasts for this page only */
  }
}

/** The width after a key on the focused splitter, or null when the key does nothing. */
export function widthAfterKey(width: number, key: string, shift: boolean, viewWidth?: number): number | null {
  const step = shift ? EXPLORER_WIDTH.bigStep : EXPLORER_WIDTH.step;
  switch (key) {
    case 'ArrowLeft':
      return clampWidth(width - step, viewWidth);
    case 'ArrowRight':
      return clampWidth(width + step, viewWidth);
    case 'Home':
      return EXPLORER_WIDTH.min;
    case 'End':
      return maxWidthFor(viewWidth);
    case 'Enter':
      return clampWidth(EXPLORER_WIDTH.initial, viewWidth);
    default:
      return null;
  }
}

function globalStore(): Store | undefined {
  try {
    return (globalThis as { localStorage?: Store }).localStorage;
  } catch {
    return undefined;
  }
}
