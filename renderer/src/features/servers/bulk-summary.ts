/** What "Connect all" / "Disconnect all" did, in words (pure: unit-tested). */
import type { ServerStatus } from '../../../../contract';

export function bulkSummary(what: 'connect' | 'disconnect', servers: Pick<ServerStatus, 'name' | 'state'>[], skippedDisabled: number): { title: string; message: string; failed: number } {
  const skipped = skippedDisabled ? ` ${skippedDisabled} disabled server${skippedDisabled === 1 ? ' was' : 's were'} skipped.` : '';
  if (what === 'disconnect') {
    const n = servers.length;
    return { title: 'Disconnect all', message: `${n === 0 ? 'Nothing was connected.' : `Disconnected ${n} server${n === 1 ? '' : 's'}.`}${skipped}`, failed: 0 };
  }
  if (servers.length === 0) return { title: 'Connect all', message: `Every enabled server was already connected.${skipped}`, failed: 0 };
  const connected = servers.filter((s) => s.state === 'connected');
  const retrying = servers.filter((s) => s.state === 'reconnecting' || s.state === 'connecting');
  const failed = servers.filter((s) => s.state === 'error' || s.state === 'disconnected');
  const parts = [`Connected ${connected.length} of ${servers.length}.`];
  if (retrying.length) parts.push(`Still trying: ${retrying.map((s) => s.name).join(', ')}.`);
  if (failed.length) parts.push(`Failed: ${failed.map((s) => s.name).join(', ')} (the reason is under each server).`);
  return { title: 'Connect all', message: parts.join(' ') + skipped, failed: failed.length + retrying.length };
}
