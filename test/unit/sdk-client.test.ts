/**
 * SwitchboardClient (main/core/connection/sdk-client.ts): a notification goes straight to the
 * Client's dispatch. Checked two ways: the shortcut's test picks exactly the messages the SDK's
 * own classification chain gives to `_onnotification` (its exported guards, over generated
 * messages); and over a real connection to the everything fixture, notifications (logs,
 * progress) and responses behave as before, with a handler set on the transport beforehand
 * still seeing every message first.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Client,
  StreamableHTTPClientTransport,
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
} from '@modelcontextprotocol/client';
import { SwitchboardClient, isInboundNotification } from '../../main/core/connection/sdk-client';
import { startFixture, type RunningFixture } from '../fixtures/everything/harness';
import { prng } from '../support/prng';

/** What the SDK's Protocol.connect does with a message: the branch it takes. */
function sdkBranch(message: unknown): 'response' | 'request' | 'notification' | 'error' {
  if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) return 'response';
  if (isJSONRPCRequest(message)) return 'request';
  if (isJSONRPCNotification(message)) return 'notification';
  return 'error';
}

const VALUES: unknown[] = ['2.0', '1.0', 2, 7, 1.5, -1, '', 'x', 'notifications/message', null, true, [], [1], {}, { level: 'info', data: 'x' }, { code: -32600, message: 'bad' }, { code: 1.5, message: 'bad' }, { _meta: { progressToken: 1 } }, undefined];
const KEYS = ['jsonrpc', 'id', 'method', 'params', 'result', 'error', 'extra'];

function generated(count: number): unknown[] {
  const next = prng(20261207);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
  const out: unknown[] = [null, 'a string', 42, [], [{ jsonrpc: '2.0', method: 'x' }]];
  for (let i = 0; i < count; i++) {
    const m: Record<string, unknown> = {};
    // Mostly well-formed envelopes, so every branch is reached often; then any key may change.
    if (next() < 0.9) m.jsonrpc = '2.0';
    const shape = pick(['notification', 'request', 'result', 'error', 'none'] as const);
    if (shape === 'notification' || shape === 'request') m.method = pick(['notifications/message', 'notifications/progress', 'tools/call', 'x/y']);
    if (shape === 'request' || shape === 'result' || (shape === 'error' && next() < 0.7)) m.id = pick([1, 'a', 2.5, null]);
    if (shape === 'result') m.result = pick([{}, { content: [] }, 'not an object']);
    if (shape === 'error') m.error = pick([{ code: -32600, message: 'bad' }, { code: 'x' }]);
    if (next() < 0.5) m.params = pick([{}, { level: 'info', data: 'x' }, { _meta: { progressToken: 1 } }, 'not an object', []]);
    if (next() < 0.3) m[pick(KEYS)] = pick(VALUES);
    if (next() < 0.05) delete m[pick(KEYS)];
    out.push(m);
  }
  return out;
}

describe('isInboundNotification', () => {
  it('is true exactly when the SDK\'s chain would take the notification branch (20,000 generated messages)', () => {
    const counts = { response: 0, request: 0, notification: 0, error: 0 };
    for (const message of generated(20_000)) {
      const branch = sdkBranch(message);
      counts[branch]++;
      expect({ message, shortcut: isInboundNotification(message) }).toEqual({ message, shortcut: branch === 'notification' });
    }
    // The generator reaches every branch many times (else the check above proves little).
    for (const n of Object.values(counts)) expect(n).toBeGreaterThan(500);
  });
});

describe('SwitchboardClient over a real connection', () => {
  let fixture: RunningFixture;
  beforeAll(async () => {
    fixture = await startFixture({ transport: 'http', era: 'legacy' });
  });
  afterAll(async () => {
    await fixture?.close();
  });

  it('delivers logs and progress, resolves calls, and a handler set on the transport first still sees every message before the client', async () => {
    // For each log the client handled: how many logs the transport's own handler had seen by then.
    const seenBefore: number[] = [];
    const client = new SwitchboardClient({ name: 'sdk-client-test', version: '0.0.0' }, { versionNegotiation: { mode: 'legacy' } });
    const transport = new StreamableHTTPClientTransport(new URL(fixture.url));
    const seen: JSONRPCMessage[] = [];
    transport.onmessage = (message) => void seen.push(message);
    const logs: unknown[] = [];
    client.setNotificationHandler('notifications/message', (n) => {
      logs.push(n.params.data);
      seenBefore.push(seen.filter((m) => 'method' in m && m.method === 'notifications/message').length);
    });
    await client.connect(transport);
    try {
      await client.callTool({ name: 'flood', arguments: { count: 50 } });
      expect(logs).toHaveLength(50);
      const progress: number[] = [];
      const result = await client.callTool({ name: 'slow_count', arguments: { steps: 3, delayMs: 1 } }, { onprogress: (p) => progress.push(p.progress) });
      expect(result.content).toEqual([{ type: 'text', text: 'counted to 3' }]);
      expect(progress).toEqual([1, 2, 3]);
      // The transport's own handler saw every notification, each before the client's handler ran.
      const notes = seen.filter((m) => 'method' in m && !('id' in m));
      expect(notes.length).toBe(50 + 3);
      expect(seenBefore.every((n, i) => n >= i + 1)).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('handles the same flood as the SDK\'s own Client does', async () => {
    const received = async (client: Client) => {
      const data: unknown[] = [];
      client.setNotificationHandler('notifications/message', (n) => void data.push(n.params));
      await client.connect(new StreamableHTTPClientTransport(new URL(fixture.url)));
      try {
        await client.callTool({ name: 'flood', arguments: { count: 200 } });
      } finally {
        await client.close();
      }
      return data;
    };
    const options = { versionNegotiation: { mode: 'legacy' as const } };
    const ours = await received(new SwitchboardClient({ name: 'a', version: '0' }, options));
    const sdk = await received(new Client({ name: 'b', version: '0' }, options));
    expect(ours).toHaveLength(200);
    expect(ours).toEqual(sdk);
  });
});
