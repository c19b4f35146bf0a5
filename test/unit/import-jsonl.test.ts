/**
 * The JSONL importer's words for every kind of bad file: what was wrong, on which lines, how
 * many events were kept; and its reading: chunk boundaries anywhere (inside a line, inside a
 * UTF-8 character), CRLF, limits on a line, a file and the problems listed.
 */
import { describe, expect, it } from 'vitest';
import { LIMITS, depthOf, isTruncationMarker } from '../../contract/bounded-json';
import type { TraceEvent } from '../../contract/trace';
import { NotATraceError, importJsonl, textChunks, topLevelValue, type ImportOptions } from '../../main/core/trace/import-jsonl';
import { exchangeLines, traceHeader } from '../integration/support/big-trace';

function trace(exchanges: number, padding = 'body'): string[] {
  const lines = [traceHeader(exchanges * 3)];
  for (let i = 0; i < exchanges; i++) lines.push(...exchangeLines(i, padding, i * 3 + 1));
  return lines;
}

async function run(input: string | Buffer | (string | Buffer)[], options: Partial<ImportOptions> = {}) {
  const events: TraceEvent[] = [];
  const chunks = Array.isArray(input) ? input : [input];
  const summary = await importJsonl(chunks, { name: 'f.jsonl', onEvent: (e) => events.push(e), ...options });
  return { ...summary, list: events };
}

async function refusal(input: string | Buffer, options: Partial<ImportOptions> = {}): Promise<string> {
  try {
    await run(input, options);
  } catch (error) {
    expect(error).toBeInstanceOf(NotATraceError);
    return (error as Error).message;
  }
  throw new Error('the input was accepted');
}

describe('a good trace', () => {
  it('reads every event, whatever the chunk boundaries (one byte at a time, inside a UTF-8 character)', async () => {
    const lines = trace(5, 'héllo wörld — ✓ 𝄞');
    const text = lines.join('\n') + '\n';
    const whole = await run(text);
    expect(whole.events).toBe(15);
    expect(whole.problems).toEqual([]);
    const bytes = Buffer.from(text);
    const split = await run([...bytes].map((b) => Buffer.from([b])));
    expect(split.list).toEqual(whole.list);
    expect(JSON.stringify(split.list[2]!.body)).toContain('𝄞');
  });

  it('takes CRLF line ends and a last line without a newline', async () => {
    const summary = await run(trace(2).join('\r\n'));
    expect(summary.events).toBe(6);
    expect(summary.problems).toEqual([]);
  });

  it('textChunks cuts a text at line ends and loses nothing', () => {
    const text = trace(50, '𝄞'.repeat(100)).join('\n');
    const pieces = [...textChunks(text, 1000)];
    expect(pieces.length).toBeGreaterThan(10);
    expect(pieces.join('')).toBe(text);
    for (const piece of pieces.slice(0, -1)) expect(piece.endsWith('\n')).toBe(true);
  });
});

