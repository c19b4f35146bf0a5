/** The server__tool naming rules: 64-character cap, stable unique truncation, slug collisions, resolution. */
import { describe, expect, it } from 'vitest';
import { buildCatalog, resolveName, type CatalogServer } from '../../main/core/catalog/catalog';
import { MAX_NAME_LENGTH, namespacedName, serverSlug, uniqueSlugs } from '../../main/core/catalog/names';

const tool = (name: string) => ({ name, inputSchema: { type: 'object' as const } });
const server = (id: string, name: string, tools: string[]): CatalogServer => ({
  id,
  name,
  lists: { tools: tools.map(tool), prompts: [], resources: [], resourceTemplates: [] },
});

describe('names', () => {
  it('slugs server names for tool names', () => {
    expect(serverSlug('My Files!')).toBe('my-files');
    expect(serverSlug('GitHub (work)')).toBe('github-work');
    expect(serverSlug('___')).toBe('server');
    expect(serverSlug('a__b')).toBe('a_b');
    expect(namespacedName('fs', 'read_file')).toBe('fs__read_file');
  });

  it('caps names at 64 characters with a stable hash suffix, and truncated names never collide', () => {
    const long = 'a'.repeat(70);
    const one = namespacedName('server', `${long}_one`);
    const two = namespacedName('server', `${long}_two`);
    expect(one).toHaveLength(MAX_NAME_LENGTH);
    expect(two).toHaveLength(MAX_NAME_LENGTH);
    expect(one).not.toBe(two);
    expect(one.slice(0, 57)).toBe(two.slice(0, 57));
    expect(namespacedName('server', `${long}_one`)).toBe(one); // stable
    expect(one).toMatch(/_[0-9a-f]{6}$/);
    const exactly = namespacedName('s', 'x'.repeat(61));
    expect(exactly).toBe(`s__${'x'.repeat(61)}`); // 64 exactly: untouched
  });

  it('gives servers whose names make the same slug distinct, stable slugs', () => {
    const slugs = uniqueSlugs([
      { id: 'b', name: 'My Server' },
      { id: 'a', name: 'my-server' },
    ]);
    expect(slugs.get('a')).toBe('my-server');
    expect(slugs.get('b')).toMatch(/^my-server-[0-9a-f]{4}$/);
    expect(uniqueSlugs([{ id: 'b', name: 'My Server' }, { id: 'a', name: 'my-server' }]).get('b')).toBe(slugs.get('b'));
  });
});

describe('catalog', () => {
  const catalog = buildCatalog([server('1', 'files', ['read', 'search']), server('2', 'web', ['search', 'fetch']), server('3', 'db', ['query'])]);

  it('lists every tool namespaced and reports bare-name collisions', () => {
    expect(catalog.tools.map((t) => t.name)).toEqual(['files__read', 'files__search', 'web__search', 'web__fetch', 'db__query']);
    expect(catalog.collisions).toEqual({ search: ['files__search', 'web__search'] });
    expect(catalog.tools.find((t) => t.name === 'web__search')!.collidesWith).toEqual(['files__search']);
    expect(catalog.tools.find((t) => t.name === 'db__query')!.collidesWith).toBeUndefined();
  });

  it('resolves exact names, known-server prefixes, and unique bare names', () => {
    const find = (name: string, serverId?: string) => resolveName(catalog.tools, catalog.slugs, name, 'tool', serverId);
    expect(find('web__fetch').originalName).toBe('fetch');
    expect(find('fetch').name).toBe('web__fetch');
    expect(find('query').serverId).toBe('3');
    expect(find('search', '2').name).toBe('web__search');
  });

  it('refuses an ambiguous bare name, listing the candidates — never first-one-wins', () => {
    expect(() => resolveName(catalog.tools, catalog.slugs, 'search', 'tool')).toThrow('Tool "search" exists on several servers: files__search, web__search. Use a namespaced name.');
  });

  it('says which server lacks a tool, and when nobody has it', () => {
    expect(() => resolveName(catalog.tools, catalog.slugs, 'db__drop', 'tool')).toThrow('Server "db" has no tool named "drop".');
    expect(() => resolveName(catalog.tools, catalog.slugs, 'nothing', 'tool')).toThrow('No connected server offers a tool named "nothing".');
  });

  it('resolves a tool whose namespaced name was truncated, by its server prefix and full bare name', () => {
    const longName = `tool_${'x'.repeat(80)}`;
    const big = buildCatalog([server('1', 'files', [longName])]);
    const entry = big.tools[0]!;
    expect(entry.name).toHaveLength(64);
    expect(resolveName(big.tools, big.slugs, entry.name, 'tool').originalName).toBe(longName);
    expect(resolveName(big.tools, big.slugs, `files__${longName}`, 'tool').originalName).toBe(longName);
  });

  it('keeps other servers intact when one server lists nothing', () => {
    const partial = buildCatalog([server('1', 'ok', ['a']), server('2', 'failing', [])]);
    expect(partial.tools.map((t) => t.name)).toEqual(['ok__a']);
  });
});
