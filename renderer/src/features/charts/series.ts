/**
 * Chart series from snapshot time buckets: a fixed window ending at `end`, every second
 * present (empty seconds are zeros, so the time axis is real), aggregated to at most
 * `maxPoints` points so a 15-minute window is still a few hundred SVG nodes. Pure functions,
 * memoized by the view.
 */
import { CHANNELS, type Channel, type ServerSnapshot } from '../../../../contract/trace';

export const ERROR_CLASSES = ['http4xx', 'http5xx', 'rpc', 'transport'] as const;
export type ErrorClass = (typeof ERROR_CLASSES)[number];

/** Latency lines drawn at most: the methods with the most samples in the window. */
export const MAX_LATENCY_METHODS = 4;

export interface MessagePoint {
  t: number;
  /** Messages per second, per channel (key: channel). */
  [channel: string]: number;
}

export interface LatencyPoint {
  t: number;
  /** `m0p50`, `m0p95`, `m1p50`… index into `methods`; null when no sample in the point. */
  [key: string]: number | null;
}

export interface ErrorPoint {
  t: number;
  http4xx: number;
  http5xx: number;
  rpc: number;
  transport: number;
  total: number;
}

export interface Series {
  /** First point's time (epoch ms, second-aligned). */
  from: number;
  /** End of the last point (exclusive). */
  to: number;
  /** Seconds per point (1 unless the window needs aggregation). */
  stepSec: number;
  messages: MessagePoint[];
  /** Channels that carried anything in the window, in the contract's order. */
  channels: Channel[];
  /** Highest stacked messages/s plotted. */
  maxMessages: number;
  latency: LatencyPoint[];
  /** Methods drawn (index = key), most samples first. */
  methods: string[];
  /** Per method: points that have a value. */
  latencyPoints: number[];
  errors: ErrorPoint[];
  maxErrors: number;
  inFlight: { t: number; inFlight: number }[];
  maxInFlight: number;
  ping: { t: number; rtt: number | null }[];
  pingPoints: number;
}

export function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/**
 * @param end the last second shown (epoch ms, any value; floored to the second)
 * @param windowSec seconds shown
 * @param maxPoints at most this many points (aggregates seconds when the window is longer)
 */
