/**
 * The JSON-RPC summary main keeps of every message (main/core/trace/rpc.ts): what the live views
 * read instead of bodies, which pushes leave out (main/core/trace/hub.ts `slim`).
 */
import { describe, expect, it } from 'vitest';
import { summarizeBody, summarizeRpc } from '../../main/core/trace/rpc';

describe('summarizeRpc', () => {
  it('names the request a cancellation cancels, in its legal forms only', () => {
    expect(summarizeRpc({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7, reason: 'timeout' } })).toEqual({
      method: 'notifications/cancelled',
      kind: 'notification',
      cancels: 7,
      id: undefined,
    });
    expect(summarizeRpc({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'r-1' } })?.cancels).toBe('r-1');
    // an object or a missing id names nothing; another method's requestId is not read
    expect(summarizeRpc({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: { $gt: 1 } } })).not.toHaveProperty('cancels');
    expect(summarizeRpc({ jsonrpc: '2.0', method: 'notifications/cancelled' })).not.toHaveProperty('cancels');
    expect(summarizeRpc({ jsonrpc: '2.0', method: 'notifications/message', params: { requestId: 3 } })).not.toHaveProperty('cancels');
  });

  it('marks a tool error (result.isError true), and only that', () => {
    expect(summarizeRpc({ jsonrpc: '2.0', id: 1, result: { isError: true, content: [] } })).toEqual({ id: 1, kind: 'result', isError: true });
    for (const result of [{ isError: false }, { isError: 'true' }, {}, null, 'text', [true]]) {
      expect(summarizeRpc({ jsonrpc: '2.0', id: 1, result })).toEqual({ id: 1, kind: 'result' });
    }
    // an error response is an error, whatever else it carries
    expect(summarizeRpc({ jsonrpc: '2.0', id: 1, error: { code: -1, message: 'x' }, result: { isError: true } })).toMatchObject({ kind: 'error' });
  });

  it('summarizes each message of a batch on its own', () => {
    expect(
      summarizeBody([
        { jsonrpc: '2.0', id: 1, result: { isError: true } },
        { jsonrpc: '2.0', id: 2, result: {} },
        { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 3 } },
      ]).batch,
    ).toEqual([
      { id: 1, kind: 'result', isError: true },
      { id: 2, kind: 'result' },
      { id: undefined, method: 'notifications/cancelled', kind: 'notification', cancels: 3 },
    ]);
  });
});
