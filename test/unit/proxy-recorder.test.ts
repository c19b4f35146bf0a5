/**
 * The proxy's recorder over a real library directory and real files: the client's name and
 * protocol version noted once (2025 initialize, 2026 `_meta`), hostile values bounded; the faults
 * control loop (a request applied, one the transport cannot act on refused, counts written);
 * `--record FILE` a trace that imports whole with its final count; the shared line splitter.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ServerConfig } from '../../contract';
import { readFaultsState, writeFaultsRequest } from '../../main/core/proxy/control';
import { createProxyRecorder, describeFault, proxyServerSlug } from '../../main/core/proxy/recorder';
import type { ProxyRecorder } from '../../main/core/proxy/types';
import { readMeta } from '../../main/core/recordings/format';
import { readJsonlTrace } from '../../main/core/trace/import-jsonl';
import { Redactor } from '../../main/core/trace/redact';
import { LineSplitter, lineText } from '../../main/core/transport/stdio-lines';
import { parseFaultArg } from '../../main/core/faults';

let dir: string;
const logs: string[] = [];
const open: ProxyRecorder[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sb-proxy-rec-'));
  logs.length = 0;
});
afterEach(async () => {
  for (const r of open.splice(0)) await r.close();
  rmSync(dir, { recursive: true, force: true });
});

function recorder(extra: { recordFile?: string; faults?: string[]; libraryDir?: string | false; transport?: 'stdio' | 'http' } = {}): ProxyRecorder {
  const config = ServerConfig.parse({ id: proxyServerSlug('My Server'), name: 'My Server', target: { type: 'stdio', command: 'node', args: ['server.js'] } });
  const r = createProxyRecorder({
    name: 'My Server',
    transport: extra.transport ?? 'stdio',
    target: 'node server.js',
    config,
    libraryDir: extra.libraryDir ?? join(dir, 'recordings'),
    ...(extra.recordFile ? { recordFile: extra.recordFile } : {}),
    version: '0.0.0-test',
    redactor: new Redactor(),
    faults: (extra.faults ?? []).map(parseFaultArg),
    log: (line) => logs.push(line),
  });
  open.push(r);
  return r;
}

async function waitFor(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('proxy recorder', () => {
  it('a recording of kind proxy in the library, its events under the config’s server id', async () => {
    const r = recorder();
    expect(r.serverId).toBe('my-server');
    r.record({ channel: 'stdio', kind: 'stderr', dir: 'in', text: 'hello' });
    await r.close();
    const meta = readMeta(r.recordingDir!);
    expect(meta).toMatchObject({ kind: 'proxy', name: 'My Server', state: 'clean', events: 1, proxy: { name: 'My Server', transport: 'stdio', target: 'node server.js', pid: process.pid } });
    expect(readFileSync(join(r.recordingDir!, 'events.jsonl'), 'utf8')).toContain('"server":"my-server"');
  });

  it('notes the client from a 2025 initialize once; later messages change nothing', async () => {
    const r = recorder();
    r.observeClientMessage({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', clientInfo: { name: 'Claude Desktop', version: '1.2' } } });
    r.observeClientMessage({ jsonrpc: '2.0', id: 2, method: 'initialize', params: { protocolVersion: '2024-11-05', clientInfo: { name: 'Someone else' } } });
    expect(readMeta(r.recordingDir!).proxy).toMatchObject({ client: { name: 'Claude Desktop', version: '1.2' }, protocolVersion: '2025-06-18' });
  });

  it('notes the client from a 2026-07-28 request’s _meta, and bounds hostile values', () => {
    const r = recorder();
    r.observeClientMessage(null);
    r.observeClientMessage([1, 'x', { method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/clientInfo': { name: 42 } } } }]);
    expect(readMeta(r.recordingDir!).proxy?.client).toBeUndefined();
    r.observeClientMessage({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'n'.repeat(5000), version: '2' } } } });
    const proxy = readMeta(r.recordingDir!).proxy!;
    expect(proxy.protocolVersion).toBe('2026-07-28');
    expect(proxy.client!.name).toHaveLength(200);
  });

  it('faults from flags are in force from the start, noted in the trace and in faults-state.json', async () => {
    const r = recorder({ faults: ['latency:ms=100,method=tools/call'] });
    expect(r.faults.list()).toHaveLength(1);
    expect(readFaultsState(r.recordingDir!)).toMatchObject({ seq: 0, armed: [{ fault: { type: 'latency', ms: 100 } }] });
    await r.close();
    const events = readFileSync(join(r.recordingDir!, 'events.jsonl'), 'utf8').split('\n').slice(1).filter(Boolean).map((l) => JSON.parse(l) as { kind: string; text: string; meta: { faults: unknown[] } });
    expect(events[0]).toMatchObject({ kind: 'fault', meta: { faults: [{ type: 'latency' }] } });
    expect(events[0]!.text).toContain('latency 100ms (tools/call)');
  });

  it('applies a faults request from the app, refuses one the transport cannot act on, and writes the counts', async () => {
    const r = recorder();
    const recDir = r.recordingDir!;
    writeFaultsRequest(recDir, [{ type: 'reset' }]);
    await waitFor(() => readFaultsState(recDir)?.seq === 1);
    expect(readFaultsState(recDir)?.refused).toMatch(/reset/);
    expect(r.faults.size).toBe(0);
    writeFaultsRequest(recDir, [{ type: 'jsonrpc-error', method: 'tools/call' }]);
    await waitFor(() => readFaultsState(recDir)?.seq === 2);
    expect(readFaultsState(recDir)?.refused).toBeUndefined();
    expect(r.faults.list().map((a) => a.fault.type)).toEqual(['jsonrpc-error']);
    // A count changes: the state follows (throttled).
    const plan = r.faults.plan({ http: 'POST', methods: ['tools/call'], hasRequest: true, ids: [1], sessionId: undefined, acceptsSse: false }, ['jsonrpc-error']);
    expect(plan.action?.type).toBe('jsonrpc-error');
    await waitFor(() => readFaultsState(recDir)?.armed[0]?.hits === 1);
    // A request file that is not valid is ignored, the faults stay.
    writeFileSafe(join(recDir, 'faults-request.json'), '{"seq": 99, "faults": [{"type": "nope"}]}');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(r.faults.size).toBe(1);
  });

  it('http recorder takes http faults (the transport decides what is refused)', async () => {
    const r = recorder({ transport: 'http' });
    writeFaultsRequest(r.recordingDir!, [{ type: 'http-error', status: 503 }]);
    await waitFor(() => readFaultsState(r.recordingDir!)?.seq === 1);
    expect(r.faults.list().map((a) => a.fault.type)).toEqual(['http-error']);
  });

  it('--record FILE without a library: JSONL that imports whole, with the final count in its header', async () => {
    const file = join(dir, 'trace.jsonl');
    const r = recorder({ recordFile: file, libraryDir: false });
    expect(r.recordingDir).toBeUndefined();
    for (let i = 0; i < 50; i++) r.record({ channel: 'stdio', kind: 'jsonrpc-out', dir: 'out', rpc: { id: i, method: 'ping', kind: 'request' }, body: { jsonrpc: '2.0', id: i, method: 'ping' } });
    await r.close();
    const trace = await readJsonlTrace(file);
    expect(trace.problems).toEqual([]);
    expect(trace.header.eventCount).toBe(50);
    expect(trace.events).toHaveLength(50);
    expect(readdirSync(dir)).toEqual(['trace.jsonl']);
  });

  it('describes faults for people', () => {
    expect(describeFault(parseFaultArg('jsonrpc-error:code=-32001,method=tools/call|tools/list,rate=0.5'))).toBe('jsonrpc-error -32001 (tools/call|tools/list, rate 0.5)');
    expect(proxyServerSlug('  Ünïcode / name!! ')).toBe('unicode-name');
    expect(proxyServerSlug('???')).toBe('proxy');
  });
});

describe('the stdio line splitter (shared by tracked stdio and the proxy)', () => {
  const split = (chunks: Buffer[], max = 1024) => {
    const lines: { text: string; raw: string; cut: boolean; terminated: boolean }[] = [];
    const skipped: string[] = [];
    const splitter = new LineSplitter({ line: (raw, cut, terminated) => lines.push({ text: lineText(raw), raw: raw.toString('hex'), cut, terminated }), skipped: (raw) => skipped.push(raw.toString()) }, max);
    for (const c of chunks) splitter.push(c);
    splitter.end();
    return { lines, skipped };
  };

  it('keeps a line’s bytes, drops only \\r for the text, and keeps an unterminated last line', () => {
    const { lines } = split([Buffer.from('a\r\nb'), Buffer.from('c\n\nlast')]);
    expect(lines.map((l) => [l.text, l.terminated])).toEqual([
      ['a', true],
      ['bc', true],
      ['', true],
      ['last', false],
    ]);
    expect(lines[0]!.raw).toBe(Buffer.from('a\r').toString('hex'));
  });

  it('a multi-byte character split across chunks decodes whole; invalid bytes become U+FFFD', () => {
    const euro = Buffer.from('€\n');
    const { lines } = split([euro.subarray(0, 1), euro.subarray(1, 2), euro.subarray(2), Buffer.from([0xff, 0x0a])]);
    expect(lines.map((l) => l.text)).toEqual(['€', '\uFFFD']);
  });

  it('a line over the limit is cut once, what arrived kept, the rest skipped up to its newline', () => {
    const { lines, skipped } = split([Buffer.from('x'.repeat(10)), Buffer.from('y'.repeat(10)), Buffer.from('zz\nok\n')], 15);
    expect(lines[0]).toMatchObject({ cut: true, text: 'x'.repeat(10) + 'y'.repeat(10) });
    expect(lines[1]).toMatchObject({ text: 'ok', cut: false });
    expect(lines).toHaveLength(2);
    expect(skipped.join('')).toBe('zz\n');
  });
});

/** Written in place the way a careless writer would (not atomic, not valid): the proxy must not trust it. */
function writeFileSafe(path: string, text: string): void {
  writeFileSync(path, text);
}
