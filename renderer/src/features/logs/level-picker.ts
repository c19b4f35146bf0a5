/** Whether a server gets a `logging/setLevel` picker, and if not, why (pure: unit-tested). */
import type { ServerStatus } from '../../../../contract';

export interface LevelPicker {
  settable: boolean;
  /** In the picker's place. */
  short?: string;
  /** The sentence that says why. */
  reason?: string;
}

export function levelPickerFor(server: Pick<ServerStatus, 'state' | 'era' | 'serverCapabilities'>): LevelPicker {
  if (server.state !== 'connected') return { settable: false, short: 'not connected', reason: 'Connect the server first.' };
  if (server.serverCapabilities && !server.serverCapabilities.includes('logging')) {
    return { settable: false, short: 'no logging', reason: 'This server did not declare the logging capability at initialize: it sends no log notifications, and logging/setLevel would be refused (Method not found).' };
  }
  if (server.era === 'modern') return { settable: false, short: 'n/a (modern era)', reason: 'not in this era: the modern era has no logging/setLevel — the level travels with each request.' };
  return { settable: true };
}