describe('damaged traces keep what can be read', () => {
  it('a torn last line: named as a cut-off file, the events before it kept, the header count compared', async () => {
    const text = trace(4).join('\n');
    const summary = await run(text.slice(0, -25));
    expect(summary.events).toBe(11);
    expect(summary.problems).toEqual([
      { line: 13, message: expect.stringMatching(/^the file ends in the middle of this line \(.* without a line end\): it was cut off.*the 11 events before it were kept$/) },
      { line: 1, message: 'the header announces 12 events; 11 were read (the file may be cut off or damaged)' },
    ]);
  });

  it('corrupt lines in the middle: each by number and why, the rest kept', async () => {
    const lines = trace(4);
    lines[2] = '{"seq":2,';
    lines[5] = '{"seq":5,"ts":1,"server":"s","channel":"post-json","kind":"nope","dir":"up"}';
    lines[7] = '[1,2,3]';
    const summary = await run(lines.join('\n') + '\n');
    expect(summary.events).toBe(9);
    expect(summary.problems.map((p) => p.line)).toEqual([3, 6, 8, 1]);
    expect(summary.problems[0]!.message).toMatch(/^not JSON \(.+\): skipped$/);
    expect(summary.problems[1]!.message).toMatch(/^not a trace event \(kind: .+; dir: .+\): skipped$/);
    expect(summary.problems[2]!.message).toBe('not a JSON object ("[1,2,3]"; an event is one {…} a line): skipped');
  });

  it('a line over the line limit is skipped without being held, and the next lines still read', async () => {
    const lines = trace(3);
    lines[4] = JSON.stringify({ ...JSON.parse(lines[4]!), body: 'z'.repeat(50_000) });
    const summary = await run(lines.join('\n') + '\n', { maxLineBytes: 10_000 });
    expect(summary.events).toBe(8);
    expect(summary.problems[0]).toEqual({ line: 5, message: expect.stringMatching(/^line is 49 KiB long, over the 10 KiB a trace line may have: skipped$/) });
  });

  it('a file over the size limit: reading stops there, with what was kept', async () => {
    const text = trace(100).join('\n') + '\n';
    const summary = await run(text, { maxBytes: 20_000 });
    expect(summary.stoppedAtLimit).toBe(true);
    expect(summary.bytes).toBe(20_000);
    expect(summary.events).toBeGreaterThan(10);
    expect(summary.events).toBeLessThan(300);
    expect(summary.problems).toEqual([
      { line: summary.events + 2, message: `the file is larger than the 20 KiB an import may have: reading stopped at line ${summary.events + 2}; the ${summary.events} events before it were kept, the rest of the file was not opened` },
    ]);
  });

  it('a file of mostly unreadable lines: reading stops after 10,000 of them, with what was kept', async () => {
    const good = trace(3).slice(1);
    const lines = [traceHeader(0), ...good, ...Array.from({ length: 30_000 }, (_, i) => (i % 2 ? `{bad ${i}` : `garbage ${i}`))];
    const summary = await run(lines.join('\n'));
    expect(summary.gaveUp).toBe(true);
    expect(summary.events).toBe(9);
    expect(summary.problems).toHaveLength(102);
    expect(summary.problems[100]).toEqual({ line: 111, message: 'and 9,900 more problems (lines 111–10,010) not listed' });
    expect(summary.problems[101]).toEqual({
      line: 10_011,
      message: '10,000 lines could not be read and only 9 events could: this file is mostly not a trace, so reading stopped at line 10,011; the 9 events before it were kept',
    });
  });

  it('lists at most 100 problems, then counts the rest', async () => {
    const lines = [traceHeader(0), ...Array.from({ length: 250 }, (_, i) => `garbage ${i}`)];
    const summary = await run(lines.join('\n'));
    expect(summary.events).toBe(0);
    expect(summary.problems).toHaveLength(101);
    expect(summary.problems[99]!.line).toBe(101);
    expect(summary.problems[100]).toEqual({ line: 102, message: 'and 150 more problems (lines 102–251) not listed' });
  });

  it('an event nested thousands of levels deep is cut to the carried depth with a marker, and said so', async () => {
    const lines = trace(1);
    const deep = '['.repeat(5000) + ']'.repeat(5000);
    lines[3] = lines[3]!.replace(/"body":\{/, `"body":{"deep":${deep},`);
    const summary = await run(lines.join('\n'));
    expect(summary.events).toBe(3);
    const event = summary.list[2]!;
    expect(depthOf(event.body)).toBeLessThanOrEqual(LIMITS.carriedDepth);
    let node: unknown = (event.body as { deep: unknown }).deep;
    while (Array.isArray(node)) node = node[0];
    expect(isTruncationMarker(node)).toBe(true);
    // The body's text is kept whole for exports, as the live trace keeps it.
    expect(depthOf(JSON.parse(event.raw!))).toBe(5001);
    expect(lines[3]!.includes(`"body":${event.raw}`)).toBe(true);
    expect(summary.problems).toEqual([{ line: 4, message: `nested deeper than ${LIMITS.carriedDepth} levels: the deeper part is shown as a marker (the file is unchanged, and exports write the body whole)` }]);
  });

  it('a field other than the body nested thousands of levels deep is cut at the event depth', async () => {
    const lines = trace(1);
    lines[1] = lines[1]!.replace(/"http":\{/, `"meta":{"x":${'['.repeat(3000)}${']'.repeat(3000)}},"http":{`);
    const summary = await run(lines.join('\n'));
    expect(summary.events).toBe(3);
    expect(depthOf(summary.list[0]!)).toBeLessThanOrEqual(LIMITS.carriedDepth + 2);
    expect(summary.problems).toEqual([{ line: 2, message: `nested deeper than ${LIMITS.carriedDepth} levels: the deeper part is shown as a marker (the file is unchanged)` }]);
  });
});

describe('topLevelValue', () => {
  it('finds a member of the outer object as written, never one nested or inside a string', () => {
    const text = '{"a":{"body":1},"s":"\\"body\\":2,","body" : [ {"x":"}"} , 3 ] ,"z":null}';
    expect(topLevelValue(text, 'body')).toBe('[ {"x":"}"} , 3 ]');
    expect(topLevelValue('{"x":1,"body":"t\\"}"}', 'body')).toBe('"t\\"}"');
    expect(topLevelValue('{"body":{}}', 'body')).toBe('{}');
    expect(topLevelValue('{"a":{"body":1}}', 'body')).toBeUndefined();
  });
});

describe('files that are not traces say what they are', () => {
  const OPEN = /Open a \.jsonl trace exported by Switchboard/;

  it('empty, or blank lines only', async () => {
    expect(await refusal('')).toMatch(/^f\.jsonl is empty \(0 bytes\): there is nothing to open\./);
    expect(await refusal('\n\r\n   \n')).toMatch(/^f\.jsonl holds only blank lines/);
  });

  it('images, archives, compressed and binary data', async () => {
    const png = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.alloc(100, 1)]);
    expect(await refusal(png)).toMatch(/^f\.jsonl is a PNG image, not a Switchboard trace\./);
    expect(await refusal(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]))).toMatch(/is a JPEG image/);
    expect(await refusal(Buffer.from([0x1f, 0x8b, 8, 0, 0, 0]))).toMatch(/is gzip-compressed \(decompress it first/);
    expect(await refusal(Buffer.from('PK\x03\x04rest'))).toMatch(/is a ZIP archive/);
    expect(await refusal(Buffer.from([1, 2, 3, 0, 5, 10, 6]))).toMatch(/is binary data, not a Switchboard trace/);
    // A PNG with no line end for megabytes is still named as a PNG, not as a long line.
    expect(await refusal(Buffer.concat([png, Buffer.alloc(30_000, 2)]), { maxLineBytes: 10_000 })).toMatch(/is a PNG image/);
  });

  it('a HAR, pretty-printed or on one line', async () => {
    const har = { log: { version: '1.2', creator: { name: 'x', version: '1' }, entries: [] } };
    expect(await refusal(JSON.stringify(har, null, 2))).toMatch(/^f\.jsonl looks like a HAR file\. Switchboard exports HAR for other tools but opens only its own JSONL traces/);
    expect(await refusal(JSON.stringify(har))).toMatch(/looks like a HAR file/);
  });

  it('a server configuration, another JSON document, plain text', async () => {
    expect(await refusal('{\n  "mcpServers": {}\n}')).toMatch(/looks like a server configuration file, not a trace: import it under Servers → Import/);
    expect(await refusal('{"servers":{"a":{}}}')).toMatch(/server configuration/);
    expect(await refusal('{\n  "name": "x"\n}')).toMatch(/is a JSON document spread over several lines, not JSON Lines/);
    expect(await refusal('{"name":"x","size":3}\n')).toMatch(/line 1 is JSON \(keys name, size\) but not a Switchboard trace header/);
    expect(await refusal('42\n')).toMatch(/line 1 is a bare JSON value/);
    const text = await refusal('Hello, this is a README\nwith two lines');
    expect(text).toMatch(/^f\.jsonl: line 1 is not JSON \("Hello, this is a README"\): not a Switchboard trace\./);
    expect(text).toMatch(OPEN);
  });

  it('a trace whose start is missing, a damaged header, a newer version', async () => {
    expect(await refusal(trace(2).slice(1).join('\n'))).toMatch(/line 1 is a trace event, not the trace header: the start of the file is missing/);
    const header = JSON.parse(trace(0)[0]!);
    expect(await refusal(JSON.stringify({ ...header, eventCount: 'many' }))).toMatch(/line 1 is a Switchboard trace header, but a damaged one \(eventCount: /);
    expect(await refusal(JSON.stringify({ ...header, version: 7 }))).toMatch(/trace format version 7 is newer than this Switchboard understands \(1\)/);
  });

  it('a first line longer than the line limit', async () => {
    expect(await refusal('x'.repeat(30_000), { maxLineBytes: 10_000 })).toMatch(/its first line is 29 KiB long, far longer than a trace header/);
  });
});

