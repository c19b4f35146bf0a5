/**
 * The live charts, drawn on a canvas. Each tick of the window (every second on the 1-minute
 * window) moves every point, so every chart draws again; as SVG (recharts) one chart's redraw was
 * a task of 50–150 ms on a loaded 2-core machine, and five of them stalled the page during a
 * flood. On a canvas a redraw is a few hundred path points and some text, under a millisecond.
 * The look is the SVG charts' own: a dashed grid, axes, a legend on top, a tooltip and a cursor on
 * hover; a click picks the point under the pointer.
 */
import { useLayoutEffect, useRef, useState, type MouseEvent } from 'react';
import { sizeCanvas } from '../../components/canvas';
import { formatTime } from '../../components/format';
import type { ChartColors } from './colors';
import { bandAt, countAxis, pointAt, stack, valueAxis, xOf } from './plot';
import { safeLabel } from './series';

export type ChartPoint = { t: number } & Record<string, number | null>;

export interface CanvasSeries {
  key: string;
  name: string;
  color: string;
  /** Areas stack on each other (in order, bottom first), bars likewise; lines stand alone. */
  kind: 'area' | 'bar' | 'line';
  /** Line: its dash pattern. */
  dash?: number[];
  /** Stroke width (areas 1.25, lines 1.5 unless set). */
  width?: number;
  /** A dot of this radius on every point with a value (sparse lines). */
  dot?: number;
  /** Area: a step after each point instead of a slope (counts that hold until they change). */
  step?: boolean;
  /** Listed in the legend (default true); the tooltip lists every series. */
  legend?: boolean;
}

export interface CanvasChartProps {
  points: readonly ChartPoint[];
  series: readonly CanvasSeries[];
  /** Time labels under the axis (values of `t`). */
  xTicks: readonly number[];
  width: number;
  height: number;
  colors: ChartColors;
  /** Show the legend row (it takes LEGEND_H of the height). */
  legend?: boolean;
  /** Whole-number ticks for a small count (in flight): its maximum. */
  integerMax?: number;
  /** A value axis label (e.g. 2400, 250 ms). */
  formatAxis(value: number): string;
  /** A value in the tooltip (e.g. 2.4k/s). */
  formatValue(value: number): string;
  onPick(t: number): void;
}

export const LEGEND_H = 20;
/** As before on SVG: margins, the value axis's width, the time axis's height. */
const M = { top: 6, right: 26, left: 58, bottom: 30 };

