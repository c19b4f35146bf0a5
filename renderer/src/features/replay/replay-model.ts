/**
 * The Replay tab's rules, without React: which requests are selected, which tools a run would
 * call, which results are shown, how a difference reads, how long the latency bars are.
 */
import type { ReplayCandidate, ReplayDifference, ReplayItem, ServerStatus } from '../../../../contract';

/** Methods in the order of the candidates, each with its count. */
export function methodsOf(candidates: ReplayCandidate[]): { method: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const c of candidates) counts.set(c.method, (counts.get(c.method) ?? 0) + 1);
  return [...counts].map(([method, count]) => ({ method, count }));
}

/** Recorded servers (by name) of the candidates. */
export function recordedServers(candidates: ReplayCandidate[]): string[] {
  return [...new Set(candidates.map((c) => c.serverName))];
}

/** The candidates a filter shows: of one recorded server, of some methods. */
export function visibleCandidates(candidates: ReplayCandidate[], filter: { server?: string; methods: string[] }): ReplayCandidate[] {
  return candidates.filter((c) => (!filter.server || c.serverName === filter.server) && (filter.methods.length === 0 || filter.methods.includes(c.method)));
}

/** The distinct tools the selected tools/call would call, sorted. */
export function toolsToCall(candidates: ReplayCandidate[], selected: ReadonlySet<number>): string[] {
  return [...new Set(candidates.filter((c) => selected.has(c.seq) && c.method === 'tools/call' && c.tool !== undefined).map((c) => c.tool!))].sort();
}

/** The target a run picks by default: the connected server with the recorded server's name, else the first connected one. */
export function defaultTarget(servers: ServerStatus[], recordedName: string | undefined): string | undefined {
  const connected = servers.filter((s) => s.state === 'connected' || s.state === 'disconnected');
  return (connected.find((s) => s.name === recordedName) ?? connected.find((s) => s.state === 'connected'))?.id;
}

export type ItemState = 'same' | 'differs' | 'skipped' | 'error';

export function itemState(item: ReplayItem): ItemState {
  if (item.skipped) return 'skipped';
  if (!item.same) return item.new.error && !item.old.error && item.new.error.code === undefined ? 'error' : 'differs';
  return 'same';
}

export function shownItems(items: ReplayItem[], onlyDiffering: boolean): ReplayItem[] {
  return onlyDiffering ? items.filter((i) => !i.skipped && !i.same) : items;
}

/** A value as one short line. */
export function shortValue(value: unknown, max = 120): string {
  if (value === undefined) return '—';
  let text: string;
  try {
    text = typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** One difference as the table shows it: where, what was, what is. A named list item gone or new reads by its name. */
export function differenceRow(d: ReplayDifference): { where: string; old: string; new: string; note?: string } {
  const where = d.kind === 'latency' ? 'latency' : d.kind === 'schema' ? 'output schema' : d.path || '(whole answer)';
  if (d.kind === 'latency') return { where, old: `${Math.round(Number(d.old))} ms`, new: `${Math.round(Number(d.new))} ms`, note: d.message };
  if (d.kind === 'schema') return { where, old: schemaText(d.old), new: schemaText(d.new), note: d.message };
  const named = /^(.*) is (gone|new)$/.exec(d.message);
  if (named) return { where, old: named[2] === 'gone' ? `${named[1]} (gone)` : '—', new: named[2] === 'new' ? `${named[1]} (new)` : '—' };
  if (d.kind === 'error' && d.path === '') return { where, old: errorOrValue(d.old), new: errorOrValue(d.new), note: d.message };
  return { where, old: shortValue(d.old), new: shortValue(d.new) };
}

function schemaText(value: unknown): string {
  const v = value as { valid?: boolean; errors?: string[] } | undefined;
  if (!v) return '—';
  return v.valid ? (v.errors?.length ? v.errors[0]! : 'valid') : `invalid: ${(v.errors ?? []).slice(0, 2).join('; ')}`;
}

function errorOrValue(value: unknown): string {
  const e = value as { code?: number; message?: unknown } | undefined;
  if (e && typeof e === 'object' && typeof e.message === 'string' && Object.keys(e).every((k) => k === 'code' || k === 'message')) return `error ${e.code ?? ''} ${e.message}`.replace('  ', ' ');
  return shortValue(value);
}

/** Widths (0–100 %) of the old and new latency bars, on one scale. */
export function latencyBars(oldMs: number | undefined, newMs: number | undefined): { old: number; new: number } {
  const max = Math.max(oldMs ?? 0, newMs ?? 0);
  if (max <= 0) return { old: 0, new: 0 };
  const width = (ms: number | undefined) => (ms === undefined ? 0 : Math.max(2, Math.round((ms / max) * 100)));
  return { old: width(oldMs), new: width(newMs) };
}

/** The JSON pointers marked as changed in an item (for the side-by-side answers). */
export function changedPaths(item: ReplayItem): Set<string> {
  return new Set(item.differences.filter((d) => d.kind === 'result' || d.kind === 'error').map((d) => d.path));
}

/**
 * An answer as lines of pretty JSON, each marked when it lies at or under a changed path, so the
 * side-by-side view can highlight them. Bounded: at most `maxLines` lines.
 */
export function markedLines(value: unknown, changed: ReadonlySet<string>, maxLines = 400): { text: string; changed: boolean }[] {
  const out: { text: string; changed: boolean }[] = [];
  const isChanged = (path: string) => {
    for (const p of changed) if (p === '' || path === p || path.startsWith(`${p}/`)) return true;
    return false;
  };
  const escape = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');
  const walk = (v: unknown, path: string, indent: string, label: string, comma: string) => {
    if (out.length >= maxLines) return;
    const mark = isChanged(path);
    if (v && typeof v === 'object') {
      const entries = Array.isArray(v) ? v.map((x, i) => [String(i), x] as const) : Object.entries(v as Record<string, unknown>);
      if (entries.length === 0) {
        out.push({ text: `${indent}${label}${Array.isArray(v) ? '[]' : '{}'}${comma}`, changed: mark });
        return;
      }
      out.push({ text: `${indent}${label}${Array.isArray(v) ? '[' : '{'}`, changed: mark });
      entries.forEach(([k, x], i) => walk(x, `${path}/${escape(k)}`, `${indent}  `, Array.isArray(v) ? '' : `${JSON.stringify(k)}: `, i < entries.length - 1 ? ',' : ''));
      if (out.length < maxLines) out.push({ text: `${indent}${Array.isArray(v) ? ']' : '}'}${comma}`, changed: mark });
      return;
    }
    out.push({ text: `${indent}${label}${v === undefined ? 'undefined' : JSON.stringify(v)}${comma}`, changed: mark });
  };
  walk(value, '', '', '', '');
  if (out.length >= maxLines) out.push({ text: '… (cut: the whole answer is in Traffic)', changed: false });
  return out;
}
