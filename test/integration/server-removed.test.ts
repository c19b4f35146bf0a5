/**
 * A server removed by one client is gone for every other: main says so (`serverRemoved`), as it
 * says a server changed state, so a second window, or a script on browser mode's socket, does
 * not keep showing a server that is no longer there.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { events as eventSchemas, EVENT_NAMES } from '../../contract';
import { createCore } from '../../main/core/app';
import { MemorySettingsStore } from '../../main/core/store/settings';

const core = createCore({ settings: new MemorySettingsStore(), carrier: 'browser', version: 'test' });

afterAll(() => core.shutdown());

describe('serverRemoved', () => {
  it('is pushed once when a server is removed, after which it is not listed; removing it again pushes nothing', async () => {
    const seen: { event: string; payload: unknown }[] = [];
    const stop = core.events.subscribe((event, payload) => seen.push({ event, payload }));
    const added = await core.dispatch('addServer', { name: 'to remove', target: { type: 'stdio', command: process.execPath, args: ['-e', ''] } });
    if (!added.ok) throw new Error(added.error.message);
    const { id } = added.result as { id: string };
    expect(await core.dispatch('removeServer', { id })).toEqual({ ok: true, result: { removed: true } });
    expect(await core.dispatch('removeServer', { id })).toEqual({ ok: true, result: { removed: false } });
    stop();
    const removed = seen.filter((e) => e.event === 'serverRemoved');
    expect(removed).toEqual([{ event: 'serverRemoved', payload: { id } }]);
    expect(EVENT_NAMES).toContain('serverRemoved');
    expect(eventSchemas.serverRemoved.parse(removed[0]!.payload)).toEqual({ id });
    const listed = await core.dispatch('listServers', {});
    expect(listed.ok && (listed.result as { id: string }[]).map((s) => s.id)).toEqual([]);
  });
});
