/**
 * MCP Apps: the app instances open now. Each one is a UI resource read from one server, with
 * its policy, registered with the sandbox host; a tool call an app makes names its instance, and
 * is checked against it (its server, the tool's visibility). Bounded: at most MAX_LIVE live
 * instances, the oldest closed to make room.
 */
import type { AppInstance } from '../../../contract';
import type { AppSandboxHost } from './sandbox-host';

export const MAX_LIVE = 64;

/** What the core keeps of an instance: the contract's view of it, without its HTML. */
export type LiveApp = Omit<AppInstance, 'html'>;

/**
 * How many bridge messages and log lines of one instance are recorded: a bucket of BURST that
 * refills at RATE a second. What an app sends beyond it is counted, not recorded.
 */
export const BURST = 10_000;
export const RATE = 2_000;

/**
 * How long the last bridge messages and log lines of a closed instance are still recorded: the
 * page closes an app (its view unmounted) and flushes what the bridge still held after telling
 * main, so those arrive just after the close. A closed instance calls nothing in that time.
 */
export const CLOSE_GRACE_MS = 10_000;

/** How a trace event names the app it belongs to (`meta.app`). */
export function appIdentity(app: LiveApp): { app: { instanceId: string; uri: string; tool?: string } } {
  return { app: { instanceId: app.instanceId, uri: app.uri, ...(app.tool ? { tool: app.tool } : {}) } };
}

export class AppInstances {
  /** In the order they were opened (a Map keeps insertion order): the first is the oldest. */
  private readonly live = new Map<string, { app: LiveApp; tokens: number; refilled: number }>();
  /** Closed in the last CLOSE_GRACE_MS: their late messages and log lines are still recorded (bounded as `live`). */
  private readonly closing = new Map<string, { app: LiveApp; tokens: number; refilled: number; closedAt: number }>();

  constructor(
    readonly sandbox: AppSandboxHost | undefined,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Keeps an instance already registered with the sandbox host; closes the oldest past MAX_LIVE. Returns the ids closed. */
  add(app: LiveApp): string[] {
    const closed: string[] = [];
    while (this.live.size >= MAX_LIVE) {
      const oldest = this.live.keys().next().value as string;
      this.close(oldest);
      closed.push(oldest);
    }
    this.live.set(app.instanceId, { app, tokens: BURST, refilled: this.now() });
    return closed;
  }

  get(instanceId: string): LiveApp | undefined {
    return this.live.get(instanceId)?.app;
  }

  /** Forgets an instance and stops its sandbox page being served. */
  close(instanceId: string): boolean {
    const entry = this.live.get(instanceId);
    if (!entry) return false;
    this.live.delete(instanceId);
    this.sandbox?.unregister(instanceId);
    this.closing.set(instanceId, { ...entry, closedAt: this.now() });
    while (this.closing.size > MAX_LIVE) this.closing.delete(this.closing.keys().next().value as string);
    return true;
  }

  /**
   * The instance a bridge message or log line belongs to: a live one, or one closed less than
   * CLOSE_GRACE_MS ago (its last words). Never for a tool call: that is `get`, live only.
   */
  recorded(instanceId: string): LiveApp | undefined {
    return this.#recordable(instanceId)?.app;
  }

  #recordable(instanceId: string): { app: LiveApp; tokens: number; refilled: number } | undefined {
    const live = this.live.get(instanceId);
    if (live) return live;
    const closed = this.closing.get(instanceId);
    if (!closed) return undefined;
    if (this.now() - closed.closedAt > CLOSE_GRACE_MS) {
      this.closing.delete(instanceId);
      return undefined;
    }
    return closed;
  }

  /** Every instance of a server (it was removed: its apps go with it). */
  closeServer(serverId: string): number {
    let closed = 0;
    for (const [id, { app }] of this.live) if (app.serverId === serverId && this.close(id)) closed++;
    return closed;
  }

  closeAll(): void {
    for (const id of [...this.live.keys()]) this.close(id);
  }

  get size(): number {
    return this.live.size;
  }

  /** How many of `wanted` messages of this instance may be recorded now (the rest are counted as dropped). */
  take(instanceId: string, wanted: number): number {
    const entry = this.#recordable(instanceId);
    if (!entry) return 0;
    const now = this.now();
    entry.tokens = Math.min(BURST, entry.tokens + ((now - entry.refilled) / 1000) * RATE);
    entry.refilled = now;
    const granted = Math.max(0, Math.min(wanted, Math.floor(entry.tokens)));
    entry.tokens -= granted;
    return granted;
  }
}
