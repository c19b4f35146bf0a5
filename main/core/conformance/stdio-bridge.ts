/**
 * A stdio server behind a Streamable HTTP endpoint, for the conformance suite only (its client
 * connects to a URL). Every `initialize` without a session starts a fresh server process (a stdio
 * server serves one client for its life) and gets an `Mcp-Session-Id`; later POSTs with that id
 * go to that process's stdin.
 *
 * A POST carrying requests is answered as an SSE stream that ends with the last of their answers;
 * whatever the process writes in the meantime (notifications, its own requests such as
 * sampling/createMessage) goes on the stream of the request still waiting longest. A POST of only
 * notifications or responses is answered 202. GET is 405 (no standalone stream, which the spec
 * allows); DELETE ends the process. Bounded: a request body and a stdout line at most
 * MAX_LINE_BYTES; a process's stdout that is not JSON-RPC is dropped (its count kept for the log).
 * Loopback only; no Host check (the DNS rebinding scenario is not applicable to a bridged server).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export const MAX_LINE_BYTES = 16 * 1024 * 1024;
/** Server processes alive at once (each scenario opens one or two sessions). */
export const MAX_SESSIONS = 16;

export interface StdioBridgeTarget {
  command: string;
  args: string[];
  env?: Record<string, string>;
  cwd?: string;
}

export interface StdioBridge {
  /** `http://127.0.0.1:PORT/mcp` */
  readonly url: string;
  close(): Promise<void>;
}

type Id = string | number;
interface Waiting {
  /** The requests still unanswered, by idKey. */
  ids: Map<string, Id>;
  res: http.ServerResponse;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const idKey = (id: Id) => `${typeof id}:${id}`;

class Session {
  readonly child: ChildProcess;
  private readonly waiting: Waiting[] = [];
  private buffer = '';
  private exited = false;
  dropped = 0;

  constructor(target: StdioBridgeTarget, readonly id: string, onExit: () => void, log: (line: string) => void) {
    this.child = spawn(target.command, target.args, { env: { ...process.env, ...target.env }, cwd: target.cwd, stdio: ['pipe', 'pipe', 'ignore'], shell: false });
    this.child.stdout!.setEncoding('utf8').on('data', (chunk: string) => this.onStdout(chunk));
    this.child.stdin!.on('error', () => undefined);
    // A command that cannot start emits 'error' (and maybe no 'exit'): either ends the session.
    this.child.once('error', (error) => {
      log(`the server process could not start: ${error.message}`);
      gone();
    });
    this.child.once('exit', () => gone());
    const gone = () => {
      if (this.exited) return;
      this.exited = true;
      for (const w of this.waiting.splice(0)) {
        for (const id of w.ids.values()) this.send(w, { jsonrpc: '2.0', id, error: { code: -32000, message: 'the server process exited' } });
        w.res.end();
      }
      onExit();
    };
  }

  get alive(): boolean {
    return !this.exited;
  }

  write(messages: unknown[]): void {
    if (this.exited) return;
    for (const m of messages) this.child.stdin!.write(`${JSON.stringify(m)}\n`);
  }

  wait(ids: Id[], res: http.ServerResponse): void {
    this.waiting.push({ ids: new Map(ids.map((id) => [idKey(id), id])), res });
    res.once('close', () => {
      const at = this.waiting.findIndex((w) => w.res === res);
      if (at >= 0) this.waiting.splice(at, 1);
    });
  }

  kill(): void {
    if (this.exited) return;
    this.child.kill('SIGTERM');
    setTimeout(() => !this.exited && this.child.kill('SIGKILL'), 2_000).unref();
  }

  private onStdout(chunk: string): void {
    this.buffer += chunk;
    if (this.buffer.length > MAX_LINE_BYTES && !this.buffer.includes('\n')) {
      this.buffer = '';
      this.dropped++;
      return;
    }
    let newline: number;
    while ((newline = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, newline).trim();
      this.buffer = this.buffer.slice(newline + 1);
      if (line) this.onLine(line);
    }
  }

  private onLine(line: string): void {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      this.dropped++;
      return;
    }
    if (!isObject(message)) {
      this.dropped++;
      return;
    }
    const isAnswer = ('result' in message || 'error' in message) && (typeof message.id === 'string' || typeof message.id === 'number');
    const key = isAnswer ? idKey(message.id as Id) : undefined;
    const target = (key !== undefined ? this.waiting.find((w) => w.ids.has(key)) : undefined) ?? this.waiting[0];
    if (!target) return; // nobody to give it to (no standalone stream)
    this.send(target, message);
    if (key !== undefined && target.ids.delete(key) && target.ids.size === 0) {
      this.waiting.splice(this.waiting.indexOf(target), 1);
      target.res.end();
    }
  }

  private send(w: Waiting, message: unknown): void {
    if (!w.res.writableEnded) w.res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  }
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let size = 0;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_LINE_BYTES) {
        reject(new Error('request body too large'));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.once('error', reject);
  });
}

function jsonError(res: http.ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message } }));
}

export async function startStdioBridge(target: StdioBridgeTarget, log: (line: string) => void = () => undefined): Promise<StdioBridge> {
  const sessions = new Map<string, Session>();
  const server = http.createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) jsonError(res, 400, error instanceof Error ? error.message : String(error));
      else res.end();
    });
  });
  server.on('clientError', (_error, socket) => socket.destroy());

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const sessionId = typeof req.headers['mcp-session-id'] === 'string' ? req.headers['mcp-session-id'] : undefined;
    const session = sessionId ? sessions.get(sessionId) : undefined;
    if (req.method === 'DELETE') {
      if (!session) return jsonError(res, 404, 'Session not found');
      session.kill();
      sessions.delete(session.id);
      res.writeHead(200).end();
      return;
    }
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST, DELETE' }).end();
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(await readBody(req));
    } catch {
      return jsonError(res, 400, 'Parse error');
    }
    const messages = (Array.isArray(parsed) ? parsed : [parsed]).slice(0, 1000);
    if (!messages.every(isObject)) return jsonError(res, 400, 'Invalid Request');
    const initialize = messages.some((m) => m.method === 'initialize');
    let current = session;
    if (sessionId && !session) return jsonError(res, 404, 'Session not found');
    if (!current) {
      if (!initialize) return jsonError(res, 400, 'Bad Request: Mcp-Session-Id header is required');
      if (sessions.size >= MAX_SESSIONS) {
        // The oldest session makes room: the suite does not always end its sessions.
        const [oldest] = sessions.values();
        oldest?.kill();
        if (oldest) sessions.delete(oldest.id);
      }
      const id = randomUUID();
      current = new Session(target, id, () => sessions.delete(id), log);
      sessions.set(id, current);
    }
    const requestIds = messages.filter((m) => typeof m.method === 'string' && (typeof m.id === 'string' || typeof m.id === 'number')).map((m) => m.id as Id);
    if (requestIds.length === 0) {
      current.write(messages);
      res.writeHead(202).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'mcp-session-id': current.id });
    res.flushHeaders();
    current.wait(requestIds, res);
    current.write(messages);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close() {
      closing ??= new Promise<void>((resolve) => {
        for (const s of sessions.values()) s.kill();
        sessions.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
