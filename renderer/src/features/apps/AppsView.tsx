/** STUB (issue #14): every app tool of every server, runnable — being built. */
import type { ServerStatus } from '../../../../contract';

export function AppsView(_props: { servers: ServerStatus[] }) {
  return null;
}