export function buildSeries(snapshots: readonly ServerSnapshot[], end: number, windowSec: number, maxPoints: number): Series {
  const stepSec = Math.max(1, Math.ceil(windowSec / Math.max(1, maxPoints)));
  const stepMs = stepSec * 1000;
  const lastSecond = Math.floor(end / 1000) * 1000;
  // Point boundaries are aligned to the step in absolute time, so they do not shift as time
  // passes; the last point holds the current second.
  const count = Math.ceil(windowSec / stepSec);
  const from = Math.floor(lastSecond / stepMs) * stepMs - (count - 1) * stepMs;
  const to = from + count * stepMs;

  const msgSums: Array<Partial<Record<Channel, number>>> = Array.from({ length: count }, () => ({}));
  const errSums = Array.from({ length: count }, () => ({ http4xx: 0, http5xx: 0, rpc: 0, transport: 0 }));
  const samples: Array<Map<string, number[]>> = Array.from({ length: count }, () => new Map());
  const sampleCount = new Map<string, number>();
  const inFlightTotal = new Array<number>(count).fill(0);
  const pingSum = new Array<number>(count).fill(0);
  const pingN = new Array<number>(count).fill(0);
  const seen = new Set<Channel>();

  for (const snapshot of snapshots) {
    const perPointMax = new Array<number>(count).fill(-1);
    const perPointLast = new Array<number>(count).fill(-1);
    let carry = 0;
    for (const bucket of snapshot.buckets) {
      if (bucket.t < from) {
        carry = bucket.inFlight;
        continue;
      }
      if (bucket.t >= to) break;
      const i = Math.floor((bucket.t - from) / stepMs);
      const msgs = msgSums[i]!;
      for (const [channel, n] of Object.entries(bucket.messages) as [Channel, number][]) {
        if (!n) continue;
        msgs[channel] = (msgs[channel] ?? 0) + n;
        seen.add(channel);
      }
      const errs = errSums[i]!;
      errs.http4xx += bucket.errors.http4xx;
      errs.http5xx += bucket.errors.http5xx;
      errs.rpc += bucket.errors.rpc;
      errs.transport += bucket.errors.transport;
      for (const [method, list] of Object.entries(bucket.latency)) {
        if (!list.length) continue;
        const into = samples[i]!;
        const target = into.get(method);
        if (target) target.push(...list);
        else into.set(method, [...list]);
        sampleCount.set(method, (sampleCount.get(method) ?? 0) + list.length);
      }
      perPointMax[i] = Math.max(perPointMax[i]!, bucket.inFlight);
      perPointLast[i] = bucket.inFlight;
      if (bucket.pingRttMs !== undefined) {
        pingSum[i]! += bucket.pingRttMs;
        pingN[i]! += 1;
      }
    }
    // A second without events changed nothing: in flight carries over, it is not zero.
    for (let i = 0; i < count; i++) {
      if (perPointMax[i]! < 0) inFlightTotal[i]! += carry;
      else {
        inFlightTotal[i]! += perPointMax[i]!;
        carry = perPointLast[i]!;
      }
    }
  }

  const channels = CHANNELS.filter((c) => seen.has(c));
  let maxMessages = 0;
  const messages: MessagePoint[] = msgSums.map((sums, i) => {
    const point: MessagePoint = { t: from + i * stepMs };
    let total = 0;
    for (const channel of channels) {
      const rate = (sums[channel] ?? 0) / stepSec;
      point[channel] = rate;
      total += rate;
    }
    if (total > maxMessages) maxMessages = total;
    return point;
  });

  const methods = [...sampleCount.entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, MAX_LATENCY_METHODS)
    .map(([m]) => m);
  const latencyPoints = methods.map(() => 0);
  const latency: LatencyPoint[] = samples.map((byMethod, i) => {
    const point: LatencyPoint = { t: from + i * stepMs };
    methods.forEach((method, m) => {
      const list = byMethod.get(method);
      if (!list || list.length === 0) {
        point[`m${m}p50`] = null;
        point[`m${m}p95`] = null;
        return;
      }
      list.sort((a, b) => a - b);
      point[`m${m}p50`] = round(percentile(list, 0.5));
      point[`m${m}p95`] = round(percentile(list, 0.95));
      latencyPoints[m]!++;
    });
    return point;
  });

  let maxErrors = 0;
  const errors: ErrorPoint[] = errSums.map((e, i) => {
    const point = {
      t: from + i * stepMs,
      http4xx: e.http4xx / stepSec,
      http5xx: e.http5xx / stepSec,
      rpc: e.rpc / stepSec,
      transport: e.transport / stepSec,
      total: 0,
    };
    point.total = point.http4xx + point.http5xx + point.rpc + point.transport;
    if (point.total > maxErrors) maxErrors = point.total;
    return point;
  });

  let maxInFlight = 0;
  const inFlight = inFlightTotal.map((n, i) => {
    if (n > maxInFlight) maxInFlight = n;
    return { t: from + i * stepMs, inFlight: n };
  });

  let pingPoints = 0;
  const ping = pingSum.map((sum, i) => {
    const n = pingN[i]!;
    if (n) pingPoints++;
    return { t: from + i * stepMs, rtt: n ? round(sum / n) : null };
  });

  return { from, to, stepSec, messages, channels, maxMessages, latency, methods, latencyPoints, errors, maxErrors, inFlight, maxInFlight, ping, pingPoints };
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}

// ---------------------------------------------------------------------------------------
// Summary tiles

export interface Summary {
  /** Messages (requests, responses, notifications, pings) per channel, whole session. */
  perChannel: { channel: Channel; messages: number; errors: number }[];
  totalMessages: number;
  latency: { method: string; p50: number; p95: number; count: number }[];
  /** The source of `latency`: exact per-server stats, or the buckets' samples merged across servers. */
  latencySource: 'snapshot' | 'samples';
  inFlight: { server: string; method: string; since: number }[];
  sessions: { active: number; total: number; current?: string };
  bytesIn: number;
  bytesOut: number;
  ping?: { last: number; avg: number };
}

