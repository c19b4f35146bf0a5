/**
 * Broken servers for the connection doctor's tests, each a real socket or process made here:
 * a plain HTTP server answering one way (404, HTML, 401 without metadata), an https server with a
 * certificate made by `selfsigned` (valid but self-signed, or expired), and stdio scripts that log
 * on stdout or exit at once.
 */
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';

export interface TestServer {
  url: string;
  close(): Promise<void>;
}

function closer(server: http.Server): () => Promise<void> {
  return () =>
    new Promise((done) => {
      server.closeAllConnections();
      server.close(() => done());
    });
}

/** An HTTP server on 127.0.0.1 answering every request with `handler`. */
export async function httpServer(handler: http.RequestListener, path = '/mcp'): Promise<TestServer> {
  const server = http.createServer(handler);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}${path}`, close: closer(server) };
}

/** An https server on 127.0.0.1 with a certificate made now for `name` (default 127.0.0.1): self-signed, expired when asked. */
export async function httpsServer(opts: { expired: boolean; name?: string }): Promise<TestServer> {
  const day = 86_400_000;
  const notBeforeDate = new Date(Date.now() - (opts.expired ? 400 : 1) * day);
  const notAfterDate = new Date(Date.now() + (opts.expired ? -30 : 365) * day);
  const name = opts.name ?? '127.0.0.1';
  const pems = await generate([{ name: 'commonName', value: name }], {
    keySize: 2048,
    notBeforeDate,
    notAfterDate,
    extensions: [{ name: 'subjectAltName', altNames: [name === '127.0.0.1' ? { type: 7, ip: name } : { type: 2, value: name }] }],
  } as Parameters<typeof generate>[1]);
  const server = https.createServer({ key: pems.private, cert: pems.cert }, (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{}');
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return { url: `https://127.0.0.1:${port}/mcp`, close: closer(server) };
}

/** A port nothing listens on (bound, then closed). */
export async function refusedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

/** A stdio server (node -e) that answers initialize but prints log lines on stdout first. */
export const LOGS_ON_STDOUT = `
console.log('Server starting on stdio, log level info');
let buf = '';
process.stdin.on('data', (d) => {
  buf += d;
  let i;
  while ((i = buf.indexOf('\\n')) >= 0) {
    const line = buf.slice(0, i); buf = buf.slice(i + 1);
    if (!line.trim()) continue;
    const m = JSON.parse(line);
    if (m.id === undefined) continue;
    console.log('handling ' + m.method);
    if (m.method === 'initialize') console.log(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'chatty', version: '1.0.0' } } }));
    else if (m.method === 'tools/list') console.log(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { tools: [] } }));
    else console.log(JSON.stringify({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'Method not found' } }));
  }
});
`;

/** A stdio server that quits at once, saying why on stderr. */
export const EXITS_AT_ONCE = `console.error('fatal: MY_API_KEY is not set'); process.exit(3);`;
