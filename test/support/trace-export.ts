/**
 * A trace export as text, for tests that read one whole (small traces): from a core in this
 * process (its stream, as the bulk routes and the save dialog use it), or from a built
 * browser-mode host over its real HTTP route (the contract carries no files).
 */
import type { Core } from '../../main/core/app';

export function exportText(core: Core, format: 'jsonl' | 'har', source?: string): string {
  return [...core.traceBulk.exportStream(format, source).chunks].join('');
}

/** GET /api/trace/export from a host started with `startBrowserMode` (the token as the header, as non-browser clients send it). */
export async function exportOverHttp(app: { url: string; origin: string }, format: 'jsonl' | 'har', source?: string, deadlineMs = 120_000): Promise<string> {
  const token = new URL(app.url).searchParams.get('token') ?? '';
  const query = new URLSearchParams({ format, ...(source ? { source } : {}) });
  const response = await fetch(`${app.origin}/api/trace/export?${query}`, { headers: { 'x-switchboard-token': token }, signal: AbortSignal.timeout(deadlineMs) });
  const text = await response.text();
  if (!response.ok) throw new Error(`export ${format}: HTTP ${response.status}: ${text.slice(0, 300)}`);
  return text;
}
