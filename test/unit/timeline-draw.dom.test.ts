/**
 * The timeline canvas's hit test and hover outline (renderer/src/features/timeline/draw.ts) in
 * Node, over a model folded from trace events. The canvas is a recording stand-in (its calls are
 * what the test reads); the model, the layout and the drawing code are the app's. (`.dom.test.ts`:
 * type-checked with the renderer's DOM types, tsconfig.web.json, not the Node ones.)
 */
import { describe, expect, it } from 'vitest';
import { computeLayout, drawTracks, hitTest, type Layout, type Viewport } from '../../renderer/src/features/timeline/draw';
import { TimelineModel } from '../../renderer/src/features/timeline/model';
import type { TimelinePalette } from '../../renderer/src/features/timeline/palette';
import { EventLog, T0 } from '../support/trace-events';

type Context = CanvasRenderingContext2D;

/** A 2D context that records `strokeRect` (the hover outline) and accepts everything else. */
function recordingContext(): { ctx: Context; outlines: number[][] } {
  const outlines: number[][] = [];
  const ctx = new Proxy({} as Record<string | symbol, unknown>, {
    get(target, key) {
      if (key === 'strokeRect') return (...args: number[]) => outlines.push(args);
      if (key === 'measureText') return () => ({ width: 10 });
      if (key in target) return target[key];
      return () => undefined;
    },
    set(target, key, value) {
      target[key] = value;
      return true;
    },
  }) as unknown as Context;
  return { ctx, outlines };
}

const palette = new Proxy({}, { get: () => '#000' }) as TimelinePalette;

const laneRow = (layout: Layout, id: string) => {
  const row = layout.rows.find((r) => r.type === 'lane' && r.lane.id === id);
  if (!row || row.type !== 'lane') throw new Error(`no lane ${id}`);
  return row;
};

describe('timeline drawing', () => {
  it("a hovered tick is outlined in its own lane, not in another lane that has a tick of the same event", () => {
    // A notification over stdio is a tick in the stdio lane and one in Notifications (same event, same summary).
    const log = new EventLog();
    log.line('s', 'out', { id: 1, method: 'tools/call' });
    const note = log.line('s', 'in', { method: 'notifications/message', params: { level: 'info' } });
    log.line('s', 'in', { id: 1, result: {} });
    const model = new TimelineModel();
    model.append(log.events);
    const layout = computeLayout(model, ['s'], new Set());
    const vp: Viewport = { start: T0 - 5, end: T0 + 10, width: 600, height: layout.height, scrollTop: 0, openEnd: T0 + 10 };
    const x = ((note.ts - vp.start) / (vp.end - vp.start)) * vp.width;

    for (const id of ['s\u0000notifications', 's\u0000stdio']) {
      const row = laneRow(layout, id);
      const hit = hitTest(layout, vp, x, row.y + row.h / 2);
      expect(hit).toMatchObject({ kind: 'tick', lane: { id } });
      expect(hit?.kind === 'tick' && hit.tick.event).toBe(note);
      const { ctx, outlines } = recordingContext();
      drawTracks(ctx, layout, vp, palette, null, hit);
      expect(outlines).toHaveLength(1);
      const [, y, , h] = outlines[0]!;
      // the outline lies within the hovered lane's row
      expect(y!).toBeGreaterThanOrEqual(row.y);
      expect(y! + h!).toBeLessThanOrEqual(row.y + row.h);
    }
  });
});
