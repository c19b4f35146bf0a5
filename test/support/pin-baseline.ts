/**
 * What a person does in the app before a CLI run compares with a baseline: a core whose data
 * directory is `dir` adds the server, connects it and pins its interface (baselines.json there).
 */
import { expect } from 'vitest';
import type { ServerConfigInput } from '../../contract';
import { createCore } from '../../main/core/app';
import { ConfSettingsStore } from '../../main/core/store/conf-settings';
import { call } from './core-calls';

export async function pinBaselineIn(dir: string, name: string, target: ServerConfigInput['target']): Promise<void> {
  const core = createCore({ settings: new ConfSettingsStore({ cwd: dir }), carrier: 'browser', version: 't', connectAtStart: false, recordings: false });
  try {
    const { id } = await call(core, 'addServer', { name, target, pingIntervalSec: 0 });
    expect((await call(core, 'connectServer', { id })).state).toBe('connected');
    await call(core, 'baselinePin', { serverId: id });
  } finally {
    await core.shutdown();
  }
}