export function buildSummary(snapshots: readonly ServerSnapshot[]): Summary {
  const perChannel = new Map<Channel, { messages: number; errors: number }>();
  let bytesIn = 0;
  let bytesOut = 0;
  const inFlight: Summary['inFlight'] = [];
  let active = 0;
  let total = 0;
  let current: string | undefined;
  let pingLast: number | undefined;
  let pingSum = 0;
  let pingCount = 0;
  for (const s of snapshots) {
    for (const [channel, stats] of Object.entries(s.channels) as [Channel, NonNullable<ServerSnapshot['channels'][Channel]>][]) {
      const entry = perChannel.get(channel) ?? { messages: 0, errors: 0 };
      entry.messages += stats.requests + stats.responses + stats.notifications + stats.pings;
      entry.errors += stats.errors;
      perChannel.set(channel, entry);
    }
    bytesIn += s.bytesIn;
    bytesOut += s.bytesOut;
    for (const r of s.inFlight) inFlight.push({ server: s.server, method: r.method, since: r.since });
    for (const session of s.sessions) {
      total++;
      if (!session.endedAt) {
        active++;
        current = session.id;
      }
    }
    if (s.pingRtt) {
      pingLast = s.pingRtt.last;
      pingSum += s.pingRtt.avg * s.pingRtt.count;
      pingCount += s.pingRtt.count;
    }
  }

  let latency: Summary['latency'];
  let latencySource: Summary['latencySource'];
  if (snapshots.length === 1) {
    latencySource = 'snapshot';
    latency = Object.entries(snapshots[0]!.latency).map(([method, l]) => ({ method, p50: l.p50, p95: l.p95, count: l.count }));
  } else {
    // Percentiles cannot be averaged across servers: merge the buckets' samples instead.
    latencySource = 'samples';
    const merged = new Map<string, { samples: number[]; count: number }>();
    for (const s of snapshots) {
      for (const [method, l] of Object.entries(s.latency)) {
        const entry = merged.get(method) ?? { samples: [], count: 0 };
        entry.count += l.count;
        merged.set(method, entry);
      }
      for (const bucket of s.buckets) for (const [method, list] of Object.entries(bucket.latency)) merged.get(method)?.samples.push(...list);
    }
    latency = [...merged.entries()].map(([method, { samples, count }]) => {
      samples.sort((a, b) => a - b);
      return { method, p50: percentile(samples, 0.5), p95: percentile(samples, 0.95), count };
    });
  }
  latency.sort((a, b) => b.count - a.count || a.method.localeCompare(b.method));

  const channels = CHANNELS.filter((c) => perChannel.has(c)).map((channel) => ({ channel, ...perChannel.get(channel)! }));
  return {
    perChannel: channels.filter((c) => c.messages > 0 || c.errors > 0),
    totalMessages: channels.reduce((sum, c) => sum + c.messages, 0),
    latency,
    latencySource,
    inFlight: inFlight.sort((a, b) => a.since - b.since),
    sessions: { active, total, current },
    bytesIn,
    bytesOut,
    ping: pingLast !== undefined ? { last: pingLast, avg: pingCount ? pingSum / pingCount : pingLast } : undefined,
  };
}

// ---------------------------------------------------------------------------------------
// Formatting

export function formatRate(n: number): string {
  if (n === 0) return '0';
  if (n < 10) return n.toFixed(2).replace(/\.?0+$/, '');
  return Math.round(n).toLocaleString('en-US');
}

/** Server-supplied text for display: no bidi overrides, bounded length. */
export function safeLabel(text: string, max = 120): string {
  const clean = text.replace(/[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/g, '');
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

/**
 * `next` with every part that did not change since `prev` replaced by `prev`'s (same object), so
 * a chart whose data did not move is not drawn again. Within one step of the window's points
 * (2 s on a 5-minute window) only the last point moves, and mostly only the messages.
 */
export function stabilize(prev: Series | undefined, next: Series): Series {
  if (!prev || prev.from !== next.from || prev.to !== next.to || prev.stepSec !== next.stepSec) return next;
  const out = { ...next };
  for (const key of ['messages', 'channels', 'latency', 'methods', 'latencyPoints', 'errors', 'inFlight', 'ping'] as const) {
    if (JSON.stringify(prev[key]) === JSON.stringify(next[key])) (out as Record<typeof key, unknown>)[key] = prev[key];
  }
  return out;
}

/** The parts of a series each chart draws (besides its time range): what its memo compares. */
export const CHART_FIELDS = {
  messages: ['messages', 'channels', 'maxMessages'],
  latency: ['latency', 'methods', 'latencyPoints'],
  errors: ['errors', 'maxErrors'],
  inFlight: ['inFlight', 'maxInFlight'],
  ping: ['ping', 'pingPoints'],
} as const satisfies Record<string, readonly (keyof Series)[]>;
