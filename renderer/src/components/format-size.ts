/** Sizes of text as people read them: 512 B, 20 KB, 52.4 MB (decimal units, characters ≈ bytes). */
export function formatChars(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(1)} MB`;
  if (n >= 1_000) return `${Math.round(n / 1_000)} KB`;
  return `${n} B`;
}
