/**
 * Electron's export and import path without Electron: `traceSaveFile` / `traceOpenFile` through a
 * real core (the one Electron builds, carrier `electron`) whose `FileDialogs` is a fake answering
 * temp paths, as the native dialogs would. A trace of over 100 MB is opened from disk and saved
 * back to disk, streamed both ways: the events come back line for line, and the process's peak
 * RSS (VmHWM, reset through /proc/self/clear_refs first) stays within MEMORY_BOUND_MB of its RSS
 * before — reading the file whole as one string, or joining the export, would alone take more
 * than the file's size. Cancelled dialogs, missing folders, files that are not traces, files
 * over the limit and browser mode (no dialogs in main) each get a clear answer, and nothing is
 * left half-written.
 */
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCore, type Core } from '../../main/core/app';
import type { FileDialogs } from '../../main/core/handlers/context';
import { MemorySettingsStore } from '../../main/core/store/settings';
import { exchangeLines, traceHeader, writeBigTrace } from './support/big-trace';

const MiB = 1024 * 1024;
const BIG_BYTES = 150 * 1000 * 1000;
/** Peak RSS growth allowed while the big trace is opened and saved (a whole-file read alone is over 143 MiB). */
const MEMORY_BOUND_MB = 140;

/** A fake of Electron's dialogs: answers the queued paths in order (undefined: the person cancelled) and keeps what it was asked. */
class FakeDialogs implements FileDialogs {
  readonly asked: { kind: 'save' | 'open'; options: unknown }[] = [];
  private readonly answers: (string | undefined)[] = [];
  answer(...paths: (string | undefined)[]): this {
    this.answers.push(...paths);
    return this;
  }
  async save(options: Parameters<FileDialogs['save']>[0]) {
    this.asked.push({ kind: 'save', options });
    return this.answers.shift();
  }
  async open(options: Parameters<FileDialogs['open']>[0]) {
    this.asked.push({ kind: 'open', options });
    return this.answers.shift();
  }
}

let dir: string;
let core: Core;
const dialogs = new FakeDialogs();

async function ok<T = any>(method: string, args: unknown): Promise<T> {
  const reply = await core.dispatch(method as never, args);
  if (!reply.ok) throw new Error(`${method}: ${reply.error.message}`);
  return reply.result as T;
}

async function refusal(method: string, args: unknown) {
  const reply = await core.dispatch(method as never, args);
  if (reply.ok) throw new Error(`${method} succeeded: ${JSON.stringify(reply.result).slice(0, 200)}`);
  return reply.error;
}

function memory(): { rss: number; peak: number } {
  const status = readFileSync('/proc/self/status', 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)![1]) / 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

/** Streams a JSONL file and hashes its event lines (header excluded) as big-trace does. */
async function hashEvents(path: string): Promise<{ header: any; lines: number; hash: string }> {
  const hash = createHash('sha256');
  let header: any;
  let lines = 0;
  for await (const line of createInterface({ input: createReadStream(path), crlfDelay: Infinity })) {
    if (header === undefined) header = JSON.parse(line);
    else {
      hash.update(line + '\n');
      lines++;
    }
  }
  return { header, lines, hash: hash.digest('hex') };
}

function smallTrace(exchanges: number): string {
  const lines = [traceHeader(exchanges * 3)];
  for (let i = 0; i < exchanges; i++) lines.push(...exchangeLines(i, 'y'.repeat(40), i * 3 + 1));
  return lines.join('\n') + '\n';
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sb-bulk-dialogs-'));
  core = createCore({ settings: new MemorySettingsStore(), carrier: 'electron', version: 'test', fileDialogs: dialogs });
});

afterAll(async () => {
  await core?.shutdown();
  rmSync(dir, { recursive: true, force: true });
});

