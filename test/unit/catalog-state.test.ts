/** The CatalogIndex over each server's CatalogState: what changes the merged catalog, and what does not. */
import { describe, expect, it } from 'vitest';
import { CatalogIndex, EMPTY_LISTS, type ServerLists } from '../../main/core/catalog/catalog-state';

const lists = (...tools: string[]): ServerLists => ({ ...EMPTY_LISTS, tools: tools.map((name) => ({ name, inputSchema: { type: 'object' as const } })) });

describe('CatalogIndex', () => {
  it('returns the same catalog until a state changes, and an update that changes nothing is no change', () => {
    const index = new CatalogIndex();
    const files = index.track('1', 'files');
    const web = index.track('2', 'web');
    const filesLists = lists('read', 'search');
    files.update({ name: 'files', lists: filesLists, offered: true });
    web.update({ name: 'web', lists: lists('search'), offered: true });

    const first = index.current();
    expect(first.tools.map((t) => t.name)).toEqual(['files__read', 'files__search', 'web__search']);
    expect(first.collisions).toEqual({ search: ['files__search', 'web__search'] });
    expect(index.current()).toBe(first);
    files.update({ name: 'files', lists: filesLists, offered: true });
    expect(index.current()).toBe(first);
    expect(index.counts.builds).toBe(1);
  });

  it('rebuilds after a list changes, reusing the unchanged servers’ entries', () => {
    const index = new CatalogIndex();
    const files = index.track('1', 'files');
    const web = index.track('2', 'web');
    files.update({ name: 'files', lists: lists('read'), offered: true });
    web.update({ name: 'web', lists: lists('fetch'), offered: true });
    const before = index.current();

    web.update({ name: 'web', lists: lists('fetch', 'post'), offered: true });
    const after = index.current();
    expect(after).not.toBe(before);
    expect(after.tools.map((t) => t.name)).toEqual(['files__read', 'web__fetch', 'web__post']);
    expect(after.tools[0]).toBe(before.tools[0]);
    expect(index.counts.builds).toBe(2);
  });

  it('offers only servers that are connected or idle, and forgets an untracked one', () => {
    const index = new CatalogIndex();
    const files = index.track('1', 'files');
    index.track('2', 'web').update({ name: 'web', lists: lists('fetch'), offered: true });
    files.update({ name: 'files', lists: lists('read'), offered: false });
    expect(index.current().tools.map((t) => t.name)).toEqual(['web__fetch']);
    files.update({ name: 'files', lists: lists('read'), offered: true });
    expect(index.current().tools.map((t) => t.name)).toEqual(['files__read', 'web__fetch']);
    index.untrack('2');
    expect(index.current().tools.map((t) => t.name)).toEqual(['files__read']);
  });

  it('keeps the slugs of every server, offered or not, until a name or the set of servers changes', () => {
    const index = new CatalogIndex();
    const a = index.track('a', 'My Server');
    index.track('b', 'my-server');
    const slugs = index.slugsOfAll();
    expect(slugs.get('a')).toBe('my-server');
    expect(slugs.get('b')).toMatch(/^my-server-[0-9a-f]{4}$/);
    a.update({ name: 'My Server', lists: lists('x'), offered: true });
    expect(index.slugsOfAll()).toBe(slugs);
    a.update({ name: 'Other', lists: lists('x'), offered: true });
    expect(index.slugsOfAll().get('a')).toBe('other');
    expect(index.slugsOfAll().get('b')).toBe('my-server');
    expect(index.counts.slugs).toBe(2);
  });

  it('ignores a replaced state’s updates (a server added again under its id)', () => {
    const index = new CatalogIndex();
    const old = index.track('1', 'files');
    index.track('1', 'files').update({ name: 'files', lists: lists('new'), offered: true });
    const catalog = index.current();
    old.update({ name: 'files', lists: lists('stale'), offered: true });
    expect(index.current()).toBe(catalog);
    expect(catalog.tools.map((t) => t.name)).toEqual(['files__new']);
  });
});
