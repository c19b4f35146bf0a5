/**
 * A CPU profile's self time per function (bench/client.ts profiles the tracked side in-process
 * with node:inspector's Profiler; bench/run.ts prints the result).
 */
import { Session } from 'node:inspector/promises';
import { findSourceMap } from 'node:module';

export interface ProfileRow {
  /** `name (file:line)` */
  fn: string;
  selfUs: number;
  /** Share of the profile's busy (non-idle) time. */
  share: number;
}

export interface ProfileSummary {
  totalUs: number;
  /** Time not idle (the process's busy time in the profile). */
  busyUs: number;
  top: ProfileRow[];
  /** Self time in Switchboard's own tracking code (main/core/, contract/). */
  trackingUs: number;
  gcUs: number;
  /** Self time of every function (µs, keyed as `top`'s rows), for comparing two profiles. */
  all: Record<string, number>;
}

interface CpuProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber?: number };
  hitCount?: number;
}

/**
 * Where a frame's code was written: through the source map of a bundled file (the benchmark
 * client, bench/support/client-bundle.ts, loaded with --enable-source-maps), else as profiled.
 */
function originOf(frame: CpuProfileNode['callFrame']): { url: string; lineNumber: number } {
  if (!frame.url.startsWith('file:')) return frame;
  try {
    const entry = findSourceMap(frame.url)?.findEntry(frame.lineNumber, frame.columnNumber ?? 0) as { originalSource?: string; originalLine?: number } | undefined;
    if (entry?.originalSource) return { url: entry.originalSource, lineNumber: entry.originalLine ?? frame.lineNumber };
  } catch {
    // no map: the frame as profiled
  }
  return frame;
}
interface CpuProfile {
  nodes: CpuProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

const short = (url: string): string => {
  const at = url.search(/\/(main|contract|bench|node_modules)\//);
  const path = at >= 0 ? url.slice(at + 1).replace(/^node_modules\/(\.pnpm\/[^/]+\/node_modules\/)?/, '') : url.replace(/^.*\//, '');
  return path.replace(/^file:\/\//, '');
};

export function summarizeProfile(profile: CpuProfile, topN = 12): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  // Each sample's time is the delta to the next sample.
  for (let i = 0; i < samples.length; i++) {
    const dt = deltas[i + 1] ?? 0;
    selfUs.set(samples[i]!, (selfUs.get(samples[i]!) ?? 0) + dt);
  }
  const totalUs = profile.endTime - profile.startTime;
  const merged = new Map<string, number>();
  let idle = 0;
  let trackingUs = 0;
  let gcUs = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (!node) continue;
    const { functionName } = node.callFrame;
    const { url, lineNumber } = originOf(node.callFrame);
    if (functionName === '(idle)') {
      idle += us;
      continue;
    }
    if (functionName === '(garbage collector)') gcUs += us;
    if (/\/(main\/core|contract)\//.test(url)) trackingUs += us;
    const key = url ? `${functionName || '(anonymous)'} (${short(url)}:${lineNumber + 1})` : functionName || '(anonymous)';
    merged.set(key, (merged.get(key) ?? 0) + us);
  }
  const top = [...merged.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, topN)
    .map(([fn, us]) => ({ fn, selfUs: us, share: totalUs - idle > 0 ? us / (totalUs - idle) : 0 }));
  return { totalUs, busyUs: totalUs - idle, top, trackingUs, gcUs, all: Object.fromEntries(merged) };
}

/** A Profiler session on this process: `start()`, run the work, `stop()` for its summary. */
export class InProcessProfiler {
  private session: Session | undefined;

  async start(intervalUs = 100): Promise<void> {
    this.session = new Session();
    this.session.connect();
    await this.session.post('Profiler.enable');
    await this.session.post('Profiler.setSamplingInterval', { interval: intervalUs });
    await this.session.post('Profiler.start');
  }

  async stop(topN = 12): Promise<ProfileSummary> {
    const session = this.session;
    if (!session) throw new Error('profiler not started');
    this.session = undefined;
    const { profile } = (await session.post('Profiler.stop')) as { profile: CpuProfile };
    await session.post('Profiler.disable');
    session.disconnect();
    return summarizeProfile(profile, topN);
  }
}
