/**
 * A window's lease on a whole feed from main (`traceFeed`: every trace event; `logFeed`: every log
 * line). Views that need it hold it; the first holder takes it, it is renewed while anyone holds
 * it, and the last one gives it back. Main lets a lease lapse when it is not renewed in time.
 */
export class FeedLease {
  /** This window's name for the lease, so main counts each window's separately. */
  readonly name = `w${Math.random().toString(36).slice(2)}${Date.now().toString(36)}`;
  private holders = 0;
  private renewTimer: ReturnType<typeof setInterval> | undefined;

  /**
   * `ask`: the contract call (take or renew with `full: true`, give back with `false`); `begin`
   * and `end`: what the owner does when the first holder came and when the last one left.
   */
  constructor(
    private readonly options: {
      ask: (lease: string, full: boolean) => Promise<unknown>;
      leaseMs: number;
      /** For error messages: "the full trace feed". */
      what: string;
      begin: () => void;
      end: () => void;
    },
  ) {}

  get held(): boolean {
    return this.holders > 0;
  }

  /** Holds the lease until the returned release is called (once is enough; more are ignored). */
  acquire(): () => void {
    this.holders++;
    if (this.holders === 1) {
      this.renewTimer = setInterval(() => {
        this.options.ask(this.name, true).catch((error: unknown) => console.error(`Switchboard: renewing ${this.options.what} failed`, error));
      }, this.options.leaseMs / 3);
      this.options.begin();
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holders--;
      if (this.holders > 0) return;
      clearInterval(this.renewTimer);
      this.renewTimer = undefined;
      this.options.end();
      this.options.ask(this.name, false).catch((error: unknown) => console.error(`Switchboard: leaving ${this.options.what} failed`, error));
    };
  }

  /** The page is going away: the lease is given back now rather than running out (best effort; `pageshow` takes it again). */
  leave(): void {
    if (this.held) this.options.ask(this.name, false).catch(() => undefined);
  }

  /** The page came back from the back/forward cache: a lease given up on leaving is begun again. */
  returned(): void {
    if (this.held) this.options.begin();
  }
}
