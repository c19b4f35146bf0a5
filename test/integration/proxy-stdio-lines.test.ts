/**
 * The stdio proxy in line mode (faults in force), in process over a real child that echoes its
 * stdin: bytes stay the same and in order when a fault is switched on in the middle of a line,
 * for lines cut at the limit, CRLF, invalid UTF-8 and a last line without a newline; a latency
 * fault holds a line and the lines after it wait behind it.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { parseFaultArg } from '../../main/core/faults';
import { createProxyRecorder } from '../../main/core/proxy/recorder';
import { runStdioProxy, stdioProxyConfig } from '../../main/core/proxy/stdio';
import { Redactor } from '../../main/core/trace/redact';

const ECHO = 'process.stdin.pipe(process.stdout)';

function setup(faults: string[] = []) {
  const recorder = createProxyRecorder({
    name: 'lines',
    transport: 'stdio',
    target: 'echo',
    config: stdioProxyConfig('lines', process.execPath, ['-e', ECHO], {}, undefined),
    libraryDir: false,
    version: '0',
    redactor: new Redactor(),
    faults: faults.map(parseFaultArg),
    log: () => {},
  });
  const clientIn = new PassThrough();
  const clientOut = new PassThrough();
  const clientErr = new PassThrough();
  const received: Buffer[] = [];
  clientOut.on('data', (c: Buffer) => received.push(c));
  clientErr.resume();
  const done = runStdioProxy({ command: process.execPath, args: ['-e', ECHO], env: process.env, clientIn, clientOut, clientErr, recorder, maxLineBytes: 64 });
  const until = async (length: number) => {
    const deadline = Date.now() + 20_000;
    while (Buffer.concat(received).length < length) {
      if (Date.now() > deadline) throw new Error(`only ${Buffer.concat(received).length} of ${length} bytes arrived`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  return { recorder, clientIn, received: () => Buffer.concat(received), done, until };
}

describe('stdio proxy, line mode', () => {
  it('a fault switched on mid-line: every byte arrives once, in order (cut lines, CRLF, invalid UTF-8, no final newline)', async () => {
    const { recorder, clientIn, received, done, until } = setup();
    const parts = [
      Buffer.from('{"jsonrpc":"2.0","id":1,"method":"pi'),
      // switched on here, in the middle of the line
      Buffer.from('ng"}\r\n{"jsonrpc":"2.0","method":"notifications/x"}\n'),
      Buffer.from('x'.repeat(100)), // over the 64-byte limit before its newline: cut, forwarded whole
      Buffer.from('yy\n'),
      Buffer.concat([Buffer.from([0xff, 0xfe, 0x0a]), Buffer.from('{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n')]),
      Buffer.from('tail without newline'),
    ];
    clientIn.write(parts[0]);
    await until(parts[0]!.length);
    recorder.faults.set([parseFaultArg('drop-notifications:notification=notifications/none')]);
    for (const part of parts.slice(1)) clientIn.write(part);
    const all = Buffer.concat(parts);
    // Everything but the unfinished last line (line mode holds it until its newline or the end).
    await until(all.length - parts.at(-1)!.length);
    clientIn.end();
    expect(await done).toBe(0);
    expect(received().equals(all)).toBe(true);
  }, 30_000);

  it('latency holds a request; the lines after it wait behind it (order kept)', async () => {
    const { clientIn, received, done, until } = setup(['latency:ms=300,method=slow']);
    const lines = ['{"jsonrpc":"2.0","id":1,"method":"slow"}\n', '{"jsonrpc":"2.0","id":2,"method":"fast"}\n', 'not json\n'];
    for (const line of lines) clientIn.write(line);
    await until(lines.join('').length);
    clientIn.end();
    expect(await done).toBe(0);
    expect(received().toString()).toBe(lines.join(''));
  }, 30_000);
});
