/**
 * The live charts. Each is memoized on its series (recomputed at most on the store's throttled
 * tick) and drawn on a canvas (CanvasChart: a redraw is well under a millisecond, where an SVG
 * chart's was tens of milliseconds); a click on a point reports the point's time.
 */
import { Group, Paper, Text } from '@mantine/core';
import { memo, type ReactNode } from 'react';
import type { ChartColors } from './colors';
import { formatMs } from '../../components/format';
import { CanvasChart, type CanvasSeries, type ChartPoint } from './CanvasChart';
import { CHART_FIELDS, ERROR_CLASSES, formatRate, type Series } from './series';

export const CHART_HEIGHT = 136;
export const MAIN_CHART_HEIGHT = 168;

export interface ChartProps {
  series: Series;
  colors: ChartColors;
  width: number;
  /** A click on the point starting at `t` (covering `series.stepSec` seconds). */
  onPick(t: number): void;
}

/** A chart draws again only when its own data, its time range, its size, colours or click handler changed. */
function sameChart(fields: readonly (keyof Series)[]) {
  return (a: ChartProps, b: ChartProps) =>
    a.width === b.width &&
    a.colors === b.colors &&
    a.onPick === b.onPick &&
    a.series.from === b.series.from &&
    a.series.to === b.series.to &&
    a.series.stepSec === b.series.stepSec &&
    fields.every((f) => a.series[f] === b.series[f]);
}

/**
 * Time-axis ticks chosen here (whole 5 s, 10 s, 1 min… marks that fit the width), so the chart
 * does not measure a label for every point on every render.
 */
function timeTicks(series: Series, width: number): number[] {
  const maxTicks = Math.max(2, Math.floor(width / 80));
  const spanSec = (series.to - series.from) / 1000;
  const stepSec = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600].find((s) => s >= series.stepSec && spanSec / s <= maxTicks) ?? 900;
  const stepMs = stepSec * 1000;
  const ticks: number[] = [];
  for (const point of series.messages) if (point.t % stepMs === 0) ticks.push(point.t);
  return ticks;
}

function Panel(props: { title: string; caption?: ReactNode; testId: string; attrs: Record<string, string | number>; children: ReactNode }) {
  return (
    <Paper withBorder p="xs" radius="md" data-testid={props.testId} {...props.attrs}>
      <Group justify="space-between" gap="xs" mb={0} wrap="nowrap">
        <Text size="sm" fw={600}>
          {props.title}
        </Text>
        {props.caption && (
          <Text size="xs" c="dimmed" truncate>
            {props.caption}
          </Text>
        )}
      </Group>
      <div style={{ cursor: 'pointer' }}>{props.children}</div>
    </Paper>
  );
}

function rangeAttrs(series: Series): Record<string, string | number> {
  return { 'data-from': series.from, 'data-to': series.to, 'data-range-ms': series.to - series.from, 'data-step-sec': series.stepSec, 'data-points': series.messages.length };
}

const rate = (v: number) => `${formatRate(v)}/s`;

/** What every chart's canvas takes from the chart's props: its time labels, size, colours and click. */
function frame({ series, colors, width, onPick }: ChartProps, height = CHART_HEIGHT) {
  return { xTicks: timeTicks(series, width), width, height, colors, onPick };
}

const ERROR_LABELS = { http4xx: 'HTTP 4xx', http5xx: 'HTTP 5xx', rpc: 'JSON-RPC error', transport: 'Transport' } as const;

export const MessagesChart = memo(function MessagesChart(props: ChartProps) {
  const { series, colors } = props;
  const perPoint = series.stepSec > 1 ? ` · ${series.stepSec} s per point` : '';
  return (
    <Panel
      title="Messages per second, by channel"
      caption={`peak ${formatRate(series.maxMessages)}/s${perPoint}`}
      testId="chart-messages"
      attrs={{ ...rangeAttrs(series), 'data-max': round(series.maxMessages), 'data-channels': series.channels.join(',') }}
    >
      <CanvasChart
        points={series.messages}
        series={series.channels.map((channel): CanvasSeries => ({ key: channel, name: channel, color: colors.channel(channel), kind: 'area' }))}
        {...frame(props, MAIN_CHART_HEIGHT)}
        formatAxis={String}
        formatValue={rate}
      />
    </Panel>
  );
}, sameChart(CHART_FIELDS.messages));

