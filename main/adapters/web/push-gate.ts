/**
 * Backpressure for browser mode's pushes, one gate per WebSocket.
 *
 * A page that stops reading (a frozen tab, a laptop lid, a debugger paused on a breakpoint)
 * must not make main buffer every push for it: one such socket beside a flooding server grew
 * main by gigabytes a minute. Replies always go out — a caller waits for each one, so they are
 * bounded by what the page asked — but pushes (trace batches, snapshots, log lines, state
 * changes: everything the page can ask for again) are held back while the socket has more than
 * `highWater` bytes queued. Once it drains below `lowWater`, the socket gets one `resync` event
 * saying how many pushes it missed, and the page queries what it shows again. Nothing is lost
 * from the trace: the store has every event; only the push of it was skipped.
 */
import { encodeEvent } from '../../../contract/ws';

/** What the gate reads of a socket (the `ws` package's WebSocket has it). */
export interface PushSocket {
  readonly bufferedAmount: number;
  readonly readyState: number;
}

const OPEN = 1;

export const PUSH_LIMITS = {
  /** Bytes queued for a socket above which its pushes are held back. */
  highWater: 8 * 1024 * 1024,
  /** Bytes queued below which a held-back socket is told to resync. */
  lowWater: 1024 * 1024,
} as const;

export class PushGate {
  private held = 0;
  private since = 0;

  constructor(
    private readonly socket: PushSocket,
    /** Sends one frame on that socket (and reports a failure to send). */
    private readonly send: (frame: string) => void,
    private readonly limits: { highWater: number; lowWater: number } = PUSH_LIMITS,
  ) {}

  /** Pushes held back since the socket fell behind (0 when it is keeping up). */
  get behind(): number {
    return this.held;
  }

  push(frame: string): void {
    if (this.socket.readyState !== OPEN) return;
    if (this.held > 0 || this.socket.bufferedAmount > this.limits.highWater) {
      if (this.held === 0) this.since = Date.now();
      this.held++;
      return;
    }
    this.send(frame);
  }

  /** Called on a timer: a socket that has drained gets its `resync`. True when it was sent. */
  poll(): boolean {
    if (this.held === 0 || this.socket.readyState !== OPEN || this.socket.bufferedAmount > this.limits.lowWater) return false;
    const held = this.held;
    this.held = 0;
    this.send(encodeEvent('resync', { held, since: this.since }));
    return true;
  }
}