describe('traceOpenFile and traceSaveFile through main’s dialogs', () => {
  it(`opens a ${BIG_BYTES / 1e6} MB trace from disk and saves it back, streamed, with memory bounded`, { timeout: 180_000 }, async () => {
    const big = await writeBigTrace(join(dir, 'big.jsonl'), BIG_BYTES);
    expect(big.bytes).toBeGreaterThan(100 * 1000 * 1000);
    const out = join(dir, 'saved.jsonl');
    // Reset the peak (VmHWM) to the RSS now, so the peak measured is this test's.
    writeFileSync('/proc/self/clear_refs', '5');
    const before = memory();
    const t0 = performance.now();
    dialogs.answer(big.path);
    const opened = await ok('traceOpenFile', { into: 'view' });
    const t1 = performance.now();
    const afterOpen = memory();
    expect(opened).toMatchObject({ opened: true, name: 'big.jsonl', events: big.events, servers: [{ id: 'srv-bulk', name: 'bulk' }], problems: [] });
    expect(opened.source).toMatch(/^import-\d+$/);

    const page = await ok('traceQuery', { source: opened.source, kinds: ['http-end'], limit: 1, order: 'desc' });
    expect(page.total).toBe(big.events);
    expect(page.events[0].exchange).toBe(`x${big.exchanges - 1}`);

    dialogs.answer(out);
    const saved = await ok('traceSaveFile', { format: 'jsonl', source: opened.source });
    const t2 = performance.now();
    const end = memory();
    expect(saved).toEqual({ saved: true, path: out, bytes: expect.any(Number) });
    const back = await hashEvents(out);
    expect(back.header).toMatchObject({ format: 'switchboard-trace', eventCount: big.events });
    expect(back.lines).toBe(big.events);
    expect(back.hash).toBe(big.eventsHash);
    expect(saved.bytes).toBeGreaterThan(big.bytes * 0.95);
    console.log(
      `[bulk] main-side dialogs, ${(big.bytes / MiB).toFixed(0)} MiB trace of ${big.events.toLocaleString('en-US')} events: ` +
        `open ${((t1 - t0) / 1000).toFixed(1)} s, save ${((t2 - t1) / 1000).toFixed(1)} s (${(saved.bytes / MiB).toFixed(0)} MiB); ` +
        `RSS before ${before.rss.toFixed(0)} MiB, after open ${afterOpen.rss.toFixed(0)} MiB, after save ${end.rss.toFixed(0)} MiB, peak ${end.peak.toFixed(0)} MiB ` +
        `(+${(end.peak - before.rss).toFixed(0)} MiB; bound: +${MEMORY_BOUND_MB} MiB)`,
    );
    expect(end.peak - before.rss).toBeLessThan(MEMORY_BOUND_MB);
    const asked = dialogs.asked.slice(-2);
    expect(asked).toEqual([
      { kind: 'open', options: { filters: expect.arrayContaining([expect.objectContaining({ extensions: expect.arrayContaining(['jsonl']) })]) } },
      { kind: 'save', options: { defaultName: expect.stringMatching(/^switchboard-.+\.jsonl$/), filters: [{ name: expect.any(String), extensions: ['jsonl'] }] } },
    ]);
    rmSync(big.path, { force: true });
    rmSync(out, { force: true });
  });

  it('saves the live trace and an opened one as HAR, with the file named by the dialog', async () => {
    const path = join(dir, 'small.jsonl');
    writeFileSync(path, smallTrace(5));
    dialogs.answer(path);
    const opened = await ok('traceOpenFile', {});
    expect(opened).toMatchObject({ opened: true, events: 15, problems: [] });
    const har = join(dir, 'small.har');
    dialogs.answer(har);
    expect(await ok('traceSaveFile', { format: 'har', source: opened.source })).toMatchObject({ saved: true, path: har });
    const entries = JSON.parse(readFileSync(har, 'utf8')).log.entries;
    expect(entries).toHaveLength(5);
    expect(entries[0]._mcp).toMatchObject({ server: 'srv-bulk', serverName: 'bulk' });
    expect(dialogs.asked.at(-1)).toMatchObject({ kind: 'save', options: { defaultName: expect.stringMatching(/\.har$/), filters: [{ extensions: ['har'] }] } });

    // OTLP/JSON (#16) through the same dialog: the opened file's server names its resource.
    const otlp = join(dir, 'small.otlp.json');
    dialogs.answer(otlp);
    expect(await ok('traceSaveFile', { format: 'otlp', source: opened.source })).toMatchObject({ saved: true, path: otlp });
    const resourceSpans = JSON.parse(readFileSync(otlp, 'utf8')).resourceSpans as { resource: { attributes: { key: string; value: { stringValue?: string } }[] }; scopeSpans: { spans: unknown[] }[] }[];
    expect(resourceSpans[0]!.resource.attributes).toContainEqual({ key: 'service.name', value: { stringValue: 'bulk' } });
    expect(resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)).length).toBeGreaterThan(0);
    expect(dialogs.asked.at(-1)).toMatchObject({ kind: 'save', options: { defaultName: expect.stringMatching(/\.otlp\.json$/), filters: [{ extensions: ['json'] }] } });

    const live = join(dir, 'live.jsonl');
    dialogs.answer(live);
    expect(await ok('traceSaveFile', { format: 'jsonl' })).toMatchObject({ saved: true, path: live });
    expect(JSON.parse(readFileSync(live, 'utf8').split('\n')[0]!)).toMatchObject({ format: 'switchboard-trace', app: { name: 'Switchboard', version: 'test' } });
  });

  it('a cancelled dialog saves and opens nothing', async () => {
    const before = readdirSync(dir).sort();
    dialogs.answer(undefined, undefined);
    expect(await ok('traceSaveFile', { format: 'jsonl' })).toEqual({ saved: false });
    expect(await ok('traceOpenFile', { into: 'view' })).toEqual({ opened: false, problems: [] });
    expect(readdirSync(dir).sort()).toEqual(before);
  });

  it('an unknown source is refused before any dialog opens', async () => {
    const asked = dialogs.asked.length;
    expect(await refusal('traceSaveFile', { format: 'jsonl', source: 'import-999' })).toMatchObject({ code: 'not-found', message: expect.stringMatching(/No imported trace "import-999"/) });
    expect(await refusal('traceSaveFile', { format: 'har', source: 'rec-20261201-000000-000-none' })).toMatchObject({ code: 'not-found', message: expect.stringMatching(/Recording "20261201-000000-000-none" is not open/) });
    expect(dialogs.asked.length).toBe(asked);
  });

  it('a folder that does not exist: a clear failure, nothing written', async () => {
    dialogs.answer(join(dir, 'gone', 'x.jsonl'));
    expect(await refusal('traceSaveFile', { format: 'jsonl' })).toMatchObject({ code: 'failed', message: expect.stringMatching(/^Could not save x\.jsonl: .*ENOENT.*Nothing was written there\.$/) });
    expect(existsSync(join(dir, 'gone'))).toBe(false);
  });

  it('files that are not traces, a folder, a missing file and a file over the limit are refused; nothing is opened', async () => {
    const png = join(dir, 'shot.png');
    writeFileSync(png, Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(500, 1)]));
    const folder = join(dir, 'a-folder');
    mkdirSync(folder);
    // Sparse: 1.5 GiB by its size, no disk used. Refused by its size before a byte is read.
    const huge = join(dir, 'huge.jsonl');
    writeFileSync(huge, '');
    truncateSync(huge, 1.5 * 1024 ** 3);
    dialogs.answer(png, folder, join(dir, 'no-such.jsonl'), huge);
    expect(await refusal('traceOpenFile', {})).toMatchObject({ code: 'invalid-arguments', message: expect.stringMatching(/shot\.png is a PNG image, not a Switchboard trace.*Nothing was opened\.$/) });
    expect(await refusal('traceOpenFile', {})).toMatchObject({ code: 'invalid-arguments', message: 'a-folder is not a file. Nothing was opened.' });
    expect(await refusal('traceOpenFile', {})).toMatchObject({ code: 'failed', message: expect.stringMatching(/^Cannot read no-such\.jsonl: .*ENOENT.*Nothing was opened\.$/) });
    expect(await refusal('traceOpenFile', {})).toMatchObject({ code: 'invalid-arguments', message: expect.stringMatching(/^huge\.jsonl is 1\.5 GiB; Switchboard opens traces of up to 1\.0 GiB\..*Nothing was opened\.$/) });
    // The sources opened so far are still the only ones: the next import is numbered after them.
    const next = join(dir, 'next.jsonl');
    writeFileSync(next, smallTrace(1));
    dialogs.answer(next);
    expect((await ok('traceOpenFile', {})).source).toBe('import-3');
  });

  it('into the library without one (memory settings): refused before a dialog opens', async () => {
    const asked = dialogs.asked.length;
    expect(await refusal('traceOpenFile', { into: 'library' })).toMatchObject({ code: 'failed', message: expect.stringMatching(/no recordings library/) });
    expect(dialogs.asked.length).toBe(asked);
  });
});