describe("through the core's bulk streams (what the HTTP routes and main's file dialogs use)", () => {
  it('opens the same trace with the same problems, and exports it back line for line', async () => {
    const { createCore } = await import('../../main/core/app');
    const { MemorySettingsStore } = await import('../../main/core/store/settings');
    const core = createCore({ settings: new MemorySettingsStore(), carrier: 'electron', version: 'test' });
    try {
      const lines = trace(30);
      const torn = lines.join('\n').slice(0, -10);
      const reply = await core.traceBulk.importStream('torn.jsonl', textChunks(torn));
      expect(reply).toMatchObject({ source: 'import-1', events: 89, servers: [{ id: 'srv-bulk', name: 'bulk' }] });
      expect(reply.problems.map((p) => p.line)).toEqual([91, 1]);
      expect(reply.problems[0]!.message).toMatch(/^the file ends in the middle of this line/);

      const whole = await core.traceBulk.importStream('whole.jsonl', textChunks(lines.join('\n') + '\n'));
      expect(whole).toMatchObject({ source: 'import-2', events: 90, problems: [] });
      const text = [...core.traceBulk.exportStream('jsonl', 'import-2').chunks].join('');
      expect(text.split('\n').slice(1)).toEqual([...lines.slice(1), '']);
      expect(JSON.parse(text.split('\n')[0]!)).toMatchObject({ eventCount: 90, servers: [expect.objectContaining({ id: 'srv-bulk', name: 'bulk' })] });
      const har = [...core.traceBulk.exportStream('har', 'import-2').chunks].join('');
      expect(JSON.parse(har).log.entries).toHaveLength(30);

      // A PNG whose first byte was read as text (not UTF-8).
      await expect(core.traceBulk.importStream('x.png', textChunks('\uFFFDPNG\r\n\u001a\n'))).rejects.toMatchObject({ code: 'invalid-arguments', message: expect.stringMatching(/x\.png is binary data, not a Switchboard trace.*Nothing was opened\.$/) });
    } finally {
      await core.shutdown();
    }
  });
});
