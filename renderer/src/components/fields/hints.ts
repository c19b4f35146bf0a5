/** A field's rules as short hints under its label, worded the same in every form (no React). */

/** `3–20 characters`, `at least 3 characters`, `at most 1 item`; '' when there is no bound. */
export function countHint(min: number | undefined, max: number | undefined, one: string, many = `${one}s`): string {
  const unit = (n: number) => (n === 1 ? one : many);
  if (min !== undefined && max !== undefined) return `${min}–${max} ${unit(max)}`;
  if (min !== undefined) return `at least ${min} ${unit(min)}`;
  if (max !== undefined) return `at most ${max} ${unit(max)}`;
  return '';
}

/** The placeholder a text field of this format shows (an example of the expected shape). */
export function formatPlaceholder(format: string | undefined): string | undefined {
  if (format === 'email') return 'name@example.com';
  if (format === 'uri' || format === 'url') return 'https://…';
  if (format === 'date-time') return '2025-01-31T12:00:00Z';
  return undefined;
}
