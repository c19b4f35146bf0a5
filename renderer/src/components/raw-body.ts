/**
 * The text of a trace event's body for "Raw" views and saving: the bytes as they arrived when
 * main kept them (`raw`: a body nested deeper than LIMITS.carriedDepth is cut in `body`, and
 * its original text kept beside it), else the body itself (a string, or JSON within the limit,
 * which serializes back faithfully). Never a re-serialization of a cut value.
 */
import { safeStringify } from '../../../contract/bounded-json';
import type { TraceEvent } from '../../../contract/trace';

/** `raw` is added to trace events by main (see contract/trace.ts); older traces lack it. */
type WithRaw = TraceEvent & { raw?: unknown };

export function rawOf(event: TraceEvent): string | undefined {
  const raw = (event as WithRaw).raw;
  return typeof raw === 'string' ? raw : undefined;
}

export function rawBodyText(event: TraceEvent, payload: unknown): { text: string; exact: boolean } {
  const raw = rawOf(event);
  if (raw !== undefined) return { text: raw, exact: true };
  if (payload === undefined) return { text: event.text ?? '', exact: true };
  return { text: bodyText(payload), exact: typeof payload === 'string' };
}

/** Text for a body: JSON pretty-printed, strings as they are. */
export function bodyText(body: unknown): string {
  if (body === undefined) return '';
  if (typeof body === 'string') return body;
  return safeStringify(body, { space: 2 });
}
