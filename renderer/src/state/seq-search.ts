/**
 * The one binary search of the renderer, over lists sorted ascending by a numeric key: trace
 * events by seq, timeline spans by start, ticks by time.
 */

/** The first index whose item is not `before` (the list holds every `before` item first). */
function partition<T>(list: readonly T[], before: (item: T) => boolean): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (before(list[mid]!)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First index whose key is ≥ value (the list's length when there is none). */
export function lowerBound<T>(list: readonly T[], value: number, key: (item: T) => number): number {
  return partition(list, (item) => key(item) < value);
}

/** First index whose key is > value (the list's length when there is none). */
export function upperBound<T>(list: readonly T[], value: number, key: (item: T) => number): number {
  return partition(list, (item) => key(item) <= value);
}

interface Sequenced {
  seq: number;
}

const seqOf = (item: Sequenced): number => item.seq;

/** First index whose seq is > seq, in a list sorted by seq. */
export function afterSeq(list: readonly Sequenced[], seq: number): number {
  return upperBound(list, seq, seqOf);
}

/** First index whose seq is ≥ seq, in a list sorted by seq. */
export function fromSeq(list: readonly Sequenced[], seq: number): number {
  return lowerBound(list, seq, seqOf);
}

/**
 * The index of the item with this seq in a list sorted by seq, or -1. Tries the index a list
 * without gaps would have it at first (trace seqs are dense), then searches.
 */
export function indexOfSeq(list: readonly Sequenced[], seq: number): number {
  if (list.length === 0) return -1;
  const guess = seq - list[0]!.seq;
  if (list[guess]?.seq === seq) return guess;
  const at = fromSeq(list, seq);
  return list[at]?.seq === seq ? at : -1;
}

/** The item with this seq in a list sorted by seq, or undefined. */
export function findSeq<T extends Sequenced>(list: readonly T[], seq: number): T | undefined {
  const at = indexOfSeq(list, seq);
  return at < 0 ? undefined : list[at];
}
