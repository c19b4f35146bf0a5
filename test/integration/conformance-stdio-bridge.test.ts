/**
 * The stdio→HTTP bridge the conformance run puts in front of a stdio server: real processes (a
 * tiny line-echoing "server" written here, and our everything fixture), real HTTP.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { runStdioConformance } from '../../main/core/conformance/server';
import { startStdioBridge, type StdioBridge } from '../../main/core/conformance/stdio-bridge';
import { stdioFixtureCommand } from '../fixtures/everything/harness';

const bridges: StdioBridge[] = [];
afterAll(() => Promise.all(bridges.map((b) => b.close())));

async function bridge(target: { command: string; args: string[] }): Promise<StdioBridge> {
  const b = await startStdioBridge(target);
  bridges.push(b);
  return b;
}

const post = (url: string, body: unknown, session?: string) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(session ? { 'mcp-session-id': session } : {}) }, body: JSON.stringify(body) });

/** The JSON-RPC messages of an SSE body. */
const messages = async (response: Response) =>
  (await response.text())
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>);

describe('stdio→HTTP bridge', () => {
  it('a session per initialize, answers on the POST stream, 202 for notifications, 404 for an unknown session, 405 for GET', async () => {
    const { command, args } = stdioFixtureCommand();
    const b = await bridge({ command, args });
    const init = await post(b.url, { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
    expect(init.status).toBe(200);
    expect(init.headers.get('content-type')).toContain('text/event-stream');
    const session = init.headers.get('mcp-session-id')!;
    expect(session).toMatch(/^[0-9a-f-]{36}$/);
    expect((await messages(init))[0]).toMatchObject({ id: 0, result: { serverInfo: { name: 'everything' } } });
    expect((await post(b.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, session)).status).toBe(202);
    const call = await post(b.url, { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } }, session);
    expect((await messages(call)).at(-1)).toMatchObject({ id: 7, result: { content: [{ type: 'text', text: 'echo: hi' }] } });
    expect((await post(b.url, { jsonrpc: '2.0', id: 1, method: 'ping' }, 'no-such-session')).status).toBe(404);
    expect((await post(b.url, { jsonrpc: '2.0', id: 1, method: 'ping' })).status).toBe(400);
    expect((await fetch(b.url)).status).toBe(405);
    expect((await fetch(b.url, { method: 'DELETE', headers: { 'mcp-session-id': session } })).status).toBe(200);
    expect((await post(b.url, { jsonrpc: '2.0', id: 2, method: 'ping' }, session)).status).toBe(404);
  }, 30_000);

  it('hostile stdout (log lines, non-objects) is dropped; a process that exits answers its waiting requests with an error', async () => {
    // A "server" that prints a log line and a bare number, answers initialize, then exits on the next request.
    const script = `
      process.stdout.write('starting up...\\n42\\n');
      let n = 0;
      require('readline').createInterface({ input: process.stdin }).on('line', (line) => {
        const m = JSON.parse(line);
        if (m.method === 'initialize') process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'x', version: '1' } } }) + '\\n');
        else if (m.id !== undefined) process.exit(3);
      });`;
    const b = await bridge({ command: process.execPath, args: ['-e', script] });
    const init = await post(b.url, { jsonrpc: '2.0', id: 0, method: 'initialize', params: {} });
    expect(await messages(init)).toEqual([{ jsonrpc: '2.0', id: 0, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'x', version: '1' } } }]);
    const session = init.headers.get('mcp-session-id')!;
    const dying = await post(b.url, { jsonrpc: '2.0', id: 'a', method: 'tools/list' }, session);
    expect(await messages(dying)).toEqual([{ jsonrpc: '2.0', id: 'a', error: { code: -32000, message: 'the server process exited' } }]);
    expect((await post(b.url, { jsonrpc: '2.0', id: 'b', method: 'ping' }, session)).status).toBe(404);
    const bad = await fetch(b.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{not json' });
    expect(bad.status).toBe(400);
  }, 30_000);
});

describe('stdio conformance with a command that does not exist', () => {
  it('is an unreachable server at once, not a hang', async () => {
    const report = await runStdioConformance({ command: '/nonexistent/mcp-server-xyz', args: [] }, { scenarios: ['ping'], runId: 'nx', libraryDir: false, version: 't' });
    expect(report).toMatchObject({ problemKind: 'unreachable', url: 'stdio: /nonexistent/mcp-server-xyz', scenarios: [] });
    // The failed spawn ends the session and answers the waiting initialize (not the probe's 20 s timeout).
    expect(report.problem).toContain('the server process exited');
    expect(report.problem).toContain('switchboard doctor --stdio "/nonexistent/mcp-server-xyz"');
  }, 30_000);
});
