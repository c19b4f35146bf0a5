/**
 * The renderer's one binary search (renderer/src/state/seq-search.ts) gives the same answers as a
 * linear scan, on sorted lists with repeats (keys) and on seq lists with and without gaps; the
 * names the timeline and traffic models export are that search.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../contract/trace';
import { afterSeq as timelineAfterSeq, lowerBound as timelineLowerBound } from '../../renderer/src/features/timeline/model';
import { findSeq as trafficFindSeq, firstAfter } from '../../renderer/src/features/traffic/models';
import { afterSeq, findSeq, fromSeq, indexOfSeq, lowerBound, upperBound } from '../../renderer/src/state/seq-search';

const firstIndex = <T>(list: readonly T[], ok: (item: T) => boolean): number => {
  const at = list.findIndex(ok);
  return at < 0 ? list.length : at;
};

/** Sorted numbers, repeats allowed. */
const sortedKeys = fc.array(fc.integer({ min: -50, max: 50 }), { maxLength: 60 }).map((a) => a.sort((x, y) => x - y));

/** Strictly increasing seqs from `start`, dense or with gaps. */
const seqList = fc
  .tuple(fc.integer({ min: 1, max: 1000 }), fc.array(fc.integer({ min: 1, max: 4 }), { maxLength: 60 }), fc.boolean())
  .map(([start, steps, dense]) => {
    const list: { seq: number }[] = [];
    let seq = start;
    for (const step of steps) {
      list.push({ seq });
      seq += dense ? 1 : step;
    }
    return list;
  });

const probe = fc.integer({ min: -60, max: 1300 });

describe('lowerBound / upperBound', () => {
  it('match a linear scan on sorted keys with repeats', () => {
    fc.assert(
      fc.property(sortedKeys, fc.integer({ min: -60, max: 60 }), (keys, value) => {
        const items = keys.map((k) => ({ k }));
        const key = (item: { k: number }) => item.k;
        expect(lowerBound(items, value, key)).toBe(firstIndex(keys, (k) => k >= value));
        expect(upperBound(items, value, key)).toBe(firstIndex(keys, (k) => k > value));
        expect(timelineLowerBound(items, value, key)).toBe(firstIndex(keys, (k) => k >= value));
      }),
    );
  });

  it('answers 0 for an empty list and the length past the end', () => {
    expect(lowerBound([], 5, (n: number) => n)).toBe(0);
    expect(upperBound([1, 2, 3], 3, (n) => n)).toBe(3);
    expect(lowerBound([1, 2, 3], 4, (n) => n)).toBe(3);
  });
});

describe('searches over seqs', () => {
  it('afterSeq, fromSeq, indexOfSeq and findSeq match a linear scan', () => {
    fc.assert(
      fc.property(seqList, probe, (list, seq) => {
        expect(afterSeq(list, seq)).toBe(firstIndex(list, (e) => e.seq > seq));
        expect(fromSeq(list, seq)).toBe(firstIndex(list, (e) => e.seq >= seq));
        expect(indexOfSeq(list, seq)).toBe(list.findIndex((e) => e.seq === seq));
        expect(findSeq(list, seq)).toBe(list.find((e) => e.seq === seq));
      }),
    );
  });

  it('every seq present is found at its own index', () => {
    fc.assert(
      fc.property(seqList, (list) => {
        list.forEach((e, i) => expect(indexOfSeq(list, e.seq)).toBe(i));
      }),
    );
  });

  it('is what the traffic and timeline models export', () => {
    fc.assert(
      fc.property(seqList, probe, (list, seq) => {
        const events = list as unknown as TraceEvent[];
        expect(firstAfter(events, seq)).toBe(firstIndex(list, (e) => e.seq > seq));
        expect(timelineAfterSeq(events, seq)).toBe(firstIndex(list, (e) => e.seq > seq));
        expect(trafficFindSeq(events, seq)).toBe(list.find((e) => e.seq === seq));
      }),
    );
  });
});