const valueOf = (point: ChartPoint | undefined, key: string): number | null => {
  const v = point?.[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
};

export function CanvasChart({ points, series, xTicks, width, height, colors, legend = true, integerMax, formatAxis, formatValue, onPick }: CanvasChartProps) {
  const canvasRef = useRef<HTMLCanvasElement>(null);
  /** The page's font for the labels, read once: a style read on every draw would force a style recalculation each tick. */
  const font = useRef<string | undefined>(undefined);
  const [hover, setHover] = useState<{ index: number; x: number; y: number } | undefined>();
  const legendH = legend ? LEGEND_H : 0;
  const plotHeight = height - legendH;
  const plot = { left: M.left, top: M.top, width: Math.max(1, width - M.left - M.right), height: Math.max(1, plotHeight - M.top - M.bottom) };
  const n = points.length;
  const banded = series.some((s) => s.kind === 'bar');
  const x = (i: number) => (banded ? plot.left + ((i + 0.5) / Math.max(1, n)) * plot.width : xOf(i, plot.left, plot.width, n));

  useLayoutEffect(() => {
    const canvas = canvasRef.current;
    if (!canvas || width <= 0) return;
    const began = performance.now();
    const dpr = window.devicePixelRatio || 1;
    sizeCanvas(canvas, width, plotHeight, dpr);
    const ctx = canvas.getContext('2d');
    if (!ctx) return;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, width, plotHeight);

    const areas = series.filter((s) => s.kind === 'area');
    const bars = series.filter((s) => s.kind === 'bar');
    const lines = series.filter((s) => s.kind === 'line');
    const asNumbers = points as readonly Record<string, number>[];
    const areaTops = stack(asNumbers, areas.map((s) => s.key));
    const barTops = stack(asNumbers, bars.map((s) => s.key));
    let max = 0;
    for (const top of [areaTops[areaTops.length - 1], barTops[barTops.length - 1]]) for (const v of top ?? []) if (v > max) max = v;
    for (const s of lines) for (const p of points) max = Math.max(max, valueOf(p, s.key) ?? 0);
    const axis = integerMax !== undefined ? countAxis(integerMax) : valueAxis(max);
    const y = (v: number) => plot.top + plot.height - (Math.min(v, axis.top) / axis.top) * plot.height;

    // grid: dashed lines at the value ticks
    ctx.lineWidth = 1;
    ctx.strokeStyle = colors.grid;
    ctx.setLineDash([3, 3]);
    ctx.beginPath();
    for (const v of axis.values.slice(1)) {
      const at = Math.round(y(v)) + 0.5;
      ctx.moveTo(plot.left, at);
      ctx.lineTo(plot.left + plot.width, at);
    }
    ctx.stroke();
    ctx.setLineDash([]);

    // bars, stacked, one band a point
    const band = plot.width / Math.max(1, n);
    bars.forEach((s, k) => {
      ctx.fillStyle = s.color;
      for (let i = 0; i < n; i++) {
        const top = barTops[k]![i]!;
        const bottom = k > 0 ? barTops[k - 1]![i]! : 0;
        if (top > bottom) ctx.fillRect(plot.left + i * band, y(top), Math.max(1, band), y(bottom) - y(top));
      }
    });

    // areas, bottom first: each from its own top down to the one below it
    const trace = (top: readonly number[], step: boolean) => {
      for (let i = 0; i < n; i++) {
        if (i === 0) ctx.moveTo(x(0), y(top[0]!));
        else {
          if (step) ctx.lineTo(x(i), y(top[i - 1]!));
          ctx.lineTo(x(i), y(top[i]!));
        }
      }
    };
    areas.forEach((s, k) => {
      if (n === 0) return;
      const below = areaTops[k - 1];
      ctx.beginPath();
      trace(areaTops[k]!, s.step === true);
      for (let i = n - 1; i >= 0; i--) {
        ctx.lineTo(x(i), y(below ? below[i]! : 0));
        if (s.step && i > 0) ctx.lineTo(x(i), y(below ? below[i - 1]! : 0));
      }
      ctx.closePath();
      ctx.globalAlpha = s.step ? 0.25 : 0.35;
      ctx.fillStyle = s.color;
      ctx.fill();
      ctx.globalAlpha = 1;
      ctx.beginPath();
      trace(areaTops[k]!, s.step === true);
      ctx.lineWidth = s.width ?? 1.25;
      ctx.strokeStyle = s.color;
      ctx.stroke();
    });

    // lines: through the points that have a value (a gap is bridged), dots where asked
    for (const s of lines) {
      ctx.beginPath();
      let started = false;
      for (let i = 0; i < n; i++) {
        const v = valueOf(points[i], s.key);
        if (v === null) continue;
        if (started) ctx.lineTo(x(i), y(v));
        else ctx.moveTo(x(i), y(v));
        started = true;
      }
      ctx.lineWidth = s.width ?? 1.5;
      ctx.strokeStyle = s.color;
      ctx.setLineDash(s.dash ?? []);
      ctx.stroke();
      ctx.setLineDash([]);
      if (s.dot) {
        ctx.fillStyle = colors.tooltipBg;
        for (let i = 0; i < n; i++) {
          const v = valueOf(points[i], s.key);
          if (v === null) continue;
          ctx.beginPath();
          ctx.arc(x(i), y(v), s.dot, 0, Math.PI * 2);
          ctx.fill();
          ctx.stroke();
        }
      }
    }

    // axes and their labels
    ctx.lineWidth = 1;
    ctx.strokeStyle = colors.axis;
    ctx.beginPath();
    ctx.moveTo(plot.left + 0.5, plot.top);
    ctx.lineTo(plot.left + 0.5, plot.top + plot.height + 0.5);
    ctx.lineTo(plot.left + plot.width, plot.top + plot.height + 0.5);
    ctx.stroke();
    font.current ??= `10px ${getComputedStyle(canvas).fontFamily}`;
    ctx.font = font.current;
    ctx.fillStyle = colors.axis;
    ctx.textAlign = 'right';
    ctx.textBaseline = 'middle';
    for (const v of axis.values) ctx.fillText(formatAxis(v), plot.left - 6, y(v));
    ctx.textAlign = 'center';
    ctx.textBaseline = 'top';
    const index = new Map(points.map((p, i) => [p.t, i]));
    for (const t of xTicks) {
      const i = index.get(t);
      if (i !== undefined) ctx.fillText(formatTime(t, false), x(i), plot.top + plot.height + 8);
    }

    // the cursor and the points under it
    if (hover && hover.index < n) {
      const cx = x(hover.index);
      if (banded) {
        ctx.fillStyle = colors.cursor;
        ctx.fillRect(plot.left + hover.index * band, plot.top, Math.max(1, band), plot.height);
      } else {
        ctx.strokeStyle = colors.cursor;
        ctx.beginPath();
        ctx.moveTo(Math.round(cx) + 0.5, plot.top);
        ctx.lineTo(Math.round(cx) + 0.5, plot.top + plot.height);
        ctx.stroke();
      }
      const dot = (v: number | null, color: string) => {
        if (v === null || banded) return;
        ctx.beginPath();
        ctx.arc(cx, y(v), 3, 0, Math.PI * 2);
        ctx.fillStyle = color;
        ctx.fill();
      };
      areas.forEach((s, k) => dot(areaTops[k]![hover.index]!, s.color));
      for (const s of lines) dot(valueOf(points[hover.index], s.key), s.color);
    }
    canvas.setAttribute('data-draw-ms', (performance.now() - began).toFixed(2));
  });

  const indexAt = (event: MouseEvent<HTMLCanvasElement>) => {
    const rect = event.currentTarget.getBoundingClientRect();
    const px = event.clientX - rect.left;
    return { index: banded ? bandAt(px, plot.left, plot.width, n) : pointAt(px, plot.left, plot.width, n), x: px, y: event.clientY - rect.top };
  };
  const point = hover ? points[hover.index] : undefined;
  const listed = series.filter((s) => s.legend !== false);

  return (
    <div style={{ position: 'relative', width }}>
      {legend && (
        <div style={{ height: LEGEND_H, display: 'flex', justifyContent: 'center', alignItems: 'center', gap: 10, fontSize: 11, lineHeight: '14px', overflow: 'hidden', whiteSpace: 'nowrap' }} data-testid="chart-legend">
          {listed.map((s) => (
            <span key={s.key} style={{ color: s.color, display: 'inline-flex', alignItems: 'center', gap: 4 }}>
              <span style={{ width: 8, height: s.kind === 'line' ? 2 : 8, borderRadius: s.kind === 'line' ? 0 : 2, background: s.color, display: 'inline-block' }} />
              {safeLabel(s.name, 60)}
            </span>
          ))}
        </div>
      )}
      <canvas
        ref={canvasRef}
        data-testid="chart-canvas"
        style={{ display: 'block' }}
        onMouseMove={(event) => {
          const at = indexAt(event);
          setHover((was) => (at.index === undefined ? undefined : was?.index === at.index && Math.abs(was.y - at.y) < 8 ? was : { index: at.index, x: at.x, y: at.y }));
        }}
        onMouseLeave={() => setHover(undefined)}
        onClick={(event) => {
          const { index } = indexAt(event);
          const picked = index === undefined ? undefined : points[index];
          if (picked) onPick(picked.t);
        }}
      />
      {hover && point && (
        <div
          data-testid="chart-tooltip"
          style={{
            position: 'absolute',
            top: legendH + Math.min(Math.max(0, hover.y - 20), Math.max(0, plotHeight - 40)),
            ...(hover.x > width * 0.6 ? { right: width - hover.x + 12 } : { left: hover.x + 12 }),
            pointerEvents: 'none',
            background: colors.tooltipBg,
            border: `1px solid ${colors.tooltipBorder}`,
            borderRadius: 6,
            padding: '6px 10px',
            fontSize: 12,
            color: colors.text,
            whiteSpace: 'nowrap',
            zIndex: 1,
          }}
        >
          <div style={{ fontWeight: 600, marginBottom: 2 }}>{formatTime(point.t, false)}</div>
          {series.map((s) => {
            const v = valueOf(point, s.key);
            return (
              <div key={s.key} style={{ color: s.color }}>
                {safeLabel(s.name, 60)} : {v === null ? '—' : formatValue(v)}
              </div>
            );
          })}
        </div>
      )}
    </div>
  );
}