it('into the library: the picked file streams in as a recording (kind import), opened and saved back like any recording', async () => {
  const dataDir = join(dir, 'library-data');
  const picker = new FakeDialogs();
  // Recordings of any age are kept: the generated events are dated a year before their header.
  const settings = new MemorySettingsStore();
  settings.write({ ...settings.read(), recordingRetention: { maxBytes: 2 * 1024 ** 3, maxAgeDays: 0 } });
  const withLibrary = createCore({
    settings,
    carrier: 'electron',
    version: 'test',
    fileDialogs: picker,
    recordings: { dir: join(dataDir, 'recordings') },
  });
  try {
    const path = join(dir, 'to-library.jsonl');
    writeFileSync(path, smallTrace(40));
    picker.answer(path);
    const reply = await withLibrary.dispatch('traceOpenFile', { into: 'library' });
    if (!reply.ok) throw new Error(reply.error.message);
    const added = reply.result as { opened: boolean; name: string; events: number; recording: { id: string; kind: string; events: number; name: string }; problems: unknown[] };
    expect(added).toMatchObject({ opened: true, name: 'to-library.jsonl', events: 120, problems: [], recording: { kind: 'import', events: 120, name: 'to-library.jsonl' } });
    const list = await withLibrary.dispatch('recordingsList', {});
    expect(list.ok && (list.result as { recordings: { id: string }[] }).recordings.map((r) => r.id)).toContain(added.recording.id);

    const opened = await withLibrary.dispatch('recordingOpen', { id: added.recording.id });
    if (!opened.ok) throw new Error(opened.error.message);
    const source = (opened.result as { source: string }).source;
    const out = join(dir, 'from-library.jsonl');
    picker.answer(out);
    const saved = await withLibrary.dispatch('traceSaveFile', { format: 'jsonl', source });
    expect(saved).toMatchObject({ ok: true, result: { saved: true, path: out } });
    expect(readFileSync(out, 'utf8').split('\n').slice(1)).toEqual(smallTrace(40).split('\n').slice(1));

    // Not a trace: refused, nothing added.
    const png = join(dir, 'into-library.png');
    writeFileSync(png, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0]));
    picker.answer(png);
    expect(await withLibrary.dispatch('traceOpenFile', { into: 'library' })).toMatchObject({ ok: false, error: { code: 'invalid-arguments', message: expect.stringMatching(/PNG image.*Nothing was imported\.$/) } });
    const after = await withLibrary.dispatch('recordingsList', {});
    expect(after.ok && (after.result as { recordings: { kind: string }[] }).recordings.filter((r) => r.kind === 'import')).toHaveLength(1);
  } finally {
    await withLibrary.shutdown();
  }
});

it('browser mode has no dialogs in main: both answer to use the HTTP routes', async () => {
  const browser = createCore({ settings: new MemorySettingsStore(), carrier: 'browser', version: 'test' });
  try {
    for (const [method, args] of [
      ['traceSaveFile', { format: 'jsonl' }],
      ['traceOpenFile', { into: 'view' }],
    ] as const) {
      const reply = await browser.dispatch(method, args);
      expect(reply).toMatchObject({ ok: false, error: { code: 'failed', message: expect.stringMatching(/use the HTTP routes \(GET \/api\/trace\/export, POST \/api\/trace\/import, POST \/api\/recordings\/import\)/) } });
    }
  } finally {
    await browser.shutdown();
  }
});