export const LatencyChart = memo(function LatencyChart(props: ChartProps) {
  const { series, colors } = props;
  const drawn = series.methods.filter((_, m) => series.latencyPoints[m]! > 0);
  // dots mark isolated samples; a dense line needs none
  const dense = (m: number) => series.latencyPoints[m]! > series.latency.length / 3;
  const lines = series.methods.flatMap((method, m): CanvasSeries[] => [
    { key: `m${m}p50`, name: `${method} p50`, color: colors.method(m), kind: 'line', width: 1.5, ...(dense(m) ? {} : { dot: 1.5 }) },
    { key: `m${m}p95`, name: `${method} p95`, color: colors.method(m), kind: 'line', width: 1, dash: [4, 3], legend: false },
  ]);
  return (
    <Panel
      title="Latency per method (p50 solid, p95 dashed)"
      caption={drawn.length ? undefined : 'no responses in this window'}
      testId="chart-latency"
      attrs={{ ...rangeAttrs(series), 'data-methods': drawn.join(','), 'data-latency-points': series.latencyPoints.join(',') }}
    >
      <CanvasChart points={series.latency as ChartPoint[]} series={lines} {...frame(props)} formatAxis={axisMs} formatValue={formatMs} />
    </Panel>
  );
}, sameChart(CHART_FIELDS.latency));

export const ErrorsChart = memo(function ErrorsChart(props: ChartProps) {
  const { series, colors } = props;
  return (
    <Panel
      title="Errors per second, by class"
      caption={series.maxErrors ? `peak ${formatRate(series.maxErrors)}/s` : 'no errors in this window'}
      testId="chart-errors"
      attrs={{ ...rangeAttrs(series), 'data-max': round(series.maxErrors) }}
    >
      <CanvasChart
        points={series.errors as unknown as ChartPoint[]}
        series={ERROR_CLASSES.map((cls): CanvasSeries => ({ key: cls, name: ERROR_LABELS[cls], color: colors.error(cls), kind: 'bar' }))}
        {...frame(props)}
        formatAxis={String}
        formatValue={rate}
      />
    </Panel>
  );
}, sameChart(CHART_FIELDS.errors));

export const InFlightChart = memo(function InFlightChart(props: ChartProps) {
  const { series, colors } = props;
  return (
    <Panel title="Requests in flight" caption={`peak ${series.maxInFlight}`} testId="chart-inflight" attrs={{ ...rangeAttrs(series), 'data-max': series.maxInFlight }}>
      <CanvasChart
        points={series.inFlight}
        series={[{ key: 'inFlight', name: 'in flight', color: colors.accent, kind: 'area', step: true }]}
        {...frame(props)}
        legend={false}
        integerMax={series.maxInFlight}
        formatAxis={String}
        formatValue={String}
      />
    </Panel>
  );
}, sameChart(CHART_FIELDS.inFlight));

export const PingChart = memo(function PingChart(props: ChartProps) {
  const { series, colors } = props;
  return (
    <Panel
      title="Ping round trip"
      caption={series.pingPoints ? undefined : 'no pings in this window (legacy-era heartbeat)'}
      testId="chart-ping"
      attrs={{ ...rangeAttrs(series), 'data-ping-points': series.pingPoints }}
    >
      <CanvasChart
        points={series.ping}
        series={[{ key: 'rtt', name: 'RTT', color: colors.ping, kind: 'line', width: 1.5, ...(series.pingPoints > series.ping.length / 3 ? {} : { dot: 2 }) }]}
        {...frame(props)}
        legend={false}
        formatAxis={axisMs}
        formatValue={formatMs}
      />
    </Panel>
  );
}, sameChart(CHART_FIELDS.ping));

/** Short axis labels: 0, 0.25 ms, 250 ms, 1.5 s. */
function axisMs(v: number): string {
  if (v === 0) return '0';
  // the axis's steps below 1 ms are quarters: 0.25 ms, not 0.3
  if (v < 1) return `${Math.round(v * 100) / 100} ms`;
  if (v < 10) return `${Math.round(v * 10) / 10} ms`;
  if (v < 1000) return `${Math.round(v)} ms`;
  return `${Math.round(v / 100) / 10} s`;
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}
