/**
 * The renderer logic behind issue #11 items 8, 19 and 20, without a page: reading annotations
 * (audience, priority, lastModified) out of hostile values, previewing text-typed blobs as
 * bounded UTF-8, the tools explorer's bounded and remembered width, and the view memory that
 * keeps a view's selection while another view shows.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { localTime, priorityLabel, readAnnotations } from '../../renderer/src/components/annotations';
import { decodeTextPreview, isTextualMime } from '../../renderer/src/components/base64';
import { EXPLORER_WIDTH, STORAGE_KEY, clampWidth, loadWidth, maxWidthFor, saveWidth, widthAfterKey } from '../../renderer/src/features/tools/explorer-width';
import { viewMemory, withNewest } from '../../renderer/src/state/view-memory';

const b64 = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64');

describe('annotations', () => {
  it('reads audience, priority and lastModified as the spec names them', () => {
    const read = readAnnotations({ audience: ['user', 'assistant'], priority: 0.7, lastModified: '2025-01-12T15:00:58Z' });
    expect(read).toEqual({ audience: ['user', 'assistant'], priority: 0.7, lastModified: { iso: '2025-01-12T15:00:58Z', ms: Date.UTC(2025, 0, 12, 15, 0, 58) }, other: [] });
    expect(priorityLabel(0.7)).toBe('0.7 (medium)');
    expect(priorityLabel(1)).toBe('1.0 (high)');
    expect(priorityLabel(0)).toBe('0.0 (low)');
  });

  it('shows lastModified as a local time (the ISO text stays for the tooltip)', () => {
    const ms = Date.UTC(2025, 0, 12, 15, 0, 58);
    const text = localTime(ms, 'en-US');
    expect(text).toContain('2025');
    expect(text).toContain('Jan');
    expect(text).toMatch(/\d{2}:\d{2}:\d{2}/);
  });

  it('reports what does not fit instead of dropping it', () => {
    const read = readAnnotations({ priority: 7, lastModified: 'yesterday', audience: 'user', extra: { deep: 1 } })!;
    expect(read.priority).toBe(7);
    expect(read.priorityOutOfRange).toBe(true);
    expect(read.lastModified).toEqual({ iso: 'yesterday', ms: null });
    expect(read.audience).toBeUndefined();
    expect(read.other.map((o) => o.key)).toEqual(['audience', 'extra']);
    expect(read.other[0]!.value).toBe('"user"');
  });

  it('is null for no annotations, and never throws on hostile values', () => {
    expect(readAnnotations(undefined)).toBeNull();
    expect(readAnnotations({})).toBeNull();
    expect(readAnnotations([1, 2])).toBeNull();
    expect(readAnnotations('x')).toBeNull();
    let deep: Record<string, unknown> = {};
    const root = deep;
    for (let i = 0; i < 10_000; i++) deep = (deep.next = {}) as Record<string, unknown>;
    expect(readAnnotations({ other: root })!.other[0]!.value.length).toBeLessThanOrEqual(121);
    fc.assert(
      fc.property(fc.string(), fc.anything(), (key, value) => {
        const read = readAnnotations({ audience: value, priority: value, lastModified: value, [key || 'k']: value });
        expect(read).not.toBeNull();
      }),
      { numRuns: 500 },
    );
  });
});

describe('text blob previews', () => {
  it('takes text/*, JSON and XML kinds as text, and not images, audio or octet-stream', () => {
    for (const mime of ['text/plain', 'text/markdown; charset=utf-8', 'application/json', 'application/ld+json', 'application/xml', 'image/svg+xml', 'application/vnd.api+json', 'application/yaml']) expect(isTextualMime(mime), mime).toBe(true);
    for (const mime of [undefined, '', 'image/png', 'audio/wav', 'application/octet-stream', 'application/pdf', 'application/zip']) expect(isTextualMime(mime), String(mime)).toBe(false);
  });

  it('decodes a small blob whole, as UTF-8', () => {
    const text = 'Resource 1: This is a base64 blob — ünïcödé ✓';
    const preview = decodeTextPreview(b64(text));
    expect(preview).toEqual({ text, shownBytes: Buffer.byteLength(text), totalBytes: Buffer.byteLength(text), invalidUtf8: false });
  });

  it('decodes only the first bytes of a big blob, and drops a character cut at the limit rather than calling it invalid', () => {
    const text = 'é'.repeat(100_000); // 200,000 bytes
    const preview = decodeTextPreview(b64(text), 1001);
    expect(preview.totalBytes).toBe(200_000);
    expect(preview.shownBytes).toBe(999); // whole base64 quanta only
    expect(preview.text).toBe('é'.repeat(499)); // the 999th byte starts a character that is not there
    expect(preview.invalidUtf8).toBe(false);
  });

  it('shows invalid UTF-8 as replacement characters and says so', () => {
    const bytes = Uint8Array.from([0x61, 0xff, 0x62, 0xc3, 0x28]);
    const preview = decodeTextPreview(b64(bytes));
    expect(preview.invalidUtf8).toBe(true);
    expect(preview.text).toBe('a\ufffdb\ufffd(');
  });

  it('says when the payload is not base64', () => {
    expect(decodeTextPreview('not base64 !!').error).toMatch(/not valid base64/);
  });
});

describe('the tools explorer width', () => {
  const memoryStore = () => {
    const map = new Map<string, string>();
    return { map, getItem: (k: string) => map.get(k) ?? null, setItem: (k: string, v: string) => void map.set(k, v) };
  };

  it('is bounded by its min/max and by the room the detail needs', () => {
    expect(clampWidth(10)).toBe(EXPLORER_WIDTH.min);
    expect(clampWidth(5000)).toBe(EXPLORER_WIDTH.max);
    expect(clampWidth(Number.NaN)).toBe(EXPLORER_WIDTH.initial);
    expect(maxWidthFor(900)).toBe(900 - 380);
    expect(maxWidthFor(400)).toBe(EXPLORER_WIDTH.min);
    expect(clampWidth(700, 900)).toBe(520);
  });

  it('moves with the keyboard: arrows, Shift for big steps, Home/End, Enter resets; other keys do nothing', () => {
    expect(widthAfterKey(330, 'ArrowRight', false)).toBe(346);
    expect(widthAfterKey(330, 'ArrowLeft', true)).toBe(266);
    expect(widthAfterKey(250, 'ArrowLeft', true)).toBe(EXPLORER_WIDTH.min);
    expect(widthAfterKey(500, 'Home', false)).toBe(EXPLORER_WIDTH.min);
    expect(widthAfterKey(500, 'End', false, 1000)).toBe(620);
    expect(widthAfterKey(500, 'Enter', false)).toBe(EXPLORER_WIDTH.initial);
    expect(widthAfterKey(500, 'a', false)).toBeNull();
  });

  it('is saved and loaded; a missing, corrupt or refusing store falls back to the default', () => {
    const store = memoryStore();
    expect(loadWidth(store)).toBe(EXPLORER_WIDTH.initial);
    saveWidth(512, store);
    expect(store.map.get(STORAGE_KEY)).toBe('512');
    expect(loadWidth(store)).toBe(512);
    store.map.set(STORAGE_KEY, '99999');
    expect(loadWidth(store)).toBe(EXPLORER_WIDTH.max);
    store.map.set(STORAGE_KEY, '{"x":1}');
    expect(loadWidth(store)).toBe(EXPLORER_WIDTH.initial);
    const refusing = {
      getItem: () => {
        throw new Error('denied');
      },
      setItem: () => {
        throw new Error('quota');
      },
    };
    expect(loadWidth(refusing)).toBe(EXPLORER_WIDTH.initial);
    expect(() => saveWidth(400, refusing)).not.toThrow();
  });
});

describe('view memory', () => {
  it('keeps a value per key until it is set again; other keys are separate', () => {
    viewMemory.clear();
    expect(viewMemory.has('resources.selected')).toBe(false);
    viewMemory.update('resources.selected', 'demo://resource/static/document/features.md');
    expect(viewMemory.get('resources.selected')).toBe('demo://resource/static/document/features.md');
    expect(viewMemory.get('prompts.selected')).toBeUndefined();
  });

  it('function updates see the slot\'s latest value (a read finishing after the view unmounted still lands)', () => {
    viewMemory.clear();
    viewMemory.set('outcomes', new Map<string, number>());
    // Two reads resolve one after the other, both from the same stale copy a component had.
    viewMemory.update<Map<string, number>>('outcomes', (old) => new Map(old).set('a', 1));
    const stored = viewMemory.update<Map<string, number>>('outcomes', (old) => new Map(old).set('b', 2));
    expect([...stored.entries()]).toEqual([
      ['a', 1],
      ['b', 2],
    ]);
    expect(viewMemory.get('outcomes')).toBe(stored);
  });

  it('keeps only the newest outcomes (a re-read counts as newest)', () => {
    let map = new Map<string, number>();
    for (let i = 0; i < 5; i++) map = withNewest(map, `k${i}`, i, 3);
    expect([...map.keys()]).toEqual(['k2', 'k3', 'k4']);
    map = withNewest(map, 'k2', 20, 3);
    expect([...map.entries()]).toEqual([
      ['k3', 3],
      ['k4', 4],
      ['k2', 20],
    ]);
  });
});
