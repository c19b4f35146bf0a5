/**
 * #18 item 4: a server that lists 10,000 tools all named `same` (a real process) must not make
 * the catalog quadratic, nor cost every call a rebuild. A call to a *different* server reuses
 * the catalog (the same object comes back through the contract) and memory stays flat.
 * Times are printed, never asserted.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerStatus } from '../../contract';
import { createCore, type Core } from '../../main/core/app';
import type { CatalogTool } from '../../main/core/catalog/catalog';
import { MemorySettingsStore } from '../../main/core/store/settings';
import { auditStdioCommand } from '../fixtures/audit/strings';

const MIB = 1024 * 1024;
const SAME = 10_000;
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

let core: Core;

async function ok<T>(method: string, args: unknown): Promise<T> {
  const reply = await core.dispatch(method, args);
  if (!reply.ok) throw new Error(`${method}: ${reply.error.message}`);
  return reply.result as T;
}

beforeAll(async () => {
  core = createCore({ settings: new MemorySettingsStore(), carrier: 'browser', version: 't' });
  const big = auditStdioCommand(['--same-tools', String(SAME)]);
  const small = auditStdioCommand();
  const ids = [
    (await ok<ServerStatus>('addServer', { name: 'big', target: { type: 'stdio', ...big } })).id,
    (await ok<ServerStatus>('addServer', { name: 'small', target: { type: 'stdio', ...small } })).id,
    (await ok<ServerStatus>('addServer', { name: 'other', target: { type: 'stdio', ...small } })).id,
  ];
  await Promise.all(ids.map((id) => ok('connectServer', { id })));
  for (const c of core.connections.all()) expect(c.status().state, c.config.name).toBe('connected');
}, 60_000);

afterAll(async () => {
  await core?.shutdown();
});

describe('catalog with 10,000 same-named tools', () => {
  it('calls another server without rebuilding the catalog, in flat memory', async () => {
    gc();
    const rssBefore = process.memoryUsage().rss;
    let started = performance.now();
    const tools = await ok<CatalogTool[]>('listTools', {});
    const firstListMs = performance.now() - started;
    expect(tools.filter((t) => t.originalName === 'same')).toHaveLength(SAME);

    started = performance.now();
    const call = await ok<{ result: { content: { text: string }[] } }>('callTool', { tool: 'small__echo', args: { x: 1 } });
    const callMs = performance.now() - started;
    expect(call.result.content[0]!.text).toBe('{"x":1}');

    // The call did not rebuild it: the very same catalog comes back.
    expect(await ok<CatalogTool[]>('listTools', {})).toBe(tools);
    gc();
    const rssAfter = process.memoryUsage().rss;
    console.log(
      `catalog: ${tools.length} tools; first listTools ${firstListMs.toFixed(1)} ms, call to small__echo ${callMs.toFixed(1)} ms; ` +
        `RSS ${(rssBefore / MIB).toFixed(0)} → ${(rssAfter / MIB).toFixed(0)} MiB`,
    );
    expect(rssAfter - rssBefore).toBeLessThan(100 * MIB);
  }, 120_000);

  it('reports the duplicates of one server as no collision, and a name on two servers as one, linearly', async () => {
    const collisions = await ok<Record<string, string[]>>('toolCollisions', {});
    expect(collisions.same).toBeUndefined();
    expect(collisions.echo!.sort()).toEqual(['big__echo', 'other__echo', 'small__echo']);
    const tools = await ok<CatalogTool[]>('listTools', {});
    const same = tools.filter((t) => t.originalName === 'same');
    expect(same.every((t) => t.collidesWith === undefined)).toBe(true);
    expect(tools.find((t) => t.name === 'small__echo')!.collidesWith!.sort()).toEqual(['big__echo', 'other__echo']);
  });

  it('rebuilds when a server leaves, and only then', async () => {
    const before = await ok<CatalogTool[]>('listTools', {});
    const other = core.connections.all().find((c) => c.config.name === 'other')!;
    await ok('disconnectServer', { id: other.id });
    const after = await ok<CatalogTool[]>('listTools', {});
    expect(after).not.toBe(before);
    expect(after.some((t) => t.serverName === 'other')).toBe(false);
    expect(after.find((t) => t.name === 'small__echo')!.collidesWith).toEqual(['big__echo']);
    expect(await ok<CatalogTool[]>('listTools', {})).toBe(after);
  });
});
