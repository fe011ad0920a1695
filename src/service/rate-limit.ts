/** The outcome of counting one request against a client's allowance. */
export interface RateDecision {
  allowed: boolean;
  limit: number;
  /** Requests still allowed in the current window after this one. */
  remaining: number;
  /** Whole seconds until the window ends and the allowance is full again (at least 1). */
  resetSeconds: number;
}

/** Clients tracked at once by default: about 10 MB at most. */
export const DEFAULT_MAX_CLIENTS = 100_000;

/**
 * A fixed window per client: the first request opens a window of `windowMs`; within it at most `limit`
 * requests pass, and refused requests do not extend it.
 *
 * Memory follows the clients of the last window or two, and never more than `maxClients` windows: when a new client
 * arrives with the table full of live windows (a flood from very many addresses), the oldest window is forgotten,
 * so that client starts afresh next time rather than new clients being refused.
 */
export class FixedWindowLimiter {
  /** In order of window start, oldest first: a restarted window moves to the end. */
  private readonly windows = new Map<string, { start: number; count: number }>();
  private lastSweep = 0;

  constructor(
    readonly limit: number,
    readonly windowMs = 60_000,
    readonly maxClients = DEFAULT_MAX_CLIENTS,
  ) {
    if (!Number.isSafeInteger(maxClients) || maxClients < 1) throw new RangeError('maxClients must be a whole number ≥ 1');
  }

  /** Clients with a window in memory. */
  get size(): number {
    return this.windows.size;
  }

  take(client: string, nowMs: number): RateDecision {
    this.sweep(nowMs);
    let window = this.windows.get(client);
    // A clock that moved backwards also starts a new window, so a window never lasts longer than windowMs.
    if (!window || nowMs >= window.start + this.windowMs || nowMs < window.start) {
      if (window) this.windows.delete(client);
      else this.makeRoom(nowMs);
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

  private makeRoom(nowMs: number): void {
    if (this.windows.size < this.maxClients) return;
    this.sweep(nowMs, true);
    while (this.windows.size >= this.maxClients) {
      const oldest = this.windows.keys().next().value;
      if (oldest === undefined) return;
      this.windows.delete(oldest);
    }
  }

  /** Forgets expired windows once a window (or when forced), so memory follows the number of recent clients. */
  private sweep(nowMs: number, force = false): void {
    if (!force && nowMs >= this.lastSweep && nowMs - this.lastSweep < this.windowMs) return;
    this.lastSweep = nowMs;
    for (const [client, window] of this.windows) {
      if (nowMs >= window.start + this.windowMs || nowMs < window.start) this.windows.delete(client);
    }
  }
}
