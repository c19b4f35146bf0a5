/**
 * Server lists from people: 10,000 entries, a megabyte in one field, garbage of every kind.
 * Each gets a message that says what was wrong; problems are listed up to a bound and the rest
 * counted; the servers already there are kept and the app still answers.
 */
import { describe, expect, it } from 'vitest';
import { createCore } from '../../main/core/app';
import { CONFIG_IMPORT_LIMITS, parseServerFile } from '../../main/core/config/import';
import { MemorySettingsStore } from '../../main/core/store/settings';

const entry = (i: number) => [`s${i}`, { command: 'node', args: ['server.js', String(i)] }] as const;
const file = (entries: (readonly [string, unknown])[]) => JSON.stringify({ mcpServers: Object.fromEntries(entries) });

describe('parseServerFile with hostile input', () => {
  it('refuses a file of 10,000 servers as a whole, saying how many and the limit', () => {
    const text = file(Array.from({ length: 10_000 }, (_, i) => entry(i)));
    expect(() => parseServerFile(text)).toThrow(/^The file lists 10,000 servers; an import takes at most 200 .* Nothing was imported/);
  });

  it('a megabyte in one field: that entry is refused with the field named, the others import', () => {
    const text = file([entry(1), ['huge', { command: 'node', args: ['x', 'a'.repeat(1024 * 1024)] }], ['huge-env', { command: 'node', env: { K: 'b'.repeat(1024 * 1024) } }], entry(2)]);
    const result = parseServerFile(text);
    expect(result.servers.map((s) => s.name)).toEqual(['s1', 's2']);
    expect(result.problems).toEqual([
      { name: 'huge', message: 'args.1 is 1024 K characters long; a field may have at most 64 K' },
      { name: 'huge-env', message: 'env.K is 1024 K characters long; a field may have at most 64 K' },
    ]);
  });

  it('a megabyte-long name is quoted short', () => {
    const result = parseServerFile(file([['n'.repeat(1024 * 1024), { command: 'node' }]]));
    expect(result.servers).toEqual([]);
    expect(result.problems).toHaveLength(1);
    expect(result.problems[0]!.name.length).toBeLessThanOrEqual(CONFIG_IMPORT_LIMITS.nameChars + 1);
    expect(result.problems[0]!.message).toMatch(/name must be at most 120 characters/);
  });

  it('lists at most 50 problems, then counts the rest', () => {
    const entries: (readonly [string, unknown])[] = Array.from({ length: 180 }, (_, i) => [`bad${i}`, { url: 42 }] as const);
    const result = parseServerFile(file([...entries, entry(1)]));
    expect(result.servers.map((s) => s.name)).toEqual(['s1']);
    expect(result.problems).toHaveLength(51);
    expect(result.problems[0]).toEqual({ name: 'bad0', message: 'entry needs a "command" (stdio) or a "url" (HTTP)' });
    expect(result.problems[50]).toEqual({ name: 'and 130 more', message: '130 more entries could not be imported (not listed)' });
  });

  it('an entry nested thousands of levels deep is refused by name', () => {
    const deep = JSON.parse('{"a":'.repeat(3000) + '1' + '}'.repeat(3000));
    const result = parseServerFile(file([['deep', { command: 'node', env: deep }], entry(1)]));
    expect(result.servers.map((s) => s.name)).toEqual(['s1']);
    expect(result.problems).toEqual([{ name: 'deep', message: 'entry is nested deeper than 64 levels' }]);
  });

  it.each([
    ['\u0089PNG\r\n\u001a\n\u0000\u0000\u0000\rIHDR', /^This is binary data .*not a JSON server list/],
    ['{"format":"switchboard-trace","version":1}\n{"seq":1}\n', /^This is a Switchboard trace \(JSONL\), not a server list: open it under Traffic → Import/],
    ['{"mcpServers": ', /^Not valid JSON: .*Nothing was imported\.$/],
    ['[1, 2, 3]', /^Expected a JSON object with "mcpServers" or "servers"/],
    ['"just a string"', /^Expected a JSON object/],
    ['{"mcpServers": [1, 2]}', /^Expected "mcpServers" .* to be an object of named servers/],
  ])('garbage: %j', (text, message) => {
    expect(() => parseServerFile(text)).toThrow(message);
  });

  it('a JSON error on megabytes of garbage is quoted short', () => {
    let message = '';
    try {
      parseServerFile('{"mcpServers": {' + 'x'.repeat(2_000_000));
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/^Not valid JSON/);
    expect(message.length).toBeLessThan(400);
  });
});

describe('importServers through the dispatcher', () => {
  it('keeps the servers already there and stays usable after every hostile file', async () => {
    const core = createCore({ settings: new MemorySettingsStore(), carrier: 'browser', version: 'test' });
    try {
      const first = await core.dispatch('importServers', { text: file([entry(1)]) });
      expect(first).toMatchObject({ ok: true, result: { added: [expect.objectContaining({ name: 's1' })], problems: [] } });

      const many = await core.dispatch('importServers', { text: file(Array.from({ length: 10_000 }, (_, i) => entry(i + 10))) });
      expect(many).toMatchObject({ ok: false, error: { code: 'invalid-arguments', message: expect.stringMatching(/10,000 servers/) } });
      const huge = await core.dispatch('importServers', { text: file([['huge', { command: 'a'.repeat(1024 * 1024) }]]) });
      expect(huge).toMatchObject({ ok: true, result: { added: [], problems: [{ name: 'huge', message: expect.stringMatching(/^command is 1024 K characters long/) }] } });
      const garbage = await core.dispatch('importServers', { text: '\u0000\u0001\u0002' });
      expect(garbage).toMatchObject({ ok: false, error: { message: expect.stringMatching(/binary data/) } });

      const list = await core.dispatch('listServers', {});
      expect(list).toMatchObject({ ok: true, result: [expect.objectContaining({ name: 's1' })] });
      expect((list as { result: unknown[] }).result).toHaveLength(1);
    } finally {
      await core.shutdown();
    }
  });
});
