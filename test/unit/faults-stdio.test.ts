/**
 * Faults on stdio lines (main/core/faults/stdio.ts): forwarded lines are the same bytes in the same
 * order, latency holds a line and everything behind it, stall withholds an answer, jsonrpc-error
 * answers in the server's place, drop-notifications drops matching notification lines. The last
 * test runs a real child process over real pipes.
 */
import { spawn } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FaultEngine, createStdioFaults, parseFault, type AppliedFault, type FaultSpec } from '../../main/core/faults';

const line = (value: unknown): Buffer => Buffer.from(JSON.stringify(value) + '\n', 'utf8');
const parse = (b: Buffer | string): unknown => {
  try {
    return JSON.parse(b.toString());
  } catch {
    return undefined;
  }
};

function rig(faults: FaultSpec[]) {
  const engine = new FaultEngine(faults.map((f) => parseFault(f)));
  const toServer: Buffer[] = [];
  const toClient: (Buffer | string)[] = [];
  const applied: AppliedFault[] = [];
  const pipe = createStdioFaults<Buffer>(engine, {
    forwardToServer: (l) => toServer.push(l),
    forwardToClient: (l) => toClient.push(l),
    onApplied: (a) => applied.push(a),
  });
  const client = (b: Buffer): void => pipe.fromClient(b, parse(b));
  const server = (b: Buffer): void => pipe.fromServer(b, parse(b));
  return { engine, pipe, toServer, toClient, applied, client, server };
}

