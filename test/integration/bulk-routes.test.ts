/**
 * Browser mode's bulk routes, against the real built host (`out/main/web.js`, spawned as
 * `npm run web` runs it) over real HTTP: trace files of 17 MB and 600 MB go in as streamed
 * request bodies and come back out as streamed downloads, with the host's memory read from
 * /proc before and after; the gate refuses what it must; hostile files get clear messages and
 * the host stays usable.
 *
 * Memory bound (documented in docs/trace-format.md, "Bulk routes"): importing the 600 MB trace
 * may raise the host's peak RSS (VmHWM) by at most MEMORY_BOUND_MB over its RSS before the
 * import. A non-streaming import (the file as one string, then parsed) needs more than the
 * file's size: over 1.2 GB for this file.
 */
import { createHash } from 'node:crypto';
import { createReadStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { topLevelValue } from '../../main/core/trace/import-jsonl';
import { startBrowserMode, type BrowserModeApp } from '../e2e/support/browser-mode';
import { SERVER_ID, exchangeLines, traceHeader, writeBigTrace, type BigTrace } from './support/big-trace';

const MiB = 1024 * 1024;
/** Peak RSS growth allowed while the 600 MB trace imports (see the header). */
const MEMORY_BOUND_MB = 300;
const BIG_BYTES = 600 * 1000 * 1000;

let app: BrowserModeApp;
let token: string;
let port: number;
let dir: string;
/** The token cookie as the host sets it (its name is the host's business), `name=value`. */
let cookie: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sb-bulk-'));
  app = await startBrowserMode();
  const url = new URL(app.url);
  token = url.searchParams.get('token')!;
  port = Number(url.port);
  // Trade the launch token for the cookie, as the browser does on the first visit.
  const visit = await send('GET', `/?token=${token}`, {});
  expect(visit.status).toBe(302);
  cookie = String(visit.headers['set-cookie']?.[0]).split(';')[0]!;
  expect(cookie).toContain(token);
});

afterAll(async () => {
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Reply {
  status: number;
  headers: IncomingMessage['headers'];
  body: string;
  json: any;
}

const auth = () => ({ 'x-switchboard-token': token });

/** A raw HTTP request, so Host, Origin and cookies are exactly what the test says. */
function send(method: string, path: string, headers: Record<string, string>, body?: Buffer | string | Readable): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method, headers: { host: `127.0.0.1:${port}`, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text, json });
      });
    });
    req.on('error', reject);
    if (body === undefined) req.end();
    else if (typeof body === 'string' || Buffer.isBuffer(body)) req.end(body);
    else body.pipe(req);
  });
}

const importFile = (name: string, body: Buffer | string | Readable, headers: Record<string, string> = auth()) =>
  send('POST', `/api/trace/import?name=${encodeURIComponent(name)}`, { 'content-type': 'application/x-ndjson', ...headers }, body);

