/** Backoff between attempts to reach main again: 0.5 s, 1 s, 2 s … up to 10 s. */
export function reconnectDelay(attempts: number): number {
  return Math.min(10_000, 500 * 2 ** Math.max(0, attempts));
}
