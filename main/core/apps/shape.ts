/** MCP Apps: reading hostile metadata (a server's `_meta.ui`) without trusting its shape. */

/** The value as a plain object, or undefined (null, a list, a primitive). */
export function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** "a string", "a list", "null": what a value is, in words, without serializing it. */
export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