/** Streams an export and hashes its event lines (everything after the header) without keeping it. */
function streamExport(path: string): Promise<{ status: number; headers: IncomingMessage['headers']; header: any; lines: number; eventsHash: string; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method: 'GET', headers: { host: `127.0.0.1:${port}`, ...auth() } }, (res) => {
      const hash = createHash('sha256');
      let rest = '';
      let header: any;
      let lines = 0;
      let bytes = 0;
      res.setEncoding('utf8');
      res.on('data', (text: string) => {
        bytes += Buffer.byteLength(text);
        let data = rest + text;
        if (header === undefined) {
          const nl = data.indexOf('\n');
          if (nl < 0) {
            rest = data;
            return;
          }
          header = JSON.parse(data.slice(0, nl));
          data = data.slice(nl + 1);
        }
        const last = data.lastIndexOf('\n');
        const complete = data.slice(0, last + 1);
        rest = data.slice(last + 1);
        hash.update(complete);
        for (let i = complete.indexOf('\n'); i >= 0; i = complete.indexOf('\n', i + 1)) lines++;
      });
      res.on('end', () => {
        if (rest) {
          hash.update(rest);
          lines++;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, header, lines, eventsHash: hash.digest('hex'), bytes });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** The host's resident memory, from the kernel: now (VmRSS) and its peak so far (VmHWM), in MiB. */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)![1]) / 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

/** One contract call over the real WebSocket (the page's own carrier). */
async function call(method: string, args: unknown): Promise<any> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`, { headers: { origin: app.origin, cookie } });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  try {
    ws.send(JSON.stringify({ id: 1, method, args }));
    const frame = await new Promise<any>((resolve) => {
      ws.on('message', (data) => {
        const parsed = JSON.parse(String(data));
        if (parsed.type === 'reply' && parsed.id === 1) resolve(parsed);
      });
    });
    return frame.reply;
  } finally {
    ws.close();
  }
}

function smallTrace(exchanges: number): string[] {
  const lines = [traceHeader(exchanges * 3)];
  for (let i = 0; i < exchanges; i++) lines.push(...exchangeLines(i, 'x'.repeat(50), i * 3 + 1));
  return lines;
}

describe('the gate on the bulk routes', () => {
  const small = smallTrace(2).join('\n') + '\n';

  it('refuses a request without the token, from a foreign Origin or Host, cross-site, or with the token in the URL; imports nothing', async () => {
    expect((await importFile('a.jsonl', small, {})).status).toBe(401);
    expect((await importFile('a.jsonl', small, { 'x-switchboard-token': 'wrong' })).status).toBe(401);
    expect((await importFile('a.jsonl', small, { ...auth(), origin: 'http://evil.example' })).status).toBe(403);
    expect((await importFile('a.jsonl', small, { cookie, origin: 'http://evil.example' })).status).toBe(403);
    expect((await importFile('a.jsonl', small, { ...auth(), host: 'evil.example' })).status).toBe(403);
    // A cookie alone, without an Origin: not what a browser of ours sends on a POST.
    expect((await importFile('a.jsonl', small, { cookie })).status).toBe(403);
    expect((await importFile('a.jsonl', small, { ...auth(), 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await send('POST', `/api/trace/import?name=a.jsonl&token=${token}`, {}, small)).status).toBe(401);
    expect((await send('GET', '/api/trace/export?format=jsonl', {})).status).toBe(401);
    expect((await send('GET', '/api/trace/export?format=jsonl', { ...auth(), origin: 'http://evil.example' })).status).toBe(403);
    expect((await send('GET', '/api/trace/import', auth())).status).toBe(405);

    // The positive control: the same upload, as our page sends it, is the first import there is.
    const allowed = await importFile('a.jsonl', small, { cookie, origin: app.origin, 'sec-fetch-site': 'same-origin' });
    expect(allowed.status).toBe(200);
    expect(allowed.json).toEqual({ source: 'import-1', events: 6, servers: [{ id: SERVER_ID, name: 'bulk' }], problems: [] });
  });
});

describe('trace files in and out over HTTP', () => {
  let medium: BigTrace;

  it('imports a 17 MB trace streamed to the route, queryable through the contract, and exports it back line for line', async () => {
    medium = await writeBigTrace(join(dir, 'medium.jsonl'), 17 * MiB);
    expect(medium.bytes).toBeGreaterThan(16 * MiB); // over the WebSocket's 16 MiB frame limit
    const reply = await importFile('medium.jsonl', createReadStream(medium.path));
    expect(reply.status).toBe(200);
    expect(reply.json.events).toBe(medium.events);
    expect(reply.json.problems).toEqual([]);
    const source = reply.json.source as string;

    const page = await call('traceQuery', { source, kinds: ['http-end'], limit: 1, order: 'desc' });
    expect(page.ok).toBe(true);
    expect(page.result.total).toBe(medium.events);
    expect(page.result.events[0].exchange).toBe(`x${medium.exchanges - 1}`);

    const jsonl = await streamExport(`/api/trace/export?format=jsonl&source=${source}`);
    expect(jsonl.status).toBe(200);
    expect(jsonl.headers['content-disposition']).toMatch(/^attachment; filename="switchboard-.+\.jsonl"$/);
    expect(jsonl.header).toMatchObject({ format: 'switchboard-trace', eventCount: medium.events, servers: [expect.objectContaining({ id: SERVER_ID, name: 'bulk' })] });
    expect(jsonl.lines).toBe(medium.events);
    expect(jsonl.eventsHash).toBe(medium.eventsHash);

    const har = await send('GET', `/api/trace/export?format=har&source=${source}`, auth());
    expect(har.status).toBe(200);
    expect(har.headers['content-disposition']).toMatch(/filename="switchboard-.+\.har"/);
    expect(har.json.log.entries).toHaveLength(medium.exchanges);
    expect(har.json.log.entries[0]._mcp).toMatchObject({ server: SERVER_ID, serverName: 'bulk', channel: 'post-json' });

    // A source that is not there is a message, not a broken download.
    const missing = await send('GET', '/api/trace/export?format=jsonl&source=import-999', auth());
    expect(missing.status).toBe(404);
    expect(missing.json.error.message).toMatch(/No imported trace "import-999"/);
    expect((await send('HEAD', `/api/trace/export?format=jsonl&source=${source}`, auth())).status).toBe(200);
    rmSync(medium.path, { force: true });
  });

  it('imports a 600 MB trace with the host’s memory bounded, and streams it back out', { timeout: 240_000 }, async () => {
    const t0 = performance.now();
    const big = await writeBigTrace(join(dir, 'big.jsonl'), BIG_BYTES);
    const written = performance.now();
    try {
      const before = memoryOf(app.process.pid!);
      const reply = await importFile('big.jsonl', createReadStream(big.path));
      const imported = performance.now();
      const after = memoryOf(app.process.pid!);
      expect(reply.status).toBe(200);
      expect(reply.json.events).toBe(big.events);
      expect(reply.json.problems).toEqual([]);

      const out = await streamExport(`/api/trace/export?format=jsonl&source=${reply.json.source}`);
      const exported = performance.now();
      const end = memoryOf(app.process.pid!);
      expect(out.lines).toBe(big.events);
      expect(out.eventsHash).toBe(big.eventsHash);
      console.log(
        `[bulk] 600 MB trace: ${(big.bytes / MiB).toFixed(0)} MiB, ${big.events.toLocaleString('en-US')} events; ` +
          `write ${((written - t0) / 1000).toFixed(1)} s, import ${((imported - written) / 1000).toFixed(1)} s, export ${((exported - imported) / 1000).toFixed(1)} s (${(out.bytes / MiB).toFixed(0)} MiB); ` +
          `host RSS before ${before.rss.toFixed(0)} MiB, after import ${after.rss.toFixed(0)} MiB, after export ${end.rss.toFixed(0)} MiB, peak ${end.peak.toFixed(0)} MiB (bound: before + ${MEMORY_BOUND_MB} MiB)`,
      );
      expect(end.peak - before.rss).toBeLessThan(MEMORY_BOUND_MB);
    } finally {
      rmSync(big.path, { force: true });
    }
  });
});

describe('recordings over HTTP: imported into the library, opened, exported back', () => {
  const importRecording = (name: string, body: Buffer | string | Readable, headers: Record<string, string> = auth()) =>
    send('POST', `/api/recordings/import?name=${encodeURIComponent(name)}`, { 'content-type': 'application/x-ndjson', ...headers }, body);
  const listed = async () => ((await call('recordingsList', {})).result.recordings as { id: string; kind: string; events: number }[]).filter((r) => r.kind === 'import');

  it('sits behind the same gate: no token, a foreign Origin, a cookie without Origin, a GET are refused, and nothing is added', async () => {
    // The generated traces' events are dated a year before their header; age-based retention
    // (which dates an import by its last event) would remove them at once: keep recordings of any age.
    expect(await call('updateSettings', { recordingRetention: { maxBytes: 2 * 1024 ** 3, maxAgeDays: 0 } })).toMatchObject({ ok: true });
    const small = smallTrace(2).join('\n') + '\n';
    expect((await importRecording('a.jsonl', small, {})).status).toBe(401);
    expect((await importRecording('a.jsonl', small, { ...auth(), origin: 'http://evil.example' })).status).toBe(403);
    expect((await importRecording('a.jsonl', small, { cookie })).status).toBe(403);
    expect((await importRecording('a.jsonl', small, { ...auth(), 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await send('POST', `/api/recordings/import?name=a.jsonl&token=${token}`, {}, small)).status).toBe(401);
    expect((await send('GET', '/api/recordings/import', auth())).status).toBe(405);
    expect(await listed()).toEqual([]);
  });

  it('a 17 MB trace streams into the library as a recording; opened as rec-ID it exports back line for line', async () => {
    const medium = await writeBigTrace(join(dir, 'library.jsonl'), 17 * MiB);
    try {
      const reply = await importRecording('library.jsonl', createReadStream(medium.path), { cookie, origin: app.origin, 'sec-fetch-site': 'same-origin' });
      expect(reply.status).toBe(200);
      expect(reply.json.problems).toEqual([]);
      const recording = reply.json.recording;
      expect(recording).toMatchObject({ name: 'library.jsonl', kind: 'import', ended: 'clean', live: false, events: medium.events, servers: [{ id: SERVER_ID, name: 'bulk' }] });
      expect((await listed()).map((r) => [r.id, r.events])).toEqual([[recording.id, medium.events]]);

      // Not open yet: the export says how to open it.
      const closed = await send('GET', `/api/trace/export?format=jsonl&source=rec-${recording.id}`, auth());
      expect(closed.status).toBe(404);
      expect(closed.json.error.message).toMatch(/is not open \(open it from the library\)/);

      const opened = await call('recordingOpen', { id: recording.id });
      expect(opened).toMatchObject({ ok: true, result: { source: `rec-${recording.id}` } });
      const jsonl = await streamExport(`/api/trace/export?format=jsonl&source=rec-${recording.id}`);
      expect(jsonl.status).toBe(200);
      expect(jsonl.header).toMatchObject({ format: 'switchboard-trace', eventCount: medium.events, servers: [expect.objectContaining({ id: SERVER_ID, name: 'bulk' })] });
      expect(jsonl.lines).toBe(medium.events);
      expect(jsonl.eventsHash).toBe(medium.eventsHash);
      const har = await send('GET', `/api/trace/export?format=har&source=rec-${recording.id}`, auth());
      expect(har.status).toBe(200);
      expect(har.json.log.entries).toHaveLength(medium.exchanges);
    } finally {
      rmSync(medium.path, { force: true });
    }
  });

  it('hostile files: refused with what they are (nothing added), or kept with their problems named; over the limit refused unread', async () => {
    const before = (await listed()).length;
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(2000, 7)]);
    const refused = await importRecording('shot.png', png);
    expect(refused.status).toBe(422);
    expect(refused.json.error).toEqual({ code: 'invalid-arguments', message: expect.stringMatching(/shot\.png is a PNG image, not a Switchboard trace.*Nothing was imported\.$/) });
    expect((await importRecording('empty.jsonl', '')).status).toBe(422);
    expect((await listed()).length).toBe(before);

    const text = smallTrace(20).join('\n');
    const torn = await importRecording('torn.jsonl', text.slice(0, text.length - 40));
    expect(torn.status).toBe(200);
    expect(torn.json.recording.events).toBe(59);
    expect(torn.json.problems[0]).toEqual({ line: 61, message: expect.stringMatching(/ends in the middle of this line/) });
    expect((await listed()).length).toBe(before + 1);

    const huge = await new Promise<Reply>((resolve, reject) => {
      const req = httpRequest(
        { host: '127.0.0.1', port, path: '/api/recordings/import?name=huge.jsonl', method: 'POST', headers: { host: `127.0.0.1:${port}`, ...auth(), 'content-length': String(2 * 1024 * MiB) } },
        (res) => {
          let body = '';
          res.on('data', (d) => (body += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json: JSON.parse(body) }));
        },
      );
      req.on('error', reject);
      req.flushHeaders();
    });
    expect(huge.status).toBe(413);
    expect(huge.json.error.message).toMatch(/huge\.jsonl is 2\.0 GiB; Switchboard opens traces of up to 1\.0 GiB/);
    expect((await listed()).length).toBe(before + 1);
  });
});

describe('hostile files get clear messages, and the host stays usable', () => {
  const lines = smallTrace(20); // header + 60 events

  it('a truncated file (torn last line): the events before it are kept, the tear is named', async () => {
    const text = lines.join('\n');
    const torn = text.slice(0, text.length - 40); // cut inside the last event, no newline
    const reply = await importFile('torn.jsonl', torn);
    expect(reply.status).toBe(200);
    expect(reply.json.events).toBe(59);
    expect(reply.json.problems[0]).toEqual({ line: 61, message: expect.stringMatching(/ends in the middle of this line .*cut off.*59 events before it were kept/) });
    expect(reply.json.problems[1]).toEqual({ line: 1, message: expect.stringMatching(/header announces 60 events; 59 were read/) });
  });

  it('a corrupt file: each bad line by number, everything else kept', async () => {
    const broken = [...lines];
    broken[4] = '{"seq": 4, "ts": garbage';
    broken[9] = '{"seq":9,"ts":1,"server":"s","channel":"teleport","kind":"state","dir":"none"}';
    broken[30] = '\u0000\u0001 binary noise';
    const reply = await importFile('corrupt.jsonl', broken.join('\n') + '\n');
    expect(reply.status).toBe(200);
    expect(reply.json.events).toBe(57);
    const problems = reply.json.problems as { line: number; message: string }[];
    expect(problems.map((p) => p.line)).toEqual([5, 10, 31, 1]);
    expect(problems[0]!.message).toMatch(/^not JSON/);
    expect(problems[1]!.message).toMatch(/^not a trace event \(channel: /);
    expect(problems[3]!.message).toMatch(/announces 60 events; 57 were read/);
  });

  it('files that are not traces are refused with what they are, and nothing is opened', async () => {
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(2000, 7)]);
    const har = JSON.stringify({ log: { version: '1.2', creator: { name: 'Chrome', version: '1' }, pages: [], entries: [] } }, null, 2);
    const cases: [string, Buffer | string, RegExp][] = [
      ['shot.png', png, /shot\.png is a PNG image, not a Switchboard trace/],
      ['session.har', har, /session\.har looks like a HAR file/],
      ['notes.txt', 'hello world\nsecond line\n', /notes\.txt: line 1 is not JSON \("hello world"\)/],
      ['config.json', '{"mcpServers":{"a":{"command":"x"}}}\n', /looks like a server configuration file/],
      ['headless.jsonl', lines.slice(1).join('\n'), /line 1 is a trace event, not the trace header: the start of the file is missing/],
      ['empty.jsonl', '', /empty\.jsonl is empty \(0 bytes\)/],
      ['blank.jsonl', '\n\n  \n', /holds only blank lines/],
    ];
    for (const [name, body, message] of cases) {
      const reply = await importFile(name, body);
      expect(reply.status, name).toBe(422);
      expect(reply.json.error.code, name).toBe('invalid-arguments');
      expect(reply.json.error.message, name).toMatch(message);
      expect(reply.json.error.message, name).toMatch(/Nothing was opened\.$/);
    }
  });

  it('a file over the size limit is refused before its body is read', async () => {
    const reply = await new Promise<Reply>((resolve, reject) => {
      const req = httpRequest(
        { host: '127.0.0.1', port, path: '/api/trace/import?name=huge.jsonl', method: 'POST', headers: { host: `127.0.0.1:${port}`, ...auth(), 'content-length': String(3 * 1024 * MiB) } },
        (res) => {
          let body = '';
          res.on('data', (d) => (body += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json: JSON.parse(body) }));
        },
      );
      req.on('error', reject);
      req.flushHeaders();
    });
    expect(reply.status).toBe(413);
    expect(reply.json.error.message).toMatch(/huge\.jsonl is 3\.0 GiB; Switchboard opens traces of up to 1\.0 GiB.*Nothing was opened\./);
  });

  it('a body nested 5,000 levels deep: opened, carried cut through the contract, exported back as written', async () => {
    const lines = smallTrace(2);
    const deepBody = `{"jsonrpc":"2.0","id":0,"result":{"deep":${'['.repeat(5000)}1${']'.repeat(5000)}}}`;
    lines[3] = lines[3]!.replace(/"body":\{.*\},"bytes"/, `"body":${deepBody},"bytes"`);
    expect(lines[3]).toContain(deepBody);
    const reply = await importFile('deep.jsonl', lines.join('\n') + '\n');
    expect(reply.status).toBe(200);
    expect(reply.json.events).toBe(6);
    expect(reply.json.problems).toEqual([{ line: 4, message: expect.stringMatching(/^nested deeper than 64 levels: .*exports write the body whole\)$/) }]);
    const event = await call('traceEvent', { source: reply.json.source, seq: 3 });
    expect(event.ok).toBe(true);
    expect(JSON.stringify(event.result.event.body)).toContain('$switchboard:truncated');

    const out = await send('GET', `/api/trace/export?format=jsonl&source=${reply.json.source}`, auth());
    const exported = out.body.split('\n')[3]!;
    expect(topLevelValue(exported, 'body')).toBe(deepBody);
    expect(out.body.split('\n').slice(1, 3)).toEqual(lines.slice(1, 3));
  });

  it('an upload the client cuts off opens nothing, and the next one is numbered as if it had never been', async () => {
    const small = smallTrace(2).join('\n') + '\n';
    const first = await importFile('before.jsonl', small);
    expect(first.status).toBe(200);
    const n = Number(/^import-(\d+)$/.exec(first.json.source)![1]);

    const partial = Buffer.from(smallTrace(400).join('\n'));
    await new Promise<void>((resolve) => {
      const req = httpRequest({ host: '127.0.0.1', port, path: '/api/trace/import?name=cut.jsonl', method: 'POST', headers: { host: `127.0.0.1:${port}`, ...auth(), 'content-length': String(partial.length * 10) } });
      req.on('error', () => resolve());
      req.on('close', () => resolve());
      req.write(partial, () => req.destroy());
    });
    const after = await importFile('after.jsonl', small);
    expect(after.status).toBe(200);
    expect(after.json.source).toBe(`import-${n + 1}`);
    expect(app.process.exitCode).toBeNull();
  });

  it('after all of that the host still serves the page and the contract, and the live trace is untouched', async () => {
    const page = await send('GET', '/', auth());
    expect(page.status).toBe(200);
    expect(page.body).toContain('<div id="root">');
    const info = await call('appInfo', {});
    expect(info).toMatchObject({ ok: true, result: { carrier: 'browser' } });
    const live = await call('traceQuery', { limit: 1 });
    expect(live.ok).toBe(true);
    expect(live.result.total).toBe(0);
    expect(app.process.exitCode).toBeNull();
    writeFileSync(join(dir, 'done'), '');
  });
});
