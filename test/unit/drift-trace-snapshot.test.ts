/**
 * A server's interface read from a trace (#13), on a real TraceStore with events shaped as the
 * transports record them: the `era` event's facts, pages joined by cursor, the last complete list
 * winning over a newer one cut short, a failed or unanswered list `missing` (never "all removed"),
 * a "Test connection" probe's lists ignored, a server without the capability holding an empty
 * list, and a hostile answer of 100,000 tools bounded. The window is small, so most events are
 * read back from the spill file.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { TraceEventInput } from '../../contract/trace';
import { traceSnapshot } from '../../main/core/drift/interface';
import { summarizeRpc } from '../../main/core/trace/rpc';
import { TraceStore } from '../../main/core/trace/store';

const SERVER = 's1';
let store: TraceStore;
let nextId = 1;

afterEach(() => store?.close());

function open(): TraceStore {
  store = new TraceStore({ windowSize: 4 });
  nextId = 1;
  return store;
}

function message(dir: 'out' | 'in', body: Record<string, unknown>, extra: Partial<TraceEventInput> = {}): void {
  store.append({ server: SERVER, channel: 'stdio', kind: dir === 'out' ? 'jsonrpc-out' : 'jsonrpc-in', dir, rpc: summarizeRpc(body), body, ...extra });
}

function era(capabilities: Record<string, unknown> = { tools: {}, resources: {}, prompts: {} }): void {
  store.append({ server: SERVER, channel: 'lifecycle', kind: 'state', dir: 'none', meta: { state: 'connecting' } });
  store.append({ server: SERVER, channel: 'lifecycle', kind: 'era', dir: 'none', meta: { era: 'legacy', protocolVersion: '2025-11-25', serverInfo: { name: 'srv', version: '2.0.0' }, capabilities, instructions: 'hi' } });
}

/** A list request and its answer (a result, an error, or none). */
function list(method: string, answer: { items?: unknown[]; key?: string; nextCursor?: string; error?: boolean; none?: boolean }, cursor?: string, extra: Partial<TraceEventInput> = {}): void {
  const id = nextId++;
  message('out', { jsonrpc: '2.0', id, method, params: cursor ? { cursor } : {} }, extra);
  store.append({ server: SERVER, channel: 'stdio', kind: 'stderr', dir: 'in', text: 'noise' });
  if (answer.none) return;
  if (answer.error) message('in', { jsonrpc: '2.0', id, error: { code: -32603, message: 'boom' } }, extra);
  else message('in', { jsonrpc: '2.0', id, result: { [answer.key ?? 'tools']: answer.items ?? [], ...(answer.nextCursor ? { nextCursor: answer.nextCursor } : {}) } }, extra);
}

const tools = (...names: string[]) => names.map((name) => ({ name, inputSchema: { type: 'object' } }));

describe('a snapshot from a trace', () => {
  it("takes the era event's facts and joins pages by cursor", () => {
    open();
    era();
    list('tools/list', { items: tools('a', 'b'), nextCursor: 'p2' });
    list('tools/list', { items: tools('c'), nextCursor: 'p3' }, 'p2');
    list('tools/list', { items: tools('d') }, 'p3');
    list('resources/list', { key: 'resources', items: [{ uri: 'x://1', name: 'one' }] });
    list('resources/templates/list', { key: 'resourceTemplates', items: [] });
    list('prompts/list', { key: 'prompts', items: [{ name: 'p' }] });
    const snapshot = traceSnapshot(store, SERVER, 'srv');
    expect(snapshot).toMatchObject({ serverName: 'srv', protocolVersion: '2025-11-25', serverInfo: { name: 'srv', version: '2.0.0' }, instructions: 'hi', missing: [] });
    expect(snapshot.tools.map((t) => t.name)).toEqual(['a', 'b', 'c', 'd']);
    expect(snapshot.resources).toHaveLength(1);
    expect(snapshot.notes).toContain('tools: 3 pages joined.');
  });

  it('the last complete list wins over a newer walk cut short or failed; a list never answered is missing', () => {
    open();
    era();
    list('tools/list', { items: tools('old') });
    list('tools/list', { items: tools('a', 'b') });
    // A newer walk: its first page came, the second failed.
    list('tools/list', { items: tools('x'), nextCursor: 'n2' });
    list('tools/list', { error: true }, 'n2');
    // resources: asked, never answered; templates: an error; prompts: never asked.
    list('resources/list', { none: true });
    list('resources/templates/list', { error: true });
    const snapshot = traceSnapshot(store, SERVER, 'srv');
    expect(snapshot.tools.map((t) => t.name)).toEqual(['a', 'b']);
    expect(snapshot.missing).toEqual(['resources', 'resourceTemplates', 'prompts']);
  });

  it('a "Test connection" probe is not the server\'s connection; a capability not declared is an empty list', () => {
    open();
    era({ tools: {} });
    list('tools/list', { items: tools('live') });
    list('tools/list', { items: tools('probe') }, undefined, { meta: { check: true } });
    const snapshot = traceSnapshot(store, SERVER, 'srv');
    expect(snapshot.tools.map((t) => t.name)).toEqual(['live']);
    expect(snapshot.missing).toEqual([]);
    expect(snapshot.prompts).toEqual([]);
  });

  it('without an era event: the initialize answer; without either, said in notes', () => {
    open();
    const id = nextId++;
    message('out', { jsonrpc: '2.0', id, method: 'initialize', params: {} });
    message('in', { jsonrpc: '2.0', id, result: { protocolVersion: '2025-06-18', serverInfo: { name: 'raw' }, capabilities: { tools: {} } } });
    list('tools/list', { items: tools('t') });
    expect(traceSnapshot(store, SERVER, 'raw')).toMatchObject({ protocolVersion: '2025-06-18', serverInfo: { name: 'raw' }, missing: [] });
    store.close();
    open();
    list('tools/list', { items: tools('t') });
    const bare = traceSnapshot(store, SERVER, 'raw');
    expect(bare.notes?.[0]).toContain('no initialize answer');
    expect(bare.missing).toEqual(['resources', 'resourceTemplates', 'prompts']);
  });

  it('a hostile answer of 100,000 tools is bounded', () => {
    open();
    era({ tools: {} });
    list('tools/list', { items: Array.from({ length: 100_000 }, (_, i) => ({ name: `t${i}` })) });
    const snapshot = traceSnapshot(store, SERVER, 'srv');
    expect(snapshot.tools).toHaveLength(10_000);
    expect(snapshot.notes?.join(' ')).toContain('100,000 tools listed');
  });
});
