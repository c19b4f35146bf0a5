/**
 * Values from servers, files and people can be nested arbitrarily deep. V8's `JSON.parse` copes
 * with any depth, but `JSON.stringify`, `structuredClone` (Electron IPC) and every recursive walk
 * overflow the stack somewhere past a few thousand levels. Everything that serializes or walks
 * such a value first cuts it to a named depth with this module: what lies below the limit is
 * replaced by a visible marker, and the raw bytes stay in the trace unchanged.
 *
 * Pure and iterative (no recursion anywhere), shared by main and the renderer.
 */

/** The named limits. Documented in docs/limits.md. */
export const LIMITS = {
  /** Nesting kept in values that cross the contract (IPC, WebSocket) and in parsed fields of trace events. */
  carriedDepth: 64,
  /** Nesting allowed in tool arguments a person writes (the SDK serializes them recursively). */
  argumentDepth: 64,
} as const;

/** The key of a marker object standing in for a subtree cut at the depth limit. */
export const TRUNCATED_KEY = '$switchboard:truncated';

export interface TruncationInfo {
  /** Levels of nesting that were cut (the depth of the subtree the marker replaces). */
  levels?: number;
  /** Entries of the container that was cut. */
  entries?: number;
  /** The subtree was an array (else an object). */
  array?: boolean;
  /** Serialization failed for another reason (a BigInt): what the engine said. */
  error?: string;
}

/** Flat (one level), so a value that was cut is within the limit and cutting it again changes nothing. */
export type TruncationMarker = { [TRUNCATED_KEY]: true } & TruncationInfo;

export function isTruncationMarker(value: unknown): value is TruncationMarker {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && (value as Record<string, unknown>)[TRUNCATED_KEY] === true;
}

/** "… 4,980 more levels" — the words a view shows in place of a cut subtree. */
export function describeTruncation(info: TruncationInfo): string {
  if (info.error) return `… not serializable (${info.error})`;
  const levels = info.levels ?? 0;
  return `… ${levels.toLocaleString('en-US')} more level${levels === 1 ? '' : 's'}`;
}

const isContainer = (value: unknown): value is Record<string, unknown> | unknown[] => typeof value === 'object' && value !== null;

/**
 * The nesting depth of a value: 0 for a scalar, 1 for `{}` or `[1]`, 2 for `[[1]]`. Stops
 * walking once `stopAt` is exceeded (and returns a number above it), so checking a huge value
 * against a limit costs no more than the part above the limit.
 *
 * It runs on every value that crosses the contract (each trace push walks hundreds of events), so
 * the walk allocates as little as it can: two parallel stacks instead of a pair per container,
 * and an index loop over an array or an object's values.
 */
export function depthOf(value: unknown, stopAt = Number.POSITIVE_INFINITY): number {
  if (!isContainer(value)) return 0;
  let max = 0;
  const nodes: (Record<string, unknown> | unknown[])[] = [value];
  const depths: number[] = [1];
  while (nodes.length > 0) {
    const node = nodes.pop()!;
    const depth = depths.pop()!;
    if (depth > max) {
      max = depth;
      if (max > stopAt) return max;
    }
    const values = Array.isArray(node) ? node : Object.values(node);
    for (let i = 0; i < values.length; i++) {
      const child = values[i];
      if (isContainer(child)) {
        nodes.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return max;
}

/**
 * The value cut to `maxDepth` levels: every container that would sit deeper is replaced by a
 * truncation marker. Returns the value itself (no copy) when it is within the limit.
 */
export function boundDepth<T>(value: T, maxDepth: number = LIMITS.carriedDepth): T {
  if (depthOf(value, maxDepth) <= maxDepth) return value;
  return cut(value, maxDepth) as T;
}

const MAX_COUNTED_LEVELS = 1_000_000;

function marker(node: Record<string, unknown> | unknown[]): TruncationMarker {
  const entries = Array.isArray(node) ? node.length : Object.keys(node).length;
  // Counting stops at a bound, so a cycle in one of our own objects still ends.
  return { [TRUNCATED_KEY]: true, levels: depthOf(node, MAX_COUNTED_LEVELS), entries, array: Array.isArray(node) };
}

function cut(value: unknown, maxDepth: number): unknown {
  const root: { v?: unknown } = {};
  // Work list: a source container, where its copy goes, and the level the copy sits at.
  const work: { src: unknown; dst: Record<string, unknown> | unknown[]; key: string | number; depth: number }[] = [{ src: value, dst: root as Record<string, unknown>, key: 'v', depth: 1 }];
  while (work.length > 0) {
    const { src, dst, key, depth } = work.pop()!;
    const put = (v: unknown) => setOwn(dst, key, v);
    if (!isContainer(src)) {
      put(src);
      continue;
    }
    // A container at the last level may stay only if it holds no containers.
    if (depth >= maxDepth && (depth > maxDepth || depthOf(src, 1) > 1)) {
      put(marker(src));
      continue;
    }
    if (typeof (src as { toJSON?: unknown }).toJSON === 'function') {
      put(src);
      continue;
    }
    if (Array.isArray(src)) {
      const copy: unknown[] = new Array(src.length);
      put(copy);
      for (let i = src.length - 1; i >= 0; i--) work.push({ src: src[i], dst: copy, key: i, depth: depth + 1 });
    } else {
      const copy: Record<string, unknown> = {};
      put(copy);
      const keys = Object.keys(src);
      // Assign keys in order so the copy serializes in the source's key order.
      for (const k of keys) setOwn(copy, k, undefined);
      for (let i = keys.length - 1; i >= 0; i--) work.push({ src: (src as Record<string, unknown>)[keys[i]!], dst: copy, key: keys[i]!, depth: depth + 1 });
    }
  }
  return root.v;
}

/** An own property even for `__proto__` (a key JSON.parse makes own; plain assignment would set the prototype). */
export function setOwn(target: Record<string, unknown> | unknown[], key: string | number, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else (target as Record<string | number, unknown>)[key] = value;
}

/**
 * `JSON.stringify` that never throws: the value is cut to `maxDepth` first, and anything else
 * the engine refuses (a BigInt, a cycle) becomes a marker naming the reason.
 */
export function safeStringify(value: unknown, options: { maxDepth?: number; space?: number } = {}): string {
  try {
    return JSON.stringify(boundDepth(value, options.maxDepth ?? LIMITS.carriedDepth), null, options.space) ?? 'null';
  } catch (error) {
    return JSON.stringify({ [TRUNCATED_KEY]: true, error: error instanceof Error ? error.message : String(error) } satisfies TruncationMarker);
  }
}
