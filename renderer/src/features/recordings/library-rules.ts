/** The library tab's rules without React (unit-tested under Node): search, sort, how a recording ended, retention in a person's units. */
import type { RecordingRetention, RecordingSummary } from '../../../../contract';

export type SortKey = 'started' | 'name' | 'duration' | 'events' | 'errors' | 'bytes';
export interface Sort {
  key: SortKey;
  desc: boolean;
}
/** Newest first, as the library lists them. */
export const DEFAULT_SORT: Sort = { key: 'started', desc: true };

const value = (r: RecordingSummary, key: SortKey): number | string => {
  switch (key) {
    case 'started':
      return r.startedAt;
    case 'name':
      return r.name.toLowerCase();
    case 'duration':
      return r.durationMs;
    case 'events':
      return r.events;
    case 'errors':
      return r.errors;
    case 'bytes':
      return r.bytes;
  }
};

/**
 * The words of a search, each of which must match the recording's name, one of its tags or one
 * of its servers (name or id). `tag:x` and `server:x` match only there. Case does not matter.
 */
export function matchesSearch(r: RecordingSummary, query: string): boolean {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (!words.length) return true;
  const tags = r.tags.map((t) => t.toLowerCase());
  const servers = r.servers.flatMap((s) => [s.name.toLowerCase(), s.id.toLowerCase()]);
  const name = r.name.toLowerCase();
  return words.every((word) => {
    if (word.startsWith('tag:')) return tags.some((t) => t.includes(word.slice(4)));
    if (word.startsWith('server:')) return servers.some((s) => s.includes(word.slice(7)));
    return name.includes(word) || tags.some((t) => t.includes(word)) || servers.some((s) => s.includes(word));
  });
}

/** Filtered and sorted; ties keep the newest first (then the id, so the order is stable). */
export function visibleRecordings(all: RecordingSummary[], query: string, sort: Sort): RecordingSummary[] {
  const sign = sort.desc ? -1 : 1;
  return all
    .filter((r) => matchesSearch(r, query))
    .sort((a, b) => {
      const x = value(a, sort.key);
      const y = value(b, sort.key);
      if (x !== y) return (x < y ? -1 : 1) * sign;
      return b.startedAt - a.startedAt || (a.id < b.id ? 1 : -1);
    });
}

/** A click on a column header: the same column flips, another one starts descending (the largest, newest first), except names A→Z. */
export function nextSort(sort: Sort, key: SortKey): Sort {
  if (sort.key === key) return { key, desc: !sort.desc };
  return { key, desc: key !== 'name' };
}

export const ENDED_LABEL: Record<RecordingSummary['ended'], string> = { recording: 'recording', clean: 'closed', unexpected: 'ended unexpectedly' };

/** What the "ended" cell says, and its colour. */
export function endedView(r: RecordingSummary): { label: string; color: string; hint: string } {
  if (r.live) return { label: 'recording now', color: 'red', hint: 'This session: written as it happens.' };
  if (r.ended === 'unexpected') return { label: ENDED_LABEL.unexpected, color: 'orange', hint: r.notes.length ? r.notes.join(' ') : 'Its process died before closing it; every event up to the last flush was kept.' };
  if (r.ended === 'recording') return { label: ENDED_LABEL.recording, color: 'blue', hint: 'Another Switchboard process is still writing it.' };
  return { label: ENDED_LABEL.clean, color: 'gray', hint: 'Closed cleanly.' };
}

const GIB = 1024 ** 3;
const MIB = 1024 ** 2;

/** Retention as the form shows it: the size in GiB (two decimals at most). */
export function retentionForm(r: RecordingRetention): { gib: number; days: number } {
  return { gib: Math.round((r.maxBytes / GIB) * 100) / 100, days: r.maxAgeDays };
}

/** The form back to the setting, bounded as the contract bounds it (64 MiB … 1 TiB; 0 … 3650 days). */
export function retentionFromForm(gib: number, days: number): RecordingRetention {
  const bytes = Number.isFinite(gib) ? Math.round(gib * GIB) : 2 * GIB;
  return {
    maxBytes: Math.min(1024 ** 4, Math.max(64 * MIB, bytes)),
    maxAgeDays: Math.min(3650, Math.max(0, Number.isFinite(days) ? Math.round(days) : 30)),
  };
}

/** Tags as typed: trimmed, at most 40 characters each and 20 of them, each once whatever its case. */
export function cleanTags(tags: string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of tags) {
    const tag = raw.trim().slice(0, 40);
    if (!tag || seen.has(tag.toLowerCase())) continue;
    seen.add(tag.toLowerCase());
    out.push(tag);
    if (out.length === 20) break;
  }
  return out;
}

const two = (n: number) => String(n).padStart(2, '0');

/** "2026-12-01 22:15" in local time: when a recording started. */
export function formatStarted(ts: number): string {
  const d = new Date(ts);
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}`;
}
