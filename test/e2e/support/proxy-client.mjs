/**
 * A client nobody here wrote (the MCP SDK 1.x) launching `switchboard proxy` in front of a
 * stdio server, as Claude Desktop would (#12 e2e). Driven line by line on stdin, it reports on
 * stdout, one JSON line per command:
 *   call TEXT  → {"ok":true,"text":"echo: TEXT","ms":N} or {"ok":false,"error":"…","ms":N}
 *   quit       → closes the client (the proxy and the server end) and exits
 * argv: DATA_DIR NAME -- SERVER_COMMAND ARGS…
 */
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [dataDir, name, sep, ...server] = process.argv.slice(2);
if (!dataDir || !name || sep !== '--' || server.length === 0) {
  console.error('usage: proxy-client.mjs DATA_DIR NAME -- CMD ARGS…');
  process.exit(2);
}
const bin = join(import.meta.dirname, '../../../bin/switchboard.mjs');
const transport = new StdioClientTransport({ command: process.execPath, args: [bin, 'proxy', '--name', name, '--data-dir', dataDir, '--', ...server], stderr: 'inherit' });
const client = new Client({ name: 'E2E Client', version: '1.2' });
const say = (value) => process.stdout.write(JSON.stringify(value) + '\n');
try {
  await client.connect(transport);
  say({ ready: true });
} catch (error) {
  say({ ready: false, error: String(error?.message ?? error) });
  process.exit(1);
}
for await (const line of createInterface({ input: process.stdin })) {
  if (line === 'quit') break;
  if (line.startsWith('call ')) {
    const started = performance.now();
    try {
      const result = await client.callTool({ name: 'echo', arguments: { text: line.slice(5) } }, undefined, { timeout: 20_000 });
      say({ ok: true, text: result.content?.[0]?.text, ms: performance.now() - started });
    } catch (error) {
      say({ ok: false, error: String(error?.message ?? error), ms: performance.now() - started });
    }
  }
}
await client.close();
process.exit(0);
