/**
 * MCP annotations (on content blocks, embedded resources, resource links and listed
 * resources): `audience` (who the content is for: "user", "assistant"), `priority` (0 = least,
 * 1 = most important) and `lastModified` (an ISO 8601 time). Read out of hostile input: what
 * does not fit the spec is reported as it is, never dropped silently.
 */
import { safeStringify } from '../../../contract/bounded-json';

export interface ReadAnnotations {
  audience?: string[];
  /** 0–1 as sent; `priorityOutOfRange` when a number outside it was sent. */
  priority?: number;
  priorityOutOfRange?: boolean;
  /** The ISO text as sent, and its time when it parses. */
  lastModified?: { iso: string; ms: number | null };
  /** Annotation fields this reader does not know, or known ones of the wrong type (shown raw). */
  other: Array<{ key: string; value: string }>;
}

const AUDIENCES = new Set(['user', 'assistant']);

/** The annotations of a value (`{ annotations: {...} }`), or null when it carries none. */
export function readAnnotations(annotations: unknown): ReadAnnotations | null {
  if (!annotations || typeof annotations !== 'object' || Array.isArray(annotations)) return null;
  const a = annotations as Record<string, unknown>;
  const out: ReadAnnotations = { other: [] };
  let any = false;
  for (const [key, value] of Object.entries(a).slice(0, 50)) {
    any = true;
    if (key === 'audience' && Array.isArray(value) && value.every((v) => typeof v === 'string')) {
      out.audience = (value as string[]).slice(0, 10).map((v) => v.slice(0, 40));
    } else if (key === 'priority' && typeof value === 'number' && Number.isFinite(value)) {
      out.priority = value;
      if (value < 0 || value > 1) out.priorityOutOfRange = true;
    } else if (key === 'lastModified' && typeof value === 'string') {
      const ms = Date.parse(value);
      out.lastModified = { iso: value.slice(0, 100), ms: Number.isNaN(ms) ? null : ms };
    } else {
      out.other.push({ key: key.slice(0, 60), value: preview(value) });
    }
  }
  return any ? out : null;
}

/** Whether an audience entry is one the spec names (others are shown, marked). */
export const knownAudience = (role: string): boolean => AUDIENCES.has(role);

/** "0.7 (high)": the number as sent and a word for it. */
export function priorityLabel(priority: number): string {
  const word = priority >= 0.75 ? 'high' : priority >= 0.4 ? 'medium' : 'low';
  return `${formatPriority(priority)} (${word})`;
}

function formatPriority(priority: number): string {
  return Number.isInteger(priority) ? priority.toFixed(1) : String(Math.round(priority * 1000) / 1000);
}

/** A local date and time for lastModified; the ISO text goes in the tooltip. */
export function localTime(ms: number, locale?: string): string {
  return new Date(ms).toLocaleString(locale, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false });
}

function preview(value: unknown): string {
  const text = safeStringify(value, { maxDepth: 4 });
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}
