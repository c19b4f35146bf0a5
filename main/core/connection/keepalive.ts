/**
 * Keepalive: the legacy era's ping heartbeat and the idle timer of one connection.
 *
 * Every `pingIntervalSec` a ping goes out (the modern era has none); `pingMisses` misses in a row
 * make the connection unhealthy, and the state machine drops it (and heals it if wanted). Every
 * use restarts the idle timer; after `idleTimeoutSec` without one the state machine disconnects
 * cleanly, and the next use reconnects.
 */
import type { Client } from '@modelcontextprotocol/client';
import type { ServerConfig } from '../../../contract';
import { errorMessage, type TraceWriter } from './parts';

export interface KeepaliveHost {
  config(): ServerConfig;
  readonly trace: TraceWriter;
  /** The live client, if there is one. */
  liveClient(): Client | undefined;
  /** Too many pings in a row went unanswered on `client`. */
  unhealthy(client: Client, reason: string): Promise<void>;
  /** Nothing used the connection for the idle timeout. */
  idle(): void;
}

export class Keepalive {
  private pingTimer: NodeJS.Timeout | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  /** The timeout the idle timer was set with (a changed setting sets a new one). */
  private idleMs = 0;
  private missedPings = 0;

  constructor(private readonly host: KeepaliveHost) {}

  /** On connect: the heartbeat for a legacy-era connection (timers of an earlier one stop). */
  start(era: 'legacy' | 'modern'): void {
    this.stop();
    this.missedPings = 0;
    const interval = this.host.config().pingIntervalSec * 1000;
    if (era !== 'legacy' || interval <= 0) return; // the modern era has no ping
    const beat = async () => {
      const client = this.host.liveClient();
      if (!client) return;
      try {
        await client.ping({ timeout: Math.min(interval, this.host.config().requestTimeoutSec * 1000) });
        this.missedPings = 0;
      } catch (error) {
        if (this.host.liveClient() !== client) return;
        this.missedPings++;
        this.host.trace({ channel: 'lifecycle', kind: 'error', dir: 'none', text: `ping missed (${this.missedPings} of ${this.host.config().pingMisses}): ${errorMessage(error)}` });
        if (this.missedPings >= this.host.config().pingMisses) {
          await this.host.unhealthy(client, `${this.missedPings} pings in a row went unanswered; the connection is unhealthy`);
          return;
        }
      }
      if (this.host.liveClient() === client) this.pingTimer = setTimeout(beat, interval);
    };
    this.pingTimer = setTimeout(beat, interval);
  }

  /** The connection was used: the idle timeout starts again (every request does this: the timer is restarted, not made anew). */
  touch(): void {
    const idle = this.host.config().idleTimeoutSec * 1000;
    if (idle <= 0) return;
    if (this.idleTimer && this.idleMs === idle) {
      this.idleTimer.refresh();
      return;
    }
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleMs = idle;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      this.host.idle();
    }, idle);
  }

  stop(): void {
    if (this.pingTimer) clearTimeout(this.pingTimer);
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.pingTimer = undefined;
    this.idleTimer = undefined;
  }
}
