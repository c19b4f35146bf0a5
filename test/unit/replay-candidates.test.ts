/** Which recorded requests can be replayed, their pairing with the answers, and the scan's bounds, on a trace built by hand. */
import { afterEach, describe, expect, it } from 'vitest';
import { scanRequests } from '../../main/core/replay/candidates';
import { TraceHub } from '../../main/core/trace/hub';

let hub: TraceHub | undefined;
afterEach(() => hub?.close());

function out(h: TraceHub, id: number, method: string, params?: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  h.record({ server: 's', channel: 'stdio', kind: 'jsonrpc-out', dir: 'out', rpc: { id, method, kind: 'request' }, body: { jsonrpc: '2.0', id, method, params }, ...extra });
}
function answer(h: TraceHub, id: number, result: unknown, server = 's') {
  h.record({ server, channel: 'stdio', kind: 'jsonrpc-in', dir: 'in', rpc: { id, kind: 'result' }, body: { jsonrpc: '2.0', id, result } });
}

describe('scanRequests', () => {
  it('keeps our requests of the replayable methods, paired by id, never initialize, ping, notifications or the server’s own requests', () => {
    hub = new TraceHub(undefined);
    out(hub, 0, 'initialize', {});
    answer(hub, 0, { protocolVersion: 'x' });
    hub.record({ server: 's', channel: 'stdio', kind: 'jsonrpc-out', dir: 'out', rpc: { method: 'notifications/initialized', kind: 'notification' }, body: { jsonrpc: '2.0', method: 'notifications/initialized' } });
    out(hub, 1, 'tools/list');
    out(hub, 2, 'ping');
    answer(hub, 2, {});
    answer(hub, 1, { tools: [] });
    // The server asks us (direction in): not ours to replay.
    hub.record({ server: 's', channel: 'stdio', kind: 'jsonrpc-in', dir: 'in', rpc: { id: 7, method: 'sampling/createMessage', kind: 'request' }, body: { jsonrpc: '2.0', id: 7, method: 'sampling/createMessage', params: {} } });
    out(hub, 3, 'tools/call', { name: 'echo', arguments: { text: 'a' } });
    // Another server's answer with the same id does not pair.
    answer(hub, 3, { content: [] }, 'other');
    const { requests, total } = scanRequests(hub, { serverName: () => 'fx' });
    expect(requests.map((r) => r.candidate.method)).toEqual(['tools/list', 'tools/call']);
    expect(total).toBe(2);
    expect(requests[0]!.candidate.responseSeq).toBe(7);
    expect(requests[0]!.response?.message).toMatchObject({ result: { tools: [] } });
    expect(requests[1]!.candidate).toMatchObject({ tool: 'echo', summary: 'echo({"text":"a"})', serverName: 'fx' });
    expect(requests[1]!.candidate.responseSeq).toBeUndefined();
    // Asked for: ping; by seq: initialize is kept but refused, with why.
    expect(scanRequests(hub, { serverName: () => 'fx', only: ['ping'] }).requests.map((r) => r.candidate.method)).toEqual(['ping']);
    const named = scanRequests(hub, { serverName: () => 'fx', seqs: [1] }).requests;
    expect(named[0]!.refused).toMatch(/initialize is never replayed/);
  });

  it('keeps at most `max` (counting the rest), and a listing keeps no bodies', () => {
    hub = new TraceHub(undefined);
    for (let id = 1; id <= 30; id++) {
      out(hub, id, 'resources/read', { uri: `fixture://items/${id}` });
      answer(hub, id, { contents: [{ uri: `fixture://items/${id}`, text: 'x'.repeat(1000) }] });
    }
    const capped = scanRequests(hub, { serverName: (id) => id, max: 10 });
    expect(capped.requests).toHaveLength(10);
    expect(capped.total).toBe(30);
    expect(capped.requests.every((r) => r.candidate.responseSeq === r.candidate.seq + 1)).toBe(true);
    const listing = scanRequests(hub, { serverName: (id) => id, bodies: false });
    expect(listing.requests).toHaveLength(30);
    expect(listing.requests.every((r) => r.params === undefined && r.response !== undefined && Object.keys(r.response.message).length === 0)).toBe(true);
  });
});
