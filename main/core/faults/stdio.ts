/**
 * Faults on a stdio pipe (#12): the stdio proxy hands every JSON-RPC line to these, per direction,
 * and they forward it (the same bytes, the same object), hold it, withhold it or answer it.
 *
 *   client → server  latency      the request line is held `ms` before it is forwarded
 *                    stall        the request is forwarded; its answer is never forwarded to the client
 *                    jsonrpc-error the proxy answers `{"jsonrpc":"2.0","id":…,"error":{code,message}}`;
 *                                 the server never sees the request
 *   server → client  drop-notifications  a notification line whose method matches is not forwarded
 *                                 (on stdio there is no answer stream: `method` and `notification`
 *                                 both match the notification's own method)
 *
 * Order is kept per direction: a line after a held one waits behind it. Lines that are not JSON-RPC
 * (garbage, partial) are forwarded untouched, in order.
 */
import { describeMessage, type AppliedFault, type FaultEngine, type FaultType } from './engine';

export interface StdioFaultsOptions<L> {
  forwardToServer(line: L): void;
  /** A forwarded server line (the same object as given) or an answer made by the proxy (a string ending in "\n"). */
  forwardToClient(line: L | string): void;
  /** One fault applied to one message (the proxy records a `fault` trace event). */
  onApplied?(applied: AppliedFault): void;
}

export interface StdioFaults<L> {
  /** A line the client wrote (bytes as read, with its newline), and its parse (undefined: not JSON). */
  fromClient(line: L, parsed: unknown): void;
  /** A line the server wrote. */
  fromServer(line: L, parsed: unknown): void;
  /** Lines held for latency, per direction. */
  pending(): { toServer: number; toClient: number };
  /** Resolves once every held line has been forwarded. */
  drain(): Promise<void>;
  /** Forwards every held line now (the pipe is closing) and stops the timers. */
  flush(): void;
}

/** Answers withheld by `stall` are remembered up to this many ids (docs/limits.md). */
export const MAX_STALLED_IDS = 10_000;

/** Keeps lines in order; a line may be held until a time, and every later line waits behind it. */
class Outlet<T> {
  private readonly queue: { at: number; item: T }[] = [];
  private timer: NodeJS.Timeout | undefined;
  private waiters: (() => void)[] = [];

  constructor(private readonly send: (item: T) => void) {}

  get size(): number {
    return this.queue.length;
  }

  push(item: T, delayMs: number): void {
    if (this.queue.length === 0 && delayMs <= 0) {
      this.send(item);
      return;
    }
    const last = this.queue.at(-1)?.at ?? 0;
    this.queue.push({ at: Math.max(Date.now() + Math.max(0, delayMs), last), item });
    this.schedule();
  }

