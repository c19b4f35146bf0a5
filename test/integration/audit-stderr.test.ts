/**
 * #18 item 3: a server's stderr is not kept in memory. A real process writes 96 MiB of stderr
 * through the tracked stdio transport (every line still reaches the trace and the log
 * callback); resident memory must not grow by anything like that.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { Redactor } from '../../main/core/trace/redact';
import { TrackedStdioTransport } from '../../main/core/transport/tracked-stdio';
import { auditStdioCommand } from '../fixtures/audit/strings';
import { waitFor } from './support/trace';

const MIB = 1024 * 1024;
const FLOOD_MIB = 96;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

let transport: TrackedStdioTransport | undefined;
afterEach(async () => {
  await transport?.close();
  transport = undefined;
});

function mib(bytes: number): string {
  return `${(bytes / MIB).toFixed(1)} MiB`;
}

describe('tracked stdio: stderr', () => {
  it(`keeps ${FLOOD_MIB} MiB of stderr out of memory, while every line reaches the trace`, async () => {
    const { command, args } = auditStdioCommand(['--stderr-mb', String(FLOOD_MIB)]);
    let stderrEvents = 0;
    let stderrBytes = 0;
    let done = false;
    transport = new TrackedStdioTransport(
      { command, args, env: { PATH: process.env.PATH ?? '' } },
      {
        server: 's1',
        redactor: new Redactor(),
        // The trace keeps a bounded window of its own; here each event is counted and dropped.
        record: (event) => {
          if (event.kind !== 'stderr') return;
          stderrEvents++;
          stderrBytes += event.bytes ?? 0;
        },
        onStderrLine: (line) => {
          if (line === 'flood done') done = true;
        },
      },
    );
    await transport.start();
    gc();
    const before = process.memoryUsage();
    // The fixture floods stderr once it is initialized.
    await transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await waitFor('the stderr flood to end', () => done, 120_000);
    gc();
    const after = process.memoryUsage();
    const grewRss = after.rss - before.rss;
    const grewExternal = after.external + after.arrayBuffers - (before.external + before.arrayBuffers);
    console.log(
      `stderr flood: ${stderrEvents} lines, ${mib(stderrBytes)} seen; RSS ${mib(before.rss)} → ${mib(after.rss)} (+${mib(grewRss)}), ` +
        `heap ${mib(before.heapUsed)} → ${mib(after.heapUsed)}, external+buffers +${mib(grewExternal)}, ` +
        `stderr stream buffered ${mib(transport.stderr.readableLength + (transport.stderr as unknown as { writableLength: number }).writableLength)}`,
    );
    expect(stderrBytes).toBeGreaterThan(FLOOD_MIB * MIB * 0.99);
    expect(transport.stderr.readableLength + (transport.stderr as unknown as { writableLength: number }).writableLength).toBeLessThanOrEqual(256 * 1024);
    expect(grewExternal).toBeLessThan(40 * MIB); // unfixed: +195 MiB (the stream kept every line)
    expect(grewRss).toBeLessThan(64 * MIB); // unfixed: +150 MiB
  }, 180_000);

  it('still hands stderr lines to a reader of the stream', async () => {
    const { command, args } = auditStdioCommand();
    transport = new TrackedStdioTransport({ command, args, env: { PATH: process.env.PATH ?? '' } }, { server: 's1', redactor: new Redactor(), record: () => undefined });
    let read = '';
    transport.stderr.setEncoding('utf8');
    transport.stderr.on('data', (chunk: string) => {
      read += chunk;
    });
    await transport.start();
    await transport.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { hello: 'reader' } } });
    await waitFor('the echo line on the stderr stream', () => read.includes('echo called with {"hello":"reader"}'));
  });
});
