/**
 * The live charts. Each is memoized on its series (recomputed at most on the store's throttled
 * tick), draws without animation, and reports a click on a point as the point's time range.
 */
import { Group, Paper, Text } from '@mantine/core';
import { memo, type ReactNode } from 'react';
import { Area, AreaChart, Bar, BarChart, CartesianGrid, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from 'recharts';
import type { MouseHandlerDataParam } from 'recharts';
import type { ChartColors } from './colors';
import { formatMs, formatTime } from '../../components/format';
import { CHART_FIELDS, ERROR_CLASSES, formatRate, safeLabel, type Series } from './series';

export const CHART_HEIGHT = 136;
export const MAIN_CHART_HEIGHT = 168;
/** Room for the top tick label and the last time label. */
const CHART_MARGIN = { top: 6, right: 26, bottom: 0, left: 0 };

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

const ERROR_LABELS = { http4xx: 'HTTP 4xx', http5xx: 'HTTP 5xx', rpc: 'JSON-RPC error', transport: 'Transport' } as const;

function pickHandler(data: readonly { t: number }[], onPick: (t: number) => void) {
  return (state: MouseHandlerDataParam) => {
    const index = Number(state.activeTooltipIndex ?? state.activeIndex);
    const point = Number.isInteger(index) ? data[index] : undefined;
    if (point) onPick(point.t);
  };
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

function axes(colors: ChartColors, xTicks: number[], unit?: (v: number) => string, integerMax?: number) {
  // small integer ranges (requests in flight) get one tick per integer, not 0.25 steps
  const ticks = integerMax !== undefined && integerMax <= 5 ? Array.from({ length: Math.max(1, integerMax) + 1 }, (_, i) => i) : undefined;
  return [
    <CartesianGrid key="grid" stroke={colors.grid} strokeDasharray="3 3" vertical={false} />,
    <XAxis key="x" dataKey="t" ticks={xTicks} interval={0} tickFormatter={(t: number) => formatTime(t, false)} stroke={colors.axis} tick={{ fontSize: 10, fill: colors.axis }} tickLine={false} />,
    <YAxis key="y" width={58} stroke={colors.axis} tick={{ fontSize: 10, fill: colors.axis }} tickLine={false} allowDecimals={integerMax === undefined} tickFormatter={unit} ticks={ticks} interval={ticks ? 0 : 'preserveEnd'} domain={ticks ? [0, ticks.length - 1] : undefined} />,
  ];
}

function tooltip(colors: ChartColors, format: (value: number) => string) {
  return (
    <Tooltip
      isAnimationActive={false}
      cursor={{ stroke: colors.cursor, fill: colors.cursor }}
      contentStyle={{ background: colors.tooltipBg, border: `1px solid ${colors.tooltipBorder}`, fontSize: 12, borderRadius: 6, color: colors.text }}
      labelStyle={{ color: colors.text, fontWeight: 600 }}
      labelFormatter={(t) => (typeof t === 'number' ? formatTime(t, false) : String(t))}
      formatter={(value, name) => [typeof value === 'number' ? format(value) : String(value ?? '—'), safeLabel(String(name), 60)]}
    />
  );
}

const legend = <Legend verticalAlign="top" height={20} iconSize={8} wrapperStyle={{ fontSize: 11, lineHeight: '14px' }} />;

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

export const MessagesChart = memo(function MessagesChart({ series, colors, width, onPick }: ChartProps) {
  const perPoint = series.stepSec > 1 ? ` · ${series.stepSec} s per point` : '';
  return (
    <Panel
      title="Messages per second, by channel"
      caption={`peak ${formatRate(series.maxMessages)}/s${perPoint}`}
      testId="chart-messages"
      attrs={{ ...rangeAttrs(series), 'data-max': round(series.maxMessages), 'data-channels': series.channels.join(',') }}
    >
      <AreaChart width={width} height={MAIN_CHART_HEIGHT} data={series.messages} onClick={pickHandler(series.messages, onPick)} margin={CHART_MARGIN}>
        {axes(colors, timeTicks(series, width))}
        {tooltip(colors, (v) => `${formatRate(v)}/s`)}
        {legend}
        {series.channels.map((channel) => (
          <Area
            key={channel}
            type="linear"
            dataKey={channel}
            name={channel}
            stackId="messages"
            stroke={colors.channel(channel)}
            fill={colors.channel(channel)}
            fillOpacity={0.35}
            strokeWidth={1.25}
            dot={false}
            activeDot={{ r: 3 }}
            isAnimationActive={false}
          />
        ))}
      </AreaChart>
    </Panel>
  );
}, sameChart(CHART_FIELDS.messages));

export const LatencyChart = memo(function LatencyChart({ series, colors, width, onPick }: ChartProps) {
  const drawn = series.methods.filter((_, m) => series.latencyPoints[m]! > 0);
  // dots mark isolated samples; a dense line needs none (and they cost a node per point)
  const dense = (m: number) => series.latencyPoints[m]! > series.latency.length / 3;
  return (
    <Panel
      title="Latency per method (p50 solid, p95 dashed)"
      caption={drawn.length ? undefined : 'no responses in this window'}
      testId="chart-latency"
      attrs={{ ...rangeAttrs(series), 'data-methods': drawn.join(','), 'data-latency-points': series.latencyPoints.join(',') }}
    >
      <LineChart width={width} height={CHART_HEIGHT} data={series.latency} onClick={pickHandler(series.latency, onPick)} margin={CHART_MARGIN}>
        {axes(colors, timeTicks(series, width), axisMs)}
        {tooltip(colors, formatMs)}
        {legend}
        {series.methods.flatMap((method, m) => [
          <Line
            key={`${m}p50`}
            type="linear"
            dataKey={`m${m}p50`}
            name={`${safeLabel(method, 40)} p50`}
            stroke={colors.method(m)}
            strokeWidth={1.5}
            dot={dense(m) ? false : { r: 1.5 }}
            activeDot={{ r: 3 }}
            connectNulls
            isAnimationActive={false}
          />,
          <Line
            key={`${m}p95`}
            type="linear"
            dataKey={`m${m}p95`}
            name={`${safeLabel(method, 40)} p95`}
            stroke={colors.method(m)}
            strokeWidth={1}
            strokeDasharray="4 3"
            dot={false}
            activeDot={{ r: 3 }}
            connectNulls
            legendType="none"
            isAnimationActive={false}
          />,
        ])}
      </LineChart>
    </Panel>
  );
}, sameChart(CHART_FIELDS.latency));

export const ErrorsChart = memo(function ErrorsChart({ series, colors, width, onPick }: ChartProps) {
  return (
    <Panel
      title="Errors per second, by class"
      caption={series.maxErrors ? `peak ${formatRate(series.maxErrors)}/s` : 'no errors in this window'}
      testId="chart-errors"
      attrs={{ ...rangeAttrs(series), 'data-max': round(series.maxErrors) }}
    >
      <BarChart width={width} height={CHART_HEIGHT} data={series.errors} onClick={pickHandler(series.errors, onPick)} barCategoryGap={0} margin={CHART_MARGIN}>
        {axes(colors, timeTicks(series, width))}
        {tooltip(colors, (v) => `${formatRate(v)}/s`)}
        {legend}
        {ERROR_CLASSES.map((cls) => (
          <Bar key={cls} dataKey={cls} name={ERROR_LABELS[cls]} stackId="errors" fill={colors.error(cls)} isAnimationActive={false} />
        ))}
      </BarChart>
    </Panel>
  );
}, sameChart(CHART_FIELDS.errors));

export const InFlightChart = memo(function InFlightChart({ series, colors, width, onPick }: ChartProps) {
  return (
    <Panel title="Requests in flight" caption={`peak ${series.maxInFlight}`} testId="chart-inflight" attrs={{ ...rangeAttrs(series), 'data-max': series.maxInFlight }}>
      <AreaChart width={width} height={CHART_HEIGHT} data={series.inFlight} onClick={pickHandler(series.inFlight, onPick)} margin={CHART_MARGIN}>
        {axes(colors, timeTicks(series, width), undefined, series.maxInFlight)}
        {tooltip(colors, (v) => String(v))}
        <Area type="stepAfter" dataKey="inFlight" name="in flight" stroke={colors.accent} fill={colors.accent} fillOpacity={0.25} dot={false} isAnimationActive={false} />
      </AreaChart>
    </Panel>
  );
}, sameChart(CHART_FIELDS.inFlight));

export const PingChart = memo(function PingChart({ series, colors, width, onPick }: ChartProps) {
  return (
    <Panel
      title="Ping round trip"
      caption={series.pingPoints ? undefined : 'no pings in this window (legacy-era heartbeat)'}
      testId="chart-ping"
      attrs={{ ...rangeAttrs(series), 'data-ping-points': series.pingPoints }}
    >
      <LineChart width={width} height={CHART_HEIGHT} data={series.ping} onClick={pickHandler(series.ping, onPick)} margin={CHART_MARGIN}>
        {axes(colors, timeTicks(series, width), axisMs)}
        {tooltip(colors, formatMs)}
        <Line type="linear" dataKey="rtt" name="RTT" stroke={colors.ping} strokeWidth={1.5} dot={series.pingPoints > series.ping.length / 3 ? false : { r: 2 }} activeDot={{ r: 3 }} connectNulls isAnimationActive={false} />
      </LineChart>
    </Panel>
  );
}, sameChart(CHART_FIELDS.ping));

/** Short axis labels: 0, 250 ms, 1.5 s. */
function axisMs(v: number): string {
  if (v === 0) return '0';
  if (v < 10) return `${Math.round(v * 10) / 10} ms`;
  if (v < 1000) return `${Math.round(v)} ms`;
  return `${Math.round(v / 100) / 10} s`;
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}
