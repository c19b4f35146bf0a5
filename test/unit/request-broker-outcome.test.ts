/**
 * A question pending when the connection goes (a killed server: the SDK aborts the request's
 * signal with its ConnectionClosed error) resolves as "connection closed", not as the server
 * cancelling it; a real notifications/cancelled still is (issue #11, item 15).
 */
import { SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { EventHub } from '../../main/core/events';
import { RequestBroker } from '../../main/core/requests/broker';

function ask(reason: unknown) {
  const events = new EventHub();
  const resolved: unknown[] = [];
  events.subscribe((name, payload) => name === 'requestResolved' && resolved.push(payload));
  const broker = new RequestBroker(events, () => undefined);
  const controller = new AbortController();
  const answer = broker.ask({ serverId: 's', serverName: 'srv', kind: 'elicitation-form', era: 'legacy', params: { message: 'q' } } as never, { signal: controller.signal });
  controller.abort(reason);
  return { answer, resolved };
}

describe('RequestBroker outcome when the request is aborted', () => {
  it('the connection closed (the SDK\'s ConnectionClosed): connection-closed', async () => {
    const { answer, resolved } = ask(new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed'));
    await expect(answer).rejects.toThrow('The connection closed.');
    expect(resolved).toEqual([expect.objectContaining({ outcome: 'connection-closed' })]);
  });

  it('the server cancelled (notifications/cancelled, with or without a reason): cancelled-by-server', async () => {
    for (const reason of ['user went away', undefined]) {
      const { answer, resolved } = ask(reason);
      await expect(answer).rejects.toThrow('The server cancelled the request.');
      expect(resolved).toEqual([expect.objectContaining({ outcome: 'cancelled-by-server' })]);
    }
  });
});
