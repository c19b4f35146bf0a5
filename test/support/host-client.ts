/**
 * A contract client over the built browser-mode host's WebSocket, speaking it as the renderer's
 * carrier does (token header, allowed Origin): for integration tests that drive the real host
 * process. Every call has a deadline, so a missing reply fails as a hang instead of waiting.
 */
import { readFileSync } from 'node:fs';
import { WebSocket } from 'ws';
import type { Envelope } from '../../contract';
import { WS_PATH } from '../../contract/ws';

export class HangError extends Error {
  constructor(method: string, ms: number) {
    super(`hang: no reply to ${method} within ${ms} ms`);
  }
}

type Frame = { type: 'reply'; id: number | null; reply: Envelope } | { type: 'event'; event: string; payload: unknown };

export class HostClient {
  private nextId = 1;
  private readonly waiting = new Map<number, { done(reply: Envelope): void; fail(error: Error): void }>();
  private readonly listeners = new Set<(event: string, payload: unknown) => void>();
  readonly closed: Promise<{ code: number; reason: string }>;

  private constructor(readonly ws: WebSocket) {
    this.closed = new Promise((done) =>
      ws.once('close', (code, reason) => {
        for (const w of this.waiting.values()) w.fail(new Error(`the host's WebSocket closed (${code}) while waiting for a reply`));
        this.waiting.clear();
        done({ code, reason: reason.toString() });
      }),
    );
    ws.on('message', (data) => {
      let frame: Frame;
      try {
        frame = JSON.parse(data.toString()) as Frame;
      } catch {
        return; // not JSON: the waiting call's deadline catches it
      }
      if (frame.type === 'reply') {
        if (typeof frame.id !== 'number') return;
        const w = this.waiting.get(frame.id);
        this.waiting.delete(frame.id);
        w?.done(frame.reply);
      } else for (const listener of this.listeners) listener(frame.event, frame.payload);
    });
  }

  /** Opens a socket to a host started with `startBrowserMode` (its printed URL carries the token). */
  static open(app: { url: string; origin: string }): Promise<HostClient> {
    const token = new URL(app.url).searchParams.get('token') ?? '';
    const ws = new WebSocket(`${app.origin.replace(/^http/, 'ws')}${WS_PATH}`, { headers: { 'x-switchboard-token': token, origin: app.origin }, maxPayload: 1024 * 1024 * 1024 });
    return new Promise((resolveOpen, reject) => {
      ws.once('open', () => resolveOpen(new HostClient(ws)));
      ws.once('error', reject);
    });
  }

  /** Every pushed event, as it arrives. */
  onEvent(listener: (event: string, payload: unknown) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  call(method: string, args: unknown = {}, deadlineMs = 60_000): Promise<Envelope> {
    return this.callText(method, JSON.stringify(args), deadlineMs);
  }

  /** Arguments as JSON text, for values too deep for this side's JSON.stringify too. */
  callText(method: string, argsText: string, deadlineMs = 60_000): Promise<Envelope> {
    const id = this.nextId++;
    return new Promise((done, fail) => {
      if (this.ws.readyState !== WebSocket.OPEN) return fail(new Error(`the host's WebSocket is closed before ${method}`));
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        fail(new HangError(method, deadlineMs));
      }, deadlineMs);
      this.waiting.set(id, {
        done: (reply) => {
          clearTimeout(timer);
          done(reply);
        },
        fail: (error) => {
          clearTimeout(timer);
          fail(error);
        },
      });
      this.ws.send(`{"id":${id},"method":${JSON.stringify(method)},"args":${argsText}}`);
    });
  }

  async ok<T = Record<string, unknown>>(method: string, args: unknown = {}, deadlineMs?: number): Promise<T> {
    const reply = await this.call(method, args, deadlineMs);
    if (!reply.ok) throw new Error(`${method} failed: ${reply.error.message}`);
    return reply.result as T;
  }

  close(): void {
    this.ws.close();
  }
}

/** The resident set size of a process, from /proc (Linux), in MiB. */
export function rssMiB(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return line ? Number(/(\d+)/.exec(line)![1]) / 1024 : Number.NaN;
}
