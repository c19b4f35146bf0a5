/**
 * Named, timed leases: a window says it wants something (the whole trace feed, every log line)
 * for the next `ms`, renewing while it does. Wanted while any lease runs; a window that vanished
 * without giving its lease back holds nothing for long, and there are never more than `max`
 * (the oldest is dropped).
 */
export class Leases {
  private readonly timers = new Map<string, NodeJS.Timeout>();

  /** `onChange`: told when the first lease begins (true) and the last one ends (false). */
  constructor(
    private readonly ms: number,
    private readonly onChange: (held: boolean) => void = () => undefined,
    private readonly max = 32,
  ) {}

  get held(): boolean {
    return this.timers.size > 0;
  }

  /** Takes or renews lease `name` (`want`), or gives it up; whether any lease runs now. */
  set(name: string, want: boolean): boolean {
    const before = this.held;
    this.drop(name);
    if (want) {
      if (this.timers.size >= this.max) this.drop(this.timers.keys().next().value!);
      const timer = setTimeout(() => this.set(name, false), this.ms);
      timer.unref();
      this.timers.set(name, timer);
    }
    if (this.held !== before) this.onChange(this.held);
    return this.held;
  }

  close(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  private drop(name: string): void {
    clearTimeout(this.timers.get(name));
    this.timers.delete(name);
  }
}
