/** The outcome of counting one request against a client's allowance. */
export interface RateDecision {
  allowed: boolean;
  limit: number;
  /** Requests still allowed in the current window after this one. */
  remaining: number;
  /** Whole seconds until the window ends and the allowance is full again (at least 1). */
  resetSeconds: number;
}

/**
 * A fixed window per client: the first request opens a window of `windowMs`; within it at most `limit`
 * requests pass, and refused requests do not extend it.
 */
export class FixedWindowLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();
  private lastSweep = 0;

  constructor(
    readonly limit: number,
    readonly windowMs = 60_000,
  ) {}

  take(client: string, nowMs: number): RateDecision {
    this.sweep(nowMs);
    let window = this.windows.get(client);
    // A clock that moved backwards also starts a new window, so a window never lasts longer than windowMs.
    if (!window || nowMs >= window.start + this.windowMs || nowMs < window.start) {
      window = { start: nowMs, count: 0 };
      this.windows.set(client, window);
    }
    const resetSeconds = Math.max(1, Math.ceil((window.start + this.windowMs - nowMs) / 1000));
    if (window.count >= this.limit) {
      return { allowed: false, limit: this.limit, remaining: 0, resetSeconds };
    }
    window.count += 1;
    return { allowed: true, limit: this.limit, remaining: this.limit - window.count, resetSeconds };
  }

  /** Forgets expired windows now and then, so memory follows the number of recent clients. */
  private sweep(nowMs: number): void {
    if (nowMs >= this.lastSweep && nowMs - this.lastSweep < this.windowMs) return;
    this.lastSweep = nowMs;
    for (const [client, window] of this.windows) {
      if (nowMs >= window.start + this.windowMs || nowMs < window.start) this.windows.delete(client);
    }
  }
}
