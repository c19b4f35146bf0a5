/** What "Connect all" / "Disconnect all" say they did (renderer/src/features/servers/bulk-summary.ts). */
import { describe, expect, it } from 'vitest';
import { bulkSummary } from '../../renderer/src/features/servers/bulk-summary';

describe('bulk connect summary', () => {
  it('names who is still trying and who failed; a failure is flagged so the notice stays', () => {
    const summary = bulkSummary('connect', [{ name: 'a', state: 'connected' }, { name: 'b', state: 'reconnecting' }, { name: 'c', state: 'error' }], 1);
    expect(summary.message).toBe('Connected 1 of 3. Still trying: b. Failed: c (the reason is under each server). 1 disabled server was skipped.');
    expect(summary.failed).toBe(2);
  });

  it('all connected, nothing to do, and a disconnect', () => {
    expect(bulkSummary('connect', [{ name: 'a', state: 'connected' }], 0)).toEqual({ title: 'Connect all', message: 'Connected 1 of 1.', failed: 0 });
    expect(bulkSummary('connect', [], 2).message).toBe('Every enabled server was already connected. 2 disabled servers were skipped.');
    expect(bulkSummary('disconnect', [{ name: 'a', state: 'disconnected' }, { name: 'b', state: 'disconnected' }], 0).message).toBe('Disconnected 2 servers.');
    expect(bulkSummary('disconnect', [], 0).message).toBe('Nothing was connected.');
  });
});
