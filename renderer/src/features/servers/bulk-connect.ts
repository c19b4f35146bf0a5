/** "Connect all" / "Disconnect all" (the sidebar's buttons and the command palette), with one notification saying what happened. */
import { notifications } from '@mantine/notifications';
import type { SwitchboardApi } from '../../../../contract/client';
import { bulkSummary } from './bulk-summary';

export async function bulkConnect(api: SwitchboardApi, what: 'connect' | 'disconnect'): Promise<void> {
  try {
    const result = what === 'connect' ? await api.connectAll() : await api.disconnectAll();
    const summary = bulkSummary(what, result.servers, result.skippedDisabled);
    // A failure stays until it is read; a plain success goes by itself.
    notifications.show({ color: summary.failed ? 'yellow' : undefined, title: summary.title, message: summary.message, autoClose: summary.failed ? false : 6_000, 'data-testid': 'servers-bulk-notice' });
  } catch (error) {
    notifications.show({ color: 'red', title: `${what === 'connect' ? 'Connect' : 'Disconnect'} all failed`, message: error instanceof Error ? error.message : String(error) });
  }
}
