/**
 * The lower layers the doctor must see for itself (the app's fetch hides them): DNS with every
 * address, a TCP connect, the TLS handshake with the certificate chain, and one HTTP request made
 * by hand (no redirect followed, the body read up to a bound). node:dns/net/tls/http only.
 */
import { lookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';

export interface Address {
  address: string;
  family: number;
}

export async function resolveAll(hostname: string): Promise<Address[]> {
  const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  if (net.isIP(bare)) return [{ address: bare, family: net.isIP(bare) }];
  return lookup(bare, { all: true, verbatim: true });
}

export function tcpConnect(address: Address, port: number, signal: AbortSignal): Promise<{ local: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: address.address, port, family: address.family });
    const done = (error?: Error) => {
      signal.removeEventListener('abort', onAbort);
      const local = `${socket.localAddress ?? '?'}:${socket.localPort ?? '?'}`;
      socket.destroy();
      if (error) reject(error);
      else resolve({ local });
    };
    const onAbort = () => done(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    signal.addEventListener('abort', onAbort);
    socket.once('connect', () => done());
    socket.on('error', (error) => done(error));
  });
}

export interface TlsFacts {
  authorized: boolean;
  /** Node's reason when the chain is not trusted: CERT_HAS_EXPIRED, DEPTH_ZERO_SELF_SIGNED_CERT, … */
  authorizationError?: string;
  /** The hostname check's message, when the certificate does not name the host. */
  hostnameError?: string;
  protocol?: string;
  chain: { subject: string; issuer: string; validFrom: string; validTo: string; selfSigned: boolean }[];
  validTo?: Date;
  validFrom?: Date;
}

function nameOf(entity: Record<string, string | string[]> | undefined): string {
  if (!entity) return '?';
  const cn = entity.CN;
  const parts = Object.entries(entity).map(([k, v]) => `${k}=${Array.isArray(v) ? v.join('+') : v}`);
  return typeof cn === 'string' ? cn : parts.join(', ') || '?';
}

/** A handshake that accepts any certificate, to report what is wrong with it rather than just refuse. */
export function tlsHandshake(address: Address, port: number, servername: string, signal: AbortSignal): Promise<TlsFacts> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: address.address, port, servername: net.isIP(servername) ? undefined : servername, rejectUnauthorized: false, ALPNProtocols: ['http/1.1'] });
    const onAbort = () => {
      socket.destroy();
      reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    };
    signal.addEventListener('abort', onAbort);
    // `on`, not `once`: a second error after the socket is destroyed must not go unhandled.
    socket.on('error', (error) => {
      signal.removeEventListener('abort', onAbort);
      socket.destroy();
      reject(error);
    });
    socket.once('secureConnect', () => {
      signal.removeEventListener('abort', onAbort);
      const peer = socket.getPeerCertificate(true);
      const chain: TlsFacts['chain'] = [];
      const seen = new Set<string>();
      let cert: tls.DetailedPeerCertificate | undefined = peer && Object.keys(peer).length > 0 ? peer : undefined;
      while (cert && chain.length < 10 && !seen.has(cert.fingerprint256)) {
        seen.add(cert.fingerprint256);
        const subject = nameOf(cert.subject as unknown as Record<string, string>);
        const issuer = nameOf(cert.issuer as unknown as Record<string, string>);
        chain.push({ subject, issuer, validFrom: cert.valid_from, validTo: cert.valid_to, selfSigned: cert.issuerCertificate === cert || cert.fingerprint256 === cert.issuerCertificate?.fingerprint256 });
        cert = cert.issuerCertificate;
      }
      const hostnameError = peer && Object.keys(peer).length > 0 ? tls.checkServerIdentity(servername, peer)?.message : 'the server sent no certificate';
      const facts: TlsFacts = {
        authorized: socket.authorized,
        authorizationError: socket.authorizationError ? String(socket.authorizationError) : undefined,
        hostnameError,
        protocol: socket.getProtocol() ?? undefined,
        chain,
        validTo: peer?.valid_to ? new Date(peer.valid_to) : undefined,
        validFrom: peer?.valid_from ? new Date(peer.valid_from) : undefined,
      };
      socket.destroy();
      resolve(facts);
    });
  });
}

export interface RawResponse {
  status: number;
  statusText: string;
  headers: http.IncomingHttpHeaders;
  /** The body as text, up to the bound (for an event stream: until the first complete event). */
  body: string;
  truncated: boolean;
}

export interface RawRequest {
  method: string;
  headers: Record<string, string>;
  body?: string;
  maxBytes?: number;
  /** Stop reading once the headers are in (a stream that stays open). */
  headersOnly?: boolean;
  /** An event stream is read until this says enough (default: its first JSON event). */
  enough?: (text: string) => boolean;
}

/** One HTTP exchange by hand: no redirect followed, no decompression asked for, the body bounded. */
export function rawRequest(url: URL, request: RawRequest, signal: AbortSignal): Promise<RawResponse> {
  const maxBytes = request.maxBytes ?? 64 * 1024;
  const lib = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = lib.request(url, {
      method: request.method,
      headers: { ...request.headers, ...(request.body !== undefined ? { 'content-length': String(Buffer.byteLength(request.body)) } : {}) },
      signal,
      agent: false,
    });
    req.on('error', reject);
    req.once('response', (res) => {
      const base = { status: res.statusCode ?? 0, statusText: res.statusMessage ?? '', headers: res.headers };
      if (request.headersOnly) {
        res.destroy();
        req.destroy();
        resolve({ ...base, body: '', truncated: true });
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      const isStream = String(res.headers['content-type'] ?? '').includes('text/event-stream');
      const finish = (truncated: boolean) => {
        res.removeAllListeners('data');
        resolve({ ...base, body: Buffer.concat(chunks).toString('utf8'), truncated });
        if (truncated) {
          res.destroy();
          req.destroy();
        }
      };
      res.on('data', (chunk: Buffer) => {
        const room = maxBytes - size;
        chunks.push(room < chunk.length ? chunk.subarray(0, room) : chunk);
        size += Math.min(room, chunk.length);
        if (size >= maxBytes) return finish(true);
        // An event stream answering a request: its first event carrying data is the answer.
        if (isStream && (request.enough ?? firstJsonEvent)(Buffer.concat(chunks).toString('utf8'))) finish(true);
      });
      res.once('end', () => finish(false));
      res.on('error', reject);
    });
    req.end(request.body);
  });
}

const firstJsonEvent = (text: string) => bodyMessage(text, 'text/event-stream') !== undefined;

/** A legacy HTTP+SSE stream's `endpoint` event (where its messages are POSTed), once complete. */
export function endpointEvent(text: string): string | undefined {
  const match = /(?:^|\n)event: ?endpoint\r?\ndata: ?([^\r\n]{1,2048})\r?\n\r?\n/.exec(text);
  return match?.[1];
}

/** The JSON-RPC message of a body: JSON, or the first `data:` event of an event stream. */
export function bodyMessage(body: string, contentType: string): unknown {
  const text = body.trim();
  if (contentType.includes('text/event-stream')) {
    // The first complete event whose data is JSON (a priming event carries none).
    let data: string[] = [];
    for (const line of body.split(/\r?\n/)) {
      if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      else if (line === '') {
        const parsed = parseJson(data.join('\n'));
        if (parsed !== undefined) return parsed;
        data = [];
      }
    }
    return undefined;
  }
  return parseJson(text);
}

function parseJson(text: string): unknown {
  if (!text.trim()) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
