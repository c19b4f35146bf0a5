/**
 * Issue #17 item 2: a CatalogState per server, kept current by its connection. Tool calls in a
 * row rebuild nothing — no merged catalog, no slugs, no namespaced names (the naming module is
 * wrapped in spies that call the real functions) — and a notifications/tools/list_changed from a
 * real server (the `changing` fixture, which registers a tool when asked) makes the next call
 * see the new tool, rebuilding only that server's entries.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ServerStatus } from '../../contract';
import { createCore, type Core } from '../../main/core/app';
import * as names from '../../main/core/catalog/names';
import { MemorySettingsStore } from '../../main/core/store/settings';
import { stdioFixtureCommand } from '../fixtures/everything/harness';
import { tsxNodeArgs } from '../fixtures/spawn-listening';
import { call, until } from '../support/core-calls';

vi.mock('../../main/core/catalog/names', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../main/core/catalog/names')>();
  return { ...real, uniqueSlugs: vi.fn(real.uniqueSlugs), namespacedName: vi.fn(real.namespacedName) };
});

const CHANGING_MAIN = join(dirname(fileURLToPath(import.meta.url)), '../fixtures/changing/main.ts');
const CALLS = 25;

let core: Core;
let changingId: string;

/** How often the naming rules ran: slugs for a set of servers, and namespaced names. */
function naming() {
  return { slugs: vi.mocked(names.uniqueSlugs).mock.calls.length, names: vi.mocked(names.namespacedName).mock.calls.length };
}

beforeAll(async () => {
  core = createCore({ settings: new MemorySettingsStore(), carrier: 'browser', version: 't' });
  const everything = await call(core, 'addServer', { name: 'everything', target: { type: 'stdio', ...stdioFixtureCommand() } });
  const changing = await call(core, 'addServer', { name: 'changing', target: { type: 'stdio', command: process.execPath, args: tsxNodeArgs(CHANGING_MAIN, []) } });
  changingId = changing.id;
  await Promise.all([everything.id, changing.id].map((id) => call(core, 'connectServer', { id })));
  for (const c of core.connections.all()) expect(c.status().state, c.config.name).toBe('connected');
}, 60_000);

afterAll(async () => {
  await core?.shutdown();
});

describe('the catalog per server', () => {
  it(`makes ${CALLS} tool calls in a row without rebuilding the catalog or computing a slug`, async () => {
    expect((await call(core, 'listTools', {})).map((t) => t.name)).toEqual(expect.arrayContaining(['everything__echo', 'changing__add_tool']));
    // The first call after a change computes what the calls read (the catalog, every server's slug) once.
    await call(core, 'callTool', { tool: 'everything__echo', args: { text: 'first' } });
    const namingBefore = naming();
    const countsBefore = { ...core.connections.catalog.counts };

    for (let i = 0; i < CALLS; i++) {
      const reply = await call(core, 'callTool', { tool: i % 2 ? 'everything__echo' : 'echo', args: { text: `n${i}` } });
      expect((reply.result.content as { text: string }[])[0]!.text).toBe(`echo: n${i}`);
    }

    expect(naming()).toEqual(namingBefore);
    expect(core.connections.catalog.counts).toEqual(countsBefore);
  });

  it('sees a tool the server added (list_changed) on the next call, rebuilding only that server’s entries', async () => {
    await expect(call(core, 'callTool', { tool: 'changing__fresh', args: {} })).rejects.toThrow(/no tool named "fresh"/);
    expect((await call(core, 'callTool', { tool: 'changing__add_tool', args: { name: 'fresh' } })).result.content).toEqual([{ type: 'text', text: 'added fresh' }]);
    const namingBefore = naming();
    const countsBefore = { ...core.connections.catalog.counts };

    // The SDK refetches tools/list after the notification; the status's tool count says when it has.
    await until('the changing server to list its new tool', () => (core.connections.get(changingId)!.status().toolCount === 2 ? true : undefined));
    const reply = await call(core, 'callTool', { tool: 'changing__fresh', args: {} });
    expect(reply.result.content).toEqual([{ type: 'text', text: 'fresh from changing' }]);
    expect((await call(core, 'listTools', {})).filter((t) => t.serverId === changingId).map((t) => t.name)).toEqual(['changing__add_tool', 'changing__fresh']);

    // One rebuild for the one change: slugs of the connected servers once, the changing server's two
    // names; the everything fixture's entries are reused and the slugs of every server stay as they were.
    expect(core.connections.catalog.counts).toEqual({ builds: countsBefore.builds + 1, slugs: countsBefore.slugs });
    expect(naming()).toEqual({ slugs: namingBefore.slugs + 1, names: namingBefore.names + 2 });
  });

  it('drops a disconnected server from the catalog and offers it again after it reconnects', async () => {
    await call(core, 'disconnectServer', { id: changingId });
    expect((await call(core, 'listTools', {})).some((t) => t.serverId === changingId)).toBe(false);
    await expect(call(core, 'callTool', { tool: 'changing__add_tool', args: { name: 'x' } })).rejects.toThrow();
    const status: ServerStatus = await call(core, 'connectServer', { id: changingId });
    expect(status.state).toBe('connected');
    expect((await call(core, 'listTools', {})).filter((t) => t.serverId === changingId).map((t) => t.name)).toEqual(['changing__add_tool']);
  });
});