  private schedule(): void {
    if (this.timer !== undefined) return;
    const head = this.queue[0];
    if (!head) {
      const waiters = this.waiters;
      this.waiters = [];
      for (const w of waiters) w();
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const now = Date.now();
      while (this.queue.length > 0 && this.queue[0]!.at <= now) this.send(this.queue.shift()!.item);
      this.schedule();
    }, Math.max(0, head.at - Date.now()));
  }

  drain(): Promise<void> {
    if (this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  flush(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    while (this.queue.length > 0) this.send(this.queue.shift()!.item);
    this.schedule();
  }
}

type Message = { id?: unknown; method?: unknown; result?: unknown; error?: unknown };

const asMessages = (parsed: unknown): Message[] =>
  (Array.isArray(parsed) ? parsed : [parsed]).filter((m): m is Message => m !== null && typeof m === 'object' && !Array.isArray(m));

/** Ids longer than this are not remembered for `stall` (their answer is forwarded; docs/limits.md). */
export const MAX_STALLED_ID_CHARS = 1024;

const idKey = (id: unknown): string | undefined =>
  typeof id === 'string' ? (id.length <= MAX_STALLED_ID_CHARS ? `s:${id}` : undefined) : typeof id === 'number' ? `n:${id}` : undefined;

const isResponse = (m: Message): boolean => m.method === undefined && ('result' in m || 'error' in m) && idKey(m.id) !== undefined;

export function createStdioFaults<L>(engine: FaultEngine, options: StdioFaultsOptions<L>): StdioFaults<L> {
  const toServer = new Outlet<L>((line) => options.forwardToServer(line));
  const toClient = new Outlet<L | string>((line) => options.forwardToClient(line));
  /** Ids of requests whose answer is withheld (insertion order: the oldest is forgotten first). */
  const stalled = new Set<string>();
  const applied = (a: AppliedFault): void => {
    try {
      options.onApplied?.(a);
    } catch {
      // recording a fault never breaks the pipe
    }
  };

  return {
    fromClient(line, parsed) {
      if (engine.size === 0 || parsed === undefined) {
        toServer.push(line, 0);
        return;
      }
      const info = describeMessage(parsed);
      if (info.methods.length === 0) {
        toServer.push(line, 0); // a response to a server's request, or not JSON-RPC
        return;
      }
      const plan = engine.plan(info, ['latency', 'stall', 'jsonrpc-error']);
      const method = info.methods[0];
      const rpcId = info.ids[0];
      const idOf = (type: FaultType): number | undefined => plan.appliedIds[plan.applied.lastIndexOf(type)];
      if (plan.latencyMs > 0) applied({ type: 'latency', faultId: idOf('latency'), rpcId, method, detail: `held ${plan.latencyMs} ms` });
      const action = plan.action;
      if (action?.type === 'jsonrpc-error') {
        const requests = asMessages(parsed).filter((m) => typeof m.method === 'string' && (typeof m.id === 'string' || typeof m.id === 'number'));
        const answers = requests.map((m) => ({ jsonrpc: '2.0', id: m.id, error: { code: action.code, message: action.message } }));
        const body = Array.isArray(parsed) ? answers : answers[0];
        toClient.push(JSON.stringify(body) + '\n', plan.latencyMs);
        applied({ type: 'jsonrpc-error', faultId: idOf('jsonrpc-error'), rpcId, method, detail: `answered ${action.code} ${action.message}` });
        return;
      }
      if (action?.type === 'stall') {
        for (const id of info.ids) {
          const key = idKey(id);
          if (key === undefined) continue;
          stalled.add(key);
          if (stalled.size > MAX_STALLED_IDS) stalled.delete(stalled.values().next().value!);
        }
        applied({ type: 'stall', faultId: idOf('stall'), rpcId, method, detail: 'its answer will not be forwarded' });
      }
      toServer.push(line, plan.latencyMs);
    },

    fromServer(line, parsed) {
      if (parsed !== undefined && (stalled.size > 0 || engine.size > 0)) {
        const messages = asMessages(parsed);
        if (stalled.size > 0 && messages.length > 0 && messages.every((m) => isResponse(m) && stalled.has(idKey(m.id)!))) {
          for (const m of messages) stalled.delete(idKey(m.id)!);
          applied({ type: 'stall', rpcId: messages[0]!.id as string | number, detail: 'answer withheld' });
          return;
        }
        const only = messages.length === 1 && !Array.isArray(parsed) ? messages[0]! : undefined;
        if (only && typeof only.method === 'string' && only.id === undefined && engine.size > 0) {
          const plan = engine.plan(describeMessage(only), ['drop-notifications']);
          const dropped = plan.dropNotifications.length > 0 ? engine.dropNotification(plan, only.method) : undefined;
          if (dropped !== undefined) {
            applied({ type: 'drop-notifications', faultId: dropped, method: only.method, detail: `dropped ${only.method.slice(0, 200)}` });
            return;
          }
        }
      }
      toClient.push(line, 0);
    },

    pending: () => ({ toServer: toServer.size, toClient: toClient.size }),
    drain: async () => {
      await Promise.all([toServer.drain(), toClient.drain()]);
    },
    flush() {
      toServer.flush();
      toClient.flush();
    },
  };
}
