/**
 * Replay, part 2: how an old and a new answer differ, path by path (JSON pointers into the
 * result, RFC 6901), and what is ignored because it is meant to change between two runs:
 *
 * - `_meta` anywhere: the protocol's envelope (progress tokens, related-task ids, the 2026 era's
 *   per-request metadata, a server's own tracing ids). It says how a message travelled, not what
 *   the server answered.
 * - In a task (`task` objects of task-augmented results, tasks/* answers): `taskId`, `createdAt`,
 *   `lastUpdatedAt` — a new task has a new id and new times by definition.
 * - `resultType: "complete"` against no `resultType`: the 2026 era says in every result what a
 *   2025-era result means without saying it, so a session replayed across eras is not all changed.
 * - `nextCursor`'s value (opaque by the spec; a server may encode time or a session in it): a
 *   cursor that appears or disappears is still a difference (the list's paging changed).
 *
 * Objects compare by key (order is not significant); arrays by position, except the lists of
 * named things (`tools`, `prompts`, `resources`, `resourceTemplates`, `contents`), which pair by
 * name/uri so one inserted tool reads as one added item, not every later one as changed.
 */
import type { ReplayDifference } from '../../../contract';
import { LIMITS, safeStringify } from '../../../contract/bounded-json';

/** Differences kept per item; the rest are counted in one last entry. */
export const MAX_DIFFERENCES = 100;
/** Nesting walked (trace bodies are cut at LIMITS.carriedDepth already); deeper values compare as bounded JSON texts. */
const MAX_DEPTH = LIMITS.carriedDepth;

const TASK_VOLATILE = new Set(['taskId', 'createdAt', 'lastUpdatedAt']);
const KEYED_LISTS: Record<string, string> = { tools: 'name', prompts: 'name', resources: 'uri', resourceTemplates: 'uriTemplate', contents: 'uri' };

export function pointer(parts: (string | number)[]): string {
  return parts.map((p) => `/${String(p).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === 'object' && !Array.isArray(value);
}

function text(value: unknown): string {
  return value === undefined ? 'undefined' : safeStringify(value);
}

function describe(value: unknown): string {
  const t = text(value);
  return t.length > 60 ? `${t.slice(0, 59)}…` : t;
}

/** The differences between two JSON values (results), ignoring what is meant to change. */
export function diffValues(old: unknown, next: unknown): ReplayDifference[] {
  const out: ReplayDifference[] = [];
  let over = 0;
  const add = (path: (string | number)[], message: string, a: unknown, b: unknown) => {
    if (out.length < MAX_DIFFERENCES) out.push({ kind: 'result', path: pointer(path), message, old: a, new: b });
    else over++;
  };
  const walk = (a: unknown, b: unknown, path: (string | number)[], parentKey: string | undefined) => {
    if (a === b) return;
    if (path.length >= MAX_DEPTH) {
      if (text(a) !== text(b)) add(path, 'changed', a, b);
      return;
    }
    if (Array.isArray(a) && Array.isArray(b)) {
      const key = parentKey === undefined ? undefined : KEYED_LISTS[parentKey];
      if (key && [...a, ...b].every((item) => isObject(item) && typeof item[key] === 'string')) {
        const newByKey = new Map(b.map((item, i) => [(item as Record<string, unknown>)[key] as string, i]));
        const oldKeys = new Set<string>();
        a.forEach((item, i) => {
          const name = (item as Record<string, unknown>)[key] as string;
          oldKeys.add(name);
          const j = newByKey.get(name);
          if (j === undefined) add([...path, i], `${name} is gone`, item, undefined);
          else walk(item, b[j], [...path, j], undefined);
        });
        b.forEach((item, j) => {
          const name = (item as Record<string, unknown>)[key] as string;
          if (!oldKeys.has(name)) add([...path, j], `${name} is new`, undefined, item);
        });
        return;
      }
      const n = Math.max(a.length, b.length);
      for (let i = 0; i < n; i++) {
        if (i >= b.length) add([...path, i], 'removed', a[i], undefined);
        else if (i >= a.length) add([...path, i], 'added', undefined, b[i]);
        else walk(a[i], b[i], [...path, i], undefined);
      }
      return;
    }
    if (isObject(a) && isObject(b)) {
      const isTask = parentKey === 'task' || ('taskId' in a && 'status' in a);
      for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
        if (k === '_meta') continue;
        if (isTask && TASK_VOLATILE.has(k)) continue;
        const inA = Object.hasOwn(a, k);
        const inB = Object.hasOwn(b, k);
        if (k === 'nextCursor' && inA && inB) continue;
        if (k === 'resultType' && path.length === 0 && (inA ? a[k] : b[k]) === 'complete' && inA !== inB) continue;
        if (!inB) add([...path, k], 'removed', a[k], undefined);
        else if (!inA) add([...path, k], 'added', undefined, b[k]);
        else walk(a[k], b[k], [...path, k], k);
      }
      return;
    }
    if (typeof a === 'number' && typeof b === 'number' && Number.isNaN(a) && Number.isNaN(b)) return;
    add(path, `${describe(a)} → ${describe(b)}`, a, b);
  };
  walk(old, next, [], undefined);
  if (over > 0) out.push({ kind: 'result', path: '', message: `…and ${over} more difference${over === 1 ? '' : 's'} (not listed).` });
  return out;
}

/**
 * Latency: reported when the new answer took at least twice as long AND at least
 * LATENCY_FLOOR_MS longer. Both, because a local server's 2 ms answer taking 5 ms is noise
 * (scheduling on a loaded machine, a JIT warming up), and a remote server's 2 s answer taking
 * 2.3 s is within its ordinary spread; a doubling by a tenth of a second or more is what a
 * person notices. A latency difference alone does not make an item differ (`same` stays true):
 * the answer is the same, and timings of two runs are never equal — it is shown, not counted.
 */
export const LATENCY_FACTOR = 2;
export const LATENCY_FLOOR_MS = 100;

export function latencyDifference(oldMs: number | undefined, newMs: number | undefined): ReplayDifference | undefined {
  if (oldMs === undefined || newMs === undefined) return undefined;
  if (newMs >= oldMs * LATENCY_FACTOR && newMs - oldMs >= LATENCY_FLOOR_MS) {
    return { kind: 'latency', path: '', message: `slower: ${Math.round(oldMs)} ms → ${Math.round(newMs)} ms`, old: oldMs, new: newMs };
  }
  if (oldMs >= newMs * LATENCY_FACTOR && oldMs - newMs >= LATENCY_FLOOR_MS) {
    return { kind: 'latency', path: '', message: `faster: ${Math.round(oldMs)} ms → ${Math.round(newMs)} ms`, old: oldMs, new: newMs };
  }
  return undefined;
}
