import type { Priority } from './lookup.ts';
import type { TimerHandle, Timers } from './clock.ts';

export interface RateLimiterOptions {
  /** Requests allowed in any window of `windowMs`. */
  limit: number;
  windowMs: number;
  /** Milliseconds since the epoch, from the adapter's clock. */
  now: () => number;
  timers: Timers;
}

/** Held while one upstream request is in flight. */
export interface Permit {
  /** The request is over; its slot stays taken until one window after this moment. */
  release(): void;
}

/** A place in the queue. */
export interface Ticket {
  readonly granted: Promise<Permit>;
  /** Moves the ticket ahead when a more urgent caller comes to depend on it. */
  raise(priority: Priority): void;
  /** Leaves the queue; `granted` then never settles. No-op once granted. */
  cancel(): void;
  /** Best estimate of when this ticket will be granted (epoch ms). */
  estimate(): number;
  readonly isGranted: boolean;
}

/** Lower is more urgent. */
export const PRIORITY_RANK: Record<Priority, number> = { scheduled: 0, interactive: 1, background: 2 };

interface Waiter {
  rank: number;
  seq: number;
  resolve: (permit: Permit) => void;
  reject: (error: unknown) => void;
  done: boolean;
}

/**
 * A process-wide sliding-window limiter with a priority queue.
 *
 * A slot is counted from the moment a request is sent until one full window after its response arrived, so
 * whatever instant the service itself stamps on the request, no window of `windowMs` on its side ever sees more
 * than `limit` of ours. `pause(until)` (after a 429) holds every request back until then.
 */
export class RateLimiter {
  private readonly finished: number[] = [];
  private inFlight = 0;
  private pausedUntil = 0;
  private readonly queue: Waiter[] = [];
  private seq = 0;
  private timer: { handle: TimerHandle; due: number } | null = null;
  private closedWith: unknown = null;

  constructor(private readonly options: RateLimiterOptions) {
    if (!Number.isSafeInteger(options.limit) || options.limit < 1) throw new RangeError('limit must be a whole number ≥ 1');
    if (!(options.windowMs > 0)) throw new RangeError('windowMs must be positive');
  }

  get queued(): number {
    return this.queue.length;
  }

  get active(): number {
    return this.inFlight;
  }

  /** Finished requests still counted in the current window (about `limit` at most); older ones are dropped. */
  get remembered(): number {
    return this.finished.length;
  }

  get pausedUntilMs(): number {
    return this.pausedUntil;
  }

  enqueue(priority: Priority): Ticket {
    let resolve!: (permit: Permit) => void;
    let reject!: (error: unknown) => void;
    const granted = new Promise<Permit>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    const waiter: Waiter = { rank: PRIORITY_RANK[priority], seq: this.seq++, resolve, reject, done: false };
    if (this.closedWith !== null) {
      waiter.done = true;
      reject(this.closedWith);
    } else {
      this.insert(waiter);
      this.pump();
    }
    return {
      granted,
      raise: (next) => {
        if (waiter.done || PRIORITY_RANK[next] >= waiter.rank) return;
        this.remove(waiter);
        waiter.rank = PRIORITY_RANK[next];
        this.insert(waiter);
        this.pump();
      },
      cancel: () => {
        if (waiter.done) return;
        waiter.done = true;
        this.remove(waiter);
        this.pump();
      },
      estimate: () => (waiter.done ? this.options.now() : this.estimateAt(this.queue.indexOf(waiter))),
      get isGranted() {
        return waiter.done;
      },
    };
  }

  /** When a request of this priority, queued now, would be sent. */
  estimateStart(priority: Priority): number {
    const rank = PRIORITY_RANK[priority];
    let ahead = 0;
    while (ahead < this.queue.length && (this.queue[ahead]?.rank ?? Infinity) <= rank) ahead++;
    return this.estimateAt(ahead);
  }

  /** Nothing is sent before `untilMs` (the service said 429). */
  pause(untilMs: number): void {
    if (untilMs <= this.pausedUntil) return;
    this.pausedUntil = untilMs;
    this.pump();
  }

  /** Rejects everyone waiting; later tickets are rejected at once. */
  close(error: unknown): void {
    this.closedWith = error;
    this.clearTimer();
    for (const waiter of this.queue.splice(0)) {
      waiter.done = true;
      waiter.reject(error);
    }
  }

  private insert(waiter: Waiter): void {
    let index = this.queue.length;
    while (index > 0) {
      const before = this.queue[index - 1];
      if (!before || before.rank < waiter.rank || (before.rank === waiter.rank && before.seq < waiter.seq)) break;
      index--;
    }
    this.queue.splice(index, 0, waiter);
  }

  private remove(waiter: Waiter): void {
    const index = this.queue.indexOf(waiter);
    if (index >= 0) this.queue.splice(index, 1);
  }

  private prune(now: number): void {
    const horizon = now - this.options.windowMs;
    while (this.finished.length > 0 && (this.finished[0] ?? Infinity) <= horizon) this.finished.shift();
  }

  private used(now: number): number {
    this.prune(now);
    return this.inFlight + this.finished.length;
  }

  private pump(): void {
    if (this.closedWith !== null) return;
    const now = this.options.now();
    while (this.queue.length > 0 && now >= this.pausedUntil && this.used(now) < this.options.limit) {
      const waiter = this.queue.shift();
      if (!waiter) break;
      waiter.done = true;
      this.inFlight++;
      waiter.resolve(this.permit());
    }
    this.schedule(now);
  }

  private permit(): Permit {
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.inFlight--;
        const at = this.options.now();
        // Keep `finished` sorted even if a manual clock was moved backwards.
        let index = this.finished.length;
        while (index > 0 && (this.finished[index - 1] ?? -Infinity) > at) index--;
        this.finished.splice(index, 0, at);
        this.prune(at);
        this.pump();
      },
    };
  }

  /** Wake up when the next slot frees or the pause ends; in-flight requests wake us when they release. */
  private schedule(now: number): void {
    if (this.queue.length === 0) {
      this.clearTimer();
      return;
    }
    let due: number | null = null;
    if (now < this.pausedUntil) due = this.pausedUntil;
    else if (this.finished.length > 0 && this.used(now) >= this.options.limit) {
      due = (this.finished[0] ?? now) + this.options.windowMs;
    }
    if (due === null) {
      this.clearTimer();
      return;
    }
    if (this.timer && this.timer.due === due) return;
    this.clearTimer();
    const handle = this.options.timers.setTimeout(() => {
      this.timer = null;
      this.pump();
    }, due - now);
    this.timer = { handle, due };
  }

  private clearTimer(): void {
    if (this.timer) this.options.timers.clearTimeout(this.timer.handle);
    this.timer = null;
  }

  /** When the waiter at queue position `position` (0 = next) gets a slot, if nothing else changes. */
  private estimateAt(position: number): number {
    const { limit, windowMs } = this.options;
    const now = this.options.now();
    const free = Math.max(0, limit - this.used(now));
    const cycle = Math.floor(position / limit);
    const index = position % limit;
    // The first `free` slots are free now; only the taken ones are listed, so a huge limit costs nothing.
    let base = now;
    if (index >= free) {
      const freeLater = this.finished.map((end) => end + windowMs);
      // An in-flight request frees its slot one window after it ends, at the earliest one window from now.
      for (let i = 0; i < this.inFlight; i++) freeLater.push(now + windowMs);
      freeLater.sort((a, b) => a - b);
      base = freeLater[index - free] ?? now;
    }
    return Math.max(this.pausedUntil, base + cycle * windowMs, now);
  }
}
