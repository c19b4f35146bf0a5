/**
 * Arguments a person writes are checked for depth before anything is sent: the SDK serializes
 * them recursively, and main refuses anything deeper than LIMITS.argumentDepth anyway. Saying so
 * here, next to the editor, beats a "Maximum call stack size exceeded" from somewhere.
 */
import { LIMITS, depthOf } from '../../../../contract/bounded-json';

/** Why these arguments cannot be sent (their depth and the limit), or null when they can. */
export function argumentDepthProblem(args: unknown): string | null {
  if (depthOf(args, LIMITS.argumentDepth) <= LIMITS.argumentDepth) return null;
  const depth = depthOf(args, 100_000_000);
  return `The arguments are nested ${depth.toLocaleString('en-US')} levels deep; Switchboard sends at most ${LIMITS.argumentDepth} (the argument depth limit). Nothing was sent.`;
}