describe('stdio faults', () => {
  it('forwards lines that meet no fault as the very same bytes, in order, both ways', () => {
    const r = rig([{ type: 'jsonrpc-error', method: 'tools/call' }, { type: 'drop-notifications', notification: 'notifications/progress' }]);
    const fromClient = [
      Buffer.from('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"name":"é✓ \\u00e9"}}\r\n'),
      Buffer.from('  {"jsonrpc": "2.0",   "method":"notifications/initialized"}\n'),
      Buffer.from('not json at all\n'),
      Buffer.from('{"jsonrpc":"2.0","id":"s-1","result":{}}\n'), // an answer to a server's request
      Buffer.from([0xff, 0xfe, 0x0a]), // not UTF-8
    ];
    const fromServer = [
      Buffer.from('{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"}}\n'),
      Buffer.from('{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}\n'),
      Buffer.from('{"jsonrpc":"2.0","id":"s-1","method":"sampling/createMessage","params":{}}\n'),
      Buffer.from('garbage from the server\n'),
    ];
    for (const b of fromClient) r.client(b);
    for (const b of fromServer) r.server(b);
    expect(r.toServer).toHaveLength(fromClient.length);
    r.toServer.forEach((b, i) => expect(b).toBe(fromClient[i]));
    expect(r.toClient).toHaveLength(fromServer.length);
    r.toClient.forEach((b, i) => expect(b).toBe(fromServer[i]));
    expect(r.applied).toEqual([]);
  });

  it('latency holds a request line, and the lines behind it wait (order kept); other directions are not held', async () => {
    const r = rig([{ type: 'latency', ms: 40, method: 'tools/call' }]);
    const call = line({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo' } });
    const ping = line({ jsonrpc: '2.0', id: 3, method: 'ping' });
    const note = line({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2 } });
    r.client(call);
    r.client(ping);
    r.client(note);
    expect(r.toServer).toEqual([]); // held
    expect(r.pipe.pending()).toEqual({ toServer: 3, toClient: 0 });
    const answer = line({ jsonrpc: '2.0', id: 1, result: {} });
    r.server(answer);
    expect(r.toClient).toEqual([answer]); // the other direction goes straight through
    await r.pipe.drain();
    expect(r.toServer).toHaveLength(3);
    expect(r.toServer[0]).toBe(call);
    expect(r.toServer[1]).toBe(ping);
    expect(r.toServer[2]).toBe(note);
    expect(r.applied).toEqual([{ type: 'latency', faultId: 1, rpcId: 2, method: 'tools/call', detail: 'held 40 ms' }]);
  });

  it('flush forwards held lines at once, in order', () => {
    const r = rig([{ type: 'latency', ms: 60_000 }]);
    const a = line({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const b = line({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    r.client(a);
    r.client(b);
    expect(r.toServer).toEqual([]);
    r.pipe.flush();
    expect(r.toServer).toEqual([a, b]);
    expect(r.pipe.pending()).toEqual({ toServer: 0, toClient: 0 });
  });

  it('jsonrpc-error: the proxy answers with the request id, code and message; the server never sees the request', () => {
    const r = rig([{ type: 'jsonrpc-error', code: -32000, message: 'boom', method: 'tools/call', times: 1 }]);
    r.client(line({ jsonrpc: '2.0', id: 'abc', method: 'tools/call', params: { name: 'x' } }));
    expect(r.toServer).toEqual([]);
    expect(r.toClient).toHaveLength(1);
    const answer = r.toClient[0]!;
    expect(typeof answer).toBe('string');
    expect(answer).toBe('{"jsonrpc":"2.0","id":"abc","error":{"code":-32000,"message":"boom"}}\n');
    expect(r.applied).toEqual([{ type: 'jsonrpc-error', faultId: 1, rpcId: 'abc', method: 'tools/call', detail: 'answered -32000 boom' }]);
    // times: 1 — the next call reaches the server.
    const next = line({ jsonrpc: '2.0', id: 'def', method: 'tools/call' });
    r.client(next);
    expect(r.toServer).toEqual([next]);
  });

  it('jsonrpc-error on a batch answers every request in it, as a batch', () => {
    const r = rig([{ type: 'jsonrpc-error' }]);
    r.client(line([{ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { jsonrpc: '2.0', method: 'notifications/x' }, { jsonrpc: '2.0', id: 2, method: 'ping' }]));
    expect(JSON.parse(String(r.toClient[0]))).toEqual([
      { jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'injected by the Switchboard proxy' } },
      { jsonrpc: '2.0', id: 2, error: { code: -32603, message: 'injected by the Switchboard proxy' } },
    ]);
    expect(r.toServer).toEqual([]);
  });

  it('stall: the request reaches the server, its answer never reaches the client; other answers do', () => {
    const r = rig([{ type: 'stall', method: 'tools/call' }]);
    const call = line({ jsonrpc: '2.0', id: 5, method: 'tools/call' });
    const list = line({ jsonrpc: '2.0', id: 6, method: 'tools/list' });
    r.client(call);
    r.client(list);
    expect(r.toServer).toEqual([call, list]);
    const progress = line({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 5, progress: 1 } });
    const callAnswer = line({ jsonrpc: '2.0', id: 5, result: { content: [] } });
    const listAnswer = line({ jsonrpc: '2.0', id: 6, result: { tools: [] } });
    const serverRequest = line({ jsonrpc: '2.0', id: 5, method: 'roots/list' }); // same id, but a request: forwarded
    r.server(progress);
    r.server(callAnswer);
    r.server(listAnswer);
    r.server(serverRequest);
    expect(r.toClient).toEqual([progress, listAnswer, serverRequest]);
    expect(r.applied.map((a) => [a.type, a.rpcId, a.detail])).toEqual([
      ['stall', 5, 'its answer will not be forwarded'],
      ['stall', 5, 'answer withheld'],
    ]);
    // The id is withheld once: a later answer with the same id (a server bug) is forwarded.
    r.server(callAnswer);
    expect(r.toClient.at(-1)).toBe(callAnswer);
  });

  it('drop-notifications: matching notification lines from the server are not forwarded; counted as hits', () => {
    const r = rig([{ type: 'drop-notifications', notification: ['notifications/progress', 'notifications/message'], times: 2 }]);
    const lines = [
      line({ jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 1 } }),
      line({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }),
      line({ jsonrpc: '2.0', id: 9, method: 'notifications/progress' }), // has an id: a request, not a notification
      line({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'hi' } }),
      line({ jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 2 } }), // times exhausted
    ];
    for (const l of lines) r.server(l);
    expect(r.toClient).toEqual([lines[1], lines[2], lines[4]]);
    expect(r.applied.map((a) => [a.type, a.method])).toEqual([
      ['drop-notifications', 'notifications/progress'],
      ['drop-notifications', 'notifications/message'],
    ]);
    expect(r.engine.list()[0]).toMatchObject({ hits: 2, exhausted: true });
    // Client lines are never dropped.
    const fromClient = line({ jsonrpc: '2.0', method: 'notifications/progress' });
    r.client(fromClient);
    expect(r.toServer).toEqual([fromClient]);
  });

  it('faults changed while a pipe runs take effect on the next line', () => {
    const r = rig([]);
    const a = line({ jsonrpc: '2.0', id: 1, method: 'tools/call' });
    r.client(a);
    r.engine.set([parseFault({ type: 'jsonrpc-error' })]);
    r.client(line({ jsonrpc: '2.0', id: 2, method: 'tools/call' }));
    expect(r.toServer).toEqual([a]);
    expect(r.toClient).toHaveLength(1);
  });

  it('any mix of lines and faults: what reaches the server is the client\'s lines minus the answered ones, same objects, same order', async () => {
    const methods = ['tools/call', 'tools/list', 'ping', 'notifications/progress'];
    const lineArb = fc.oneof(
      fc.record({ id: fc.option(fc.integer({ min: 1, max: 50 }), { nil: undefined }), method: fc.constantFrom(...methods) }).map(({ id, method }) =>
        line(id === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', id, method }),
      ),
      fc.string({ maxLength: 20 }).map((t) => Buffer.from(`${t.replace(/\n/g, ' ')}\n`)),
    );
    const faultArb = fc.oneof(
      fc.record({ type: fc.constant('latency' as const), ms: fc.integer({ min: 0, max: 3 }), method: fc.constantFrom(...methods) }),
      fc.record({ type: fc.constant('jsonrpc-error' as const), method: fc.constantFrom(...methods), times: fc.integer({ min: 1, max: 3 }) }),
      fc.record({ type: fc.constant('stall' as const), method: fc.constantFrom(...methods) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(lineArb, { maxLength: 25 }), fc.array(faultArb, { maxLength: 4 }), async (lines, faults) => {
        const r = rig(faults);
        for (const l of lines) r.client(l);
        await r.pipe.drain();
        // Every forwarded object is one the client gave, in the client's order.
        let at = 0;
        for (const sent of r.toServer) {
          at = lines.indexOf(sent, at);
          expect(at).toBeGreaterThanOrEqual(0);
          at += 1;
        }
        // Nothing else went missing: forwarded + answered by the proxy = every line.
        const errors = r.applied.filter((a) => a.type === 'jsonrpc-error').length;
        expect(r.toServer.length + errors).toBe(lines.length);
        expect(r.toClient).toHaveLength(errors);
      }),
      { numRuns: 60 },
    );
  });

  it('over real pipes: a child process gets the client lines byte for byte, the injected error and the held line in order', async () => {
    // A line echo server: answers every request line with {"id":…, "result":{"echo":<the line's bytes as hex>}}.
    const child = spawn(
      process.execPath,
      [
        '-e',
        `let buf=Buffer.alloc(0);process.stdin.on('data',c=>{buf=Buffer.concat([buf,c]);let i;while((i=buf.indexOf(10))!==-1){const l=buf.subarray(0,i+1);buf=buf.subarray(i+1);let m;try{m=JSON.parse(l.toString())}catch{continue}if(m.id!==undefined)process.stdout.write(JSON.stringify({jsonrpc:'2.0',id:m.id,result:{echo:l.toString('hex')}})+'\\n');else process.stdout.write(JSON.stringify({jsonrpc:'2.0',method:'notifications/message',params:{data:m.method}})+'\\n')}});process.stdin.on('end',()=>process.exit(0));`,
      ],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    const engine = new FaultEngine([
      parseFault({ type: 'jsonrpc-error', method: 'tools/call', code: -32001, message: 'nope' }),
      parseFault({ type: 'latency', ms: 30, method: 'tools/list' }),
      parseFault({ type: 'drop-notifications', notification: 'notifications/message' }),
    ]);
    const received: string[] = [];
    const pipe = createStdioFaults<Buffer>(engine, {
      forwardToServer: (l) => child.stdin.write(l),
      forwardToClient: (l) => received.push(l.toString()),
    });
    let buf = Buffer.alloc(0);
    child.stdout.on('data', (c: Buffer) => {
      buf = Buffer.concat([buf, c]);
      let i;
      while ((i = buf.indexOf(10)) !== -1) {
        const l = buf.subarray(0, i + 1);
        buf = buf.subarray(i + 1);
        pipe.fromServer(l, parse(l));
      }
    });
    const sent = [
      Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n'),
      Buffer.from('{ "jsonrpc" : "2.0", "id" : 2, "method" : "ping", "params": {"é": "✓"} }\n'),
      Buffer.from('{"jsonrpc":"2.0","id":3,"method":"tools/call"}\n'),
      Buffer.from('{"jsonrpc":"2.0","method":"notifications/initialized"}\n'),
      Buffer.from('{"jsonrpc":"2.0","id":4,"method":"ping"}\n'),
    ];
    for (const l of sent) pipe.fromClient(l, parse(l));
    await pipe.drain();
    child.stdin.end();
    await new Promise((resolve) => child.once('close', resolve));
    const answers = received.map((l) => JSON.parse(l) as { id: number; result?: { echo: string }; error?: unknown });
    // The error for id 3 is the first thing the client sees (ids 1, 2 are held behind tools/list's latency).
    expect(answers.map((a) => a.id)).toEqual([3, 1, 2, 4]);
    expect(answers[0]).toEqual({ jsonrpc: '2.0', id: 3, error: { code: -32001, message: 'nope' } });
    // What the server read is, byte for byte, what the client wrote (minus the request the proxy answered).
    const echoed = new Map(answers.filter((a) => a.result).map((a) => [a.id, Buffer.from(a.result!.echo, 'hex')]));
    expect(echoed.get(1)!.equals(sent[0]!)).toBe(true);
    expect(echoed.get(2)!.equals(sent[1]!)).toBe(true);
    expect(echoed.get(4)!.equals(sent[4]!)).toBe(true);
    expect(engine.list().map((a) => [a.fault.type, a.hits])).toEqual([
      ['jsonrpc-error', 1],
      ['latency', 1],
      ['drop-notifications', 1], // the server's notification for notifications/initialized
    ]);
  });
});
