/**
 * A real recording process for the crash test (test/integration/recording-crash.test.ts): a core
 * with a file-backed data dir, connected to the everything fixture over stdio, calling its `flood`
 * tool. It prints its recording's progress as JSON lines (`{"appended","events","written","synced"}`)
 * every few milliseconds, with a synchronous write, until it is killed.
 *
 *   node --import tsx recording-child.ts DATA_DIR COUNT
 */
import { writeSync } from 'node:fs';
import { createCore } from '../../../main/core/app';
import { ConfSettingsStore } from '../../../main/core/store/conf-settings';
import { stdioFixtureCommand } from '../../fixtures/everything/harness';

const [dataDir, countText] = process.argv.slice(2);
const count = Number(countText ?? '20000');
const core = createCore({ settings: new ConfSettingsStore({ cwd: dataDir! }), carrier: 'browser', version: 'crash-test', connectAtStart: false });
const say = (value: unknown) => writeSync(1, JSON.stringify(value) + '\n');

async function main(): Promise<void> {
  const live = core.liveRecording;
  if (!live) throw new Error('no live recording');
  say({ id: live.id });
  const added = await core.dispatch('addServer', { name: 'everything', target: { type: 'stdio', ...stdioFixtureCommand() } });
  if (!added.ok) throw new Error(added.error.message);
  const id = (added.result as { id: string }).id;
  const connected = await core.dispatch('connectServer', { id });
  if (!connected.ok) throw new Error(connected.error.message);
  setInterval(() => say({ appended: core.trace.store.size, ...live.progress() }), 5);
  say({ flooding: count });
  const done = await core.dispatch('callTool', { tool: 'everything__flood', args: { count } });
  say({ flooded: done.ok });
}

main().catch((error: unknown) => {
  say({ error: error instanceof Error ? error.message : String(error) });
  process.exit(1);
});
